// Randomness for the browser's client halves, with exactly the sampling rules of aggregator/privacy/bytestream.py:
//   uint32   — the next 4 bytes, little-endian;
//   random() — a double in [0, 1) from two uint32s: ((a >>> 5) * 2^26 + (b >>> 6)) / 2^53;
//   integers(low, high) — uniform on [low, high), range r ≤ 2^32, by rejection of u ≥ 2^32 − (2^32 mod r).
// The default source is crypto.getRandomValues; tests replay given bytes (ByteSource.fromBytes).
// Math.random is never used.

const TWO32 = 4294967296;

export class ByteSource {
  /** @param {(buffer: Uint8Array) => void} [fill] fills a buffer with random bytes (default: crypto.getRandomValues). */
  constructor(fill) {
    if (fill === undefined) {
      const cryptoObj = globalThis.crypto;
      if (!cryptoObj || typeof cryptoObj.getRandomValues !== "function") {
        throw new Error("crypto.getRandomValues is not available");
      }
      fill = (buffer) => cryptoObj.getRandomValues(buffer);
    }
    this.fill = fill;
    this.pool = new Uint8Array(0);
    this.offset = 0;
    this.consumed = 0;
  }

  /** A source that replays ``bytes`` (Uint8Array) and throws when they run out. */
  static fromBytes(bytes) {
    let position = 0;
    const source = new ByteSource((buffer) => {
      if (position + buffer.length > bytes.length) throw new Error("the byte stream ran out");
      buffer.set(bytes.subarray(position, position + buffer.length));
      position += buffer.length;
    });
    source.poolSize = 4;  // never read ahead of what is used
    return source;
  }

  _byte() {
    if (this.offset >= this.pool.length) {
      this.pool = new Uint8Array(this.poolSize ?? 1024);
      this.fill(this.pool);
      this.offset = 0;
    }
    this.consumed += 1;
    return this.pool[this.offset++];
  }

  uint32() {
    const b0 = this._byte(), b1 = this._byte(), b2 = this._byte(), b3 = this._byte();
    return (b0 | (b1 << 8) | (b2 << 16) | (b3 << 24)) >>> 0;
  }

  random() {
    const a = this.uint32() >>> 5;
    const b = this.uint32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  integers(low, high) {
    const range = high - low;
    if (!(range >= 1 && range <= TWO32)) throw new RangeError("integers() supports ranges of 1 to 2^32 values");
    const limit = TWO32 - (TWO32 % range);
    for (;;) {
      const u = this.uint32();
      if (u < limit) return low + (u % range);
    }
  }
}

/** Index drawn by inverse CDF, as aggregator/privacy/assignment.assign: the first i with u < cdf[i]. */
export function assign(cdf, rng) {
  const u = rng.random();
  let i = 0;
  while (i < cdf.length - 1 && cdf[i] <= u) i += 1;
  return i;
}

/** A seeded byte source for tests (xorshift32): the same draws on every run, where the browser draws crypto bytes. */
import { ByteSource } from "../../static/js/random.mjs";

export function seeded(seed) {
  let x = (seed >>> 0) || 1;
  return new ByteSource((buffer) => {
    for (let i = 0; i < buffer.length; i += 1) {
      x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
      buffer[i] = x & 0xff;
    }
    return buffer;
  });
}

// Packed unary reports (aggregator/privacy/bits.py): bit v in byte v >> 3 at position v & 7; base64 on the wire.

export function pack(bits) {
  const bytes = new Uint8Array(Math.ceil(bits.length / 8));
  bits.forEach((bit, v) => { if (bit) bytes[v >> 3] |= 1 << (v & 7); });
  return bytes;
}

export function unpack(bytes, domain) {
  return Array.from({ length: domain }, (_, v) => (bytes[v >> 3] >> (v & 7)) & 1);
}

export function toBase64(bytes) {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

export function fromBase64(text) {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

export { BHttpDecoder } from "./src/decoder.js";
export { BHttpEncoder } from "./src/encoder.js";
export * from "./src/errors.js";

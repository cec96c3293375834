// One side of an Oblivious HTTP exchange in JavaScript, for tests/js/test_ohttp_interop.py: reads a JSON request on
// stdin, writes the JSON answer on stdout (byte strings in hex), through static/js/ohttp.mjs and the vendored bhttp-js
// — the code the page runs.
//   {"op": "encapsulate", "key_config", "url", "body"} -> {"encapsulated", "secret", "enc"}  (a JSON POST to url)
//   {"op": "open", "secret", "enc", "response"}        -> {"status", "content_type", "body"}
import { readFileSync } from "node:fs";

import { BHttpDecoder, BHttpEncoder } from "../../static/vendor/bhttp-js/mod.js";
import { decapsulateResponse, encapsulateRequest, parseKeyConfig } from "../../static/js/ohttp.mjs";

const request = JSON.parse(readFileSync(0, "utf8"));
const hex = (s) => Uint8Array.from(Buffer.from(s, "hex"));
const toHex = (b) => Buffer.from(b).toString("hex");
let answer;
if (request.op === "encapsulate") {
  const inner = await new BHttpEncoder().encodeRequest(new Request(request.url, {
    method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: request.body,
  }));
  const { encapsulated, context } = await encapsulateRequest(parseKeyConfig(hex(request.key_config)), inner);
  answer = { encapsulated: toHex(encapsulated), secret: toHex(context.secret), enc: toHex(context.enc) };
} else if (request.op === "open") {
  const plain = await decapsulateResponse({ secret: hex(request.secret), enc: hex(request.enc) }, hex(request.response));
  const response = new BHttpDecoder().decodeResponse(plain);
  answer = { status: response.status, content_type: response.headers.get("content-type"), body: await response.text() };
} else {
  throw new Error(`unknown op ${request.op}`);
}
process.stdout.write(JSON.stringify(answer));

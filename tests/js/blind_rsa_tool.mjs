// One step of the RFC 9474 exchange in JavaScript, for tests/js/test_blind_rsa_interop.py: reads a JSON request on
// stdin, writes the JSON answer on stdout. Client steps go through static/js/credentials/blind.mjs; the server step and the
// verification through the vendored @cloudflare/blindrsa-ts and WebCrypto. Byte strings are unpadded base64url.
//   {"op": "start", "spki"}                        -> {"blindedMsg", "pending"}
//   {"op": "finish", "pending", "blindSig"}        -> {"value", "signature"}
//   {"op": "sign", "pkcs8", "blindedMsg"}          -> {"blindSig"}
//   {"op": "verify", "spki", "value", "signature"} -> {"valid"}
import { readFileSync } from "node:fs";

import { RSABSSA } from "../../static/vendor/blindrsa-ts/index.js";
import {
  finishCredential, fromBase64url, importPublicKey, startCredential, toBase64url,
} from "../../static/js/credentials/blind.mjs";

const request = JSON.parse(readFileSync(0, "utf8"));
const suite = RSABSSA.SHA384.PSS.Randomized();
const algorithm = { name: "RSA-PSS", hash: "SHA-384" };
let answer;
if (request.op === "start") {
  answer = await startCredential(request.spki);
} else if (request.op === "finish") {
  answer = await finishCredential(request.pending, request.blindSig);
} else if (request.op === "sign") {
  const key = await crypto.subtle.importKey("pkcs8", fromBase64url(request.pkcs8), algorithm, true, ["sign"]);
  answer = { blindSig: toBase64url(await suite.blindSign(key, fromBase64url(request.blindedMsg))) };
} else if (request.op === "verify") {
  const key = await importPublicKey(request.spki);
  answer = { valid: await suite.verify(key, fromBase64url(request.signature), fromBase64url(request.value)) };
} else {
  throw new Error(`unknown op ${request.op}`);
}
process.stdout.write(JSON.stringify(answer));

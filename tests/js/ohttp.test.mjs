// static/js/ohttp.mjs, the browser's Oblivious HTTP client, with the vendored @hpke/core and bhttp-js: RFC 9458
// Appendix A's request encapsulated byte for byte from its ephemeral key, and its response opened; a relayed POST is
// Binary HTTP the gateway's codec reads (tests/engine/test_ohttp.py decodes what tests/js/ohttp_tool.mjs prints);
// an answer that is not an Encapsulated Response becomes a 502.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { BHttpDecoder } from "../../static/vendor/bhttp-js/mod.js";
import { Aes128Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from "../../static/vendor/hpke-core/mod.js";
import {
  decapsulateResponse, describeRoute, encapsulateRequest, keyFingerprint, parseKeyConfig, transport,
} from "../../static/js/ohttp.mjs";

const v = JSON.parse(readFileSync(new URL("../engine/rfc9458_vectors.json", import.meta.url), "utf8"));
const hex = (s) => Uint8Array.from(Buffer.from(s, "hex"));
const toHex = (b) => Buffer.from(b).toString("hex");
const suite = new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() });

async function ephemeral() {
  return { privateKey: await suite.kem.deserializePrivateKey(hex(v.ephemeral_private_key)),
           publicKey: await suite.kem.deserializePublicKey(hex(v.ephemeral_public_key)) };
}

test("the key configuration of RFC 9458 Appendix A is read", () => {
  const config = parseKeyConfig(hex(v.key_config));
  assert.equal(config.keyId, 1);
  assert.equal(toHex(config.publicKey), v.key_config.slice(6, 70));
  assert.throws(() => parseKeyConfig(hex(v.key_config).slice(0, 40)));
  const other = hex(v.key_config);
  other[2] = 0x10;  // P-256: not this client's KEM
  assert.throws(() => parseKeyConfig(other));
});

test("the request of RFC 9458 Appendix A is encapsulated byte for byte, and its response opened", async () => {
  const config = parseKeyConfig(hex(v.key_config));
  const { encapsulated, context } = await encapsulateRequest(config, hex(v.request), { ekm: await ephemeral() });
  assert.equal(toHex(encapsulated), v.encapsulated_request);
  assert.equal(toHex(context.secret), v.exported_secret);
  assert.equal(toHex(await decapsulateResponse(context, hex(v.encapsulated_response))), v.response);
  const tampered = hex(v.encapsulated_response);
  tampered[tampered.length - 1] ^= 1;
  await assert.rejects(decapsulateResponse(context, tampered));
  const response = new BHttpDecoder().decodeResponse(await decapsulateResponse(context, hex(v.encapsulated_response)));
  assert.equal(response.status, 200);
});

test("a fresh encapsulation differs every time (a new ephemeral key)", async () => {
  const config = parseKeyConfig(hex(v.key_config));
  const a = await encapsulateRequest(config, hex(v.request));
  const b = await encapsulateRequest(config, hex(v.request));
  assert.notEqual(toHex(a.encapsulated), toHex(b.encapsulated));
  assert.equal(toHex(a.encapsulated.slice(0, 7)), "01002000010001");
});

test("the direct route posts JSON without cookie or referrer; the relayed one only ciphertext to the relay", async () => {
  const calls = [];
  const direct = transport(null, { fetch: async (url, init) => { calls.push([url, init]); return new Response("{}"); } });
  await direct("https://survey.example/api/surveys/s/reports/", "{\"report\":1}");
  assert.equal(calls[0][1].credentials, "omit");
  assert.equal(calls[0][1].referrerPolicy, "no-referrer");
  assert.equal(calls[0][1].body, "{\"report\":1}");
  calls.length = 0;
  const keyConfig = Buffer.from(hex(v.key_config)).toString("base64url");
  const relayed = transport({ relay: "https://relay.example/r", key_config: keyConfig },
    { fetch: async (url, init) => { calls.push([url, init]); return new Response("nope", { status: 403 }); } });
  const answer = await relayed("https://survey.example/api/surveys/s/reports/", "{\"report\":1}");
  assert.equal(calls.length, 1);
  const [url, init] = calls[0];
  assert.equal(url, "https://relay.example/r");
  assert.equal(init.headers["Content-Type"], "message/ohttp-req");
  assert.equal(init.credentials, "omit");
  assert.equal(init.referrerPolicy, "no-referrer");
  assert.ok(!Buffer.from(init.body).toString("latin1").includes("report"));  // encrypted
  assert.equal(answer.status, 502);  // the relay's own refusal is not the gateway's answer: retried, never final
});

test("the route is described for both routes, with the fingerprint of the key configuration", async () => {
  assert.match((await describeRoute(null, true))[0], /IP/);
  const keyConfig = Buffer.from(hex(v.key_config)).toString("base64url");
  const words = await describeRoute({ relay: "https://relay.example/r", key_config: keyConfig }, false);
  assert.match(words[0], /relay\.example/);
  assert.equal(words.length, 3);
  const fingerprint = createHash("sha256").update(hex(v.key_config)).digest("hex");
  assert.equal(await keyFingerprint({ key_config: keyConfig }), fingerprint);
  assert.ok(words[2].includes(fingerprint));
});

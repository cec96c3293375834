// The vendored @cloudflare/blindrsa-ts (static/vendor/blindrsa-ts) reproduces the RFC 9474 vectors exactly
// (tests/engine/rfc9474_vectors.json, from Debian's golang-github-cloudflare-circl-dev: RFC 9474 Appendix A's
// RSABSSA-SHA384-PSS-Deterministic vector and circl's PSSZERO-Deterministic one; also reproduced by
// aggregator/privacy/blind_rsa.py), its Randomized variant (ours) is the 32-byte prefix then the Deterministic steps,
// and static/js/credentials/blind.mjs produces standard RSA-PSS signatures. The Python ⇄ JS exchange is tested in
// tests/js/test_blind_rsa_interop.py.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { BlindRSA, getSuiteByName, RSABSSA } from "../../static/vendor/blindrsa-ts/index.js";
import {
  finishCredential, fromBase64url, startCredential, toBase64url, VARIANT,
} from "../../static/js/credentials/blind.mjs";

const { vectors } = JSON.parse(readFileSync(new URL("../engine/rfc9474_vectors.json", import.meta.url), "utf8"));
const hex = (s) => Uint8Array.from(Buffer.from(s, "hex"));
const toHex = (b) => Buffer.from(b).toString("hex");
const b64u = (s) => Buffer.from(s.length % 2 ? "0" + s : s, "hex").toString("base64url");

function modInverse(a, n) {
  let [r0, r1, s0, s1] = [a, n, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
  }
  assert.equal(r0, 1n);
  return ((s0 % n) + n) % n;
}

async function vectorKeys(v) {
  const [p, q, d] = [BigInt("0x" + v.p), BigInt("0x" + v.q), BigInt("0x" + v.d)];
  const big = (x) => b64u(x.toString(16));
  const jwk = {
    kty: "RSA", n: b64u(v.n), e: b64u(v.e), d: big(d), p: big(p), q: big(q),
    dp: big(d % (p - 1n)), dq: big(d % (q - 1n)), qi: big(modInverse(q, p)),
  };
  const algorithm = { name: "RSA-PSS", hash: "SHA-384" };
  return {
    publicKey: await crypto.subtle.importKey("jwk", { kty: "RSA", n: jwk.n, e: jwk.e }, algorithm, true, ["verify"]),
    privateKey: await crypto.subtle.importKey("jwk", jwk, algorithm, true, ["sign"]),
  };
}

// Replays the vector's randomness through crypto.getRandomValues: msg_prefix, salt, then r = inv^-1 mod n.
function replayRandomness(chunks) {
  const original = crypto.getRandomValues;
  crypto.getRandomValues = (buffer) => {
    const next = chunks.shift();
    assert.ok(next !== undefined, "more randomness asked for than the vector holds");
    assert.equal(buffer.length, next.length, "the library asked for a different number of random bytes");
    buffer.set(next);
    return buffer;
  };
  return () => { crypto.getRandomValues = original; };
}

test("the vectors are the package's two, and our variant is RFC 9474's PSS-Randomized", () => {
  assert.deepEqual(vectors.map((v) => v.name),
    ["RSABSSA-SHA384-PSS-Deterministic", "RSABSSA-SHA384-PSSZERO-Deterministic"]);
  assert.equal(RSABSSA.SHA384.PSS.Randomized().toString(), VARIANT);
  assert.equal(VARIANT, vectors[0].name.replace("-Deterministic", "-Randomized"));
});

// Runs a suite with replayed randomness (msg_prefix, salt, r) and returns every intermediate value.
async function runSuite(suite, v, prefix, msg) {
  const { publicKey, privateKey } = await vectorKeys(v);
  const kLen = v.n.length / 2;
  const r = modInverse(BigInt("0x" + v.inv), BigInt("0x" + v.n)).toString(16).padStart(2 * kLen, "0");
  const restore = replayRandomness([prefix, hex(v.salt), hex(r)]);
  let inputMsg, blindedMsg, inv;
  try {
    inputMsg = suite.prepare(msg);
    ({ blindedMsg, inv } = await suite.blind(publicKey, inputMsg));
  } finally {
    restore();
  }
  const blindSig = await suite.blindSign(privateKey, blindedMsg);
  const sig = await suite.finalize(publicKey, inputMsg, blindSig, inv);
  return { publicKey, inputMsg, blindedMsg, inv, blindSig, sig };
}

for (const v of vectors) {
  test(`RFC 9474 vector ${v.name}`, async () => {
    const suite = getSuiteByName(BlindRSA, v.name);
    // PrepareIdentity (RFC 9474 §4.1): the library draws an empty prefix, and input_msg = msg.
    const { publicKey, inputMsg, blindedMsg, inv, blindSig, sig } =
      await runSuite(suite, v, new Uint8Array(0), hex(v.msg));
    assert.equal(toHex(inputMsg), v.msg);
    assert.equal(toHex(blindedMsg), v.blinded_msg);
    assert.equal(BigInt("0x" + toHex(inv)), BigInt("0x" + v.inv));
    assert.equal(toHex(blindSig), v.blind_sig);
    assert.equal(toHex(sig), v.sig);
    assert.ok(await suite.verify(publicKey, sig, inputMsg));
    const pss = { name: "RSA-PSS", saltLength: v.salt.length / 2 };
    assert.ok(await crypto.subtle.verify(pss, publicKey, sig, hex(v.msg)));
  });
}

test("Randomized variant: 32 random bytes || msg, then the Deterministic steps; standard RSA-PSS", async () => {
  const v = vectors[0]; // the RFC's key, salt and blind
  const prefix = crypto.getRandomValues(new Uint8Array(32));
  const msg = hex(v.msg);
  const randomized = await runSuite(RSABSSA.SHA384.PSS.Randomized(), v, prefix, msg);
  assert.equal(toHex(randomized.inputMsg), toHex(prefix) + v.msg);
  const deterministic = await runSuite(RSABSSA.SHA384.PSS.Deterministic(), v, new Uint8Array(0), randomized.inputMsg);
  for (const k of ["inputMsg", "blindedMsg", "inv", "blindSig", "sig"]) {
    assert.equal(toHex(randomized[k]), toHex(deterministic[k]), k);
  }
  assert.notEqual(toHex(randomized.sig), v.sig);
  const pss = { name: "RSA-PSS", saltLength: 48 };
  assert.ok(await crypto.subtle.verify(pss, randomized.publicKey, randomized.sig, randomized.inputMsg));
  assert.ok(!(await crypto.subtle.verify(pss, randomized.publicKey, randomized.sig, msg)));
  // prepare() asks the CSPRNG for exactly 32 bytes (replayRandomness checks the size) and puts them first.
  const restore = replayRandomness([prefix]);
  try {
    assert.deepEqual(RSABSSA.SHA384.PSS.Randomized().prepare(msg), Uint8Array.from([...prefix, ...msg]));
  } finally {
    restore();
  }
});

test("credentials/blind.mjs: a fresh credential is a standard RSA-PSS signature on its value", async () => {
  const keys = await crypto.subtle.generateKey(
    { name: "RSA-PSS", modulusLength: 2048, publicExponent: Uint8Array.of(1, 0, 1), hash: "SHA-384" },
    true, ["sign", "verify"]);
  const spki = toBase64url(new Uint8Array(await crypto.subtle.exportKey("spki", keys.publicKey)));
  const { blindedMsg, pending } = await startCredential(spki);
  assert.equal(fromBase64url(blindedMsg).length, 256);
  assert.equal(fromBase64url(pending.value).length, 64); // 32-byte prefix (RFC 9474 §4.1) + 32 random bytes
  const suite = RSABSSA.SHA384.PSS.Randomized();
  const blindSig = await suite.blindSign(keys.privateKey, fromBase64url(blindedMsg));
  const { value, signature } = await finishCredential(pending, toBase64url(blindSig));
  assert.equal(value, pending.value);
  const pss = { name: "RSA-PSS", saltLength: 48 };
  assert.ok(await crypto.subtle.verify(pss, keys.publicKey, fromBase64url(signature), fromBase64url(value)));
  const other = fromBase64url(value);
  other[0] ^= 1;
  assert.ok(!(await crypto.subtle.verify(pss, keys.publicKey, fromBase64url(signature), other)));

  // A blind signature on another blinded message does not finalize.
  const second = await startCredential(spki);
  const wrong = await suite.blindSign(keys.privateKey, fromBase64url(second.blindedMsg));
  await assert.rejects(finishCredential(pending, toBase64url(wrong)), /invalid signature/);
  assert.notEqual(second.pending.value, pending.value);
  assert.notEqual(second.blindedMsg, blindedMsg);
});

test("credentials/blind.mjs: base64url is strict and round-trips", () => {
  for (let n = 0; n < 70; n++) {
    const bytes = crypto.getRandomValues(new Uint8Array(n));
    assert.deepEqual(fromBase64url(toBase64url(bytes)), bytes);
    assert.equal(toBase64url(bytes), Buffer.from(bytes).toString("base64url"));
  }
  for (const bad of ["a", "ab=", "a+b/", "ab cd", "AB", "AAB", "é", 7]) {
    assert.throws(() => fromBase64url(bad), /base64url/);
  }
});

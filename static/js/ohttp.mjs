// How the page's two POSTs (an invitation's redemption, the report) leave the browser: straight to the survey's
// server, or — when the survey names an Oblivious HTTP relay (RFC 9458) — through that relay, which sees the
// respondent's address but only ciphertext, while the survey's server (the gateway, survey_app/ohttp.py) sees the
// request but only the relay's address.
//
// A relayed POST is encoded as Binary HTTP (RFC 9292; the vendored bhttp-js), encrypted with HPKE (RFC 9180; the
// vendored @hpke/core, WebCrypto) to the gateway's key configuration published in the survey's protocol
// (DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-128-GCM), sent to the relay as message/ohttp-req, and its
// message/ohttp-res answer opened (RFC 9458 §4.4) into an ordinary Response: the caller cannot tell the two routes
// apart. The Python half of both ends is aggregator/privacy/ohttp.py; tests/js/ohttp.test.mjs checks this module
// against RFC 9458 Appendix A.
import { BHttpDecoder, BHttpEncoder } from "../vendor/bhttp-js/mod.js";
import { Aes128Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from "../vendor/hpke-core/mod.js";
import { t } from "./i18n.mjs";

export const REQUEST_MEDIA_TYPE = "message/ohttp-req";
export const RESPONSE_MEDIA_TYPE = "message/ohttp-res";
const KEM_ID = 0x0020;
const KDF_ID = 0x0001;
const AEAD_ID = 0x0001;
const N_PK = 32;
const N_K = 16;
const N_N = 12;
const RESPONSE_NONCE_LEN = Math.max(N_K, N_N);
const encoder = new TextEncoder();
const JSON_HEADERS = { "Content-Type": "application/json", Accept: "application/json" };

const suite = new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() });

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Bytes of unpadded base64url text. */
export function fromBase64url(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

/** One key configuration (RFC 9458 §3.1) → { keyId, publicKey }; throws unless it offers this client's suite. */
export function parseKeyConfig(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 3 + N_PK + 2 || view.getUint16(1) !== KEM_ID) throw new Error("unsupported key configuration");
  const length = view.getUint16(3 + N_PK);
  if (length !== bytes.length - 5 - N_PK || length < 4 || length % 4) throw new Error("malformed key configuration");
  let offered = false;
  for (let at = 5 + N_PK; at < bytes.length; at += 4) {
    offered ||= view.getUint16(at) === KDF_ID && view.getUint16(at + 2) === AEAD_ID;
  }
  if (!offered) throw new Error("the gateway offers no suite this browser supports");
  return { keyId: bytes[0], publicKey: bytes.slice(3, 3 + N_PK) };
}

/** Encapsulate the Binary HTTP ``request`` for the gateway of ``config`` (RFC 9458 §4.3) → { encapsulated,
 * context }. ``ekm`` (an ephemeral CryptoKeyPair) only to reproduce test vectors. */
export async function encapsulateRequest(config, request, { ekm } = {}) {
  const header = new Uint8Array([config.keyId, KEM_ID >> 8, KEM_ID & 255, KDF_ID >> 8, KDF_ID & 255,
    AEAD_ID >> 8, AEAD_ID & 255]);
  const info = concat(encoder.encode("message/bhttp request"), new Uint8Array([0]), header);
  const recipientPublicKey = await suite.kem.deserializePublicKey(config.publicKey);
  const sender = await suite.createSenderContext({ recipientPublicKey, info, ...(ekm ? { ekm } : {}) });
  const ciphertext = new Uint8Array(await sender.seal(request));
  const enc = new Uint8Array(sender.enc);
  const secret = new Uint8Array(await sender.export(encoder.encode("message/bhttp response"), RESPONSE_NONCE_LEN));
  return { encapsulated: concat(header, enc, ciphertext), context: { secret, enc } };
}

async function hkdf(secret, salt, label, bytes) {
  const key = await crypto.subtle.importKey("raw", secret, "HKDF", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt, info: encoder.encode(label) },
    key, bytes * 8);
  return new Uint8Array(bits);
}

/** Open an Encapsulated Response (RFC 9458 §4.4) with the request's ``context`` → the Binary HTTP response. */
export async function decapsulateResponse(context, encResponse) {
  if (encResponse.length < RESPONSE_NONCE_LEN + 16) throw new Error("not an Encapsulated Response");
  const salt = concat(context.enc, encResponse.slice(0, RESPONSE_NONCE_LEN));
  // HKDF-Extract(salt, secret) then Expand with "key" and with "nonce": WebCrypto's HKDF is the two steps in one.
  const keyBytes = await hkdf(context.secret, salt, "key", N_K);
  const nonce = await hkdf(context.secret, salt, "nonce", N_N);
  const key = await crypto.subtle.importKey("raw", keyBytes, "AES-GCM", false, ["decrypt"]);
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce }, key, encResponse.slice(RESPONSE_NONCE_LEN));
  return new Uint8Array(plain);
}

function unavailable(detail) {
  return new Response(JSON.stringify({ detail }), { status: 502, headers: { "Content-Type": "application/json" } });
}

/** The page's one way to send: ``send(url, body)`` POSTs the JSON text ``body`` to ``url`` (of this site) and
 * resolves to its Response — directly, or through the relay of ``config`` (the protocol's ``ohttp``: { relay,
 * key_config }). No cookie and no referrer either way. Through the relay, an answer that is not an Encapsulated
 * Response (the relay or the gateway could not pass the request on) becomes a 502, which the page retries. */
export function transport(config, { fetch: fetchImpl = globalThis.fetch.bind(globalThis) } = {}) {
  if (!config) {
    return (url, body) => fetchImpl(url, { method: "POST", headers: JSON_HEADERS, body, credentials: "omit",
      referrerPolicy: "no-referrer" });
  }
  const keyConfig = parseKeyConfig(fromBase64url(config.key_config));
  return async (url, body) => {
    const target = new URL(url, globalThis.location ? globalThis.location.href : undefined);
    const inner = await new BHttpEncoder().encodeRequest(new Request(target, { method: "POST", headers: JSON_HEADERS,
      body }));
    const { encapsulated, context } = await encapsulateRequest(keyConfig, inner);
    const outer = await fetchImpl(config.relay, {
      method: "POST", headers: { "Content-Type": REQUEST_MEDIA_TYPE, Accept: RESPONSE_MEDIA_TYPE },
      body: encapsulated, credentials: "omit", referrerPolicy: "no-referrer", cache: "no-store",
    });
    if (!outer.ok || (outer.headers.get("Content-Type") || "").split(";")[0].trim() !== RESPONSE_MEDIA_TYPE) {
      return unavailable(`the relay answered ${outer.status} without an encrypted answer`);
    }
    let plain;
    try {
      plain = await decapsulateResponse(context, new Uint8Array(await outer.arrayBuffer()));
    } catch {
      return unavailable("the relay's answer did not decrypt");
    }
    return new BHttpDecoder().decodeResponse(plain);
  };
}

/** The fingerprint of the gateway key a page encrypts with: the SHA-256 (hex) of its key configuration (RFC 9458
 * §3.1; ``manage.py ohttp_key`` prints the same), so that respondents can check they were all given the same key. */
export async function keyFingerprint(config) {
  const digest = await crypto.subtle.digest("SHA-256", fromBase64url(config.key_config));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Plain words on which way the page's requests travel and who sees what, for ``config`` (the protocol's
 * ``ohttp``, or none) on a survey by invitation (``invited``: a redemption is sent too) or not. */
export async function describeRoute(config, invited) {
  if (!config) {
    return [invited
      ? t("Your invitation's redemption and your randomized report go straight to this survey's server. Like any website, it sees your internet (IP) address and when each request arrives.")
      : t("Your randomized report goes straight to this survey's server. Like any website, it sees your internet (IP) address and when the report arrives.")];
  }
  return [
    invited
      ? t("Your invitation's redemption and your randomized report travel through a relay run by someone else ({relay}), encrypted for this survey's server: the relay sees your internet (IP) address but not what you send; the survey's server sees what you send but not your IP address, only the relay's.", { relay: new URL(config.relay).host })
      : t("Your randomized report travels through a relay run by someone else ({relay}), encrypted for this survey's server: the relay sees your internet (IP) address but not what you send; the survey's server sees what you send but not your IP address, only the relay's.", { relay: new URL(config.relay).host }),
    t("This page and the survey's questions were loaded directly from the survey's server, which saw your IP address and the time then."),
    t("The key your browser encrypts with has the fingerprint (SHA-256) {fingerprint}. Every respondent should see the same: a key made for one person could recognise their report.", { fingerprint: await keyFingerprint(config) }),
  ];
}

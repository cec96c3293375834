// Unlinkable survey credentials: RSA blind signatures (RFC 9474, RSABSSA-SHA384-PSS-Randomized) by the vendored
// @cloudflare/blindrsa-ts, mirroring the client half of aggregator/privacy/blind_rsa.py (prepare, blind, finalize).
//
//   const { blindedMsg, pending } = await startCredential(publicKeySpki);   // send blindedMsg with the invitation
//   const { value, signature } = await finishCredential(pending, blindSig); // send these later with the report
//
// The value is 32 random bytes from crypto.getRandomValues, prepared with a further 32 random bytes (RFC 9474 §4.1);
// the server signs it blind and never sees it until the report arrives. ``pending`` holds the blinding inverse: it
// must stay on this device. Every byte string is unpadded base64url.
import { RSABSSA } from "../../vendor/blindrsa-ts/index.js";

export const VARIANT = "RSABSSA-SHA384-PSS-Randomized";
const VALUE_BYTES = 32;
const suite = RSABSSA.SHA384.PSS.Randomized();

/** Unpadded base64url (RFC 4648 §5) of a Uint8Array. */
export function toBase64url(bytes) {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Strict inverse of toBase64url: URL-safe alphabet only, no padding, canonical. Throws on anything else. */
export function fromBase64url(text) {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
    throw new Error("not unpadded base64url");
  }
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  if (toBase64url(bytes) !== text) throw new Error("not canonical base64url");
  return bytes;
}

/** The survey's public key (base64url DER SubjectPublicKeyInfo, as published in the protocol) for WebCrypto. */
export function importPublicKey(spki) {
  // Extractable: the library reads n and e from the key to blind.
  return crypto.subtle.importKey("spki", fromBase64url(spki), { name: "RSA-PSS", hash: "SHA-384" }, true, ["verify"]);
}

/** The key's fingerprint as the server names it (``key_id``): hex SHA-256 of the SPKI DER. The page computes it
 *  itself and refuses a key whose published id differs, so a key made for one respondent cannot hide behind the
 *  common fingerprint (aggregator/privacy/blind_rsa.py ``key_id``). */
export async function keyIdOf(spki) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", fromBase64url(spki)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Prepare and blind a fresh random value (RFC 9474 §4.1–4.2). Returns the blinded message for the server and the
 *  pending state (value, blinding inverse, key) that finishCredential needs. */
export async function startCredential(spki) {
  const publicKey = await importPublicKey(spki);
  const value = suite.prepare(crypto.getRandomValues(new Uint8Array(VALUE_BYTES)));
  const { blindedMsg, inv } = await suite.blind(publicKey, value);
  return {
    blindedMsg: toBase64url(blindedMsg),
    pending: { spki, value: toBase64url(value), inv: toBase64url(inv) },
  };
}

/** Unblind the server's blind signature and check it (RFC 9474 §4.4): {value, signature}, a standard RSA-PSS
 *  signature (SHA-384, MGF1-SHA-384, 48-byte salt) on value. Throws "invalid signature" if the server's answer is bad. */
export async function finishCredential(pending, blindSig) {
  const publicKey = await importPublicKey(pending.spki);
  const value = fromBase64url(pending.value);
  const signature = await suite.finalize(publicKey, value, fromBase64url(blindSig), fromBase64url(pending.inv));
  return { value: pending.value, signature: toBase64url(signature) };
}

// The memo: the one randomized report this browser is about to send (or failed to send) for a survey, kept in
// localStorage under "coinflip:report:<slug>" so that a retry after a network failure sends the SAME randomized
// report — a fresh randomization of the same answers would tell the collector more if the first one did arrive.
// It holds only the randomized report (never a true answer, never the invitation token itself) and, for a survey by
// invitation, the credential that report goes with (issue 11, ./credentials/blind.mjs): first the pending state
// (the random value, the blinding inverse, the blinded message and the key) and, once the invitation is redeemed,
// the finished credential {value, signature, key_id}, so that a retry sends the same report with the same
// credential and never needs the token again; and the report's nonce (reportNonce), so that a resend of a report
// that did arrive is answered as received and not stored twice. An invitation is redeemed at the first answer
// (./survey.mjs), so until "Send" the memo may hold the credential state alone (report null): a reload then still has
// the credential, while the token has left the page's address. It is bound to
//   - the survey (its key),
//   - the protocol version: SHA-256 of the JSON of "protocol" as served by GET /api/surveys/<slug>/protocol/
//     (under adaptive allocation without the day's assignment: protocolVersion);
// a memo for another version is deleted, never sent. Its report is written when the respondent presses "Send"; it is
// deleted as soon as the server answers 201 or refuses the report (or the invitation) for good, and expires after
// MEMO_DAYS.
// docs/verify-randomizer.md ("What your browser keeps") states the same for respondents.

import { t } from "./i18n.mjs";

export const MEMO_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

export const memoKey = (slug) => `coinflip:report:${slug}`;

async function sha256Hex(text) {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The protocol version the memo is bound to: SHA-256 (hex) of JSON.stringify(protocol) — under adaptive
 * allocation without the day's assignment of respondents to parts (assignment, assignment_cdf, assignment_source),
 * which changes from day to day while the randomization stays the same: the server takes a report of any part. */
export function protocolVersion(protocol) {
  if (protocol && protocol.ldp && protocol.ldp.allocation === "adaptive") {
    const { assignment, assignment_cdf: cdf, assignment_source: source, ...ldp } = protocol.ldp;
    return sha256Hex(JSON.stringify({ ...protocol, ldp }));
  }
  return sha256Hex(JSON.stringify(protocol));
}

/** What a memo is bound to, or null when this browser cannot hash (no crypto.subtle outside a secure context) or
 * has no usable localStorage: then nothing is kept. ``invited``: the survey is by invitation (its memo keeps the
 * credential too). */
export async function binding(slug, protocol, invited, storage) {
  if (!storage || !globalThis.crypto || !globalThis.crypto.subtle) return null;
  try {
    const probe = `${memoKey(slug)}:probe`;
    storage.setItem(probe, "1");
    storage.removeItem(probe);
  } catch {
    return null;
  }
  return { key: memoKey(slug), version: await protocolVersion(protocol), invited: Boolean(invited) };
}

const isText = (value) => typeof value === "string" && value.length > 0;
const PENDING_FIELDS = ["spki", "value", "inv", "blindedMsg", "key_id"];
const CREDENTIAL_FIELDS = ["value", "signature", "key_id"];
const wellFormed = (object, fields) => object === undefined
  || (object !== null && typeof object === "object" && fields.every((f) => isText(object[f])));

/** A report's idempotency nonce: 128 bits from crypto.getRandomValues (``fill``: tests inject a source), as unpadded
 * base64url (22 characters). Random and sent only with its report, it links the report to nothing. */
export function reportNonce(fill = (buffer) => globalThis.crypto.getRandomValues(buffer)) {
  const bytes = new Uint8Array(16);
  fill(bytes);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const NONCE = /^[A-Za-z0-9_-]{21}[AQgw]$/;

/** The kept memo for ``bind`` ({report, saved, nonce?, pending?, credential?}; report null: a credential state
 * alone), or null. A memo for another protocol
 * version, an expired, unreadable or older-format one (the token-bound memos of earlier pages included) is deleted;
 * ``discarded`` then says why ("version", "expired", "unreadable"). */
export function read(storage, bind, now = Date.now()) {
  if (!bind) return { memo: null, discarded: null };
  let raw;
  try {
    raw = storage.getItem(bind.key);
  } catch {
    return { memo: null, discarded: null };
  }
  if (raw === null) return { memo: null, discarded: null };
  let memo = null, discarded = null;
  try {
    memo = JSON.parse(raw);
  } catch {
    discarded = "unreadable";
  }
  if (!discarded) {
    if (!memo || typeof memo !== "object" || typeof memo.saved !== "number" || "token" in memo
        || !(memo.report || (memo.report === null && (memo.pending || memo.credential)))
        || !wellFormed(memo.pending, PENDING_FIELDS) || !wellFormed(memo.credential, CREDENTIAL_FIELDS)
        || (memo.nonce !== undefined && !(typeof memo.nonce === "string" && NONCE.test(memo.nonce)))) {
      discarded = "unreadable";
    } else if (memo.protocol !== bind.version) discarded = "version";
    else if (!(now - memo.saved < MEMO_DAYS * DAY_MS) || memo.saved > now + DAY_MS) discarded = "expired";
  }
  if (discarded) {
    clear(storage, bind);
    return { memo: null, discarded };
  }
  const kept = { report: memo.report, saved: memo.saved };
  if (memo.nonce) kept.nonce = memo.nonce;
  if (memo.pending) kept.pending = memo.pending;
  if (memo.credential) kept.credential = memo.credential;
  return { memo: kept, discarded: null };
}

/** Keep ``report`` (the randomized report; null: none yet) for ``bind``, with its ``state.nonce`` and ``state.pending`` or
 * ``state.credential`` for a survey by invitation (never the token); false when the browser refuses to store it. */
export function write(storage, bind, report, now = Date.now(), state = {}) {
  if (!bind) return false;
  const memo = { protocol: bind.version, saved: now, report };
  if (state.nonce) memo.nonce = state.nonce;
  if (state.credential) memo.credential = state.credential;
  else if (state.pending) memo.pending = state.pending;
  try {
    storage.setItem(bind.key, JSON.stringify(memo));
    return true;
  } catch {
    return false;
  }
}

export function clear(storage, bind) {
  if (!bind) return;
  try {
    storage.removeItem(bind.key);
  } catch {
    // nothing kept, nothing to delete
  }
}

// ---- Respondent-facing words about the memo (shown by survey.mjs; tests/js/describe.test.mjs checks them) ----

/** What the page says this browser keeps, for a binding (or null: nothing can be kept); ``relayed``: the page's
 * requests go through an Oblivious HTTP relay (./ohttp.mjs). */
export function words(bind, { relayed = false } = {}) {
  if (!bind) {
    return t("What this browser keeps: nothing. It cannot store a copy of the randomized report here, so if sending fails, trying again sends a freshly randomized report.");
  }
  const days = { days: MEMO_DAYS };
  return [
    bind.invited
      ? t("What this browser keeps: once your invitation is redeemed (when you give your first answer), the credential that goes with your report; when you press “Send”, a copy of the randomized report it is about to send. Only these, never your true answers, are saved in this site's local storage, tied to this survey's current settings.")
      : t("What this browser keeps: when you press “Send”, your browser saves a copy of the randomized report it is about to send — only that report, never your true answers — in this site's local storage, tied to this survey's current settings."),
    ...(bind.invited ? [(relayed ? t("The credential is a random value the survey signs without seeing it when your invitation is redeemed, so that nothing in the report ties it to your invitation (both requests go through the relay, so the survey's server sees the time of each request but not your network address); the invitation code itself is never kept, and once redeemed it is not needed again.") : t("The credential is a random value the survey signs without seeing it when your invitation is redeemed, so that nothing in the report ties it to your invitation (the survey's server still sees your network address and the time of each request); the invitation code itself is never kept, and once redeemed it is not needed again."))] : []),
    t("It is kept so that, if sending fails (for example the network drops), trying again sends that same report rather than a freshly randomized one, which would tell more about your answers if the first one did arrive. The copy is deleted as soon as the report is received or refused, when the survey's settings change, or after {days} days; clearing this site's data in your browser deletes it too.", days),
  ].join(" ");
}

const DISCARDED = {
  version: () => t("A randomized report kept in this browser from an earlier visit was made for an earlier version of this survey's settings: it has been deleted and will not be sent."),
  expired: () => t("A randomized report kept in this browser from an earlier visit was older than {days} days: it has been deleted and will not be sent.", { days: MEMO_DAYS }),
  unreadable: () => t("A randomized report kept in this browser from an earlier visit could not be read: it has been deleted and will not be sent."),
};

/** The notice when a memo was just deleted because it no longer applies. */
export function discardedWords(reason) {
  return DISCARDED[reason]();
}

/** The notice when a kept memo will be offered for sending again. */
export function keptWords(memo) {
  const saved = new Date(memo.saved).toISOString().slice(0, 16).replace("T", " ");
  return t("Your browser kept the randomized report of an earlier attempt to send it (saved {saved} UTC), which may not have arrived. It is shown below and, if you send it, exactly the same report is sent again. You can delete it and answer afresh instead — but if the first attempt did arrive, a second, freshly randomized report would tell more about your answers.", { saved });
}

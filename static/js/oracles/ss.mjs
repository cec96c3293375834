// Subset selection (aggregator/privacy/oracles/ss.py): the report is a set of ω = params.subset_size values out of d.
// Draws: random() < p (your value is in the set), then integers(i, d − 1) for i = 0 … ω − 1 — the first ω steps of a
// Fisher–Yates shuffle of the d − 1 other values (always all ω drawn). The set is the first ω − 1 shuffled others,
// plus your value if kept, else the ω-th. Wire: base64 of the packed bits (ω of them set), as SUE/OUE.
import { fromBase64, pack, toBase64, unpack } from "../bits.mjs";
import { t } from "../i18n.mjs";
import { percent } from "../words.mjs";

/** The values of the reported set, in draw order. */
export function subset(params, value, rng) {
  const d = params.domain, k = params.subset_size;
  const keep = rng.random() < params.p;
  const others = Array.from({ length: d - 1 }, (_, t) => (t < value ? t : t + 1));
  for (let i = 0; i < k; i++) {
    const j = rng.integers(i, d - 1);
    const moved = others[j];
    others[j] = others[i];
    others[i] = moved;
  }
  const chosen = others.slice(0, k - 1);
  chosen.push(keep ? value : others[k - 1]);
  return chosen;
}

export function perturb(params, value, rng) {
  const bits = new Array(params.domain).fill(0);
  for (const v of subset(params, value, rng)) bits[v] = 1;
  return toBase64(pack(bits));
}

/** The disguise of ONE value, in plain words with the published p and ω (words.mjs's conventions). */
export function describe(params) {
  const d = params.domain, k = params.subset_size;
  if (k === 1) {
    return t("It is sent as a row of {d} yes/no marks, one per possible value, exactly one of them “yes”: your value's with probability {p}; otherwise the mark of one of the {others} other possible values, picked at random.",
      { d, p: percent(params.p), others: d - 1 });
  }
  const vars = { d, k, p: percent(params.p), rest: k - 1, others: d - 1 };
  return k === 2
    ? t("It is sent as a row of {d} yes/no marks, one per possible value, exactly {k} of them “yes”: with probability {p} your value's mark is one of them, the other one picked at random among the {others} other possible values; otherwise all {k} are picked at random among those {others} other values.", vars)
    : t("It is sent as a row of {d} yes/no marks, one per possible value, exactly {k} of them “yes”: with probability {p} your value's mark is one of them, the other {rest} picked at random among the {others} other possible values; otherwise all {k} are picked at random among those {others} other values.", vars);
}

/** How the wire form of a report reads. */
export function describeWire() {
  return t("the yes/no marks, packed into bytes and written in base64");
}

/** This report in a few plain words (a noun phrase): the set it names (listed via ``valueText`` when short) and how
 * likely it holds the respondent's value (review step's summary, explain.mjs ``summarize``). */
export function summarize(params, report, valueText = (v) => t("value number {v}", { v })) {
  const d = params.domain, k = params.subset_size;
  const bits = unpack(fromBase64(report), d);
  const chosen = bits.map((bit, v) => (bit ? v : -1)).filter((v) => v >= 0);
  const listed = chosen.length <= 4 ? ` ${t("(here {values})", { values: chosen.map(valueText).join("; ") })}` : "";
  if (k === 1) {
    return t("a single one of the {d} possible values{listed}, which is your true one with probability {p} and otherwise one of the {others} others, picked at random; so it may or may not be yours",
      { d, listed, p: percent(params.p), others: d - 1 });
  }
  return t("a set of {k} of the {d} possible values{listed}, marked by the 1s in a row of 0s and 1s, which contains your true value with probability {p}, the rest of the set being picked at random among the other values; so any value in it may or may not be yours",
    { k, d, listed, p: percent(params.p) });
}

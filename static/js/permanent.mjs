// One randomization per answer set (docs/threat-model.md, "One randomization per answer set"): the page's
// randomized report is memoized, like RAPPOR's permanent randomized response, so that going back from the review step
// and reviewing the same answers shows the same report, and changing an answer randomizes only what the mechanism
// sends of it.
//
// A report is made of parts, each the mechanism's own randomization of one input:
//   - one-report LDP (ldp_nb, mixed) and the Gaussian approaches: the ONE part sampled by the published assignment
//     (the input j, the group) is drawn once for the page and kept; its randomized report is kept per value of that
//     part's input (for a numeric group: the class answer and every number of the group);
//   - split LDP: every input j, each kept per value;
//   - MRR: every group of questions, kept per answers of its questions (and their real unrelated answers);
//   - the validation share: whether this page validates is drawn once; its report is kept per value ("right?" bit
//     under LDP, the record's groups under MRR).
// A part's report is drawn the first time its value is met, by the mechanism's own code (the same modules as
// ./protocol.mjs respond(), in the same order on the first report, so the shared vectors hold for it), and reused
// whenever that value comes back. An adaptive allocation whose published chances change (a new UTC day) draws the
// sampled part again with the new chances, as the page did before; the reports kept per value stay.
// The memo lives in this object — in the page's memory — and, since its keys are true answers, only where the true
// answers are kept too: this tab's sessionStorage until "Send" (./resume.mjs, state() and restore()), so that a
// reload shows the same report; never in localStorage.
import * as gaussian from "./gaussian.mjs";
import { inputValue } from "./ldp_nb.mjs";
import { meanInput } from "./mixed.mjs";
import * as mrr from "./mrr.mjs";
import { predict } from "./nb_model.mjs";
import * as oracles from "./oracles/index.mjs";
import { engineCodes, featureValues, modelInput } from "./protocol.mjs";
import { assign } from "./random.mjs";

export class PermanentResponse {
  /** @param protocol the survey's protocol as served; @param rng the page's random source (a ByteSource). */
  constructor(protocol, rng) {
    this.protocol = protocol;
    this.rng = rng;
    this.kept = new Map();  // "<part>|<value>" → that part's randomized report
    this.sampled = null;  // {cdf, index}: the part sampled by the assignment (one-report LDP, Gaussian, mixed)
    this.u = undefined;  // the validation share's draw
  }

  /** What this object holds, as JSON, for ./resume.mjs (its keys are true answers: kept only with them). */
  state() {
    return { kept: [...this.kept.entries()], sampled: this.sampled, u: this.u === undefined ? null : this.u };
  }

  /** The object for ``protocol`` holding ``state`` (from state(), under the same protocol), drawing afresh with
   * ``rng`` only what it does not hold. */
  static restore(protocol, rng, state) {
    const permanent = new PermanentResponse(protocol, rng);
    if (state && Array.isArray(state.kept)) {
      permanent.kept = new Map(state.kept);
      permanent.sampled = state.sampled || null;
      permanent.u = state.u === null || state.u === undefined ? undefined : state.u;
    }
    return permanent;
  }

  /** The part ``part``'s report for ``value`` (any JSON): kept, or drawn by ``draw`` and kept. */
  part(part, value, draw) {
    const key = `${part}|${JSON.stringify(value)}`;
    if (!this.kept.has(key)) this.kept.set(key, draw());
    return this.kept.get(key);
  }

  /** The part sampled by the published assignment ``cdf``: drawn once, again only if the published chances change. */
  pick(cdf) {
    const text = JSON.stringify(cdf);
    if (!this.sampled || this.sampled.cdf !== text) this.sampled = { cdf: text, index: assign(cdf, this.rng) };
    return this.sampled.index;
  }

  /** One respondent's payload for these answers, as ./protocol.mjs ``respond`` makes it, memoized by part. */
  respond(questionAnswers, classCode, { realPersonal = {}, published = null } = {}) {
    const protocol = this.protocol;
    const share = protocol.validation ? protocol.validation.share : 0;
    if (share > 0) {
      if (this.u === undefined) this.u = this.rng.random();
      if (this.u < share && (protocol.mode === "mrr" || published)) {
        if (protocol.mode === "mrr") return { validation: this.mrr("validation", questionAnswers, classCode, realPersonal) };
        const right = predict(published.model, modelInput(protocol, questionAnswers)) === classCode ? 1 : 0;
        const report = this.part("validation", right, () => oracles.perturb(protocol.validation.oracle, right, this.rng));
        return { validation: { version: published.version, report } };
      }
    }
    return this.randomize(questionAnswers, classCode, realPersonal);
  }

  /** A training report (./protocol.mjs ``randomize``), memoized by part. */
  randomize(questionAnswers, classCode, realPersonal = {}) {
    const protocol = this.protocol, rng = this.rng;
    if (protocol.mode === "mrr") return this.mrr("training", questionAnswers, classCode, realPersonal);
    const values = featureValues(protocol, questionAnswers);
    const params = protocol.ldp;
    if (params && params.mixed) {
      const j = this.pick(params.assignment_cdf), mean = meanInput(params);
      if (j < mean) {
        const value = inputValue(j, params.categorical.map((position) => values[position]), classCode, params.classes);
        return { input: j, report: this.part(`input ${j}`, value, () => oracles.perturb(params.inputs[j], value, rng)) };
      }
      const z = params.numeric.map((position, i) => gaussian.normalise(params.vectors.attributes[i], values[position]));
      const entries = j === mean + 1 ? z.map((v) => v * v) : z;
      return { input: j, report: this.part(`input ${j}`, [entries, classCode],
                                           () => gaussian.vectors(params.vectors, entries, classCode, rng)) };
    }
    if (protocol.numeric.handling === "gaussian") {
      const group = this.pick(params.shares_cdf);
      if (group === 0) {
        return { group, report: this.part("group 0", classCode, () => oracles.perturb(params.prior_oracle, classCode, rng)) };
      }
      const z = params.attributes.map((a, i) => gaussian.normalise(a, values[i]));
      const entries = group === 2 ? z.map((v) => v * v) : z;
      return { group, report: this.part(`group ${group}`, [entries, classCode], () => gaussian.vectors(params, entries, classCode, rng)) };
    }
    const codes = engineCodes(protocol, values);
    const k = params.classes;
    const one = (j) => {
      const value = inputValue(j, codes, classCode, k);
      return this.part(`input ${j}`, value, () => oracles.perturb(params.inputs[j], value, rng));
    };
    if (params.strategy === "one-report") {
      const j = this.pick(params.assignment_cdf);
      return { input: j, report: one(j) };
    }
    return { reports: params.inputs.map((_, j) => one(j)) };
  }

  /** An MRR record ({answers}), kept per group: a group's answers (and real unrelated answers) met before give the
   * same stand-ins or true answers as then. A group met afresh takes its slice of one run of ./mrr.mjs ``perturb``
   * (the groups are randomized independently, so a slice is exactly that group's randomization). */
  mrr(space, questionAnswers, classCode, realPersonal) {
    const protocol = this.protocol, params = protocol.mrr;
    const record = [...engineCodes(protocol, featureValues(protocol, questionAnswers)), classCode];
    const keys = params.groups.map((members) => members.map((i) => [record[i], realPersonal[i] ?? null]));
    let fresh = null;
    const answers = [];
    params.groups.forEach((members, g) => {
      const kept = this.part(`${space} group ${g}`, keys[g], () => {
        fresh = fresh || mrr.perturb(params, record, this.rng, realPersonal);
        return members.map((i) => fresh[i]);
      });
      members.forEach((i, n) => { answers[i] = kept[n]; });
    });
    return { answers };
  }
}

// Unrelated-question MRR (aggregator/privacy/mrr.py MRRScheme.perturb), one respondent.
// Draws: one random() per group (group order: true answers sent if u < θ_g), then one random() per attribute
// (attribute order) for the personal answer by inverse CDF of the declared P_Y — drawn for every attribute.
// ``answers``: codes of every attribute, the class included, in the scheme's order. ``realPersonal`` (optional):
// answers to real unrelated questions, by attribute index, which replace the simulated ones.
import { assign } from "./random.mjs";

export function perturb(params, answers, rng, realPersonal = {}) {
  const truth = params.thetas.map((theta) => rng.random() < theta);
  const personal = params.personal_cdf.map((cdf) => assign(cdf, rng));
  for (const [i, value] of Object.entries(realPersonal)) personal[Number(i)] = value;
  const groupOf = [];
  params.groups.forEach((members, g) => members.forEach((i) => { groupOf[i] = g; }));
  return answers.map((value, i) => (truth[groupOf[i]] ? value : personal[i]));
}

"""The dashboard's glossary: every term the dashboard and the planner use, in plain words, in one place.
``/dashboard/glossary/`` lists them (``glossary_views.glossary``); the pages link a term to its entry with the
``{% term %}`` tag (``aggregator/templatetags/glossary.py``), whose tooltip is the entry's first sentence; and the
planner's mechanism options take their plain labels from the mechanisms (``method_label``).

The mechanisms' entries come from the mechanisms themselves (``privacy.describe.Description``: every registered
oracle, the survey modes, the Gaussian approaches), translated here with the catalogue; the rest are below.

An entry: ``anchor`` (the fragment of its link), ``term`` (as the pages print it), ``short`` (one sentence: the
tooltip) and ``more`` (the rest, for the glossary page). Where a term comes from the specification, ``spec`` says where.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext_lazy as _

from aggregator.privacy import describe


@dataclass(frozen=True)
class Entry:
    anchor: str
    term: str
    short: str
    more: str = ""
    spec: str = ""


#: The entries that are not a mechanism's own, in order; ``entries`` puts each mechanism's after the entry named in
#: ``_AFTER``.
_TERMS: tuple[Entry, ...] = (
    # -- the two families of mechanisms ------------------------------------------------------------------------
    Entry("randomization", _("Randomization in the browser"),
          _("Each respondent's browser disguises the answers at random before anything is sent; the survey only ever "
          "receives the disguised (randomized) report."),
          _("Because the disguise is random with published chances, no single report says for sure what its sender "
          "answered, yet the chances let the survey estimate the answers of the whole group (and train a model on "
          "them).")),
    Entry("epsilon", _("ε (epsilon, the privacy budget)"),
          _("How much one respondent's report may reveal: smaller ε is more private and gives a less accurate model; "
          "larger ε is less private and more accurate."),
          _("ε per respondent covers everything one person sends. ε per question is the part that concerns one "
          "question (for MRR, questions sent together in a group share their group's ε). “No finite ε” means the "
          "report can, in some cases, reveal an answer for certain."), "SPEC §2–§3"),
    Entry("theta", _("θ (theta)"),
          _("For MRR: the probability that a group's true answers are sent. Larger θ gives a more accurate model and "
          "less privacy."), "", "SPEC §2"),
    Entry("pse", _("PSE (privacy as the probability of a wrong guess)"),
          _("For MRR: how often someone who sees a randomized answer and guesses the true one would guess wrong. "
          "Larger is more private; the dashboard shows the lowest over the question groups."),
          _("“Before mining” is the guesser who knows only the randomized answer (and the share of each answer); "
          "“after mining” is the guesser who also knows the published model and sees the whole randomized record, "
          "so PSE after mining is at most PSE before. “Uniform prior” means it was computed assuming every answer "
          "equally common, as before any data."), "SPEC §2; seed 004 §4"),
    Entry("mining", _("Mining (before / after mining)"),
          _("Building the model from the reports. “After mining” figures assume the adversary also knows the "
          "published model."), _("See PSE.")),
    # -- the LDP encodings ---------------------------------------------------------------------------------------
    Entry("encoding", _("Encoding (frequency oracle)"),
          _("How an LDP browser disguises one answer among d possible values before sending it."),
          _("Each one below keeps the same ε and differs in the size of the report and the accuracy it gives. The "
          "respondent's page says in plain words which one is used and with which chances."), "SPEC §3"),
    Entry("strategy", _("One report per person / every answer reported"),
          _("One report: the browser sends one randomly chosen part of the answers with the whole ε. Every answer "
          "reported (split): it sends every part, sharing ε between them."),
          _("A part is the class answer alone, or one other answer together with the class answer."), "SPEC §4"),
    # -- numbers -------------------------------------------------------------------------------------------------
    Entry("bins", _("Equal-width bins (discretize)"),
          _("A number is sent only as which of a few equal ranges between the question's limits it falls in."), "",
          "SPEC §5a"),
    Entry("projection", _("PCA / DCA (projection)"),
          _("Before sending, the browser combines the numeric answers into a few published combinations, fitted on a "
          "public reference sample: PCA keeps the directions of most variation, DCA those that best separate the "
          "classes."), _("Fewer numbers to disguise means less noise for each."), "SPEC §5c"),
    # -- validation and accuracy -------------------------------------------------------------------------------
    Entry("validation", _("Validation share"),
          _("The share of respondents whose browser checks the current model instead of adding to it; their "
          "randomized reports give the accuracy estimate."),
          _("LDP: the browser runs the published model on its own answers and sends only whether it was right, itself "
          "randomized. MRR: the validation respondents send a randomized record like anyone else, used only for "
          "testing.")),
    Entry("accuracy", _("Accuracy and its interval"),
          # xgettext:no-python-format
          _("The estimated share of respondents the model classifies correctly, with a 95 % confidence interval."),
          # xgettext:no-python-format
          _("It is estimated from the validation share's randomized reports only, so it comes with an interval: "
          "intervals built this way contain the true accuracy 95 % of the time. For LDP it is the accuracy of the "
          "newest version respondents have evaluated (“of vN”).")),
    Entry("majority", _("Majority rule (always guessing the most frequent class)"),
          _("The accuracy of a model that ignores every answer and always predicts the most common class: a model is "
          "useful only when it beats it.")),
    Entry("closed-day", _("Closed day (whole UTC days)"),
          _("A model includes only reports of UTC days that have ended (plus a short grace period), never part of a "
          "day."),
          _("So every published figure changes at most once a day, by whole days, and comparing two models never "
          "singles out a few reports. Today's reports are counted on the dashboard and join tomorrow's model.")),
    Entry("warnings", _("Warnings"),
          _("Plausibility findings stored with each model version: raw estimates far outside [0, 1], or parameters "
          "that moved much more than their noise allows since the previous version.")),
)

#: Where the mechanisms' entries go (after the entry of this anchor): each survey mode's family by its anchor, every
#: oracle after "encoding", the Gaussian family and its approaches after "bins".
_AFTER = {"ldp": "randomization", "mrr": "epsilon", "oracle": "encoding", "numeric": "bins"}


def _entry(d: describe.Description) -> Entry:
    return Entry(d.anchor, gettext_lazy(d.term), gettext_lazy(d.summary),
                 gettext_lazy(d.details) if d.details else "", d.spec)


def entries() -> list[Entry]:
    """Every entry in reading order, the mechanisms' from the mechanisms registered now."""
    placed: dict[str, list[Entry]] = {}
    for family in ("mode", "oracle", "numeric"):
        for mechanism in describe.described(family):
            d = mechanism.description
            placed.setdefault(_AFTER.get(d.anchor, _AFTER.get(family, "")), []).append(_entry(d))
    out: list[Entry] = []
    for term in _TERMS:
        out += [term, *placed.pop(term.anchor, [])]
    return out + [e for rest in placed.values() for e in rest]


def entry(anchor: str) -> Entry | None:
    """The entry with this anchor, or ``None``."""
    return next((e for e in entries() if e.anchor == anchor), None)


def method_label(name: str, fallback: str) -> str:
    """The planner's option text for the lab method ``name``: the plain label of the mechanism it runs
    (``Method.mechanism``'s ``description.plan_label``), translated, else ``fallback``."""
    from aggregator.lab.methods import get

    try:
        mechanism = get(name).mechanism
    except ValueError:
        return fallback
    description = getattr(mechanism, "description", None)
    plain = description.plan_label if description is not None else ""
    return f"{gettext(plain)} — {name}" if plain else fallback

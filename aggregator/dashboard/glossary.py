"""The dashboard's glossary (issue 12 item 6): every term the dashboard and the planner use, in plain words, in one
place. ``/dashboard/glossary/`` lists them (``views.glossary``); the pages link a term to its entry with the
``{% term %}`` tag (``aggregator/templatetags/glossary.py``), whose tooltip is the entry's first sentence; and the
planner's mechanism options take their plain labels from ``METHOD_LABELS``.

An entry: ``anchor`` (the fragment of its link), ``term`` (as the pages print it), ``short`` (one sentence: the
tooltip) and ``more`` (the rest, for the glossary page). Where a term comes from the specification, ``spec`` says where.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class Entry:
    anchor: str
    term: str
    short: str
    more: str = ""
    spec: str = ""


GLOSSARY: tuple[Entry, ...] = (
    # -- the two families of mechanisms ------------------------------------------------------------------------
    Entry("randomization", _("Randomization in the browser"),
          _("Each respondent's browser disguises the answers at random before anything is sent; the survey only ever "
          "receives the disguised (randomized) report."),
          _("Because the disguise is random with published chances, no single report says for sure what its sender "
          "answered, yet the chances let the survey estimate the answers of the whole group (and train a model on "
          "them).")),
    Entry("ldp", _("LDP (local differential privacy)"),
          _("A guarantee about each respondent's randomized report: whatever the true answers, any report is at most "
          "e^ε times more likely under one set of answers than under another."),
          _("“Local” because the disguise happens on the respondent's device, before the survey receives anything. "
          "An LDP survey uses one of the encodings below."), "SPEC §3–§4"),
    Entry("epsilon", _("ε (epsilon, the privacy budget)"),
          _("How much one respondent's report may reveal: smaller ε is more private and gives a less accurate model; "
          "larger ε is less private and more accurate."),
          _("ε per respondent covers everything one person sends. ε per question is the part that concerns one "
          "question (for MRR, questions sent together in a group share their group's ε). “No finite ε” means the "
          "report can, in some cases, reveal an answer for certain."), "SPEC §2–§3"),
    Entry("mrr", _("MRR (randomized response with unrelated questions)"),
          _("The browser flips a biased coin that only it sees: with probability θ it sends the respondent's true "
          "answers, otherwise stand-in answers (drawn at random, or the answers to an unrelated question)."),
          _("The record looks the same either way, so nobody can tell whether a given record is true. With several "
          "question groups, each group has its own coin and its own θ."), "SPEC §2"),
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
    Entry("de", _("DE (direct encoding)"),
          _("The answer itself is sent with probability p; otherwise one of the other possible values, picked at "
          "random."), _("Small reports; accurate when an answer has few possible values."), "SPEC §3"),
    Entry("sue", _("SUE (symmetric unary encoding)"),
          _("A row of 0s and 1s, one per possible value: the answer's position is 1 with probability p and every "
          "other is 1 with probability q = 1 − p."), "", "SPEC §3"),
    Entry("oue", _("OUE (optimized unary encoding)"),
          _("Like SUE, but the answer's position is 1 with probability 1/2 and every other position with a smaller "
          "probability q: more accurate than SUE at the same ε."), "", "SPEC §3"),
    Entry("olh", _("OLH (optimized local hashing)"),
          _("The browser picks a random hash function that sorts the possible values into g buckets and sends the "
          "answer's bucket with probability p (otherwise another bucket)."),
          _("Small reports even when an answer has many possible values."), "SPEC §3"),
    Entry("ss", _("SS (subset selection)"),
          _("The report is a random set of ω of the possible values that contains the true answer with probability "
          "p; the rest of the set is picked at random."),
          _("With ω = 1 it is the same as DE. The size ω is chosen for the least variance."), "SPEC §3"),
    Entry("she", _("SHE (summation with histogram encoding)"),
          _("A list of numbers, one per possible value (1 for the answer, 0 for the others), each with Laplace noise "
          "added; the survey sums the lists."), "", "SPEC §3"),
    Entry("the", _("THE (thresholding with histogram encoding)"),
          _("The same noisy list as SHE, but the survey counts a value when its noisy number exceeds a threshold t."),
          _("By default t is the one that gives the least variance."), "SPEC §3"),
    Entry("adaptive", _("Adaptive encoding"),
          _("For each part of a report, the encoding with the least expected error for that part's number of "
          "possible values (among DE, OLH, SS and OUE)."), "", "SPEC §3"),
    Entry("strategy", _("One report per person / every answer reported"),
          _("One report: the browser sends one randomly chosen part of the answers with the whole ε. Every answer "
          "reported (split): it sends every part, sharing ε between them."),
          _("A part is the class answer alone, or one other answer together with the class answer."), "SPEC §4"),
    # -- numbers -------------------------------------------------------------------------------------------------
    Entry("bins", _("Equal-width bins (discretize)"),
          _("A number is sent only as which of a few equal ranges between the question's limits it falls in."), "",
          "SPEC §5a"),
    Entry("gaussian", _("Gaussian approaches 1, 2 and 3"),
          _("Ways to keep numeric answers as numbers (the model learns a mean and a spread per class). Each browser "
          "sends either its class answer, its numbers, or its numbers squared, chosen at random."),
          _("The numbers sit in a table with one column per class (the respondent's in the column of their class, "
          "zeros elsewhere). Approach 1: the whole table, with Laplace noise on every entry. Approach 2: a single "
          "random +1 or −1 about one entry of the table. Approach 3: one number's row, picked at random, with "
          "Laplace noise."), "SPEC §5b"),
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

BY_ANCHOR = {entry.anchor: entry for entry in GLOSSARY}

#: The planner's mechanism options in plain words (the lab's ``Method.summary`` keeps the SPEC references for the
#: command line); the glossary anchor each one is explained at.
METHOD_LABELS: dict[str, tuple[str, str]] = {
    "mrr": (_("Randomized response: each record sent true or replaced by stand-ins (choose θ)"), "mrr"),
    "de": (_("One disguised answer per person: the value itself, sometimes swapped (DE)"), "de"),
    "sue": (_("One disguised answer per person: a row of 0s and 1s (SUE)"), "sue"),
    "oue": (_("One disguised answer per person: a row of 0s and 1s, optimized (OUE)"), "oue"),
    "she": (_("One disguised answer per person: a list of noisy numbers, summed (SHE)"), "she"),
    "the": (_("One disguised answer per person: a list of noisy numbers, thresholded (THE)"), "the"),
    "olh": (_("One disguised answer per person: a random hash bucket (OLH)"), "olh"),
    "ss": (_("One disguised answer per person: a random set holding the answer (SS)"), "ss"),
    "adaptive": (_("One disguised answer per person: the best disguise per question (adaptive)"), "adaptive"),
    "gauss-laplace": (_("Numbers kept as numbers: all of them with noise (Gaussian approach 1)"), "gaussian"),
    "gauss-onebit": (_("Numbers kept as numbers: one random +1 or −1 (Gaussian approach 2)"), "gaussian"),
    "gauss-sample": (_("Numbers kept as numbers: one of them with noise (Gaussian approach 3)"), "gaussian"),
}


def method_label(name: str, fallback: str) -> str:
    """The planner's option text for the lab method ``name``: its plain label, else ``fallback``."""
    plain = METHOD_LABELS.get(name)
    return f"{plain[0]} — {name}" if plain else fallback

"""A published model's estimated frequency tables as rows (``frequency_rows``), which the CSV and Excel formats
write.

**Frequency tables** (``frequency_rows``, ``frequencies_csv``, ``frequencies_xlsx``): one row per published parameter
— P(c) per class, P(a | c) per (question, answer, class), or μ_c and σ_c per (question, class) for Gaussian models —
with its standard error: the protocol's ``conditional_standard_errors`` for P(a | c) and μ_c (as the dashboard's
charts), ``prior_standard_errors`` from the model's metadata for P(c). Text cells that a spreadsheet would read as a
formula (starting with =, +, -, @, tab or carriage return) get a leading apostrophe (``spreadsheet_safe``).
"""
from __future__ import annotations

import math
import re
from typing import Mapping

import numpy as np

from aggregator.privacy.naive_bayes.model import NaiveBayesModel
from aggregator.privacy.schema import Categorical

#: Columns of the frequency tables: ``parameter`` is "P(c)" (class prior; ``answer`` empty), "P(a | c)" (share of an
#: answer among people of a class), or for Gaussian models "mean" / "sd" (μ_c / σ_c in the question's units;
#: ``answer`` empty). ``standard_error_kind``: the protocol's interval method for P(a | c) and μ_c — "delta" (the
#: delta-method SE of the published value) or "bound" (MRR: a conservative upper bound) —, "raw" for P(c) (the SE of
#: the unbiased raw estimate that post-processing turned into the published one), empty where there is no SE.
FREQUENCY_COLUMNS = ("question", "question_text", "parameter", "answer", "class", "estimate", "standard_error",
                     "standard_error_kind")

#: Leading characters that make a spreadsheet read a text cell as a formula (OWASP, "CSV injection").
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
#: Control characters an .xlsx cannot hold (openpyxl's ILLEGAL_CHARACTERS_RE): removed from text in both formats.
_ILLEGAL_CHARACTERS = re.compile(r"[\000-\010]|[\013-\014]|[\016-\037]")


def spreadsheet_safe(value):
    """Text as a spreadsheet cell: control characters an .xlsx refuses removed, and a leading apostrophe when it
    starts with =, +, -, @, tab or carriage return (so it stays text, never a formula); anything else unchanged."""
    if not isinstance(value, str):
        return value
    value = _ILLEGAL_CHARACTERS.sub("", value)
    return "'" + value if value.startswith(FORMULA_PREFIXES) else value


def _finite(x) -> float | None:
    """A finite float, or ``None`` (empty cell) for a missing, unknown (NaN) or infinite value."""
    if x is None or isinstance(x, str):
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def frequency_rows(model_dict: dict, protocol=None, texts: Mapping[str, str] | None = None) -> list[dict]:
    """The model's estimated frequency tables, one dict per parameter keyed by ``FREQUENCY_COLUMNS``: the class prior
    first, then each model attribute in order — P(a | c) per (answer, class), or per class μ_c and σ_c for a numeric
    attribute. Standard errors: ``protocol.conditional_standard_errors`` (as the charts), the model's
    ``prior_standard_errors`` for P(c); ``texts`` maps question names to their wording. Values are not escaped yet
    (``frequencies_csv`` / ``frequencies_xlsx`` do it)."""
    model = NaiveBayesModel.from_dict(model_dict)
    method, standard_errors = protocol.conditional_standard_errors(model) if protocol is not None else ("none", None)
    if standard_errors is None:
        method = ""
    texts = texts or {}
    classes = list(model.classes)

    def row(question, parameter, answer, klass, estimate, se, kind):
        se = _finite(se)
        return {"question": question, "question_text": texts.get(question, ""), "parameter": parameter,
                "answer": answer, "class": klass, "estimate": _finite(estimate), "standard_error": se,
                "standard_error_kind": kind if se is not None else ""}

    prior_se = model.metadata.get("prior_standard_errors")
    rows = [row(model.class_attribute.name, "P(c)", "", label, model.prior[c],
                None if prior_se is None else prior_se[c], "raw") for c, label in enumerate(classes)]
    for i, (attr, table) in enumerate(zip(model.attributes, model.conditionals, strict=True)):
        se = None if standard_errors is None else np.asarray(standard_errors[i], dtype=np.float64)
        if isinstance(attr, Categorical):
            rows += [row(attr.name, "P(a | c)", value, label, table[a, c], None if se is None else se[a, c], method)
                     for a, value in enumerate(attr.values) for c, label in enumerate(classes)]
        else:
            for c, label in enumerate(classes):
                rows.append(row(attr.name, "mean", "", label, table[0, c], None if se is None else se[c], method))
                rows.append(row(attr.name, "sd", "", label, table[1, c], None, ""))
    return rows


def question_texts(survey) -> dict[str, str]:
    """{engine feature or class name: its wording} of the survey's questions; a select-all question's yes/no
    features read “question — choice” (``survey_app.models.feature_texts``)."""
    from survey_app.models import feature_texts

    return feature_texts(survey.questions.prefetch_related("choices"))

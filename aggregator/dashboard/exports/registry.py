"""The per-version download formats, listed once: each one's URL, file name, media type and body. The dashboard's
URLs (``dashboard/urls.py``) and its download view (``export_views.download``) are made from ``FORMATS``; a new
format is a module and a line here."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from aggregator.privacy.naive_bayes.model import NaiveBayesModel

from .frequencies import frequency_rows, question_texts
from .frequencies_csv import frequencies_csv
from .frequencies_xlsx import frequencies_xlsx, frequency_summary
from .model_card import card_for
from .model_card_markdown import model_card_markdown
from .scikit_learn import sklearn_bytes

__all__ = ["VersionFormat", "FORMATS", "BY_NAME"]

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


@dataclass(frozen=True)
class VersionFormat:
    """One download of a published ``ModelVersion``.

    Parameters
    ----------
    name : str
        The URL's name in the ``dashboard`` namespace.
    path : str
        The URL's last part, after ``versions/<version>/``.
    suffix : str
        The downloaded file is named ``<slug>-v<version>-<suffix>``.
    content_type : str
        Its media type.
    build : callable
        ``build(version, protocol)`` → the body (``bytes`` or ``str``); ``ValueError`` when the version has no such
        form (the view answers 409).
    needs_protocol : bool
        Whether ``build`` needs the survey's protocol (else it gets ``None``).
    """

    name: str
    path: str
    suffix: str
    content_type: str
    build: Callable[[Any, Any], bytes | str]
    needs_protocol: bool = True


def _rows(version, protocol) -> list[dict]:
    return frequency_rows(version.model, protocol, question_texts(version.survey))


def _sklearn(version, protocol) -> bytes:
    return sklearn_bytes(NaiveBayesModel.from_dict(version.model))


def _csv(version, protocol) -> str:
    return frequencies_csv(_rows(version, protocol))


def _xlsx(version, protocol) -> bytes:
    return frequencies_xlsx(_rows(version, protocol), frequency_summary(card_for(version, protocol)))


def _markdown(version, protocol) -> str:
    return model_card_markdown(card_for(version, protocol))


FORMATS = (
    VersionFormat("model-sklearn", "sklearn.joblib", "sklearn.joblib", "application/octet-stream", _sklearn,
                  needs_protocol=False),
    VersionFormat("frequencies-csv", "frequencies.csv", "frequencies.csv", "text/csv; charset=utf-8", _csv),
    VersionFormat("frequencies-xlsx", "frequencies.xlsx", "frequencies.xlsx", XLSX_TYPE, _xlsx),
    VersionFormat("model-card-md", "card.md", "model-card.md", "text/markdown; charset=utf-8", _markdown),
)
BY_NAME = {f.name: f for f in FORMATS}

"""Survey operations shared by the admin, the API and management commands."""
from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import cast

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext

from . import theme
from .models import (
    CHOICES_FROZEN,
    MULTI_TOO_FEW,
    PREFER_NOT_TO_SAY,
    SETTINGS_FROZEN,
    SINGLE_ANSWER_COLUMN,
    Choice,
    InvitationToken,
    Question,
    Survey,
    SurveyLogo,
    opening_refusal,
)

#: Kinds of question whose answers are its ``Choice`` rows (a yes/no question's are no/yes, a number has none).
KINDS_WITH_CHOICES = (Question.Kind.CATEGORICAL, Question.Kind.MULTI)
#: How far the declared probabilities of a question with choices may sum from 1 (they are then scaled to sum to 1).
SUM_TOLERANCE = 1e-3
#: A cell holding only this is a missing answer, as in the UCI repository's files (like an empty cell).
MISSING_MARKERS = ("?",)


def unique_slug(base: str) -> str:
    base = slugify(base)[:70] or "survey"
    slug, i = base, 2
    while Survey.objects.filter(slug=slug).exists():
        slug, i = f"{base}-{i}", i + 1
    return slug


@transaction.atomic
def clone_survey(survey: Survey) -> Survey:
    """A draft copy of ``survey`` with its questions, choices and theme, and none of its reports or tokens."""
    questions = list(survey.questions.prefetch_related("choices"))
    copy = Survey.objects.get(pk=survey.pk)
    copy.pk = None
    copy.slug = unique_slug(f"{survey.slug}-copy")
    copy.title = f"{survey.title} (copy)"
    copy.status = Survey.Status.DRAFT
    copy.opens_at = copy.closes_at = None  # a copy opens when its designer says, not on the original's dates
    copy.webhook_url = copy.webhook_secret = ""  # and tells no one of its models until given an address
    copy.save()
    logo = SurveyLogo.objects.filter(survey=survey).first()
    if logo is not None:
        SurveyLogo.objects.create(survey=copy, data=logo.data, content_type=logo.content_type, digest=logo.digest)
    copies: dict[int, int] = {}  # original question id → its copy's, for the copies' conditions (skip logic)
    for q in questions:
        choices = list(q.choices.all())
        original = q.pk
        q.pk = None
        q.survey = copy
        q.show_if_question_id = copies.get(q.show_if_question_id) if q.show_if_question_id else None
        q.save()
        copies[original] = q.pk
        Choice.objects.bulk_create(
            [Choice(question=q, position=c.position, label=c.label, personal_probability=c.personal_probability,
                    translations=c.translations)
             for c in choices]
        )
    return copy


def set_logo(survey: Survey, logo: theme.Logo) -> None:
    """Make ``logo`` (checked by ``theme.read_logo``) the survey's logo, replacing any other."""
    SurveyLogo.objects.update_or_create(survey=survey, defaults={
        "data": logo.data, "content_type": logo.content_type, "digest": hashlib.sha256(logo.data).hexdigest()})


def generate_tokens(survey: Survey, count: int, batch: str = "") -> list[InvitationToken]:
    if not 1 <= count <= 100_000:
        raise ValueError("count must be between 1 and 100000")
    return InvitationToken.objects.bulk_create([InvitationToken(survey=survey, batch=batch) for _ in range(count)])


@transaction.atomic
def create_survey_from_table(
    table,
    *,
    slug: str,
    title: str | None = None,
    mode: str = Survey.Mode.LDP,
    encoding: str = Survey.Encoding.ADAPTIVE,
    epsilon: float | None = None,
    theta: float | None = None,
    open_now: bool = False,
) -> Survey:
    """A survey whose questions, choices and numeric bounds come from a ``survey_app.tables.Table``; a draft, or
    opened (``open_survey``) with ``open_now``. A column with a single answer is refused (``SINGLE_ANSWER_COLUMN``).

    Defaults follow the papers: LDP ε = 1 with numeric questions discretized into 4 equal-width bins; MRR θ = 0.7
    with every personal answer simulated uniformly by the browser (seed 004's experiments). Validation errors of the
    resulting survey are raised as ``django.core.exceptions.ValidationError``.
    """
    from aggregator.privacy.schema import Numeric
    from survey_app.tables import MISSING, option_name

    if Survey.objects.filter(slug=slug).exists():
        raise ValueError(f"a survey with slug {slug!r} already exists")
    if table.class_attribute.size < 2:
        raise ValueError(f"the class column {table.class_attribute.name!r} needs at least two classes")
    survey = Survey(
        title=title or slug.replace("-", " ").capitalize(),
        slug=slug,
        mode=mode,
        encoding=encoding,
        epsilon=(epsilon if epsilon is not None else 1.0) if mode == Survey.Mode.LDP else None,
        theta=(theta if theta is not None else 0.7) if mode == Survey.Mode.MRR else None,
    )
    survey.full_clean()
    survey.save()
    attributes = list(table.attributes) + [table.class_attribute]
    # A table's select-all column (load_table's ``multi``) is one no/yes attribute per choice: one question of kind
    # "multi" made at its first choice, whose features have the same names (``option_feature``) when the column's
    # name is a slug; an ordered column of 3 values or more is an ordered scale.
    multi_first = {option_name(column, 0): (column, options) for column, options in getattr(table, "multi", ())}
    multi_rest = {option_name(column, k) for column, options in getattr(table, "multi", ())
                  for k in range(1, len(options))}
    taken: set[str] = set()

    def unique(name: str) -> str:
        """Two columns can make one slug ("a b", "a-b"): the second gets "-2" (and so on)."""
        base, k = name, 2
        while name in taken:
            name, k = f"{base[:96]}-{k}", k + 1
        taken.add(name)
        return name

    for position, attr in enumerate(attributes):
        is_class = attr is table.class_attribute
        name = unique(slugify(attr.name)[:100] or f"q{position}")
        text = readable_text(attr.name)
        if attr.name in multi_rest:
            continue
        if attr.name in multi_first:
            column, options = multi_first[attr.name]
            labels: list[str] = list(options)
            q = Question(survey=survey, position=position, name=unique(slugify(column)[:100] or f"q{position}"),
                         text=readable_text(column), kind=Question.Kind.MULTI)
        elif isinstance(attr, Numeric):
            q = Question(survey=survey, position=position, name=name, text=text, kind=Question.Kind.NUMERIC,
                         low=attr.low, high=attr.high)
            labels = []
        else:
            labels = list(attr.values)
            # The table's missing answers (an empty cell, or "?": survey_app.tables.MISSING, last) are the
            # question's "Prefer not to say", also last: the same answer code.
            missing = not is_class and labels[-1:] == [MISSING]
            if missing:
                labels.pop()
            if not is_class and PREFER_NOT_TO_SAY in labels:  # the answer written out: the same as a missing cell
                labels.remove(PREFER_NOT_TO_SAY)
                missing = True
            if not is_class and len(labels) + missing < 2:
                raise ValueError(str(SINGLE_ANSWER_COLUMN) % {"column": attr.name, "answer": ", ".join(labels)})
            q = Question(survey=survey, position=position, name=name, text=text, kind=Question.Kind.CATEGORICAL,
                         is_class=is_class, prefer_not_to_say=missing)
        if attr.name in getattr(table, "ordered", ()) and len(labels) >= 3:
            q.style = Question.Style.SCALE
        q.full_clean(exclude=["survey"])
        q.save()
        if labels:
            Choice.objects.bulk_create([Choice(question=q, position=i, label=v) for i, v in enumerate(labels)])
    if open_now:
        open_survey(survey)
    return survey


def readable_text(column: str) -> str:
    """A question text from a column name, for a designer to edit: separators become spaces and the first letter a
    capital, the rest kept ("capital-gain" → "Capital gain", "bruises?" → "Bruises?", "RI" → "RI")."""
    words = " ".join(re.sub(r"[_\-.]+", " ", column).split())
    return (words[:1].upper() + words[1:])[:Question._meta.get_field("text").max_length] or column


def read_table(source, *, class_column: str | None = None, numeric=None, **options):
    """A survey's table from a CSV (a path or an uploaded file): ``survey_app.tables.load_table``, with a cell
    holding only a ``MISSING_MARKERS`` value ("?", as UCI files write a missing value) read as missing, like an empty
    cell (outside the class column, whose values must all be given)."""
    from survey_app.tables import load_table, read_csv

    frame = read_csv(source)
    if frame.shape[1] >= 2:
        target = class_column if class_column in frame.columns else frame.columns[-1]
        features = [c for c in frame.columns if c != target]
        frame[features] = frame[features].mask(frame[features].isin(MISSING_MARKERS))
    return load_table(frame, class_column=class_column, numeric=numeric, **options)  # options: multi=, ordered=


def fit_projection(survey: Survey) -> dict | None:
    """Fit the survey's PCA/DCA on its uploaded public reference sample (SPEC §5c) and store it; ``None`` when the
    survey uses no projection. The CSV must have a column per numeric question (and the class question, for DCA)."""
    from aggregator.privacy.continuous.projection import fit_dca, fit_pca
    from survey_app.tables import read_csv

    if survey.has_opened() or survey.has_reports():  # the fitted projection is part of the protocol: frozen
        raise ValidationError(SETTINGS_FROZEN, code="frozen", params={"fields": "projection_params"})
    if survey.projection == Survey.Projection.NONE:
        survey.projection_params = None
        survey.save(update_fields=["projection_params"])
        return None
    if not survey.reference_sample:
        raise ValueError(gettext("PCA/DCA needs a public reference sample"))
    numeric = [q.name for q in survey.questions.filter(kind=Question.Kind.NUMERIC, is_class=False)]
    if not numeric:
        raise ValueError(gettext("PCA/DCA needs numeric questions"))
    survey.reference_sample.open("rb")
    try:
        frame = read_csv(survey.reference_sample)
    finally:
        survey.reference_sample.close()
    missing = [c for c in numeric if c not in frame.columns]
    if missing:
        raise ValueError(gettext("the reference sample lacks the column(s) %(columns)s")
                         % {"columns": ", ".join(missing)})
    try:
        X = frame[numeric].astype(float).to_numpy()
    except ValueError:
        raise ValueError(gettext("the reference sample's numeric columns must hold numbers only")) from None
    r = survey.projection_components or 1
    if survey.projection == Survey.Projection.PCA:
        projection = fit_pca(X, r)
    else:
        class_question = survey.class_question
        if class_question is None or class_question.name not in frame.columns:
            raise ValueError(gettext("DCA needs the class question's column in the reference sample"))
        projection = fit_dca(X, frame[class_question.name].to_numpy(), r)
    survey.projection_params = projection.to_dict()
    survey.save(update_fields=["projection_params"])
    return survey.projection_params


# -- choices as lines of text (the survey page's "Choices (one per line)", survey_app/admin.py) -----------------------

@dataclass(frozen=True)
class ChoiceLine:
    label: str
    probability: float | None = None


def _probability(text: str) -> Fraction | None:
    """``0.3``, ``.3``, ``1/3`` or ``30%`` as an exact fraction; ``None`` if ``text`` is none of these."""
    text = text.strip()
    scale = 1
    if text.endswith("%"):
        text, scale = text[:-1].strip(), 100
    if not text or len(text) > 40 or not re.fullmatch(r"[0-9.+\-/ ]+", text):  # no exponent: 1e-999999999
        return None
    try:
        return Fraction(text.replace(" ", "")) / scale
    except (ValueError, ZeroDivisionError):
        return None


def _split_line(line: str) -> tuple[str, Fraction | None]:
    """A line's label and declared probability: ``Daily = 0.2`` → ("Daily", 1/5). The text after the last "=" is a
    probability only when it is a number and the "=" is not part of a comparison (``<= 50K``, ``>= 2.5`` are labels)."""
    label, sep, tail = line.rpartition("=")
    if sep and not label.rstrip().endswith(("<", ">", "!", "=")):
        value = _probability(tail)
        if value is not None:
            return label.strip(), value
    return line.strip(), None


def parse_choice_lines(text: str, *, kind: str, prefer_not_to_say: bool = False) -> list[ChoiceLine]:
    """The choices written one per line, optionally ``label = probability`` (MRR: the declared share of the
    population giving that answer to the unrelated question), checked; ``ValueError`` with every problem, one
    sentence each. Blank lines are skipped. A question with one answer (Choices) needs at least two answers and
    probabilities for all of its choices or none, summing to 1 (within ``SUM_TOLERANCE``, then scaled to sum to 1
    exactly); a select-all question's probabilities are each choice's share of "yes". Yes/no and numeric questions
    take no choices."""
    lines = [line for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n") if line.strip()]
    problems: list[str] = []
    if kind not in KINDS_WITH_CHOICES:
        if lines:
            problems.append(gettext("Leave the choices empty: a yes/no question has the answers no and yes. To offer "
                                    "these choices, set the kind to “Choices”.") if kind == Question.Kind.BINARY else
                            gettext("Leave the choices empty: a number has no choices. To offer these choices, set the "
                                    "kind to “Choices”."))
        if problems:
            raise ValueError(problems)
        return []
    parsed = [_split_line(line) for line in lines]
    seen: dict[str, int] = {}
    label_field = Choice._meta.get_field("label")
    for number, (label, _) in enumerate(parsed, start=1):
        if not label:
            problems.append(gettext("Line %(number)d has no label before its “=”.") % {"number": number})
            continue
        if len(label) > cast(int, label_field.max_length):
            problems.append(gettext("Line %(number)d: a label has at most %(max)d characters.")
                            % {"number": number, "max": label_field.max_length})
        key = " ".join(label.split()).casefold()
        if key in seen:
            problems.append(gettext("“%(label)s” is given twice (lines %(first)d and %(number)d): each choice once.")
                            % {"label": label, "first": seen[key], "number": number})
        else:
            seen[key] = number
        if prefer_not_to_say and key in (PREFER_NOT_TO_SAY.casefold(), gettext(PREFER_NOT_TO_SAY).casefold()):
            problems.append(gettext("Line %(number)d: “%(prefer)s” is added by its own box (ticked); remove the line.")
                            % {"number": number, "prefer": gettext(PREFER_NOT_TO_SAY)})
    probabilities = [p for _, p in parsed]
    given = [p for p in probabilities if p is not None]
    if given:
        if len(given) != len(parsed):
            missing = ", ".join(f"“{label}”" for label, p in parsed if p is None)
            problems.append(gettext("Give a probability for every choice or for none: missing for %(labels)s.")
                            % {"labels": missing})
        for label, p in parsed:
            if p is not None and not 0 <= p <= 1:
                problems.append(gettext("The probability of “%(label)s” must be between 0 and 1 (e.g. 0.25 or "
                                        "25%%).") % {"label": label})
        if prefer_not_to_say:
            problems.append(gettext("Probabilities cannot be combined with “%(prefer)s”: the declared distribution "
                                    "would have to include it. Untick it or remove the probabilities.")
                            % {"prefer": gettext(PREFER_NOT_TO_SAY)})
        if kind == Question.Kind.CATEGORICAL and len(given) == len(parsed) and not problems:
            total = sum(given, Fraction(0))
            if abs(total - 1) > SUM_TOLERANCE:
                problems.append(gettext("The probabilities add up to %(total)s, not 1: the declared shares of all "
                                        "the answers must sum to 1.") % {"total": f"{float(total):.4g}"})
    count = len(parsed) + (1 if prefer_not_to_say and kind == Question.Kind.CATEGORICAL else 0)
    if kind == Question.Kind.CATEGORICAL and count < 2:
        problems.append(gettext("A question with choices needs at least two answers: write one choice per line."))
    if kind == Question.Kind.MULTI and len(parsed) < 2:
        problems.append(str(MULTI_TOO_FEW))
    if problems:
        raise ValueError(problems)
    if given and kind == Question.Kind.CATEGORICAL:
        total = sum(given, Fraction(0))
        shares = [float(p / total) for p in given] if total != 1 else [float(p) for p in given]
        return [ChoiceLine(label, share) for (label, _), share in zip(parsed, shares, strict=True)]
    return [ChoiceLine(label, None if p is None else float(p)) for label, p in parsed]


def format_probability(p: float) -> str:
    """A declared probability as the choice lines write it: at most 12 significant digits (0.25, 0.333333333333)."""
    return f"{p:.12g}"


def choice_lines(question: Question) -> str:
    """A question's choices as ``parse_choice_lines`` reads them: one per line, ``label = probability`` when declared
    (``""`` for a question not yet saved)."""
    if question.pk is None:
        return ""
    return "\n".join(c.label if c.personal_probability is None else
                     f"{c.label} = {format_probability(c.personal_probability)}" for c in question.choices.all())


@transaction.atomic
def sync_choices(question: Question, lines: list[ChoiceLine]) -> dict[str, int]:
    """Make ``question``'s ``Choice`` rows be ``lines``, in order: a label already there keeps its row (and its
    translations); when as many labels are new as disappeared, the new ones are renames of those rows, in order
    (a renamed row loses its translations: they named the old answer); otherwise new labels are new rows and rows no
    longer listed are deleted. Only rows that change are written (each write bumps the survey's version,
    survey_app/protocol.py). Returns how many were created, renamed, moved or changed, deleted, and how many renamed
    rows' translations were reset."""
    existing = list(question.choices.all())
    same = len(existing) == len(lines) and all(
        c.label == line.label and (c.personal_probability is None) == (line.probability is None)
        and (line.probability is None
             or math.isclose(cast(float, c.personal_probability), line.probability, abs_tol=1e-11))
        for c, line in zip(existing, lines, strict=False))
    if not same and question.survey_id is not None and (question.survey.has_opened() or question.survey.has_reports()):
        raise ValidationError(CHOICES_FROZEN, code="frozen", params={"fields": gettext("the choices")})
    by_label = {c.label: c for c in existing}
    kept: list[Choice | None] = [by_label.get(line.label) for line in lines]
    used = {c.pk for c in kept if c is not None}
    new = [i for i, choice in enumerate(kept) if choice is None]
    gone = [choice for choice in existing if choice.pk not in used]
    choice: Choice | None
    if len(new) == len(gone):  # as many labels changed as disappeared: renames, in order
        for i, choice in zip(new, gone, strict=True):
            kept[i] = choice
            used.add(choice.pk)
    counts = {"created": 0, "renamed": 0, "changed": 0, "deleted": 0, "translations_reset": 0}
    for choice in existing:
        if choice.pk not in used:
            choice.delete()
            counts["deleted"] += 1
    for position, (line, choice) in enumerate(zip(lines, kept, strict=True)):
        if choice is None:
            Choice.objects.create(question=question, position=position, label=line.label,
                                  personal_probability=line.probability)
            counts["created"] += 1
            continue
        same_p = (choice.personal_probability is None) == (line.probability is None) and (
            line.probability is None
            or math.isclose(cast(float, choice.personal_probability), line.probability, abs_tol=1e-11))
        if choice.label == line.label and choice.position == position and same_p:
            continue
        counts["renamed" if choice.label != line.label else "changed"] += 1
        if choice.label != line.label and choice.translations:
            # The old label's translations would show respondents the old answer for the new one.
            choice.translations = {}
            counts["translations_reset"] += 1
        choice.label, choice.position = line.label, position
        if not same_p:
            choice.personal_probability = line.probability
        choice.save(update_fields=["label", "position", "personal_probability", "translations"])
    return counts


class CannotOpen(ValueError):
    """Why a survey may not open (``opening_refusal``), in the page's language: ``str(exc)``."""


def open_survey(survey: Survey) -> None:
    """Open ``survey`` for reports; ``CannotOpen`` (a ``ValueError``) saying why not (``opening_refusal``): the
    engine refuses its settings (a class question with ≥ 2 answers, features, settings the browser can honour, …) or
    they give no privacy."""
    refusal = opening_refusal(survey)
    if refusal is not None:
        raise CannotOpen(refusal)
    survey.status = Survey.Status.OPEN
    survey.save(update_fields=["status"])  # one save each: the retraining schedule follows (aggregator.schedules)


def close_survey(survey: Survey) -> None:
    """Close ``survey``: it takes no more reports; what arrived is still folded and published."""
    survey.status = Survey.Status.CLOSED
    survey.save(update_fields=["status"])


@dataclass
class CalendarRun:
    """What ``apply_calendars`` did: the slugs opened and closed, and the drafts due that could not open (slug,
    reason)."""
    opened: list[str]
    closed: list[str]
    not_opened: list[tuple[str, str]]


def apply_calendars(now=None) -> CalendarRun:
    """Open the drafts whose ``opens_at`` has come (and whose ``closes_at`` has not), close the open surveys whose
    ``closes_at`` has come or whose reports reached their ``quota``. Run every minute by Celery beat."""
    now = now or timezone.now()
    run = CalendarRun([], [], [])
    due = Survey.objects.filter(status=Survey.Status.DRAFT, opens_at__lte=now).exclude(closes_at__lte=now)
    for survey in due:
        try:
            open_survey(survey)
            run.opened.append(survey.slug)
        except ValueError as exc:
            run.not_opened.append((survey.slug, str(exc)))
    for survey in Survey.objects.filter(status=Survey.Status.OPEN).exclude(closes_at=None, quota=None):
        ended = survey.closes_at is not None and survey.closes_at <= now
        if ended or (survey.quota is not None and survey.report_total() >= survey.quota):
            close_survey(survey)
            run.closed.append(survey.slug)
    return run


# -- the designer's workspace (survey_app/design.py) ------------------------------------------------------------------

def create_draft(form, designer) -> Survey:
    """Save a new draft from the workspace's valid ``NewSurveyForm``; ``designer`` designs it."""
    with transaction.atomic():
        survey = form.save()
        survey.designers.add(designer)
    return survey


@transaction.atomic
def save_design(survey_form, privacy_form, formset) -> Survey:
    """Save a survey as edited on the workspace — its valid ``SurveyForm``, ``PrivacyForm`` and question formset —
    in one transaction: the settings, the questions (in the order of their ``position`` boxes, renumbered from 0 while
    a draft), their choices (``sync_choices``, through the form) and the choices' translations, one line per choice in
    order (an empty line: none)."""
    survey = survey_form.save()
    privacy_form.save()
    for form in formset.deleted_forms:
        if form.instance.pk is not None:
            form.instance.delete()
    kept = [form for form in formset.forms if form not in formset.deleted_forms
            and (form.instance.pk is not None or form.has_changed())]
    if not survey.has_opened():
        ordered = sorted(enumerate(kept), key=lambda pair: (pair[1].cleaned_data.get("position") or 0, pair[0]))
        for position, (_, form) in enumerate(ordered):
            form.instance.position = position
    # The class question last, so that moving the class from one question to another never holds two at once.
    for form in sorted(kept, key=lambda f: bool(f.cleaned_data.get("is_class"))):
        form.instance.survey = survey
        form.save()
        for language, labels in (form.choice_translations or {}).items():
            for i, choice in enumerate(form.instance.choices.all()):
                label = labels[i] if i < len(labels) else ""
                entry = dict(choice.translations or {})
                if label:
                    entry[language] = label
                else:
                    entry.pop(language, None)
                if entry != (choice.translations or {}):
                    choice.translations = entry
                    choice.save(update_fields=["translations"])
    return survey


def act_on_survey(survey: Survey, action: str, user) -> Survey:
    """The workspace's actions: ``open`` (``open_survey``; ``CannotOpen`` says why not), ``close`` or ``clone`` (the
    copy designed by the original's designers and ``user``). Returns the survey to show next."""
    if action == "open":
        open_survey(survey)
        return survey
    if action == "close":
        close_survey(survey)
        return survey
    with transaction.atomic():
        copy = clone_survey(survey)
        copy.designers.set([*survey.designers.all(), user])
    return copy

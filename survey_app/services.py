"""Survey operations shared by the admin, the API and management commands."""
from __future__ import annotations

from django.db import transaction
from django.utils.text import slugify

from .models import Choice, InvitationToken, Question, Survey


def unique_slug(base: str) -> str:
    base = slugify(base)[:70] or "survey"
    slug, i = base, 2
    while Survey.objects.filter(slug=slug).exists():
        slug, i = f"{base}-{i}", i + 1
    return slug


@transaction.atomic
def clone_survey(survey: Survey) -> Survey:
    """A draft copy of ``survey`` with its questions and choices, and none of its reports or tokens."""
    questions = list(survey.questions.prefetch_related("choices"))
    copy = Survey.objects.get(pk=survey.pk)
    copy.pk = None
    copy.slug = unique_slug(f"{survey.slug}-copy")
    copy.title = f"{survey.title} (copy)"
    copy.status = Survey.Status.DRAFT
    copy.save()
    for q in questions:
        choices = list(q.choices.all())
        q.pk = None
        q.survey = copy
        q.save()
        Choice.objects.bulk_create(
            [Choice(question=q, position=c.position, label=c.label, personal_probability=c.personal_probability)
             for c in choices]
        )
    return copy


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
    """A survey whose questions, choices and numeric bounds come from a ``aggregator.lab.datasets.Table``.

    Defaults follow the papers: LDP ε = 1 with numeric questions discretized into 4 equal-width bins; MRR θ = 0.7
    with every personal answer simulated uniformly by the browser (seed 004's experiments). Validation errors of the
    resulting survey are raised as ``django.core.exceptions.ValidationError``.
    """
    from aggregator.privacy.schema import Numeric

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
        status=Survey.Status.OPEN if open_now else Survey.Status.DRAFT,
    )
    survey.full_clean()
    survey.save()
    attributes = list(table.attributes) + [table.class_attribute]
    for position, attr in enumerate(attributes):
        is_class = attr is table.class_attribute
        name = slugify(attr.name)[:100] or f"q{position}"
        if isinstance(attr, Numeric):
            q = Question(survey=survey, position=position, name=name, text=attr.name, kind=Question.Kind.NUMERIC,
                         low=attr.low, high=attr.high)
        else:
            q = Question(survey=survey, position=position, name=name, text=attr.name, kind=Question.Kind.CATEGORICAL,
                         is_class=is_class)
        q.full_clean(exclude=["survey"])
        q.save()
        if not isinstance(attr, Numeric):
            Choice.objects.bulk_create([Choice(question=q, position=i, label=v) for i, v in enumerate(attr.values)])
    return survey


def fit_projection(survey: Survey) -> dict | None:
    """Fit the survey's PCA/DCA on its uploaded public reference sample (SPEC §5c) and store it; ``None`` when the
    survey uses no projection. The CSV must have a column per numeric question (and the class question, for DCA)."""
    from aggregator.lab.datasets import read_csv
    from aggregator.privacy.continuous.projection import fit_dca, fit_pca

    if survey.projection == Survey.Projection.NONE:
        survey.projection_params = None
        survey.save(update_fields=["projection_params"])
        return None
    if not survey.reference_sample:
        raise ValueError("PCA/DCA needs a public reference sample")
    numeric = [q.name for q in survey.questions.filter(kind=Question.Kind.NUMERIC, is_class=False)]
    if not numeric:
        raise ValueError("PCA/DCA needs numeric questions")
    survey.reference_sample.open("rb")
    try:
        frame = read_csv(survey.reference_sample)
    finally:
        survey.reference_sample.close()
    missing = [c for c in numeric if c not in frame.columns]
    if missing:
        raise ValueError(f"the reference sample lacks the column(s) {', '.join(missing)}")
    try:
        X = frame[numeric].astype(float).to_numpy()
    except ValueError:
        raise ValueError("the reference sample's numeric columns must hold numbers only") from None
    r = survey.projection_components or 1
    if survey.projection == Survey.Projection.PCA:
        projection = fit_pca(X, r)
    else:
        class_question = survey.class_question
        if class_question is None or class_question.name not in frame.columns:
            raise ValueError("DCA needs the class question's column in the reference sample")
        projection = fit_dca(X, frame[class_question.name].to_numpy(), r)
    survey.projection_params = projection.to_dict()
    survey.save(update_fields=["projection_params"])
    return survey.projection_params

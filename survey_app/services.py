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
            [Choice(question=q, position=c.position, label=c.label, personal_probability=c.personal_probability) for c in choices]
        )
    return copy


def generate_tokens(survey: Survey, count: int, batch: str = "") -> list[InvitationToken]:
    if not 1 <= count <= 100_000:
        raise ValueError("count must be between 1 and 100000")
    return InvitationToken.objects.bulk_create([InvitationToken(survey=survey, batch=batch) for _ in range(count)])

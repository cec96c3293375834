"""A model error on a question field the workspace's block does not show (set in the admin, e.g. MRR's unrelated
question) is the block's own error, named by the field — not a server error (Django's ``add_error`` refuses a field
the form lacks)."""
import pytest
from django.core.exceptions import ValidationError

from survey_app.design_forms import QuestionForm
from survey_app.models import Question
from tests.factories import make_draft_survey


@pytest.mark.django_db
def test_an_error_on_a_field_the_block_does_not_show_becomes_the_blocks_error():
    question = make_draft_survey().questions.first()
    form = QuestionForm(instance=question, data={})
    form.cleaned_data = {}
    hidden, shown = "personal_mode", "name"
    assert hidden not in form.fields and shown in form.fields
    form.add_error(None, ValidationError({hidden: ["wrong unrelated question"], shown: ["bad name"]}))
    label = Question._meta.get_field(hidden).verbose_name
    assert form.non_field_errors() == [f"{label}: wrong unrelated question"]
    assert "bad name" in form.errors[shown]

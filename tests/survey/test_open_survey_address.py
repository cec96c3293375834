"""An opened survey keeps its address: every link handed out (invitations by email included) points at it, so a
change of slug is refused with one message — by the model's rule that the admin, the workspace and the management
API all ask."""
import pytest
from django.core.exceptions import ValidationError

from survey_app.mailing import parse_addresses
from survey_app.models import SLUG_FROZEN, frozen_errors
from tests.factories import make_draft_survey, make_survey


@pytest.mark.django_db
def test_an_opened_survey_keeps_its_slug_and_a_draft_may_change_it():
    survey = make_survey(slug="kept")
    survey.slug = "renamed"
    error = frozen_errors(survey)
    assert isinstance(error, ValidationError) and error.message_dict == {"slug": [str(SLUG_FROZEN)]}
    draft = make_draft_survey()
    draft.slug = "draft-renamed"
    assert frozen_errors(draft) is None


def test_an_address_longer_than_the_table_stores_is_invalid_not_a_server_error():
    long_address = "a" * 250 + "@example.org"  # valid to Django's validator (≤ 320), longer than 254
    parsed = parse_addresses(f"ok@example.org {long_address}")
    assert parsed.valid == ["ok@example.org"] and parsed.invalid == [long_address]

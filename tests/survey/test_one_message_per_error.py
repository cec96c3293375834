"""One error, one message: a setting out of range is refused once, in the engine's words (its rule, mapped onto the
form field), never twice nor in the arithmetic's terms."""
import pytest
from django.core.exceptions import ValidationError

from survey_app.models import Survey

pytestmark = pytest.mark.django_db


def field_errors(**settings) -> dict:
    with pytest.raises(ValidationError) as info:
        Survey(title="t", slug="one-message", **settings).full_clean()
    return info.value.message_dict


@pytest.mark.parametrize("theta", [1.5, -0.2, 0.0])
def test_theta_out_of_range_gets_one_message(theta):
    errors = field_errors(mode="mrr", theta=theta)
    assert list(errors) == ["theta"] and len(errors["theta"]) == 1, errors
    assert errors["theta"][0] == "θ must be in (0, 1]."


def test_a_huge_epsilon_gets_one_plain_message():
    errors = field_errors(mode="ldp", epsilon=1000.0)
    assert list(errors) == ["epsilon"] and len(errors["epsilon"]) == 1, errors
    message = errors["epsilon"][0]
    assert "2^-53" not in message and "multiple" not in message, message
    assert "ε" in message

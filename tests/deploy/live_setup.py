"""Run by test_live.py inside ``manage.py shell`` under the production settings: a survey open to anyone with 400
stored reports, an invitation-only survey with one token, and one more honest report to POST. Prints them as JSON."""
import json

import numpy as np

from survey_app.protocol import get_protocol
from survey_app.services import generate_tokens
from tests.factories import add_reports, make_survey

survey = make_survey("live")
add_reports(survey, 400)
invited = make_survey("live-invited", access="tokens")
token = generate_tokens(invited, 1)[0].token
rng = np.random.default_rng(7)
report = get_protocol(survey).encode(np.array([[2, 51.5]]), np.array([1]), rng)[0]
invited_report = get_protocol(invited).encode(np.array([[0, 30.0]]), np.array([0]), rng)[0]
print(json.dumps({"survey_id": survey.id, "slug": survey.slug, "report": report, "invited": invited.slug,
                  "token": token, "invited_report": invited_report}))

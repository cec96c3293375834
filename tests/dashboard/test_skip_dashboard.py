"""A survey with skip logic on the dashboard: the hidden question's “Not asked” is one more estimated answer, with its
own label, per class. Respondents who never smoke are not asked how much they smoke; they are less often ill, so
P(“Not asked” | not ill) = 0.5 and P(“Not asked” | ill) = 1/7: with θ = 0.6 and 4,000 reports each estimate has a
standard error near 0.03, and the test asks only that the first exceeds the second (a gap of about ten errors)."""
import json

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from aggregator import services
from aggregator.privacy.skip import SkipRule, apply
from survey_app.languages import NOT_ASKED
from survey_app.models import PendingReport
from survey_app.protocol import get_protocol
from tests.factories import after_midnight, make_skip_survey

pytestmark = pytest.mark.django_db


def test_the_dashboard_estimates_not_asked_per_class(client):
    survey = make_skip_survey(mode="mrr")
    rng = np.random.default_rng(7)
    n = 4000
    smoker = rng.integers(0, 3, n)
    rule = SkipRule(target=1, gate=0, shown=frozenset({1, 2}), not_asked=4)
    X = np.array([apply([s, c], [rule]) for s, c in zip(smoker, rng.integers(0, 4, n), strict=True)])
    y = (rng.random(n) < np.where(smoker == 0, 0.2, 0.6)).astype(np.int64)
    reports = get_protocol(survey).encode(X.astype(np.float64), y, rng)
    PendingReport.objects.bulk_create([PendingReport(survey=survey, payload=r) for r in reports])
    services.retrain(survey, now=after_midnight())
    client.force_login(User.objects.create_superuser("boss", "boss@example.invalid", "pw"))
    html = client.get(reverse("dashboard:survey", args=[survey.slug])).content.decode()
    tag = '<script id="dashboard-data" type="application/json">'
    start = html.index(tag) + len(tag)
    data = json.loads(html[start:html.index("</script>", start)])
    cigarettes = next(d for d in data["distributions"] if d["name"] == "cigarettes")
    assert cigarettes["values"][-2:] == ["Prefer not to say", NOT_ASKED]
    by_class = {s["class"]: s["estimate"][-1] for s in cigarettes["series"]}
    assert by_class["no"] > by_class["yes"]

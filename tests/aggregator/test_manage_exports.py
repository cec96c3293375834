"""The management API's downloads of a published model version (token authentication, the survey's designers only):
the scikit-learn estimator, the frequency tables and the model card — the same bodies the staff dashboard serves
(``aggregator.dashboard.exports.registry``); 404 for an unknown version or format, nothing for another designer."""
import io

import joblib
import numpy as np
import pytest
from django.contrib.auth.models import User

from aggregator.models import ModelVersion
from aggregator.privacy.jsonable import json_safe
from survey_app.protocol import get_protocol
from tests.factories import health_answers, make_survey
from tests.manage_support import designer


@pytest.mark.django_db
def test_a_designer_downloads_each_format_of_a_published_version_and_nobody_else_does():
    client = designer("alice")
    survey = make_survey(slug="exported")
    survey.designers.add(User.objects.get(username="alice"))
    rng = np.random.default_rng(0)
    X = health_answers(rng, 800)
    protocol = get_protocol(survey)
    model = protocol.estimate(protocol.fold(protocol.encode(X, (X[:, 0] == 2).astype(np.int64), rng)))
    ModelVersion.objects.create(survey=survey, version=1, model=json_safe(model.to_dict()), report_count=800,
                                privacy=json_safe(protocol.model_privacy(model)), metrics={})
    base = "/api/manage/surveys/exported/versions/1/"
    sklearn = client.get(base + "model-sklearn/")
    assert sklearn.status_code == 200 and 'filename="exported-v1-sklearn.joblib"' in sklearn["Content-Disposition"]
    estimator = joblib.load(io.BytesIO(sklearn.content))
    assert len(estimator.classes_) == 2  # sick or not
    csv = client.get(base + "frequencies-csv/")
    assert csv.status_code == 200 and csv["Content-Type"].startswith("text/csv")
    card = client.get(base + "model-card-md/")
    assert card.status_code == 200 and card.content.decode().startswith("#")
    assert client.get(base + "no-such-format/").status_code == 404
    assert client.get("/api/manage/surveys/exported/versions/2/model-sklearn/").status_code == 404
    assert designer("mallory").get(base + "model-sklearn/").status_code == 404  # not their survey

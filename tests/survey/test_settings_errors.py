"""Survey.clean: the engine's ``check_settings`` judges the privacy settings and each ``ConfigError.field`` lands on
its form field (``survey_app.models.CONFIG_FIELDS``), one test per field; Django's own rules stay in Django."""
import pytest
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError

from aggregator.privacy.continuous.projection import fit_pca
from aggregator.privacy.survey_protocol import ConfigError
from survey_app import models
from survey_app.models import CONFIG_FIELDS, Question, Survey
from tests.factories import make_draft_survey

pytestmark = pytest.mark.django_db

LDP = {"mode": "ldp", "epsilon": 1.0}
MRR = {"mode": "mrr", "theta": 0.7}


def errors_of(survey: Survey) -> dict:
    """The errors ``clean`` (the settings rules only, not the fields' own validators) gives."""
    with pytest.raises(ValidationError) as info:
        survey.clean()
    return info.value.message_dict


def a_projection() -> dict:
    import numpy as np

    return fit_pca(np.random.default_rng(0).normal(size=(50, 2)), 1).to_dict()


@pytest.mark.parametrize("settings, config_field, form_field, message", [
    ({"mode": "poll"}, "mode", "mode", "Mode must be 'mrr' or 'ldp'."),
    ({**LDP, "epsilon": None}, "ldp.epsilon", "epsilon", "LDP needs ε."),
    ({**LDP, "epsilon": float("inf")}, "ldp.epsilon", "epsilon", "ε must be a number > 0."),
    ({**LDP, "encoding": "xyz"}, "ldp.encoding", "encoding", "Unknown frequency oracle"),
    ({**LDP, "encoding": "the", "encoding_parameters": {"threshold": 1.5}}, "ldp.parameters", "encoding_parameters",
     "The threshold t of THE must lie in [0, 1]."),
    ({**LDP, "strategy": "all"}, "ldp.strategy", "strategy", "The strategy must be one of"),
    ({**LDP, "postprocess": "clip"}, "ldp.postprocess", "postprocess", "The post-processing method must be one of"),
    ({**MRR, "theta": 0.0}, "mrr.theta", "theta", "θ must be in (0, 1]."),
    ({**MRR, "theta": None}, "mrr.theta", "theta", "MRR needs θ."),
    ({**MRR, "postprocess": "clip"}, "mrr.postprocess", "postprocess", "The post-processing method must be one of"),
    ({**LDP, "numeric_bins": 1}, "numeric.bins", "numeric_bins", "The number of bins must be a whole number"),
    ({**LDP, "numeric_handling": "gaussian", "gaussian_approach": 7}, "numeric.approach", "gaussian_approach",
     "Approach must be 1, 2 or 3."),
    ({**LDP, "validation_share": 0.7}, "validation.share", "validation_share", "The validation share must be in"),
    ({**MRR, "projection": "pca", "projection_components": 1, "projection_params": "fitted"}, "projection",
     "projection", "PCA/DCA applies to LDP surveys only."),
    ({**LDP, "projection": "pca", "projection_components": 1, "projection_params": {"method": "pca"}}, "projection",
     "projection", "Not a projection"),
])
def test_each_engine_error_lands_on_its_form_field(settings, config_field, form_field, message):
    assert CONFIG_FIELDS[config_field] == form_field
    if settings.get("projection_params") == "fitted":
        settings = {**settings, "projection_params": a_projection()}
    errors = errors_of(Survey(title="t", slug="t", **settings))
    assert list(errors) == [form_field]
    assert errors[form_field][0].startswith(message), errors


def test_mrr_groups_with_a_validation_share_land_on_the_share():
    survey = make_draft_survey(mode="mrr", theta=0.7, validation_share=0.1)
    survey.clean()  # one group
    Question.objects.filter(survey=survey, name="smoker").update(group=1)
    errors = errors_of(survey)
    assert list(errors) == ["validation_share"] and "one group" in errors["validation_share"][0]
    survey.validation_share = 0.0
    survey.clean()


def test_the_threshold_range_is_the_engines_closed_interval():
    """THE's t ∈ [0, 1] (the engine's rule; the form used to refuse 0 and 1)."""
    for t in (0.0, 0.25, 1.0):
        Survey(title="t", slug="t", encoding="the", encoding_parameters={"threshold": t}, **LDP).clean()
    assert list(errors_of(Survey(title="t", slug="t", encoding="the", encoding_parameters={"threshold": -0.1},
                                 **LDP))) == ["encoding_parameters"]


@pytest.mark.parametrize("path", sorted(CONFIG_FIELDS))
def test_the_mapping_of_each_config_field(monkeypatch, path):
    """Whatever the engine refuses (some settings, e.g. "numeric.handling", the survey's choices already bound),
    its field's error shows on the mapped form field with the engine's message as a sentence."""
    def refuse(config):
        raise ConfigError(path, "this setting is refused")

    monkeypatch.setattr("aggregator.privacy.survey_protocol.check_settings", refuse)
    assert errors_of(Survey(title="t", slug="t", **LDP)) == {CONFIG_FIELDS[path]: ["This setting is refused."]}


def test_an_error_on_the_questions_concerns_the_whole_survey(monkeypatch):
    def refuse(config):
        raise ConfigError("mrr.personal", "the personal distributions must be an object")

    monkeypatch.setattr("aggregator.privacy.survey_protocol.check_settings", refuse)
    errors = errors_of(Survey(title="t", slug="t", **MRR))
    assert errors == {NON_FIELD_ERRORS: ["The personal distributions must be an object."]}


def test_every_mapped_setting_is_a_survey_field_and_a_documented_engine_field():
    from aggregator.privacy.protocol import config

    documented = config.__doc__
    for path, field in CONFIG_FIELDS.items():
        assert f'"{path}"' in documented, path
        Survey._meta.get_field(field)


@pytest.mark.parametrize("settings, field, message", [
    ({**LDP, "projection": "pca", "projection_components": 1}, "reference_sample",
     "PCA/DCA needs a public reference sample."),
    ({**LDP, "projection": "dca", "projection_params": "fitted"}, "projection_components",
     "Say how many components to keep."),
    ({**MRR, "projection": "pca", "projection_components": 1}, "projection", "PCA/DCA applies to LDP surveys only."),
])
def test_django_rules_of_a_projection(settings, field, message):
    if settings.get("projection_params") == "fitted":
        settings = {**settings, "projection_params": a_projection()}
    assert errors_of(Survey(title="t", slug="t", **settings)) == {field: [message]}


def test_form_messages_are_sentences():
    assert models.form_message("the validation share must be a number") == "The validation share must be a number."
    assert models.form_message("θ must be in (0, 1]") == "θ must be in (0, 1]."
    assert models.form_message("Done.") == "Done."

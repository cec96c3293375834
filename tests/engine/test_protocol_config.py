"""The configuration's rules in one place (aggregator/privacy/protocol/config.py): every error is a ``ConfigError``
naming its field, ``check_settings`` needs no questions, and ``build`` applies the same rules."""
import copy

import numpy as np
import pytest

from aggregator.privacy.continuous.projection import fit_pca
from aggregator.privacy.protocol import ConfigError, build, check_settings

CLASS = {"kind": "categorical", "name": "c", "values": ["a", "b"]}
CATEGORICAL = [{"kind": "categorical", "name": "x", "values": ["0", "1", "2"]},
               {"kind": "categorical", "name": "z", "values": ["0", "1"]}]
NUMERIC = [{"kind": "numeric", "name": "u", "low": 0.0, "high": 10.0},
           {"kind": "numeric", "name": "v", "low": -1.0, "high": 1.0}]
PCA = fit_pca(np.random.default_rng(3).normal([5, 0], [2, 0.3], size=(100, 2)), 1).to_dict()

LDP = {"mode": "ldp", "class": CLASS, "features": CATEGORICAL, "validation": {"share": 0.1},
       "ldp": {"epsilon": 1.0, "encoding": "oue", "strategy": "one-report", "postprocess": "norm-sub"}}
MRR = {"mode": "mrr", "class": CLASS, "features": CATEGORICAL, "validation": {"share": 0.1},
       "mrr": {"theta": 0.6, "groups": None, "personal": {}, "postprocess": "norm-sub"}}
GAUSSIAN = {**LDP, "features": NUMERIC, "numeric": {"handling": "gaussian", "approach": 3}}


def changed(base: dict, path: str, value) -> dict:
    """A deep copy of ``base`` with the dotted ``path`` set to ``value``."""
    config = copy.deepcopy(base)
    *parents, last = path.split(".")
    node = config
    for key in parents:
        node = node.setdefault(key, {})
    node[last] = value
    return config


# (field, configuration): one invalid setting each; ``settings`` marks the ones check_settings sees without questions.
CASES = [
    ("mode", changed(LDP, "mode", "rr"), True),
    ("mode", ["not", "an", "object"], True),
    ("class", changed(LDP, "class", None), False),
    ("class", changed(LDP, "class", {"kind": "categorical", "name": "c", "values": ["only"]}), False),
    ("class", changed(LDP, "class", NUMERIC[0]), False),
    ("features", changed(LDP, "features", []), False),
    ("features", changed(LDP, "features", [CATEGORICAL[0], {**CATEGORICAL[1], "name": "x"}]), False),
    ("features", changed(LDP, "features", [{"kind": "numeric", "name": "u", "low": 1.0, "high": 0.0}]), False),
    ("ldp.epsilon", changed(LDP, "ldp.epsilon", 0), True),
    ("ldp.epsilon", changed(LDP, "ldp.epsilon", float("inf")), True),
    ("ldp.epsilon", changed(LDP, "ldp.epsilon", None), True),
    # beyond what the browser's arithmetic honours (issue 11 item 4, ``browser_epsilon.max_supported_epsilon``):
    # the validation report's binary RR and OUE above ln(2^40 − 1) ≈ 27.73 are known without questions; DE's bound
    # needs its domain, split's per-input ε the number of questions; grid Laplace (Gaussian Approach 3) ≈ 18.03
    ("ldp.epsilon", changed(LDP, "ldp.epsilon", 30.0), True),
    ("ldp.epsilon", changed(changed(LDP, "validation.share", 0), "ldp.epsilon", 30.0), True),
    ("ldp.epsilon", changed(changed(changed(LDP, "validation.share", 0), "ldp.encoding", "de"), "ldp.epsilon", 29.0),
     False),
    ("ldp.epsilon", changed(changed(changed(changed(LDP, "validation.share", 0), "ldp.strategy", "split"),
                                    "ldp.encoding", "oue"), "ldp.epsilon", 90.0), False),
    ("ldp.epsilon", changed(changed(GAUSSIAN, "validation.share", 0), "ldp.epsilon", 20.0), True),
    ("ldp.encoding", changed(LDP, "ldp.encoding", "rappor"), True),
    ("ldp.parameters", changed(changed(LDP, "ldp.encoding", "the"), "ldp.parameters.threshold", 1.5), True),
    ("ldp.parameters", changed(changed(LDP, "ldp.encoding", "the"), "ldp.parameters.threshold", -0.1), True),
    ("ldp.parameters", changed(changed(LDP, "ldp.encoding", "the"), "ldp.parameters.threshold", "half"), True),
    ("ldp.parameters", changed(changed(LDP, "ldp.encoding", "the"), "ldp.parameters.threshold", True), True),
    ("ldp.parameters", changed(changed(LDP, "ldp.encoding", "the"), "ldp.parameters", [0.25]), True),
    ("ldp.strategy", changed(LDP, "ldp.strategy", "both"), True),
    ("ldp.postprocess", changed(LDP, "ldp.postprocess", "clip"), True),
    ("mrr.theta", changed(MRR, "mrr.theta", 0), True),
    ("mrr.theta", changed(MRR, "mrr.theta", 1.2), True),
    ("mrr.groups", changed(MRR, "mrr.groups", "x, z"), True),
    ("mrr.groups", changed(changed(MRR, "validation.share", 0), "mrr.groups", [["x"], ["z", "nope"]]), False),
    ("mrr.groups", changed(changed(MRR, "validation.share", 0), "mrr.groups", [["x"], ["c"]]), False),
    ("mrr.personal", changed(MRR, "mrr.personal", [0.5, 0.5]), True),
    ("mrr.personal", changed(MRR, "mrr.personal", {"z": [0.9, 0.9]}), False),
    ("mrr.personal", changed(MRR, "mrr.personal", {"z": [1e-13, 1 - 1e-13]}), False),  # below 2^-40: not realized
    ("mrr.postprocess", changed(MRR, "mrr.postprocess", "clip"), True),
    ("numeric.handling", changed(LDP, "numeric.handling", "bucket"), True),
    ("numeric.handling", changed(GAUSSIAN, "features", CATEGORICAL), False),
    ("numeric.bins", changed(LDP, "numeric.bins", 1), True),
    ("numeric.bins", changed(LDP, "numeric.bins", 2.5), True),
    ("numeric.approach", changed(GAUSSIAN, "numeric.approach", 4), True),
    ("numeric.approach", changed(GAUSSIAN, "numeric.approach", True), True),
    ("projection", changed(MRR, "projection", PCA), True),
    ("projection", changed(LDP, "projection", {"method": "pca"}), True),
    ("projection", changed(changed(LDP, "features", CATEGORICAL + NUMERIC[:1]), "projection", PCA), False),
    ("validation.share", changed(LDP, "validation.share", 0.6), True),
    ("validation.share", changed(LDP, "validation.share", "some"), True),
    ("validation.share", changed(MRR, "mrr.groups", [["x"], ["z", "c"]]), True),
]


@pytest.mark.parametrize("field, config, settings", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_every_configuration_error_names_its_field(field, config, settings):
    with pytest.raises(ConfigError) as info:
        build(config)
    assert info.value.field == field
    assert isinstance(info.value, ValueError)
    assert str(info.value) == f"invalid survey configuration: {info.value.message}"
    if settings:  # the rule needs no question: check_settings alone finds it, on the same field
        with pytest.raises(ConfigError) as info:
            check_settings(config)
        assert info.value.field == field
    elif isinstance(config, dict):
        check_settings(config)


def test_browser_bound_is_stated_and_the_bound_itself_passes():
    """The refusal states the bound; ε just below it builds (issue 11 item 4)."""
    from aggregator.privacy.browser_epsilon import max_supported_epsilon

    with pytest.raises(ConfigError, match=r"ε = 28 .* choose ε ≤ 27\.72"):
        build(changed(LDP, "ldp.epsilon", 28.0))
    build(changed(LDP, "ldp.epsilon", 27.7))
    de = changed(changed(changed(LDP, "validation.share", 0), "ldp.encoding", "de"), "ldp.epsilon", 29.0)
    build(changed(de, "class", {**CLASS, "values": ["a", "b", "c", "d", "e", "f", "g", "h"]}))  # ln(7·(2^40−1)) ≈ 29.7
    assert max_supported_epsilon("de", 8) > 29.0 > max_supported_epsilon("de", 2)


def test_every_listed_field_has_a_case():
    fields = {"mode", "class", "features", "ldp.epsilon", "ldp.encoding", "ldp.parameters", "ldp.strategy",
              "ldp.postprocess", "mrr.theta", "mrr.groups", "mrr.personal", "mrr.postprocess", "numeric.handling",
              "numeric.bins", "numeric.approach", "projection", "validation.share"}
    assert {case[0] for case in CASES} == fields


@pytest.mark.parametrize("config", [LDP, MRR, GAUSSIAN, changed(LDP, "projection", PCA)])
def test_check_settings_needs_no_questions(config):
    """Django checks a new survey's settings before it has questions: the settings alone pass."""
    check_settings({key: value for key, value in config.items() if key not in ("class", "features")})


@pytest.mark.parametrize("threshold", [0.0, 0.25, 1.0, None])
def test_the_threshold_is_the_closed_unit_interval(threshold):
    """THE's threshold t ∈ [0, 1] (the engine's rule; ``oracles.histogram`` formulas hold there)."""
    protocol = build(changed(changed(LDP, "ldp.encoding", "the"), "ldp.parameters.threshold", threshold))
    if threshold is not None:
        assert all(fo.threshold == threshold for fo in protocol.nb.oracles)


def test_another_encodings_parameters_are_left_out():
    """A parameter of another encoding (THE's t kept after switching to OUE) is ignored, not an error."""
    protocol = build(changed(changed(LDP, "ldp.encoding", "oue"), "ldp.parameters.threshold", 0.25))
    assert {fo.name for fo in protocol.nb.oracles} == {"oue"}


def test_mrr_validation_share_with_one_group_or_none_passes():
    check_settings(changed(MRR, "mrr.groups", [["x", "z", "c"]]))
    check_settings(changed(changed(MRR, "mrr.groups", [["x"], ["z", "c"]]), "validation.share", 0))
    build(changed(MRR, "mrr.groups", [["x", "z", "c"]]))


def test_the_offered_bound_is_on_the_respondents_epsilon_under_split():
    """Split gives each input ε/m: the refusal offers the largest ε per respondent the browser honours (m times the
    per-input bound), and that ε builds while one a hundredth above it does not."""
    split = changed(changed(changed(LDP, "validation.share", 0), "ldp.strategy", "split"), "ldp.encoding", "oue")
    with pytest.raises(ConfigError) as info:
        build(changed(split, "ldp.epsilon", 1000.0))
    assert info.value.field == "ldp.epsilon" and "2^-53" not in info.value.message
    choose = float(info.value.params["choose"])
    assert choose > 3 * 27.7  # three inputs (two features and the class), each honoured up to ln(2^40 − 1)
    build(changed(split, "ldp.epsilon", choose))
    with pytest.raises(ConfigError):
        build(changed(split, "ldp.epsilon", choose + 0.02))

"""Cross-language test vectors: random bytes in → report out, produced by the Python client halves.

Each case feeds a survey protocol's ``encode`` (aggregator/privacy/protocol/) one respondent and a
``ByteStream`` of fixed random bytes; static/js/protocol.mjs must produce the same report from the same bytes and
consume exactly as many of them (tests/js/vectors.test.mjs). Files named ``respond-*`` exercise ``respond`` instead:
the validation share's draw, then a training report or a validation report (LDP: the published model's prediction
on the respondent's answers, through binary randomized response). Run ``python tests/js/make_vectors.py`` after changing
a client half; tests/js/test_js.py fails while the committed vectors are stale.
"""
from __future__ import annotations

import json
import sys
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from aggregator.privacy import protocol as survey_protocol  # noqa: E402
from aggregator.privacy.bytestream import ByteStream  # noqa: E402
from aggregator.privacy.continuous.projection import fit_pca  # noqa: E402

OUT = Path(__file__).resolve().parent / "vectors"
CASES = 12
BYTES = 8192
#: Oracles added after the first vectors (issue 13: SS). Their files draw from a generator of their own, seeded by the
#: file name, so adding one leaves every other file as it was.
LATER_ENCODINGS = ("ss",)
#: Mechanisms added after the first vectors (issue 13 item 4: mixed surveys), the same way: files whose names start so.
LATER_PREFIXES = ("mixed-", "respond-mixed-")

CLASS = {"kind": "categorical", "name": "sick", "values": ["no", "yes", "unsure"]}
CATEGORICAL = [
    {"kind": "categorical", "name": "smoker", "values": ["never", "sometimes", "daily"]},
    {"kind": "categorical", "name": "diet", "values": [f"d{i}" for i in range(11)]},
]
NUMERIC = [
    {"kind": "numeric", "name": "age", "low": 18.0, "high": 98.0},
    {"kind": "numeric", "name": "weight", "low": 40.0, "high": 160.0},
]


def configs() -> dict[str, dict]:
    out = {}
    for encoding in ("de", "sue", "oue", "she", "the", "olh"):
        for strategy in ("one-report", "split"):
            out[f"ldp-{encoding}-{strategy}"] = {
                "mode": "ldp", "class": CLASS, "features": CATEGORICAL + NUMERIC[:1],
                "numeric": {"handling": "discretize", "bins": 4},
                "ldp": {"epsilon": 2.0, "encoding": encoding, "strategy": strategy},
            }
    for encoding in LATER_ENCODINGS:
        for strategy in ("one-report", "split"):
            out[f"ldp-{encoding}-{strategy}"] = {
                "mode": "ldp", "class": CLASS, "features": CATEGORICAL + NUMERIC[:1],
                "numeric": {"handling": "discretize", "bins": 4},
                "ldp": {"epsilon": 2.0, "encoding": encoding, "strategy": strategy},
            }
    out["ldp-the-seed-threshold"] = {**out["ldp-the-one-report"],
                                     "ldp": {"epsilon": 1.0, "encoding": "the", "parameters": {"threshold": 0.25}}}
    for approach in (1, 2, 3):
        out[f"gaussian-approach-{approach}"] = {
            "mode": "ldp", "class": CLASS, "features": NUMERIC,
            "numeric": {"handling": "gaussian", "approach": approach},
            "ldp": {"epsilon": 1.5, "encoding": "oue"},
        }
    reference = np.random.default_rng(5).normal([50, 90], [15, 20], size=(200, 2))
    pca = fit_pca(reference, 1).to_dict()
    out["ldp-oue-pca-discretize"] = {**out["ldp-oue-one-report"], "features": CATEGORICAL[:1] + NUMERIC,
                                     "projection": pca}
    out["gaussian-approach-3-pca"] = {**out["gaussian-approach-3"], "projection": pca}
    # Categorical and numeric questions in one survey (aggregator/privacy/protocol/mixed.py): Approach 3, one report;
    # the kinds interleaved, so that the browser must pick each kind's answers by their published positions.
    for encoding in ("oue", "de", "olh"):
        out[f"mixed-{encoding}"] = {
            "mode": "ldp", "class": CLASS,
            "features": [CATEGORICAL[0], NUMERIC[0], CATEGORICAL[1], NUMERIC[1]],
            "numeric": {"handling": "gaussian", "approach": 3},
            "ldp": {"epsilon": 1.5, "encoding": encoding},
        }
    out["mixed-oue-one-number"] = {**out["mixed-oue"], "features": [NUMERIC[0], CATEGORICAL[0]]}
    out["mixed-oue-pca"] = {**out["mixed-oue"], "projection": pca}
    out["mrr-one-group"] = {"mode": "mrr", "class": CLASS, "features": CATEGORICAL + NUMERIC[:1],
                            "mrr": {"theta": 0.6, "personal": {"smoker": [0.5, 0.3, 0.2]}}}
    out["mrr-two-groups"] = {"mode": "mrr", "class": CLASS, "features": CATEGORICAL + NUMERIC[:1],
                             "mrr": {"theta": 0.4, "groups": [["smoker", "sick"], ["diet", "age"]]}}
    return out


def answers(config: dict, rng: np.random.Generator) -> list:
    out = []
    for f in config["features"]:  # the questions (a projection, if any, is applied by the protocol)
        if f["kind"] == "numeric":
            out.append(float(np.round(rng.uniform(f["low"] - 5, f["high"] + 5), 3)))  # some out of bounds: clipped
        else:
            out.append(int(rng.integers(0, len(f["values"]))))
    return out


RESPOND = {  # vector file → (base configuration, publish a model?)
    "respond-ldp-oue-one-report": ("ldp-oue-one-report", True),
    "respond-ldp-de-split-no-model": ("ldp-de-split", False),
    "respond-ldp-oue-pca-discretize": ("ldp-oue-pca-discretize", True),
    "respond-gaussian-approach-2": ("gaussian-approach-2", True),
    "respond-gaussian-approach-3-pca": ("gaussian-approach-3-pca", True),
    "respond-mrr-one-group": ("mrr-one-group", False),
    "respond-mixed-oue": ("mixed-oue", True),
    "respond-mixed-olh-no-model": ("mixed-olh", False),
    "respond-mixed-oue-pca": ("mixed-oue-pca", True),
}
VALIDATION_SHARE = 0.4


def published_model(protocol, config: dict, rng: np.random.Generator):
    """(version, model) estimated from 3,000 simulated respondents with random answers: some predictions right."""
    X = np.asarray([answers(config, rng) for _ in range(3000)], dtype=np.float64)
    y = rng.integers(0, len(CLASS["values"]), 3000)
    return 3, protocol.estimate(protocol.fold(protocol.encode(X, y, rng)))


def own_stream(name: str) -> bool:
    """A file of an oracle or mechanism added later (``LATER_ENCODINGS``, ``LATER_PREFIXES``), drawn from its own
    generator."""
    return (any(name.startswith(f"ldp-{encoding}-") for encoding in LATER_ENCODINGS)
            or name.startswith(LATER_PREFIXES))


def generate() -> dict[str, dict]:
    seed = 20261122
    shared = np.random.default_rng(seed)
    files = {}
    base = configs()
    for name, config in base.items():
        protocol = survey_protocol.build(config)
        rng = np.random.default_rng([seed, zlib.crc32(name.encode())]) if own_stream(name) else shared
        cases = []
        for _ in range(CASES * 3 if name.startswith("mixed-") else CASES):  # mixed: every input drawn, in each file
            data = rng.integers(0, 256, BYTES, dtype=np.uint8).tobytes()
            x = answers(config, rng)
            y = int(rng.integers(0, len(CLASS["values"])))
            stream = ByteStream(data)
            report = protocol.encode(np.asarray([x], dtype=np.float64), np.asarray([y]), stream)[0]
            cases.append({"bytes": data[: stream.consumed].hex(), "answers": x, "class": y, "report": report,
                          "consumed": stream.consumed})
        files[name] = json.loads(json.dumps({"config": config, "protocol": protocol.public(), "cases": cases}))
    for name, (source, with_model) in RESPOND.items():
        rng = np.random.default_rng([seed, zlib.crc32(name.encode())]) if own_stream(name) else shared
        config = {**base[source], "validation": {"share": VALIDATION_SHARE}}
        protocol = survey_protocol.build(config)
        published = published_model(protocol, config, rng) if with_model else None
        cases = []
        for _ in range(CASES * 2):
            data = rng.integers(0, 256, BYTES, dtype=np.uint8).tobytes()
            x = answers(config, rng)
            y = int(rng.integers(0, len(CLASS["values"])))
            stream = ByteStream(data)
            report = protocol.respond(x, y, stream, published=published)
            cases.append({"bytes": data[: stream.consumed].hex(), "answers": x, "class": y, "report": report,
                          "consumed": stream.consumed})
        files[name] = json.loads(json.dumps({
            "config": config, "protocol": protocol.public(), "respond": True, "cases": cases,
            "published": {"version": published[0], "model": published[1].to_dict()} if published else None,
        }))
    return files


#: Skip logic's shared vectors (static/js/skip.mjs against aggregator/privacy/skip.py), in a file of their own.
SKIP_OUT = Path(__file__).resolve().parent / "skip_vectors.json"
SKIP_FEATURES = [
    {"kind": "categorical", "name": "smoker", "values": ["never", "sometimes", "daily"]},
    {"kind": "categorical", "name": "cigarettes", "values": ["1 to 5", "6 to 20", "more", "Prefer not to say",
                                                             "Not asked"]},
    {"kind": "categorical", "name": "brand", "values": ["a", "b", "Not asked"]},
]
#: The display questions' conditions (survey_app/api.py "show_if") and the same rules over the features.
SKIP_SHOW_IF = {"cigarettes": {"question": "smoker", "answers": [1, 2], "not_asked": 4},
                "brand": {"question": "cigarettes", "answers": [1, 2], "not_asked": 2}}


def skip_vectors() -> dict:
    """Answers as the page's fields hold them (hidden questions too) → the record skip logic sends → the report."""
    from aggregator.privacy.skip import SkipRule, apply

    names = [f["name"] for f in SKIP_FEATURES]
    rules = [SkipRule(names.index(name), names.index(c["question"]), frozenset(c["answers"]), c["not_asked"])
             for name, c in SKIP_SHOW_IF.items()]
    rng = np.random.default_rng([20261128, 24])
    files = {}
    for name, settings in (("ldp-oue", {"mode": "ldp", "ldp": {"epsilon": 1.0, "encoding": "oue"}}),
                           ("ldp-de-split", {"mode": "ldp", "ldp": {"epsilon": 2.0, "encoding": "de",
                                                                     "strategy": "split"}}),
                           ("mrr", {"mode": "mrr", "mrr": {"theta": 0.6}})):
        config = {**settings, "class": CLASS, "features": SKIP_FEATURES}
        protocol = survey_protocol.build(config)
        cases = []
        for _ in range(CASES * 2):
            x = [int(rng.integers(0, len(f["values"]) - 1)) for f in SKIP_FEATURES]  # a field never holds "Not asked"
            sent = apply(x, rules)
            y = int(rng.integers(0, len(CLASS["values"])))
            data = rng.integers(0, 256, BYTES, dtype=np.uint8).tobytes()
            stream = ByteStream(data)
            report = protocol.encode(np.asarray([sent], dtype=np.float64), np.asarray([y]), stream)[0]
            cases.append({"bytes": data[: stream.consumed].hex(), "answers": x, "sent": sent, "class": y,
                          "report": report, "consumed": stream.consumed})
        files[name] = {"config": config, "protocol": protocol.public(), "cases": cases}
    return json.loads(json.dumps({"show_if": SKIP_SHOW_IF, "rules": [r.to_dict() for r in rules], "files": files}))


def main():
    SKIP_OUT.write_text(json.dumps(skip_vectors(), indent=1) + "\n")
    OUT.mkdir(exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    for name, content in generate().items():
        (OUT / f"{name}.json").write_text(json.dumps(content, indent=1) + "\n")
    print(f"wrote {len(list(OUT.glob('*.json')))} vector files to {OUT}")


if __name__ == "__main__":
    main()

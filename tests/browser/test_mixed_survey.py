"""A survey mixing categorical and numeric questions (LDP, Gaussian handling, Approach 3: ``protocol.mixed``) answered
in real Chromium against the live server.

The page's random bytes are replaced by known ones (the first draw steered to each input in turn: the class, each
categorical question with the class, the numeric mean and square groups), so the report the page sends must be
exactly the one the Python reference (``SurveyProtocol.respond``) draws from the same bytes; the review step must
name the part really sent; the server must store exactly that report, parse it and fold it. One more run keeps the
browser's own crypto randomness.
"""
import json

import numpy as np
import pytest

from aggregator import services
from aggregator.privacy.bytestream import ByteStream
from survey_app.models import Choice, PendingReport, Question, Report, Survey
from survey_app.protocol import get_protocol
from tests.browser_support import BROWSER_TEST, open_page, send_as_shown
from tests.factories import folded

pytestmark = BROWSER_TEST

# Question order: smoker (categorical), age (numeric), exercise (binary), weight (numeric); the class last.
ANSWERS = [2, 61.0, 1, 83.5]  # daily, 61, yes, 83.5
SICK = 0  # no
# 1 + 2 categorical inputs + 2 · 2 numeric ones: the assignment CDF is [1/7, 2/7, 3/7, 5/7, 1]. With the first eight
# bytes all v, the first random() is about v/256: these steer it to inputs 0 … 4.
STEER = {0: 0x00, 1: 0x30, 2: 0x60, 3: 0x90, 4: 0xE0}
TEXTS = {"smoker": "Do you smoke?", "age": "Your age", "exercise": "Do you exercise every week?",
         "weight": "Your weight in kg", "sick": "Have you been ill this year?"}


def make_mixed_survey(encoding: str) -> Survey:
    survey = Survey.objects.create(title="Mixed", slug=f"mixed-{encoding}", mode="ldp", epsilon=2.0, encoding=encoding,
                                   status="open", numeric_handling="gaussian", gaussian_approach=3,
                                   validation_share=0.0)
    smoker = Question.objects.create(survey=survey, name="smoker", text=TEXTS["smoker"], kind="categorical",
                                     position=0)
    for i, label in enumerate(("never", "sometimes", "daily")):
        Choice.objects.create(question=smoker, label=label, position=i)
    Question.objects.create(survey=survey, name="age", text=TEXTS["age"], kind="numeric", low=18, high=98, position=1)
    Question.objects.create(survey=survey, name="exercise", text=TEXTS["exercise"], kind="binary", position=2)
    Question.objects.create(survey=survey, name="weight", text=TEXTS["weight"], kind="numeric", low=40, high=160,
                            position=3)
    Question.objects.create(survey=survey, name="sick", text=TEXTS["sick"], kind="binary", is_class=True, position=4)
    return survey


def steered_bytes(value: int) -> bytes:
    """Eight bytes ``value`` (the input's draw), then fixed pseudo-random bytes for the mechanism's own draws."""
    return bytes([value] * 8) + np.random.default_rng(value).integers(0, 256, 8192, dtype=np.uint8).tobytes()


def replay(data: bytes) -> str:
    """An init script: crypto.getRandomValues serves ``data`` in order to the randomizer (static/js/random.mjs's
    ByteSource), failing when it runs out; other callers (the vendored SJCL seeds its own generator when the page
    loads) get bytes 0x5a, so they take nothing from ``data``."""
    return ("(() => { const data = Uint8Array.from(%s); let at = 0;"
            " Object.defineProperty(crypto, 'getRandomValues', {value: (buffer) => {"
            "   if (!new Error().stack.includes('/js/random.mjs')) { buffer.fill(0x5a); return buffer; }"
            "   if (at + buffer.length > data.length) throw new Error('test bytes ran out');"
            "   buffer.set(data.subarray(at, at + buffer.length)); at += buffer.length; return buffer; }}); })();"
            % json.dumps(list(data)))


def answer(page):
    page.get_by_role("group", name=TEXTS["smoker"]).get_by_label("daily").check()
    page.get_by_label("Your age (18 to 98)").fill("61")
    page.get_by_role("group", name=TEXTS["exercise"]).get_by_label("yes").check()
    page.get_by_label("Your weight in kg (40 to 160)").fill("83.5")
    page.get_by_role("group", name=TEXTS["sick"]).get_by_label("no").check()
    page.get_by_role("button", name="Review what will be sent").click()


def stored_parses_and_folds(survey, report):
    """Exactly one stored row, the report sent; the engine parses it and folds it into one respondent's sums."""
    rows = list(PendingReport.objects.filter(survey=survey))
    assert len(rows) == 1 and rows[0].payload == report and not Report.objects.filter(survey=survey).exists()
    protocol = get_protocol(survey)
    protocol.parse_one(rows[0].payload)
    assert services.fold_new_reports(survey) == 1
    assert not PendingReport.objects.filter(survey=survey).exists()
    assert Report.objects.get(survey=survey).payload == report
    stats = protocol.stats_from_dict(folded(survey).stats)
    assert stats.n == 1
    assert protocol.stats_to_dict(stats) == protocol.stats_to_dict(protocol.fold([report]))


@pytest.mark.parametrize("expected", sorted(STEER))
def test_mixed_report_is_the_python_reference_and_the_page_names_the_part_sent(browser, live_server, expected):
    survey = make_mixed_survey("oue")
    protocol = get_protocol(survey)
    assert type(protocol).__name__ == "MixedProtocol"
    data = steered_bytes(STEER[expected])
    reference = protocol.respond(ANSWERS, SICK, ByteStream(data))
    assert reference["input"] == expected  # the steering works as intended
    context = browser.new_context()
    context.add_init_script(replay(data))
    page = context.new_page()
    posts, errors = [], []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    # The overview lists every part that can be sent, with its chance (1/7 each; 2/7 for a group of two numbers).
    page.get_by_role("group", name=TEXTS["smoker"]).wait_for()  # the survey has loaded: its words are in the box
    overview = page.locator("#mechanism-words").inner_text()
    assert f"your answer to “{TEXTS['sick']}” alone (a 14.3\xa0% chance)" in overview
    for name in ("smoker", "exercise"):
        assert f"your answer to “{TEXTS[name]}” together with your answer to “{TEXTS['sick']}” (a 14.3\xa0% chance)" \
            in overview
    assert "(a 28.6\xa0% chance in all)" in overview and "ONE of three things" not in overview
    answer(page)
    review = page.locator("section.review").inner_text()
    report = send_as_shown(page, survey.slug, posts, errors)["report"]
    assert report == json.loads(json.dumps(reference))  # bit for bit the Python reference's report
    assert report["input"] in range(len(protocol.public()["ldp"]["inputs"]) + 2)
    # The review named the part really sent.
    part = {0: f"numbered 0: your answer to “{TEXTS['sick']}” (one of 2 possible values)",
            1: f"numbered 1: your answer to “{TEXTS['smoker']}” together with your answer to “{TEXTS['sick']}”",
            2: f"numbered 2: your answer to “{TEXTS['exercise']}” together with your answer to “{TEXTS['sick']}”"}
    if expected <= 2:
        assert part[expected] in review, review
    else:
        name = ["age", "weight"][report["report"][0]]
        scaled = "put on a scale from −1 to 1" + (", then squared, and" if expected == 4 else " and")
        sent = f"numbered {expected}: your answer to “{TEXTS[name]}”, {scaled} placed in a row of 2 entries"
        assert sent in review, review
        other = "weight" if name == "age" else "age"
        assert f"chosen at random: your answer to “{TEXTS[other]}”" not in review
    for secret in ("daily", "61", "83.5"):
        assert secret not in json.dumps(report)
    stored_parses_and_folds(survey, report)
    context.close()


@pytest.mark.parametrize("encoding", ["olh", "de"])
def test_mixed_survey_with_the_browsers_own_randomness(browser, live_server, encoding):
    survey = make_mixed_survey(encoding)
    context, page, posts, errors = open_page(browser, f"{live_server.url}/s/{survey.slug}/")
    # The bounded noise, from the protocol API's figures, in the page's words: the numbers and the class have no
    # finite level; each question with choices keeps its own.
    assert "with ideal noise" in page.locator("#privacy-figure").inner_text()
    explain = page.locator("details.explain").first.inner_text()
    assert f"strictly no finite level holds for “{TEXTS['sick']}”, “{TEXTS['age']}” and “{TEXTS['weight']}”" in explain
    answer(page)
    summary = page.locator("p.review-summary").inner_text()
    report = send_as_shown(page, survey.slug, posts, errors)["report"]
    inputs = get_protocol(survey).public()["ldp"]["inputs"]
    assert set(report) == {"input", "report"} and report["input"] in range(len(inputs) + 2)
    assert summary.startswith("In short: Of your 5 answers, one part — chosen at random: ")
    if report["input"] >= len(inputs):
        assert TEXTS[["age", "weight"][report["report"][0]]] in summary
    stored_parses_and_folds(survey, report)
    context.close()

"""python manage.py simulate SLUG DATA.csv --respondents N [--seed S] [--url URL [--tokens TOKENS.csv]
[--forwarded-proto https] [--cafile CA.pem]] [--record SENT.jsonl]

Simulated respondents: N rows drawn with replacement from a CSV whose columns are the survey's questions (matched by
question name or text, or by the column ``create_survey`` made the name from; a missing cell is "Prefer not to say"),
randomized by the survey's protocol exactly as browsers do (``protocol.encode_respondents``: the survey's validation
share of them validates the model a browser is served for validation — the newest published before today — instead
of training), then stored in bulk — or, with ``--url``, POSTed one by one to the report API of the running site at URL.

A token survey over HTTP (``--tokens``, the file ``manage.py invitations`` or the admin's export writes): one
respondent at a time, in file order, redeems the next invitation with a blinded message (the client half of
``aggregator.privacy.blind_rsa``, as the browser does) and then sends the report with the unblinded credential, in
a separate request; the token is never sent with the report. Each report carries a fresh random nonce, as the page
sends (``survey_app.models.NONCE_PATTERN``). ``--record`` writes each report body sent, in order,
one JSON object per line. No redirect is followed (a site that redirects http to https would silently receive
nothing): use the https URL, or ``--forwarded-proto https`` when a proxy that terminates TLS is bypassed on purpose.
"""
from __future__ import annotations

import base64
import csv
import json
import secrets
import ssl
import urllib.error
import urllib.parse
import urllib.request
from typing import cast

import numpy as np
from django.core.management.base import BaseCommand, CommandError
from django.utils.text import slugify

from aggregator.privacy.schema import Categorical
from aggregator.privacy.skip import apply_rows
from survey_app import inbox
from survey_app.models import NOT_ASKED, PREFER_NOT_TO_SAY, Question, Survey, skip_rules
from survey_app.protocol import get_protocol
from survey_app.tables import MISSING, load_table, option_name

BATCH = 2000


def _column_for(question: Question, columns) -> str:
    for candidate in (question.name, question.text):
        if candidate in columns:
            return candidate
    for column in columns:  # create_survey names a question after its column, slugified ("bruises?" → "bruises")
        if slugify(column)[:100] == question.name:
            return column
    raise CommandError(f"the CSV has no column for question {question.name!r} (columns: {', '.join(columns)})")


def records_from_csv(survey: Survey, path) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) in the survey's codes: X one column per feature question (choice index or number), y class indices."""
    from survey_app.tables import read_csv

    try:
        columns = list(read_csv(path).columns)
    except FileNotFoundError:
        raise CommandError(f"no such file: {path}") from None
    questions = list(survey.questions.prefetch_related("choices"))
    class_q = next((q for q in questions if q.is_class), None)
    if class_q is None:
        raise CommandError(f"survey {survey.slug!r} has no class question")
    features = [q for q in questions if not q.is_class]
    col_of = {q.name: _column_for(q, columns) for q in questions}
    numeric = [col_of[q.name] for q in features if q.kind == Question.Kind.NUMERIC]
    try:
        # A select-all question's column lists the choices that apply ("a;b"): one no/yes attribute per choice.
        multi = {col_of[q.name]: q.options() for q in features if q.kind == Question.Kind.MULTI}
        table = load_table(path, class_column=col_of[class_q.name], numeric=numeric, multi=multi)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    index = {a.name: j for j, a in enumerate(table.attributes)}

    def codes(question: Question, values: tuple, column: np.ndarray) -> np.ndarray:
        labels = question.labels()
        lookup = []
        for value in values:
            if value == MISSING and value not in labels and PREFER_NOT_TO_SAY in labels:
                value = PREFER_NOT_TO_SAY  # a missing answer: the question's "Prefer not to say" (create_survey)
            elif value == MISSING and value not in labels and NOT_ASKED in labels:
                value = NOT_ASKED  # a question shown on a condition, left empty: its "Not asked"
            if value not in labels:
                raise CommandError(f"column {col_of[question.name]!r}: {value!r} is not an answer of question "
                                   f"{question.name!r} ({', '.join(labels)})")
            lookup.append(labels.index(value))
        return np.asarray(lookup, dtype=np.int64)[column.astype(np.int64)]

    # One column per engine feature: a select-all question's choices are its no/yes features, in order.
    sources = [(q, col_of[q.name] if q.kind != Question.Kind.MULTI else option_name(col_of[q.name], k))
               for q in features for k in range(len(q.feature_names()))]
    X = np.empty((table.n, len(sources)), dtype=np.float64)
    for j, (q, attribute) in enumerate(sources):
        attr_index = index[attribute]
        column = table.X[:, attr_index]
        X[:, j] = column if q.kind == Question.Kind.NUMERIC else codes(
            q, cast(Categorical, table.attributes[attr_index]).values, column)
    y = codes(class_q, table.class_attribute.values, table.y)
    # Skip logic: a question its row would not have been shown sends "Not asked", as the browser does.
    return apply_rows(X, skip_rules(questions)), y


def published_model(survey: Survey):
    """(version, NaiveBayesModel) of the version validation respondents evaluate, as a browser fetches it
    (``GET …/model/?for=validation``: the newest published before the current UTC day); ``None`` if none."""
    from aggregator.privacy.naive_bayes.model import NaiveBayesModel
    from aggregator.services import validation_version

    version = validation_version(survey)
    return (version.version, NaiveBayesModel.from_dict(version.model)) if version else None


class Command(BaseCommand):
    help = "Simulate respondents drawn from a CSV: randomize their answers and store (or POST) the reports."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("csv", help="CSV with a column per question (the survey's question names)")
        parser.add_argument("--respondents", type=int, required=True,
                            help="how many respondents (rows drawn with replacement)")
        parser.add_argument("--seed", type=int, default=None, help="random seed (default: fresh entropy)")
        parser.add_argument("--url", help="POST each report to URL/api/surveys/SLUG/reports/ instead of writing the DB")
        parser.add_argument("--tokens", help="token surveys (with --url): invitation tokens, used in file order (the "
                                             "CSV of manage.py invitations / the admin's export, or one token a line)")
        parser.add_argument("--record", help="write each report body sent, in order, one JSON object per line")
        parser.add_argument("--forwarded-proto", choices=["http", "https"],
                            help="send X-Forwarded-Proto (a site behind a TLS proxy, reached directly)")
        parser.add_argument("--cafile", help="CA certificates (PEM) to trust for an https URL")

    def handle(self, *args, **opts):
        survey = Survey.objects.filter(slug=opts["slug"]).first()
        if survey is None:
            raise CommandError(f"no survey with slug {opts['slug']!r}")
        n = opts["respondents"]
        if n < 1:
            raise CommandError("--respondents must be at least 1")
        tokens = None
        if opts["tokens"]:
            if not opts["url"]:
                raise CommandError("--tokens needs --url: invitations are redeemed over HTTP")
            tokens = read_tokens(opts["tokens"])
            if len(tokens) < n:
                raise CommandError(f"{opts['tokens']} holds {len(tokens)} tokens for {n} respondents")
        if opts["url"] and survey.access == Survey.Access.TOKENS and tokens is None:
            raise CommandError(f"survey {survey.slug!r} is by invitation: give --tokens TOKENS.csv "
                               "(manage.py invitations)")
        if tokens is not None and survey.access != Survey.Access.TOKENS:
            raise CommandError(f"survey {survey.slug!r} is open to anyone with its link: drop --tokens")
        X, y = records_from_csv(survey, opts["csv"])
        rng = np.random.default_rng(opts["seed"])
        rows = rng.integers(0, len(y), n)
        reports = get_protocol(survey).encode_respondents(X[rows], y[rows], rng, published=published_model(survey))
        record = open(opts["record"], "w", encoding="utf-8") if opts["record"] else None  # noqa: SIM115
        try:
            if opts["url"]:
                self.client = Client(opts["url"], opts["forwarded_proto"], opts["cafile"])
                self.post_all(survey, reports, tokens, record)
            else:
                if record is not None:
                    for report in reports:
                        record.write(json.dumps({"report": report}) + "\n")
                self.store_all(survey, reports)
        finally:
            if record is not None:
                record.close()
        where = opts["url"] or "the database"
        self.stdout.write(self.style.SUCCESS(f"Sent {n} simulated reports for {survey.slug!r} to {where}."))

    def store_all(self, survey: Survey, reports: list[dict]):
        """Store the reports in bulk, into the inbox as the report API does."""
        for start in range(0, len(reports), BATCH):
            inbox.store_many(survey, reports[start:start + BATCH])

    def post_all(self, survey: Survey, reports: list[dict], tokens: list[str] | None, record):
        """POST the reports one respondent at a time; a token survey's respondent redeems its invitation first."""
        from survey_app.credentials import finish_credential, start_credential

        client, slug = self.client, survey.slug
        key = None
        if tokens is not None:
            key = client.request("GET", f"/api/surveys/{slug}/protocol/", what="the protocol").get("credential")
            if key is None:
                raise CommandError(f"{client.base} does not publish an invitation key for {slug!r}")
        step = max(1, len(reports) // 10)
        for i, report in enumerate(reports, 1):
            body = {"report": report, "nonce": report_nonce()}
            if key is not None and tokens is not None:
                blinded, pending = start_credential(key)
                answer = client.request("POST", f"/api/surveys/{slug}/invitations/redeem/",
                                        {"token": tokens[i - 1], "blinded_msg": blinded, "key_id": pending.key_id},
                                        what=f"invitation {i}")
                body["credential"] = finish_credential(pending, answer["blind_signature"])
            client.request("POST", f"/api/surveys/{slug}/reports/", body, what=f"report {i}")
            if record is not None:
                record.write(json.dumps(body) + "\n")
                record.flush()
            if i % step == 0 or i == len(reports):
                self.stderr.write(f"{i}/{len(reports)} reports posted")


def report_nonce() -> str:
    """A report's idempotency nonce as the page draws it: 128 random bits, unpadded base64url."""
    return base64.urlsafe_b64encode(secrets.token_bytes(16)).rstrip(b"=").decode("ascii")


def read_tokens(path) -> list[str]:
    """The invitation tokens of a file, in order: the CSV of ``manage.py invitations`` and of the admin's export
    (``survey,batch,link`` rows after a header; the token is the link's fragment, /s/SLUG/i/#TOKEN, or in links of
    the earlier form /s/SLUG/t/TOKEN/ its last path segment), or one bare token a line."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = [row for row in csv.reader(handle) if row and any(cell.strip() for cell in row)]
    except FileNotFoundError:
        raise CommandError(f"no such file: {path}") from None
    if rows and [cell.strip() for cell in rows[0]] == ["survey", "batch", "link"]:
        rows = rows[1:]
    tokens = []
    for number, row in enumerate(rows, 1):
        field = row[-1].strip()
        fragment = urllib.parse.urlsplit(field).fragment if "#" in field else ""
        if fragment:
            tokens.append(urllib.parse.unquote(fragment))
            continue
        path_part = urllib.parse.urlsplit(field).path if "/" in field else f"/t/{field}/"
        parts = [part for part in path_part.split("/") if part]
        if len(parts) < 2 or parts[-2] != "t":
            raise CommandError(f"{path}, line {number}: not an invitation link or token: {field[:80]!r}")
        tokens.append(urllib.parse.unquote(parts[-1]))
    return tokens


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # the 3xx is raised as an HTTPError: Client says where it points


class Client:
    """JSON over HTTP(S) to the running site at ``base``: no redirect followed, optional X-Forwarded-Proto and CA."""

    def __init__(self, base: str, forwarded_proto: str | None = None, cafile: str | None = None):
        scheme = urllib.parse.urlsplit(base).scheme
        if scheme not in ("http", "https"):
            raise CommandError(f"--url must start with http:// or https:// (got {base!r})")
        self.base = base.rstrip("/")
        self.headers = {"Accept": "application/json"}
        if forwarded_proto:
            self.headers["X-Forwarded-Proto"] = forwarded_proto
        handlers: list = [_NoRedirect()]
        if scheme == "https":
            handlers.append(urllib.request.HTTPSHandler(context=ssl.create_default_context(cafile=cafile)))
        self.opener = urllib.request.build_opener(*handlers)

    def request(self, method: str, path: str, body=None, *, what: str):
        url = self.base + path
        data = json.dumps(body).encode() if body is not None else None
        headers = {**self.headers, **({"Content-Type": "application/json"} if data is not None else {})}
        try:
            with self.opener.open(urllib.request.Request(url, data=data, headers=headers, method=method),
                                  timeout=30) as response:
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as exc:
            if 300 <= exc.code < 400:
                target = exc.headers.get("Location", "?")
                hint = (" — the site wants https: use --url with https://, or --forwarded-proto https if this "
                        "address is behind a proxy that terminates TLS") if target.startswith("https:") else ""
                raise CommandError(f"{what}: {url} redirects ({exc.code}) to {target}; redirects are not followed"
                                   f"{hint}") from None
            detail = exc.read()[:300].decode(errors="replace")
            raise CommandError(f"{what}: {url} answered {exc.code}: {detail}") from None
        except urllib.error.URLError as exc:
            raise CommandError(f"{what}: cannot reach {url}: {exc.reason}") from None

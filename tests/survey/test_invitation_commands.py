"""The command-line token flow (issue 11 item 3, issue 14 item 6): ``create_survey --access tokens``,
``invitations SLUG --count N --out TOKENS.csv`` and ``simulate … --url URL --tokens TOKENS.csv --record SENT.jsonl``
against a live server — each respondent redeems an invitation and sends its report with a credential; every recorded
body was stored, with its payload as sent; a redirect (http → https) is refused with a clear message."""
import csv
import http.server
import json
import threading

import pytest
from django.core.management import CommandError, call_command

from survey_app.models import InvitationToken, PendingReport, Report, SpentCredential, Survey, SurveyKey

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def token_survey(datasets_dir):
    call_command("create_survey", str(datasets_dir / "vote.csv"), "--slug", "votes", "--mode", "mrr", "--theta", "0.7",
                 "--access", "tokens", "--open")
    survey = Survey.objects.get(slug="votes")
    survey.validation_share = 0.0
    survey.save()
    return survey


def test_create_invitations_simulate_with_tokens_and_record(token_survey, datasets_dir, live_server, tmp_path):
    survey = token_survey
    assert survey.access == "tokens" and SurveyKey.objects.filter(survey=survey, active=True).count() == 1
    tokens_csv, sent = tmp_path / "tokens.csv", tmp_path / "sent.jsonl"
    call_command("invitations", "votes", "--count", "12", "--out", str(tokens_csv))
    rows = list(csv.reader(tokens_csv.open()))
    assert rows[0] == ["survey", "batch", "link"] and len(rows) == 13
    # The token in the fragment (never sent by a browser): /s/votes/i/#<token>.
    assert all(row[2].startswith("/s/votes/i/#") for row in rows[1:])
    tokens = [row[2].split("#", 1)[1] for row in rows[1:]]
    assert set(tokens) == set(InvitationToken.objects.filter(survey=survey).values_list("token", flat=True))
    call_command("simulate", "votes", str(datasets_dir / "vote.csv"), "--respondents", "10", "--seed", "1",
                 "--url", live_server.url, "--tokens", str(tokens_csv), "--record", str(sent))
    bodies = [json.loads(line) for line in sent.read_text().splitlines()]
    assert len(bodies) == 10 and all(set(b) == {"report", "credential", "nonce"} for b in bodies)
    assert not any(token in json.dumps(bodies) for token in tokens)
    used = set(InvitationToken.objects.filter(survey=survey, used=True).values_list("token", flat=True))
    assert used == set(tokens[:10])  # the tokens in file order
    stored = [r.payload for model in (Report, PendingReport) for r in model.objects.filter(survey=survey)]
    assert sorted(map(json.dumps, stored)) == sorted(json.dumps(b["report"]) for b in bodies)
    assert SpentCredential.objects.filter(survey=survey).count() == 10
    with pytest.raises(CommandError, match="holds 2 tokens for 3 respondents"):
        (tmp_path / "two.csv").write_text("\n".join(tokens[10:]) + "\n")
        call_command("simulate", "votes", str(datasets_dir / "vote.csv"), "--respondents", "3",
                     "--url", live_server.url, "--tokens", str(tmp_path / "two.csv"))
    with pytest.raises(CommandError, match="is by invitation: give --tokens"):
        call_command("simulate", "votes", str(datasets_dir / "vote.csv"), "--respondents", "1",
                     "--url", live_server.url)


def test_simulate_reads_links_of_both_forms(tmp_path):
    from aggregator.management.commands.simulate import read_tokens

    links = tmp_path / "links.csv"
    links.write_text("survey,batch,link\nvotes,,https://x.example/s/votes/i/#AbC-1_z\n"
                     "votes,,/s/votes/t/Old-Tok3n/\nBareToken\n")
    assert read_tokens(str(links)) == ["AbC-1_z", "Old-Tok3n", "BareToken"]


def test_invitations_refuse_an_open_link_survey(datasets_dir, tmp_path):
    call_command("create_survey", str(datasets_dir / "vote.csv"), "--slug", "open", "--mode", "mrr", "--theta", "0.7")
    with pytest.raises(CommandError, match="invitations need a token survey"):
        call_command("invitations", "open", "--count", "1", "--out", str(tmp_path / "t.csv"))


class _RedirectToHttps(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's naming)
        self.send_response(301)
        self.send_header("Location", "https://coinflip.example" + self.path)
        self.end_headers()

    do_POST = do_GET  # noqa: N815

    def log_message(self, *args):
        pass


def test_simulate_follows_no_redirect_to_https(token_survey, datasets_dir, tmp_path):
    """A production site redirects http to https: simulate must say so, not follow it (a POST turned into a GET)."""
    server = http.server.HTTPServer(("127.0.0.1", 0), _RedirectToHttps)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    tokens_csv = tmp_path / "tokens.csv"
    call_command("invitations", "votes", "--count", "1", "--out", str(tokens_csv))
    try:
        with pytest.raises(CommandError, match="redirects \\(301\\) to https://coinflip.example.*use --url with https"):
            call_command("simulate", "votes", str(datasets_dir / "vote.csv"), "--respondents", "1",
                         "--url", f"http://127.0.0.1:{server.server_port}", "--tokens", str(tokens_csv),
                         "--forwarded-proto", "https")
    finally:
        server.shutdown()
    assert not InvitationToken.objects.filter(used=True).exists()

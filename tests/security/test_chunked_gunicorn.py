"""Chunked request bodies under a real gunicorn (issue 14 item 4): ``Transfer-Encoding: chunked`` without
``Content-Length`` is read in full (gunicorn de-chunks the WSGI input; ``survey_app.api.BodyRequest``) and bounded by
``MAX_REPORT_BYTES`` (413 beyond, nothing stored); a broken chunk encoding is a 4xx that stores nothing (slow: a
real server process, production settings)."""
from __future__ import annotations

import http.client
import json

import pytest

from survey_app.api import MAX_REPORT_BYTES
from tests.factories import make_survey, simulated_reports
from tests.integration.conftest import database_url_via
from tests.integration.processes import Gunicorn, process_env

from .helpers import stored_reports

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def web(transactional_db, tmp_path):
    from django.db import connection

    survey = make_survey(slug="chunked")
    server = Gunicorn(process_env(database_url_via(connection.settings_dict["PORT"] or 5432)), tmp_path / "web.log",
                      workers=1, threads=2)
    try:
        yield survey, server.start(f"/api/surveys/{survey.slug}/protocol/")
    finally:
        server.stop()


def post_chunked(server, chunks, content_type="application/json") -> tuple[int, bytes]:
    """POST ``chunks`` (an iterable of bytes: http.client sends each as one chunk, with no Content-Length)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request("POST", "/api/surveys/chunked/reports/", body=iter(chunks),
                           headers={"Content-Type": content_type}, encode_chunked=True)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def post_raw(server, raw: bytes) -> int:
    """Send ``raw`` bytes as the whole request; the status code of the answer."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.connect()
        connection.sock.sendall(raw)
        response = http.client.HTTPResponse(connection.sock, method="POST")
        response.begin()
        return response.status
    finally:
        connection.close()


def test_chunked_bodies_are_read_in_full_and_bounded(web):
    survey, server = web
    body = json.dumps({"report": simulated_reports(survey, n=1)[0]}).encode()
    before = stored_reports()
    status, content = post_chunked(server, [body[:5], body[5:17], body[17:]])
    assert status == 201, content
    assert stored_reports() == before + 1

    too_large = [b'{"report": {"input": 0, "report": "', *[b"A" * 65536] * (MAX_REPORT_BYTES // 65536 + 1), b'"}}']
    status, content = post_chunked(server, too_large)
    assert status == 413, content
    status, content = post_chunked(server, [body], content_type="application/json; charset=utf-16")
    assert status == 400, content
    assert stored_reports() == before + 1


def test_a_broken_chunk_encoding_is_refused_and_stores_nothing(web):
    _, server = web
    before = stored_reports()
    head = (b"POST /api/surveys/chunked/reports/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
    assert 400 <= post_raw(server, head + b"5\r\n{\"rep\r\nZZ\r\nort\": 1}\r\n0\r\n\r\n") < 500
    assert stored_reports() == before

"""No 500 on any URL (issue 14 item 2). Every URL pattern of the project is asked, anonymously and by a superuser,
with each of its path converters filled with each ``CORE`` hostile string (NUL, a non-ASCII digit, an overlong number,
a lone percent sign, 300 characters, a negative number) — the survey slug kept valid in half of the cases, so that
the view behind it runs — and with every known query parameter set to hostile values; then hypothesis draws further
combinations (fixed count, derandomized). Every answer is below 500. Issue 14 measured 500s for
``/s/<slug>/t/abc%00def/`` and ``?version=²`` / ``?job=²``."""
import re
from urllib.parse import quote

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.aggregator.helpers import add_reports, make_survey

pytestmark = pytest.mark.django_db

HOSTILE = ["abc\x00def", "\x00", "²", "٣", "１", "-1", "0", "99999999999999999999999", "1e3", "1.5", " 1", "%00",
           "%", "..", "../..", "a" * 300, "ü", "\ud7ff", "\x7f", "\n", "null", "[]", "{}", "'", '"', "<script>"]
PARAMS = ["job", "version", "q", "o", "p", "page", "token", "e", "all", "_changelist_filters", "status__exact",
          "next", "format", "lang"]


def _patterns(resolver=None, prefix=""):
    """(route template, converter names) of every URL pattern, e.g. ("s/{slug}/t/{token}/", ["slug", "token"])."""
    resolver = resolver or get_resolver()
    for p in resolver.url_patterns:
        route = str(p.pattern)
        if isinstance(p, URLResolver):
            yield from _patterns(p, prefix + route)
        elif isinstance(p, URLPattern):
            full = prefix + route
            if full.startswith("^") or "(?P" in full or full.startswith("static/"):
                full = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"<\1>", full).lstrip("^").rstrip("$").replace("\\", "")
            yield re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", full)


ROUTES = sorted(set(_patterns()))
CORE = ["abc\x00def", "²", "99999999999999999999999", "%", "a" * 300, "-1"]
text = st.one_of(st.sampled_from(HOSTILE), st.text(min_size=0, max_size=20))


@pytest.fixture
def clients(db):
    survey = make_survey(access="tokens")
    add_reports(survey, 50)
    staff = Client(raise_request_exception=False)
    staff.force_login(User.objects.create_superuser("fuzz", password="pw"))
    return {"anonymous": Client(raise_request_exception=False), "staff": staff}, survey.slug


def _fill(route: str, values: list, slug: str) -> str:
    """The route with its converters filled: ``slug`` for a slug, ``values`` in order for the others."""
    names = re.findall(r"{(\w+)}", route)
    filled = {name: (slug if name == "slug" else v) for name, v in zip(names, values, strict=False)}
    return "/" + route.format(**{n: quote(str(filled.get(n, "x")), safe="") for n in names})


@pytest.mark.parametrize("route", ROUTES)
def test_every_route_with_hostile_path_and_query_values_answers_below_500(clients, route):
    by_name, slug = clients
    hostile_query = "&".join(f"{quote(k)}={quote(v, safe='')}" for k in PARAMS for v in ("\x00", "²"))
    for who, client in by_name.items():
        urls = [_fill(route, [value] * 3, slug if keep_slug else value)
                for value in CORE for keep_slug in (True, False)]
        urls.append(_fill(route, ["1"] * 3, slug) + "?" + hostile_query)
        for url in urls:
            status = client.get(url).status_code
            assert status < 500, (url, who, status)


@settings(max_examples=200, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(route=st.sampled_from(ROUTES), values=st.lists(text, min_size=3, max_size=3),
       query=st.lists(st.tuples(st.sampled_from(PARAMS), text), max_size=3),
       who=st.sampled_from(["anonymous", "staff"]))
def test_no_url_answers_500(clients, route, values, query, who):
    by_name, slug = clients
    path = _fill(route, values, slug if values[0] else values[1])
    qs = "&".join(f"{quote(k)}={quote(v, safe='')}" for k, v in query)
    response = by_name[who].get(path + ("?" + qs if qs else ""))
    assert response.status_code < 500, (path, qs, who, response.status_code)


@pytest.mark.parametrize("url", ["/s/{slug}/t/abc%00def/", "/dashboard/surveys/{slug}/?version=%C2%B2",
                                 "/dashboard/surveys/{slug}/?job=%C2%B2", "/s/{slug}/?x=%00"])
def test_the_measured_500s_are_gone(clients, url):
    by_name, slug = clients
    assert by_name["staff"].get(url.format(slug=slug)).status_code < 500

"""Admin login throttling (django-axes): after AXES_FAILURE_LIMIT failed logins for one username from one address,
that pair is refused (429) — even with the right password — until the cool-off ends; other addresses and other
usernames are unaffected; a successful login resets the count. Behind COINFLIP_TRUSTED_PROXIES proxies the address
is read from X-Forwarded-For (coinflip.security.client_ip) — only on connections from a trusted proxy network, and
only the entry the proxies appended: rotating a forged X-Forwarded-For never multiplies the attempts (issue 14)."""
from datetime import timedelta

import pytest
from axes.models import AccessAttempt, AccessLog
from django.contrib.auth.models import User
from django.test import RequestFactory
from django.utils import timezone

from coinflip.security import client_ip

pytestmark = pytest.mark.django_db
LOGIN = "/admin/login/"
PASSWORD = "correct horse battery"


@pytest.fixture
def boss():
    return User.objects.create_superuser("boss", "boss@example.invalid", PASSWORD)


def attempt(client, password, username="boss", address="203.0.113.7", **headers):
    return client.post(LOGIN, {"username": username, "password": password, "next": "/admin/"},
                       REMOTE_ADDR=address, **headers)


def test_locked_out_after_the_limit_then_released_after_the_cooloff(client, boss, settings):
    settings.AXES_FAILURE_LIMIT = 3
    for _ in range(2):
        assert attempt(client, "wrong").status_code == 200  # the form again, with an error
    assert attempt(client, "wrong").status_code == 429  # the third failure locks the pair out
    assert attempt(client, PASSWORD).status_code == 429  # …even with the right password
    assert attempt(client, PASSWORD, address="198.51.100.9").status_code == 302  # another address: signs in
    client.logout()
    # The cool-off ends: the attempt is older than AXES_COOLOFF_TIME.
    AccessAttempt.objects.update(attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - timedelta(seconds=1))
    assert attempt(client, PASSWORD).status_code == 302


def test_a_success_resets_the_count_and_is_not_logged(client, boss, settings):
    settings.AXES_FAILURE_LIMIT = 3
    attempt(client, "wrong")
    attempt(client, "wrong")
    assert attempt(client, PASSWORD).status_code == 302
    client.logout()
    assert not AccessAttempt.objects.exists()
    assert not AccessLog.objects.exists()  # AXES_DISABLE_ACCESS_LOG: no address kept for successful logins
    for _ in range(2):
        assert attempt(client, "wrong").status_code == 200


def test_the_limit_is_per_username(client, boss, settings):
    settings.AXES_FAILURE_LIMIT = 2
    User.objects.create_superuser("other", "other@example.invalid", PASSWORD)
    attempt(client, "wrong")
    assert attempt(client, "wrong").status_code == 429
    assert attempt(client, PASSWORD, username="other").status_code == 302


def test_the_settings_defaults():
    from django.conf import settings

    assert settings.AXES_FAILURE_LIMIT == 5 and settings.AXES_COOLOFF_TIME == timedelta(minutes=30)
    assert settings.AXES_LOCKOUT_PARAMETERS == [["username", "ip_address"]]


def test_client_address_without_and_behind_proxies(settings):
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.9")
    settings.COINFLIP_TRUSTED_PROXIES = 0
    assert client_ip(request) == "10.0.0.2"  # no proxy: X-Forwarded-For is whatever the client wrote
    settings.COINFLIP_TRUSTED_PROXIES = 1
    assert client_ip(request) == "198.51.100.9"  # the entry our proxy appended; 1.2.3.4 was the client's claim
    settings.COINFLIP_TRUSTED_PROXIES = 2
    assert client_ip(request) == "1.2.3.4"
    settings.COINFLIP_TRUSTED_PROXIES = 3
    assert client_ip(request) == "10.0.0.2"  # fewer entries than proxies: not trusted


def test_behind_a_proxy_lockout_follows_the_forwarded_address(client, boss, settings):
    settings.AXES_FAILURE_LIMIT = 2
    settings.COINFLIP_TRUSTED_PROXIES = 1
    proxy = "10.0.0.2"
    attempt(client, "wrong", address=proxy, HTTP_X_FORWARDED_FOR="203.0.113.7")
    assert attempt(client, "wrong", address=proxy, HTTP_X_FORWARDED_FOR="203.0.113.7").status_code == 429
    # Another client through the same proxy is not locked out.
    assert attempt(client, PASSWORD, address=proxy, HTTP_X_FORWARDED_FOR="198.51.100.9").status_code == 302


FORGED = [f"192.0.2.{i}" for i in range(1, 9)]  # a different claimed address on every attempt


def test_a_direct_client_cannot_choose_its_address(settings):
    """The trusted-proxy setting on, but the connection comes straight from a client (no proxy overwrote the
    header): X-Forwarded-For is ignored."""
    settings.COINFLIP_TRUSTED_PROXIES = 1
    for forged in FORGED:
        request = RequestFactory().get("/", REMOTE_ADDR="198.51.100.20", HTTP_X_FORWARDED_FOR=forged)
        assert client_ip(request) == "198.51.100.20"


def test_behind_the_proxy_only_the_appended_entry_counts(settings):
    settings.COINFLIP_TRUSTED_PROXIES = 1
    for forged in FORGED:  # the client's own X-Forwarded-For, to which the proxy appended the real address
        request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=f"{forged}, 203.0.113.7")
        assert client_ip(request) == "203.0.113.7"
    for header in ("", "not-an-address", "203.0.113.7, "):  # a proxy that appended nothing usable: its own address
        request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=header)
        assert client_ip(request) == "10.0.0.2", header
    settings.COINFLIP_TRUSTED_PROXY_NETWORKS = ["192.0.2.0/24"]  # the proxies' networks are configurable
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="203.0.113.7")
    assert client_ip(request) == "10.0.0.2"
    request = RequestFactory().get("/", REMOTE_ADDR="192.0.2.50", HTTP_X_FORWARDED_FOR="203.0.113.7")
    assert client_ip(request) == "203.0.113.7"
    request = RequestFactory().get("/", REMOTE_ADDR="::ffff:192.0.2.50", HTTP_X_FORWARDED_FOR="2001:db8::7")
    assert client_ip(request) == "2001:db8::7"


def test_the_default_trusted_networks_are_loopback_and_private():
    from django.conf import settings

    assert settings.COINFLIP_TRUSTED_PROXY_NETWORKS == [
        "127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"]


@pytest.mark.parametrize("proxy, header", [
    ("198.51.100.20", "{forged}"),  # straight from the client, trusted-proxy setting on
    ("10.0.0.2", "{forged}, 198.51.100.20"),  # through the proxy, a forged entry in front of the appended one
])
def test_rotating_x_forwarded_for_does_not_multiply_attempts(client, boss, settings, proxy, header):
    settings.AXES_FAILURE_LIMIT = 3
    settings.COINFLIP_TRUSTED_PROXIES = 1
    statuses = [attempt(client, "wrong", address=proxy, HTTP_X_FORWARDED_FOR=header.format(forged=forged)).status_code
                for forged in FORGED[:3]]
    assert statuses == [200, 200, 429]
    for forged in FORGED[3:]:  # a fresh forged address, even with the right password: still locked out
        assert attempt(client, PASSWORD, address=proxy,
                       HTTP_X_FORWARDED_FOR=header.format(forged=forged)).status_code == 429
    assert AccessAttempt.objects.count() == 1  # one client, one count

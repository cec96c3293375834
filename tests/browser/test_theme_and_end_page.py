"""A survey's theme and end page in a real browser (Chromium): the accent colour and the logo reach the page through
files of the site (the strict CSP refuses nothing), the themed page and the designer's thank-you page pass axe, and
after Send the browser goes to the designer's end address exactly as set — no token, no answer, no Referer."""
import datetime
import http.server
import io
import ipaddress
import ssl
import threading
from contextlib import contextmanager

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from PIL import Image

from survey_app import theme
from survey_app.services import set_logo
from tests.browser.axe import assert_accessible, sign_in
from tests.browser_support import BROWSER_TEST, answer_daily_73_yes, open_page
from tests.factories import make_habits_survey

pytestmark = BROWSER_TEST


def _logo() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (120, 40), (122, 74, 0)).save(out, format="PNG")
    return out.getvalue()


def test_the_theme_reaches_the_page_under_the_strict_csp_and_passes_axe(browser, live_server):
    survey = make_habits_survey("mrr")
    survey.accent_color = "#7a4a00"
    survey.end_text = "Thank you for helping the clinic."
    survey.save()
    set_logo(survey, theme.read_logo(_logo()))
    context, page, _posts, errors = open_page(browser, f"{live_server.url}/s/{survey.slug}/")
    refused = []
    page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
    page.get_by_role("button", name="Next").wait_for()
    assert page.get_by_role("button", name="Next").evaluate("b => getComputedStyle(b).backgroundColor") \
        == "rgb(122, 74, 0)"
    assert page.evaluate("document.querySelector('img.survey-logo').naturalWidth") == 120
    assert_accessible(page, "the themed survey page")
    answer_daily_73_yes(page)
    page.get_by_role("button", name="Send the randomized report").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert "Thank you for helping the clinic." in page.locator("main").inner_text()
    assert page.locator("footer button[aria-pressed=false]").first.evaluate("b => getComputedStyle(b).color") \
        == "rgb(122, 74, 0)"  # a secondary button: the accent as text on white
    assert_accessible(page, "the themed thank-you page")
    assert refused == [] and errors == []
    context.close()


class _Panel(http.server.BaseHTTPRequestHandler):
    """The end address's site: keeps each request's path and headers."""

    seen: list = []

    def do_GET(self):  # noqa: N802 (http.server's naming)
        self.seen.append((self.path, dict(self.headers)))
        body = b"<!doctype html><title>Done</title><p>Done</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@contextmanager
def https_panel(tmp_path):
    """An https server on 127.0.0.1 with a self-signed certificate (the browser context ignores its issuer)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .sign(key, hashes.SHA256()))
    (tmp_path / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Panel)
    server.socket = tls.wrap_socket(server.socket, server_side=True)
    _Panel.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}", _Panel.seen
    finally:
        server.shutdown()
        server.server_close()


def test_after_send_the_browser_goes_to_the_end_address_with_nothing_of_the_respondent(browser, live_server,
                                                                                       tmp_path):
    with https_panel(tmp_path) as (origin, seen):
        end = f"{origin}/complete?study=7"
        survey = make_habits_survey("mrr")
        survey.end_url = end
        survey.save()
        context = browser.new_context(ignore_https_errors=True)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{live_server.url}/s/{survey.slug}/")
        answer_daily_73_yes(page)
        page.get_by_role("button", name="Send the randomized report").click()
        page.wait_for_url(end)
        assert page.locator("p").inner_text() == "Done"
        (path, headers), = [(p, h) for p, h in seen if not p.startswith("/favicon")]
        assert path == "/complete?study=7"  # exactly the designer's address
        assert "Referer" not in headers and "Cookie" not in headers
        assert errors == []
        context.close()


def test_the_invitations_by_email_page_passes_axe(page, live_server):
    survey = make_habits_survey("mrr")
    survey.access = "tokens"
    survey.save()
    url = f"/admin/survey_app/survey/{survey.pk}/invitations/"
    sign_in(page, live_server, url)
    assert page.get_by_label("Email addresses").is_visible()
    assert_accessible(page, "the invitations by email page")
    page.get_by_label("Email addresses").fill("a@example.org\nnot an address")
    page.get_by_role("button", name="Send the invitations").click()
    assert "Not email addresses: not, an, address" in page.locator("#content").inner_text()
    assert_accessible(page, "the invitations by email page with an error")

"""static/js/credentials/blind.mjs and the vendored @cloudflare/blindrsa-ts in a real browser (Debian's Chromium,
WebCrypto): a credential blinded and finalized in the page, signed by the Python server half, verifies with
``cryptography``."""
from aggregator.privacy import blind_rsa as br
from tests.browser_support import BROWSER_TEST

pytestmark = BROWSER_TEST


def test_credential_round_trip_in_chromium(browser, live_server):
    key = br.generate_key(2048)
    spki = br.public_key_to_spki(key.public_key())
    page = browser.new_context().new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.url}/static/js/credentials/blind.mjs")  # any page of the site's origin (a secure context)
    started = page.evaluate(
        "async (spki) => { const c = await import('/static/js/credentials/blind.mjs');"
        " window.cred = c; return await c.startCredential(spki); }", spki)
    blind_sig = br.blind_sign(key, br.b64url_decode(started["blindedMsg"]))
    cred = page.evaluate("([pending, sig]) => window.cred.finishCredential(pending, sig)",
                         [started["pending"], br.b64url_encode(blind_sig)])
    assert errors == []
    assert br.verify(key.public_key(), br.b64url_decode(cred["value"]), br.b64url_decode(cred["signature"]))
    # The page refuses a blind signature that is not on its own blinded message.
    other, _ = br.blind(key.public_key(), br.prepare(b"other"))
    refused = page.evaluate(
        "([pending, sig]) => window.cred.finishCredential(pending, sig).then(() => 'accepted', (e) => e.message)",
        [started["pending"], br.b64url_encode(br.blind_sign(key, other))])
    assert refused == "invalid signature"

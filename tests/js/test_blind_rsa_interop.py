"""RFC 9474 blind signatures across the language boundary: a credential blinded and finalized in the browser's code
(static/js/credentials/blind.mjs) is signed by the Python server half and verifies with ``cryptography``; a message
blinded and finalized by the Python client half is signed by the vendored JS library and verifies with WebCrypto."""
import json
import secrets
import shutil
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from aggregator.privacy import blind_rsa as br

TOOL = Path(__file__).resolve().parent / "blind_rsa_tool.mjs"
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (.ci/run installs it)")


def js(**request):
    out = subprocess.run(["node", str(TOOL)], input=json.dumps(request), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def key():
    return br.generate_key(2048)


def test_blinded_in_js_signed_in_python_verifies_in_python(key):
    pk = key.public_key()
    spki = br.public_key_to_spki(pk)
    started = js(op="start", spki=spki)
    blind_sig = br.blind_sign(key, br.b64url_decode(started["blindedMsg"]))
    cred = js(op="finish", pending=started["pending"], blindSig=br.b64url_encode(blind_sig))
    value, signature = br.b64url_decode(cred["value"]), br.b64url_decode(cred["signature"])
    assert len(value) == 64 and len(signature) == 256
    assert br.verify(pk, value, signature)
    assert not br.verify(pk, value[:-1] + bytes([value[-1] ^ 1]), signature)
    assert not br.verify(br.generate_key(2048).public_key(), value, signature)


def test_blinded_in_python_signed_in_js_verifies_in_js(key):
    pk = key.public_key()
    spki = br.public_key_to_spki(pk)
    pkcs8 = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption())
    input_msg = br.prepare(secrets.token_bytes(br.MSG_LEN))
    blinded, inv = br.blind(pk, input_msg)
    signed = js(op="sign", pkcs8=br.b64url_encode(pkcs8), blindedMsg=br.b64url_encode(blinded))
    blind_sig = br.b64url_decode(signed["blindSig"])
    assert blind_sig == br.blind_sign(key, blinded)  # RSASP1 is deterministic: both server halves agree
    sig = br.finalize(pk, input_msg, blind_sig, inv)
    signature = br.b64url_encode(sig)
    assert js(op="verify", spki=spki, value=br.b64url_encode(input_msg), signature=signature) == {"valid": True}
    tampered = br.b64url_encode(input_msg[:-1] + bytes([input_msg[-1] ^ 1]))
    assert js(op="verify", spki=spki, value=tampered, signature=signature) == {"valid": False}


def test_js_refuses_a_wrong_blind_signature_from_python(key):
    spki = br.public_key_to_spki(key.public_key())
    started = js(op="start", spki=spki)
    other, _ = br.blind(key.public_key(), br.prepare(b"other"))
    out = subprocess.run(["node", str(TOOL)], capture_output=True, text=True, timeout=120, input=json.dumps(
        {"op": "finish", "pending": started["pending"], "blindSig": br.b64url_encode(br.blind_sign(key, other))}))
    assert out.returncode != 0 and "invalid signature" in out.stderr

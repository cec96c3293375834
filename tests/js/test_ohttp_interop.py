"""Oblivious HTTP across the language boundary: a JSON POST encoded by the page's code (static/js/ohttp.mjs with the
vendored bhttp-js and @hpke/core) is opened and read by the gateway's (aggregator/privacy/ohttp.py), and the
gateway's encapsulated answer is opened and read by the page's."""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from aggregator.privacy import ohttp

TOOL = Path(__file__).resolve().parent / "ohttp_tool.mjs"
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (.ci/run installs it)")


def js(**request):
    out = subprocess.run(["node", str(TOOL)], input=json.dumps(request), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_a_browser_post_is_read_by_the_gateway_and_its_answer_by_the_browser():
    private = ohttp.generate_private_key()
    config = ohttp.KeyConfig(7, ohttp.public_key(private))
    body = json.dumps({"report": {"v": [1, 0, 1]}, "credential": {"value": "é"}}, ensure_ascii=False)
    sent = js(op="encapsulate", key_config=ohttp.key_config(config).hex(),
              url="https://survey.example:8443/api/surveys/habits/reports/", body=body)
    assert body.encode() not in bytes.fromhex(sent["encapsulated"])
    data, context = ohttp.decapsulate_request(bytes.fromhex(sent["encapsulated"]), {7: private})
    request = ohttp.decode_request(data)
    assert (request.method, request.scheme, request.authority, request.path) == (
        "POST", "https", "survey.example:8443", "/api/surveys/habits/reports/")
    assert request.header("content-type") == "application/json" and request.content == body.encode()
    assert context.secret.hex() == sent["secret"] and context.enc.hex() == sent["enc"]
    answer = ohttp.Response(201, (("content-type", "application/json"),), b'{"status":"stored"}')
    opened = js(op="open", secret=sent["secret"], enc=sent["enc"],
                response=context.encapsulate_response(ohttp.encode_response(answer)).hex())
    assert opened == {"status": 201, "content_type": "application/json", "body": '{"status":"stored"}'}
    with pytest.raises(ohttp.KeyConfigError):
        ohttp.decapsulate_request(bytes.fromhex(sent["encapsulated"]), {8: private})

"""Oblivious HTTP (RFC 9458) and Binary HTTP (RFC 9292), aggregator/privacy/ohttp.py: RFC 9458 Appendix A reproduced
from both ends (the gateway opens its request and seals its response byte for byte; the client half encapsulates
the request byte for byte from the example's ephemeral key), and every way an Encapsulated Request or a Binary HTTP
message can be wrong is refused. tests/js/ohttp.test.mjs proves the browser's half on the same vectors."""
import json
from pathlib import Path

import pytest

from aggregator.privacy import ohttp

V = {k: bytes.fromhex(x) for k, x in json.loads((Path(__file__).parent / "rfc9458_vectors.json").read_text()).items()
     if k != "source"}


def test_the_key_configuration_of_appendix_a():
    config = ohttp.parse_key_config(V["key_config"])
    assert config.key_id == 1 and config.symmetric == ((1, 1), (1, 3))  # HKDF-SHA256 with AES-128-GCM, ChaCha20
    assert config.public_key == ohttp.public_key(V["gateway_private_key"])
    assert ohttp.key_config(config) == V["key_config"]
    assert ohttp.key_configs([config]) == len(V["key_config"]).to_bytes(2, "big") + V["key_config"]
    for bad in (V["key_config"][:30], V["key_config"][:1] + b"\x00\x10" + V["key_config"][3:], V["key_config"][:-1]):
        with pytest.raises(ohttp.KeyConfigError):
            ohttp.parse_key_config(bad)


def test_the_gateway_reproduces_appendix_a():
    request, context = ohttp.decapsulate_request(V["encapsulated_request"], {1: V["gateway_private_key"]})
    assert request == V["request"] and context.secret == V["exported_secret"]
    assert context.encapsulate_response(V["response"], V["response_nonce"]) == V["encapsulated_response"]
    fresh = context.encapsulate_response(V["response"])
    assert fresh[:16] != V["response_nonce"] and len(fresh) == len(V["encapsulated_response"])


def test_the_client_half_reproduces_appendix_a():
    config = ohttp.parse_key_config(V["key_config"])
    encapsulated, context = ohttp.encapsulate_request(config, V["request"], V["ephemeral_private_key"])
    assert encapsulated == V["encapsulated_request"] and context.secret == V["exported_secret"]
    assert context.decapsulate_response(V["encapsulated_response"]) == V["response"]
    again, _ = ohttp.encapsulate_request(config, V["request"])
    assert again[:7] == V["encapsulated_request"][:7] and again != V["encapsulated_request"]  # a new ephemeral key


def test_the_appendix_a_messages_decode():
    assert ohttp.decode_request(V["request"]) == ohttp.Request("GET", "https", "example.com", "/")  # truncated form
    assert ohttp.decode_response(V["response"]) == ohttp.Response(200)


@pytest.mark.parametrize("change", ["key_id", "kem", "aead", "enc", "ciphertext", "truncated", "short"])
def test_a_wrong_encapsulated_request_is_refused(change):
    data = bytearray(V["encapsulated_request"])
    if change == "key_id":
        data[0] = 2
    elif change == "kem":
        data[2] = 0x10
    elif change == "aead":
        data[6] = 3
    elif change == "enc":
        data[10] ^= 1
    elif change == "ciphertext":
        data[-1] ^= 1
    elif change == "truncated":
        data = data[:-1]
    else:
        data = data[:40]
    expected = ohttp.KeyConfigError if change in ("key_id", "kem", "aead") else ohttp.DecryptError
    with pytest.raises(expected):
        ohttp.decapsulate_request(bytes(data), {1: V["gateway_private_key"]})
    assert issubclass(expected, ohttp.OHTTPError)


def test_a_response_for_another_request_does_not_open():
    config = ohttp.parse_key_config(V["key_config"])
    _, context = ohttp.encapsulate_request(config, V["request"])
    with pytest.raises(ohttp.DecryptError):
        context.decapsulate_response(V["encapsulated_response"])


def test_binary_http_round_trips_and_its_other_forms():
    request = ohttp.Request("POST", "https", "survey.example", "/api/surveys/s/reports/",
                            (("content-type", "application/json"), ("accept", "*/*")), b'{"report": 1}')
    encoded = ohttp.encode_request(request)
    assert ohttp.decode_request(encoded) == request
    assert ohttp.decode_request(encoded + b"\x00" * 7) == request  # padding
    varint = ohttp.varint  # the indeterminate-length form (RFC 9292 §3.2): sections end with a zero
    indeterminate = (varint(2) + b"".join(varint(len(p)) + p for p in (b"POST", b"https", b"survey.example",
                                                                        b"/api/surveys/s/reports/"))
                     + varint(12) + b"content-type" + varint(16) + b"application/json" + varint(0)
                     + varint(5) + b'{"rep' + varint(8) + b'ort": 1}' + varint(0) + varint(0))
    assert ohttp.decode_request(indeterminate) == ohttp.Request(
        "POST", "https", "survey.example", "/api/surveys/s/reports/", (("content-type", "application/json"),),
        b'{"report": 1}')
    response = ohttp.Response(409, (("content-type", "application/json"),), b'{"detail": "used"}')
    assert ohttp.decode_response(ohttp.encode_response(response)) == response
    assert ohttp.varint(16383) == b"\x7f\xff" and ohttp.varint(494878333) == bytes.fromhex("9d7f3e7d")  # RFC 9000


@pytest.mark.parametrize("data", [
    b"", b"\x01\x40\xc8", b"\x00\x03GET", b"\x00\x03G T\x05https\x01a\x01/",  # empty, a response, cut, bad method
    b"\x00\x03GET\x03ftp\x01a\x01/", b"\x00\x03GET\x05https\x01a\x01x",  # other scheme, path without "/"
    b"\x00\x03GET\x05https\x01a\x01/\x05\x01X\x01\n\x00",  # a field value with a line feed
    b"\x00\x03GET\x05https\x01a\x01/\x00\x00\x00\x07",  # data after the message that is not padding
])
def test_malformed_binary_http_is_refused(data):
    with pytest.raises(ohttp.BinaryHTTPError):
        ohttp.decode_request(data)

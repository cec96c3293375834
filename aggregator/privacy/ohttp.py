"""Oblivious HTTP (RFC 9458) and Binary HTTP (RFC 9292): encapsulation of a respondent's requests for a relay.

A relay (any RFC 9458 Oblivious Relay Resource, run by someone other than the survey's operator) sees the respondent's
address but only ciphertext; the gateway (Coinflip, ``survey_app/ohttp.py``) sees the request but only the relay's
address. This module is the framework-free half of both ends:

- **Key configurations** (§3): ``key_config`` encodes one, ``key_configs`` the ``application/ohttp-keys`` list,
  ``parse_key_config`` reads one back.
- **Gateway** (§4.3–4.4): ``decapsulate_request`` opens a ``message/ohttp-req`` with the private key its key
  identifier names and returns the Binary HTTP request with a ``GatewayContext``, whose ``encapsulate_response``
  seals the Binary HTTP response (``message/ohttp-res``) to that client alone.
- **Client** (the browser's half, ``static/js/ohttp.mjs``; here for tests and simulations): ``encapsulate_request``
  and ``ClientContext.decapsulate_response``.
- **Binary HTTP**: ``decode_request`` (known- and indeterminate-length, truncated and padded forms, §3), and
  ``encode_response``; ``encode_request`` and ``decode_response`` for the client half. No maintained Python library
  does Binary HTTP, so this small codec is written here and checked against the RFC 9458 Appendix A messages and the
  browser's library (bhttp-js) in the tests.

HPKE (RFC 9180) is pyhpke's: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-128-GCM — the suite of RFC 9458's example,
which the browser's WebCrypto supports. ``cryptography``'s own HPKE offers single-shot encryption only, without the
exporter the response needs (§4.4).
"""
from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from pyhpke import AEADId, CipherSuite, KDFId, KEMId, KEMKeyPair, PyHPKEError

__all__ = [
    "KEM_ID", "KDF_ID", "AEAD_ID", "REQUEST_MEDIA_TYPE", "RESPONSE_MEDIA_TYPE", "KEYS_MEDIA_TYPE", "OHTTPError",
    "KeyConfigError", "DecryptError", "BinaryHTTPError", "KeyConfig", "generate_private_key", "public_key",
    "key_config", "key_configs", "parse_key_config", "GatewayContext", "decapsulate_request", "ClientContext",
    "encapsulate_request", "Request", "Response", "varint", "decode_request", "encode_request", "encode_response",
    "decode_response",
]

KEM_ID = 0x0020  # DHKEM(X25519, HKDF-SHA256)
KDF_ID = 0x0001  # HKDF-SHA256
AEAD_ID = 0x0001  # AES-128-GCM
N_ENC = 32  # X25519: the encapsulated key's length, as the public key's
N_K, N_N = 16, 12  # AES-128-GCM key and nonce lengths
RESPONSE_NONCE_LEN = max(N_K, N_N)
REQUEST_MEDIA_TYPE = "message/ohttp-req"
RESPONSE_MEDIA_TYPE = "message/ohttp-res"
KEYS_MEDIA_TYPE = "application/ohttp-keys"
REQUEST_LABEL = b"message/bhttp request"
RESPONSE_LABEL = b"message/bhttp response"
HEADER = struct.Struct("!BHHH")  # key_id, kem_id, kdf_id, aead_id

_SUITE = CipherSuite.new(KEMId.DHKEM_X25519_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES128_GCM)


class OHTTPError(ValueError):
    """An Encapsulated Request the gateway cannot open (RFC 9458 §5.2: answered 4xx, unencapsulated)."""


class KeyConfigError(OHTTPError):
    """Unknown key identifier or unsupported algorithms (RFC 9458 §5.3: the "ohttp-key" problem type)."""


class DecryptError(OHTTPError):
    """The request does not decrypt with the key it names (tampered, truncated, or for another key)."""


class BinaryHTTPError(ValueError):
    """A malformed Binary HTTP message (RFC 9292)."""


# -- keys (RFC 9458 §3) ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class KeyConfig:
    """One key configuration: the key identifier (0–255), the X25519 public key, the (KDF, AEAD) pairs offered."""

    key_id: int
    public_key: bytes
    kem_id: int = KEM_ID
    symmetric: tuple[tuple[int, int], ...] = ((KDF_ID, AEAD_ID),)


def generate_private_key() -> bytes:
    """A fresh X25519 private key (32 raw bytes)."""
    return X25519PrivateKey.generate().private_bytes_raw()


def public_key(private: bytes) -> bytes:
    """The raw X25519 public key of ``private``."""
    return X25519PrivateKey.from_private_bytes(private).public_key().public_bytes_raw()


def key_config(config: KeyConfig) -> bytes:
    """The encoding of one key configuration (RFC 9458 §3.1)."""
    if not 0 <= config.key_id <= 255 or len(config.public_key) != N_ENC:
        raise ValueError("a key identifier is one byte and an X25519 public key 32 bytes")
    algorithms = b"".join(struct.pack("!HH", kdf, aead) for kdf, aead in config.symmetric)
    return struct.pack("!BH", config.key_id, config.kem_id) + config.public_key + struct.pack("!H", len(algorithms)) \
        + algorithms


def key_configs(configs) -> bytes:
    """``application/ohttp-keys`` (RFC 9458 §3.2): each key configuration prefixed with its 2-byte length."""
    out = b""
    for config in configs:
        encoded = key_config(config)
        out += struct.pack("!H", len(encoded)) + encoded
    return out


def parse_key_config(data: bytes) -> KeyConfig:
    """One key configuration (RFC 9458 §3.1) of this suite's KEM; ``KeyConfigError`` for anything else."""
    if len(data) < 3 + N_ENC + 2:
        raise KeyConfigError("key configuration too short")
    key_id, kem_id = struct.unpack_from("!BH", data)
    if kem_id != KEM_ID:
        raise KeyConfigError(f"unsupported KEM 0x{kem_id:04x}")
    (length,) = struct.unpack_from("!H", data, 3 + N_ENC)
    algorithms = data[5 + N_ENC:]
    if length != len(algorithms) or length < 4 or length % 4:
        raise KeyConfigError("malformed symmetric algorithms")
    pairs = tuple(struct.unpack_from("!HH", algorithms, i) for i in range(0, length, 4))
    return KeyConfig(key_id, bytes(data[3:3 + N_ENC]), kem_id, pairs)


def _info(key_id: int) -> tuple[bytes, bytes]:
    header = HEADER.pack(key_id, KEM_ID, KDF_ID, AEAD_ID)
    return header, REQUEST_LABEL + b"\x00" + header


def _response_key(secret: bytes, enc: bytes, response_nonce: bytes):
    """The AEAD key and nonce of the Encapsulated Response (RFC 9458 §4.4)."""
    prk = _SUITE.kdf.extract(enc + response_nonce, secret)
    return _SUITE.aead.import_key(_SUITE.kdf.expand(prk, b"key", N_K)), _SUITE.kdf.expand(prk, b"nonce", N_N)


# -- the gateway (RFC 9458 §4.3 decapsulation, §4.4 encapsulation of the response) -----------------------------------

@dataclass
class GatewayContext:
    """What the gateway keeps between opening a request and sealing its response: the exported secret and ``enc``."""

    secret: bytes = field(repr=False)
    enc: bytes

    def encapsulate_response(self, response: bytes, response_nonce: bytes | None = None) -> bytes:
        """The Encapsulated Response for the Binary HTTP ``response``: a fresh random nonce (``response_nonce`` only
        to reproduce test vectors), then the AEAD ciphertext."""
        nonce = os.urandom(RESPONSE_NONCE_LEN) if response_nonce is None else response_nonce
        if len(nonce) != RESPONSE_NONCE_LEN:
            raise ValueError("the response nonce is max(Nn, Nk) bytes")
        key, aead_nonce = _response_key(self.secret, self.enc, nonce)
        return nonce + key.seal(response, aead_nonce)


def decapsulate_request(enc_request: bytes, private_keys) -> tuple[bytes, GatewayContext]:
    """Open the Encapsulated Request ``enc_request`` with the private key (raw X25519) that ``private_keys`` (a
    mapping key id → key) holds for its key identifier: (the Binary HTTP request, the context for the response).
    ``KeyConfigError`` for an unknown key identifier or other algorithms, ``DecryptError`` if it does not open."""
    if len(enc_request) < HEADER.size + N_ENC + 16:
        raise DecryptError("too short for an Encapsulated Request")
    key_id, kem_id, kdf_id, aead_id = HEADER.unpack_from(enc_request)
    private = private_keys.get(key_id)
    if private is None or (kem_id, kdf_id, aead_id) != (KEM_ID, KDF_ID, AEAD_ID):
        raise KeyConfigError("key identifier unknown" if private is None else "unsupported HPKE algorithms")
    _, info = _info(key_id)
    enc = bytes(enc_request[HEADER.size:HEADER.size + N_ENC])
    try:
        context = _SUITE.create_recipient_context(enc, _SUITE.kem.deserialize_private_key(private), info=info)
        request = context.open(bytes(enc_request[HEADER.size + N_ENC:]))
    except (PyHPKEError, InvalidTag, ValueError) as exc:
        raise DecryptError("the request does not decrypt with this gateway's key") from exc
    return request, GatewayContext(context.export(RESPONSE_LABEL, RESPONSE_NONCE_LEN), enc)


# -- the client (the browser's half: static/js/ohttp.mjs) ------------------------------------------------------------

@dataclass
class ClientContext:
    """What a client keeps between sending a request and reading its response."""

    secret: bytes = field(repr=False)
    enc: bytes

    def decapsulate_response(self, enc_response: bytes) -> bytes:
        """The Binary HTTP response inside ``enc_response``; ``DecryptError`` if it does not open."""
        if len(enc_response) < RESPONSE_NONCE_LEN + 16:
            raise DecryptError("too short for an Encapsulated Response")
        key, aead_nonce = _response_key(self.secret, self.enc, bytes(enc_response[:RESPONSE_NONCE_LEN]))
        try:
            return key.open(bytes(enc_response[RESPONSE_NONCE_LEN:]), aead_nonce)
        except (PyHPKEError, InvalidTag, ValueError) as exc:
            raise DecryptError("the response does not decrypt") from exc


def encapsulate_request(config: KeyConfig, request: bytes, ephemeral_private: bytes | None = None):
    """(Encapsulated Request, ``ClientContext``) for the Binary HTTP ``request`` to the gateway of ``config``
    (RFC 9458 §4.3). ``ephemeral_private`` (raw X25519) only to reproduce test vectors."""
    if (KDF_ID, AEAD_ID) not in config.symmetric or config.kem_id != KEM_ID:
        raise KeyConfigError("the key configuration offers no suite this client supports")
    header, info = _info(config.key_id)
    ephemeral = None
    if ephemeral_private is not None:
        ephemeral = KEMKeyPair(_SUITE.kem.deserialize_private_key(ephemeral_private),
                               _SUITE.kem.deserialize_public_key(public_key(ephemeral_private)))
    enc, context = _SUITE.create_sender_context(_SUITE.kem.deserialize_public_key(config.public_key), info=info,
                                                eks=ephemeral)
    return header + enc + context.seal(request), ClientContext(context.export(RESPONSE_LABEL, RESPONSE_NONCE_LEN), enc)


# -- Binary HTTP (RFC 9292) ------------------------------------------------------------------------------------------

KNOWN_REQUEST, KNOWN_RESPONSE, INDETERMINATE_REQUEST, INDETERMINATE_RESPONSE = 0, 1, 2, 3
_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_FIELD_VALUE = re.compile(rb"[\t\x20-\x7e\x80-\xff]*")


@dataclass(frozen=True)
class Request:
    """A Binary HTTP request: control data, header fields (lowercase names, in order) and content."""

    method: str
    scheme: str
    authority: str
    path: str
    headers: tuple[tuple[str, str], ...] = ()
    content: bytes = b""

    def header(self, name: str) -> str | None:
        return next((value for key, value in self.headers if key == name), None)


@dataclass(frozen=True)
class Response:
    """A Binary HTTP response: final status, header fields and content (informational responses are dropped)."""

    status: int
    headers: tuple[tuple[str, str], ...] = ()
    content: bytes = b""


def varint(value: int) -> bytes:
    """QUIC's variable-length integer (RFC 9000 §16), as RFC 9292 uses it."""
    if value < 1 << 6:
        return struct.pack("!B", value)
    if value < 1 << 14:
        return struct.pack("!H", value | 0x4000)
    if value < 1 << 30:
        return struct.pack("!I", value | 0x80000000)
    if value < 1 << 62:
        return struct.pack("!Q", value | 0xC000000000000000)
    raise BinaryHTTPError("integer too large")


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.pos = bytes(data), 0

    def done(self) -> bool:
        return self.pos >= len(self.data)

    def varint(self) -> int:
        if self.done():
            raise BinaryHTTPError("truncated integer")
        size = 1 << (self.data[self.pos] >> 6)
        if self.pos + size > len(self.data):
            raise BinaryHTTPError("truncated integer")
        value = int.from_bytes(self.data[self.pos:self.pos + size], "big") & ((1 << (8 * size - 2)) - 1)
        self.pos += size
        return value

    def take(self, length: int) -> bytes:
        if self.pos + length > len(self.data):
            raise BinaryHTTPError("truncated message")
        chunk = self.data[self.pos:self.pos + length]
        self.pos += length
        return chunk

    def prefixed(self) -> bytes:
        return self.take(self.varint())

    def padding(self) -> None:
        """What follows a message may only be zero bytes (RFC 9292 §3.8)."""
        if any(self.data[self.pos:]):
            raise BinaryHTTPError("data after the end of the message")
        self.pos = len(self.data)


def _field_line(reader: _Reader) -> tuple[str, str] | None:
    """One field line, or ``None`` at an indeterminate-length section's terminator (a zero-length name)."""
    name = reader.prefixed()
    if not name:
        return None
    value = reader.prefixed()
    if not _TOKEN.fullmatch(name) or not _FIELD_VALUE.fullmatch(value):
        raise BinaryHTTPError("invalid field name or value")
    return name.decode("ascii").lower(), value.decode("latin-1")


def _fields(reader: _Reader, known: bool) -> tuple[tuple[str, str], ...]:
    """A field section; an absent one (the message truncated here) is empty (RFC 9292 §3.8)."""
    if reader.done():
        return ()
    lines = []
    if known:
        section = _Reader(reader.prefixed())
        while not section.done():
            line = _field_line(section)
            if line is None:
                raise BinaryHTTPError("empty field name")
            lines.append(line)
    else:
        while (line := _field_line(reader)) is not None:
            lines.append(line)
    return tuple(lines)


def _content(reader: _Reader, known: bool) -> bytes:
    if reader.done():
        return b""
    if known:
        return reader.prefixed()
    chunks = []
    while chunk := reader.prefixed():
        chunks.append(chunk)
    return b"".join(chunks)


def _control(reader: _Reader) -> tuple[str, str, str, str]:
    method, scheme, authority, path = (reader.prefixed() for _ in range(4))
    if not _TOKEN.fullmatch(method) or scheme not in (b"https", b"http") or not path.startswith(b"/") \
            or any(b < 0x21 or b > 0x7e for b in authority + path):
        raise BinaryHTTPError("invalid request control data")
    return method.decode("ascii"), scheme.decode("ascii"), authority.decode("ascii"), path.decode("ascii")


def decode_request(data: bytes) -> Request:
    """The Binary HTTP request ``data`` (known- or indeterminate-length; truncated and padded forms accepted)."""
    reader = _Reader(data)
    framing = reader.varint()
    if framing not in (KNOWN_REQUEST, INDETERMINATE_REQUEST):
        raise BinaryHTTPError("not a Binary HTTP request")
    known = framing == KNOWN_REQUEST
    method, scheme, authority, path = _control(reader)
    headers = _fields(reader, known)
    content = _content(reader, known)
    _fields(reader, known)  # trailers: read and dropped
    reader.padding()
    return Request(method, scheme, authority, path, headers, content)


def _encode_fields(headers) -> bytes:
    return b"".join(varint(len(n)) + n + varint(len(v)) + v
                    for n, v in ((name.lower().encode("ascii"), value.encode("latin-1")) for name, value in headers))


def encode_request(request: Request) -> bytes:
    """The known-length Binary HTTP encoding of ``request`` (no trailers, no padding)."""
    control = b"".join(varint(len(part)) + part for part in (
        request.method.encode("ascii"), request.scheme.encode("ascii"), request.authority.encode("ascii"),
        request.path.encode("ascii")))
    fields = _encode_fields(request.headers)
    return varint(KNOWN_REQUEST) + control + varint(len(fields)) + fields + varint(len(request.content)) \
        + request.content + varint(0)


def encode_response(response: Response) -> bytes:
    """The known-length Binary HTTP encoding of ``response`` (no informational responses, trailers or padding)."""
    if not 200 <= response.status <= 599:
        raise BinaryHTTPError("a final status is 200 to 599")
    fields = _encode_fields(response.headers)
    return varint(KNOWN_RESPONSE) + varint(response.status) + varint(len(fields)) + fields \
        + varint(len(response.content)) + response.content + varint(0)


def decode_response(data: bytes) -> Response:
    """The Binary HTTP response ``data`` (informational responses skipped)."""
    reader = _Reader(data)
    framing = reader.varint()
    if framing not in (KNOWN_RESPONSE, INDETERMINATE_RESPONSE):
        raise BinaryHTTPError("not a Binary HTTP response")
    known = framing == KNOWN_RESPONSE
    while True:
        status = reader.varint()
        if not 100 <= status <= 599:
            raise BinaryHTTPError("invalid status")
        headers = _fields(reader, known)
        if status >= 200:
            break
    content = _content(reader, known)
    _fields(reader, known)
    reader.padding()
    return Response(status, headers, content)

"""RSA blind signatures (RFC 9474), variant RSABSSA-SHA384-PSS-Randomized: unlinkable survey credentials.

Redeeming an invitation gives the browser the server's blind signature on a value the server never sees; the report
later carries the unblinded value and a standard RSA-PSS signature on it (SHA-384, MGF1-SHA-384, 48-byte salt), which
``verify`` checks with ``cryptography``. The server cannot link the two requests (RFC 9474 §1, §7).

Variant (RFC 9474 §5): PSS with a 48-byte salt and the randomized preparation (PrepareRandomize, §4.1). Both this
and the deterministic variant are supported by the vendored browser library (@cloudflare/blindrsa-ts); our values
are random, so either would be safe (§7.3), and randomized preparation adds its extra protection for the cost of 32
bytes (§5, §7.4).

Server half: ``blind_sign`` (RSASP1 by OpenSSL through ``openssl_rsa``, or by GMP). Client half (reference for
``static/js/credentials/blind.mjs``, used by tests and simulations): ``prepare``, ``blind``, ``finalize``. Keys come
from ``cryptography``; EMSA-PSS encoding (RFC 8017 §9.1.1) and the blinding arithmetic (RFC 9474 §4.2–4.4) are
written here with Python integers, because ``cryptography`` offers no raw RSA operation.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import math
import secrets

import gmpy2
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from aggregator.privacy import openssl_rsa

__all__ = [
    "VARIANT", "KEY_SIZES", "DEFAULT_KEY_SIZE", "MSG_LEN", "BlindRSAError",
    "generate_key", "private_key_to_pem", "private_key_from_pem", "public_key_to_pem", "public_key_from_pem",
    "public_key_to_spki", "public_key_from_spki", "key_id", "b64url_encode", "b64url_decode",
    "prepare", "blind", "SigningKey", "blind_sign", "finalize", "verify", "emsa_pss_encode",
]

VARIANT = "RSABSSA-SHA384-PSS-Randomized"
H_LEN = 48  # SHA-384 output, bytes
SALT_LEN = 48  # RFC 9474 §5: PSS salt of the hash's length
PREFIX_LEN = 32  # RFC 9474 §4.1: PrepareRandomize's msg_prefix
MSG_LEN = 32  # the credential value a client picks (random bytes), before preparation
PUBLIC_EXPONENT = 65537
KEY_SIZES = (2048, 3072, 4096)  # RFC 9474 §6.2 (via RFC 8017): at least 2048 bits; 4096 is the RFC's vectors'
DEFAULT_KEY_SIZE = 2048


class BlindRSAError(ValueError):
    """A protocol error named as in RFC 9474 §4 ("invalid input", "signing failure", …)."""


# --- keys and encodings ---------------------------------------------------------------------------------------------

def generate_key(bits: int = DEFAULT_KEY_SIZE) -> rsa.RSAPrivateKey:
    """A fresh signing key, e = 65537 (RFC 9474 §6.2: use it for this protocol only)."""
    if bits not in KEY_SIZES:
        raise BlindRSAError(f"key size must be one of {KEY_SIZES}")
    return rsa.generate_private_key(public_exponent=PUBLIC_EXPONENT, key_size=bits)


def _check_key(key, kind):
    if not isinstance(key, kind):
        raise BlindRSAError("not an RSA key")
    numbers = key.public_numbers() if kind is rsa.RSAPublicKey else key.public_key().public_numbers()
    if key.key_size not in KEY_SIZES or numbers.e != PUBLIC_EXPONENT:
        raise BlindRSAError(f"RSA key must have {KEY_SIZES} bits and e = {PUBLIC_EXPONENT}")
    return key


def private_key_to_pem(key: rsa.RSAPrivateKey) -> bytes:
    """PKCS#8 PEM, unencrypted (the caller stores it where secrets belong)."""
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def private_key_from_pem(data: bytes | str) -> rsa.RSAPrivateKey:
    if isinstance(data, str):
        data = data.encode("ascii")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise BlindRSAError(f"unreadable private key: {exc}") from None
    return _check_key(key, rsa.RSAPrivateKey)


def public_key_to_pem(key: rsa.RSAPublicKey) -> str:
    """SubjectPublicKeyInfo PEM (rsaEncryption), for people and for ``openssl``."""
    return key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def public_key_from_pem(data: bytes | str) -> rsa.RSAPublicKey:
    if isinstance(data, str):
        data = data.encode("ascii")
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as exc:
        raise BlindRSAError(f"unreadable public key: {exc}") from None
    return _check_key(key, rsa.RSAPublicKey)


def _spki_der(key: rsa.RSAPublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def public_key_to_spki(key: rsa.RSAPublicKey) -> str:
    """Base64url DER SubjectPublicKeyInfo: what the browser passes to ``crypto.subtle.importKey("spki", …)``."""
    return b64url_encode(_spki_der(key))


def public_key_from_spki(text: str) -> rsa.RSAPublicKey:
    try:
        key = serialization.load_der_public_key(b64url_decode(text))
    except (ValueError, TypeError) as exc:
        raise BlindRSAError(f"unreadable public key: {exc}") from None
    return _check_key(key, rsa.RSAPublicKey)


def key_id(key: rsa.RSAPublicKey) -> str:
    """Hex SHA-256 of the DER SubjectPublicKeyInfo: a short, checkable fingerprint of a published key."""
    return hashlib.sha256(_spki_der(key)).hexdigest()


def b64url_encode(data: bytes) -> str:
    """Base64url without padding (RFC 4648 §5), the wire form of every byte string here."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Strict inverse of ``b64url_encode``: only the URL-safe alphabet, no padding, canonical trailing bits."""
    if not isinstance(text, str) or not text.isascii() or len(text) % 4 == 1 \
            or text.strip("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"):
        raise BlindRSAError("not unpadded base64url")
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise BlindRSAError("not unpadded base64url") from None
    if b64url_encode(data) != text:
        raise BlindRSAError("not canonical base64url")
    return data


# --- EMSA-PSS (RFC 8017) --------------------------------------------------------------------------------------------

def _mgf1(seed: bytes, length: int) -> bytes:
    """MGF1 with SHA-384 (RFC 8017 Appendix B.2.1)."""
    out = bytearray()
    for counter in range(math.ceil(length / H_LEN)):
        out += hashlib.sha384(seed + counter.to_bytes(4, "big")).digest()
    return bytes(out[:length])


def emsa_pss_encode(msg: bytes, em_bits: int, salt: bytes) -> bytes:
    """EMSA-PSS-ENCODE(M, emBits) of RFC 8017 §9.1.1 with SHA-384, MGF1-SHA-384 and the given salt."""
    em_len = math.ceil(em_bits / 8)
    m_hash = hashlib.sha384(msg).digest()  # step 2
    if em_len < H_LEN + len(salt) + 2:  # step 3
        raise BlindRSAError("encoding error")
    h = hashlib.sha384(bytes(8) + m_hash + salt).digest()  # steps 5–6
    db = bytes(em_len - len(salt) - H_LEN - 2) + b"\x01" + salt  # steps 7–8
    masked_db = bytearray(a ^ b for a, b in zip(db, _mgf1(h, em_len - H_LEN - 1), strict=True))  # steps 9–10
    masked_db[0] &= 0xFF >> (8 * em_len - em_bits)  # step 11
    return bytes(masked_db) + h + b"\xbc"  # step 12


# --- the protocol (RFC 9474 §4) -------------------------------------------------------------------------------------

def _k_len(n: int) -> int:
    return (n.bit_length() + 7) // 8


def prepare(msg: bytes, *, prefix: bytes | None = None) -> bytes:
    """PrepareRandomize (RFC 9474 §4.1): input_msg = random(32) || msg. ``prefix`` fixes it (test vectors)."""
    if prefix is None:
        prefix = secrets.token_bytes(PREFIX_LEN)
    if len(prefix) != PREFIX_LEN:
        raise BlindRSAError("msg_prefix must be 32 bytes")
    return bytes(prefix) + bytes(msg)


def blind(public_key: rsa.RSAPublicKey, input_msg: bytes, *, salt: bytes | None = None,
          inv: int | None = None) -> tuple[bytes, int]:
    """Blind (RFC 9474 §4.2) → (blinded_msg of kLen bytes, inv). ``salt`` and ``inv`` fix the randomness (vectors)."""
    n, e = public_key.public_numbers().n, public_key.public_numbers().e
    k_len = _k_len(n)
    if salt is None:
        salt = secrets.token_bytes(SALT_LEN)
    if len(salt) != SALT_LEN:
        raise BlindRSAError("salt must be 48 bytes")
    encoded = emsa_pss_encode(input_msg, n.bit_length() - 1, salt)  # steps 1–2 (emBits = modBits − 1, RFC 8017 §8.1.1)
    m = int.from_bytes(encoded, "big")  # step 3
    if math.gcd(m, n) != 1:  # steps 4–5
        raise BlindRSAError("invalid input")
    if inv is None:
        r = secrets.randbelow(n - 1) + 1  # step 6: random_integer_uniform(1, n)
    else:
        if not 1 <= inv < n or math.gcd(inv, n) != 1:
            raise BlindRSAError("invalid blind")
        r = pow(inv, -1, n)
    try:
        inv = pow(r, -1, n)  # step 7
    except ValueError:  # step 8
        raise BlindRSAError("blinding error") from None
    x = pow(r, e, n)  # step 9: RSAVP1(pk, r)
    z = m * x % n  # step 10
    return z.to_bytes(k_len, "big"), inv  # steps 11–12


def _rsasp1_gmp(private_key: rsa.RSAPrivateKey, m: int) -> int:
    """RSASP1 (RFC 8017 §5.2.1, CRT form 2b) on m·u^e, u random, so its timing does not follow m (RFC 9474 §7.1),
    in GMP (``gmpy2``): where no OpenSSL 3 libcrypto is found (``SigningKey``), and the reference in tests."""
    priv = private_key.private_numbers()
    p, q, n, e = (gmpy2.mpz(x) for x in (priv.p, priv.q, priv.public_numbers.n, priv.public_numbers.e))
    u = gmpy2.mpz(secrets.randbelow(int(n) - 2) + 2)
    mb = gmpy2.mpz(m) * gmpy2.powmod(u, e, n) % n
    s1, s2 = gmpy2.powmod(mb, priv.dmp1, p), gmpy2.powmod(mb, priv.dmq1, q)
    sb = s2 + q * ((s1 - s2) * priv.iqmp % p)
    return int(sb * gmpy2.invert(u, n) % n)


class SigningKey:
    """A private key made ready for ``blind_sign``: RSASP1 by OpenSSL (``openssl_rsa``; docs/benchmarks.md)
    when a libcrypto of OpenSSL 3 is found, else by GMP. Build one per key and keep it
    (``survey_app.credentials`` does, per key id); ``openssl=False`` forces GMP."""

    def __init__(self, private_key: rsa.RSAPrivateKey, *, openssl: bool = True):
        self.private_key = _check_key(private_key, rsa.RSAPrivateKey)
        numbers = private_key.public_key().public_numbers()
        self.n, self.e = numbers.n, numbers.e
        self.k_len = _k_len(self.n)
        self._raw = (openssl_rsa.RawRSAKey(private_key.private_bytes(
            serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
            if openssl and openssl_rsa.available() else None)

    @property
    def backend(self) -> str:
        return "openssl" if self._raw is not None else "gmp"

    def rsasp1(self, m: int) -> int:
        """RSASP1 of 0 ≤ m < n."""
        if self._raw is not None:
            return int.from_bytes(self._raw.rsasp1(m.to_bytes(self.k_len, "big")), "big")
        return _rsasp1_gmp(self.private_key, m)


def blind_sign(private_key: rsa.RSAPrivateKey | SigningKey, blinded_msg: bytes) -> bytes:
    """BlindSign (RFC 9474 §4.3): the server half. Rejects inputs that are not kLen bytes or not below n."""
    key = private_key if isinstance(private_key, SigningKey) else SigningKey(private_key)
    n, e, k_len = key.n, key.e, key.k_len
    if not isinstance(blinded_msg, (bytes, bytearray)) or len(blinded_msg) != k_len:
        raise BlindRSAError("unexpected input size")
    m = int.from_bytes(blinded_msg, "big")  # step 1
    if m >= n:  # RSASP1 step 1 (RFC 8017 §5.2.1)
        raise BlindRSAError("message representative out of range")
    s = key.rsasp1(m)  # step 2
    if int(gmpy2.powmod(s, e, n)) != m:  # steps 3–4: verify before returning (guards against faulty CRT results)
        raise BlindRSAError("signing failure")
    return s.to_bytes(k_len, "big")  # steps 5–6


def finalize(public_key: rsa.RSAPublicKey, input_msg: bytes, blind_sig: bytes, inv: int) -> bytes:
    """Finalize (RFC 9474 §4.4): unblind and check the signature; raises "invalid signature" on a bad response."""
    n = public_key.public_numbers().n
    k_len = _k_len(n)
    if len(blind_sig) != k_len:  # step 1
        raise BlindRSAError("unexpected input size")
    z = int.from_bytes(blind_sig, "big")  # step 2
    sig = (z * inv % n).to_bytes(k_len, "big")  # steps 3–4
    if not verify(public_key, input_msg, sig):  # steps 5–6
        raise BlindRSAError("invalid signature")
    return sig


def verify(public_key: rsa.RSAPublicKey, msg: bytes, sig: bytes) -> bool:
    """RSASSA-PSS-VERIFY (RFC 9474 §4.5) by ``cryptography``: SHA-384, MGF1-SHA-384, salt length 48."""
    if not isinstance(msg, (bytes, bytearray)) or not isinstance(sig, (bytes, bytearray)) \
            or len(sig) != _k_len(public_key.public_numbers().n):
        return False
    try:
        public_key.verify(bytes(sig), bytes(msg),
                          padding.PSS(mgf=padding.MGF1(hashes.SHA384()), salt_length=SALT_LEN), hashes.SHA384())
    except InvalidSignature:
        return False
    return True

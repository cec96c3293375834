"""RSA blind signatures (aggregator/privacy/blind_rsa.py) against RFC 9474 test vectors and standard RSA-PSS.

The vectors (tests/engine/rfc9474_vectors.json, built by tests/engine/make_rfc9474_vectors.py from Debian's
golang-github-cloudflare-circl-dev) are RFC 9474 Appendix A's RSABSSA-SHA384-PSS-Deterministic vector and circl's
RSABSSA-SHA384-PSSZERO-Deterministic one. Our variant, RSABSSA-SHA384-PSS-Randomized, is the first with the 32-byte
random prefix of PrepareRandomize (RFC 9474 §4.1, §5); its tests check that preparation and standard RSA-PSS.
"""
import json
import secrets
from pathlib import Path

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from aggregator.privacy import blind_rsa as br
from aggregator.privacy import openssl_rsa

VECTORS = {v["name"]: v for v in
           json.loads((Path(__file__).resolve().parent / "rfc9474_vectors.json").read_text())["vectors"]}
PSS_DET = VECTORS["RSABSSA-SHA384-PSS-Deterministic"]  # RFC 9474 Appendix A, 4096-bit key, 48-byte salt
PSSZERO_DET = VECTORS["RSABSSA-SHA384-PSSZERO-Deterministic"]  # circl's, 2048-bit key, empty salt


def vector_key(v) -> rsa.RSAPrivateKey:
    p, q, d, e, n = (int(v[k], 16) for k in ("p", "q", "d", "e", "n"))
    assert p * q == n
    return rsa.RSAPrivateNumbers(p, q, d, rsa.rsa_crt_dmp1(d, p), rsa.rsa_crt_dmq1(d, q), rsa.rsa_crt_iqmp(p, q),
                                 rsa.RSAPublicNumbers(e, n)).private_key()


BACKENDS = pytest.mark.parametrize("openssl", [True, False], ids=["openssl", "gmp"])


def pss(salt_length: int) -> padding.PSS:
    return padding.PSS(mgf=padding.MGF1(hashes.SHA384()), salt_length=salt_length)


@pytest.fixture(scope="module")
def key():
    return br.generate_key(2048)


def test_the_rfc_vector_is_our_variant_but_for_preparation():
    # RFC 9474 §5: the PSS variants share hash, MGF and salt length; Randomized only adds the 32-byte prefix (§4.1).
    assert br.VARIANT == PSS_DET["name"].replace("-Deterministic", "-Randomized")
    assert len(bytes.fromhex(PSS_DET["salt"])) == br.SALT_LEN
    sk = vector_key(PSS_DET)
    assert sk.key_size in br.KEY_SIZES and br.private_key_from_pem(br.private_key_to_pem(sk)).key_size == 4096


@BACKENDS
def test_rfc9474_pss_deterministic_vector_reproduced_exactly(openssl):
    v = PSS_DET
    sk = vector_key(v)
    pk = sk.public_key()
    input_msg = bytes.fromhex(v["msg"])  # PrepareIdentity (RFC 9474 §4.1)
    salt, n = bytes.fromhex(v["salt"]), pk.public_numbers().n
    assert br.emsa_pss_encode(input_msg, n.bit_length() - 1, salt).hex() == v["encoded_msg"]
    blinded, inv = br.blind(pk, input_msg, salt=salt, inv=int(v["inv"], 16))
    assert inv == int(v["inv"], 16)
    assert blinded.hex() == v["blinded_msg"]
    signing = br.SigningKey(sk, openssl=openssl)
    assert signing.backend == ("openssl" if openssl else "gmp")
    blind_sig = br.blind_sign(signing, blinded)
    assert blind_sig.hex() == v["blind_sig"]
    sig = br.finalize(pk, input_msg, blind_sig, inv)
    assert sig.hex() == v["sig"]
    assert br.verify(pk, input_msg, sig)
    pk.verify(sig, input_msg, pss(48), hashes.SHA384())
    assert not br.verify(pk, input_msg + b"x", sig)


@BACKENDS
def test_pss_zero_vector_with_our_primitives_and_refused_by_our_variant(openssl):
    # circl's RSABSSA-SHA384-PSSZERO-Deterministic vector (salt length 0): a known answer for EMSA-PSS encoding and the
    # CRT private operation at 2048 bits, our default key size; our variant (salt length 48) must not accept it.
    v = PSSZERO_DET
    sk = vector_key(v)
    pk = sk.public_key()
    n, e = pk.public_numbers().n, pk.public_numbers().e
    msg, inv = bytes.fromhex(v["msg"]), int(v["inv"], 16)
    assert sk.key_size == br.DEFAULT_KEY_SIZE and v["salt"] == ""
    encoded = br.emsa_pss_encode(msg, n.bit_length() - 1, b"")
    assert encoded.hex() == v["encoded_msg"]
    blinded = (int.from_bytes(encoded, "big") * pow(pow(inv, -1, n), e, n) % n).to_bytes(256, "big")
    assert blinded.hex() == v["blinded_msg"]  # RFC 9474 §4.2 steps 9–10, with r = inv^-1
    blind_sig = br.blind_sign(br.SigningKey(sk, openssl=openssl), blinded)
    assert blind_sig.hex() == v["blind_sig"]
    sig = (int.from_bytes(blind_sig, "big") * inv % n).to_bytes(256, "big")  # §4.4 steps 2–4
    assert sig.hex() == v["sig"]
    pk.verify(sig, msg, pss(0), hashes.SHA384())
    assert not br.verify(pk, msg, sig)
    with pytest.raises(br.BlindRSAError, match="invalid signature"):
        br.finalize(pk, msg, blind_sig, inv)
    with pytest.raises(br.BlindRSAError, match="salt"):
        br.blind(pk, msg, salt=b"", inv=inv)


@pytest.mark.parametrize("msg", [b"", b"m", bytes(range(br.MSG_LEN)), bytes(i % 251 for i in range(1000))],
                         ids=["empty", "one", "msg-len", "long"])  # fixed: xdist workers must collect the same ids
def test_prepare_is_32_fresh_random_bytes_then_msg(msg, monkeypatch):
    drawn = []
    token_bytes = br.secrets.token_bytes

    def spy(n):
        drawn.append(token_bytes(n))
        return drawn[-1]
    monkeypatch.setattr(br.secrets, "token_bytes", spy)  # the prefix comes from the CSPRNG, 32 bytes a call
    outs = [br.prepare(msg) for _ in range(100)]
    assert [len(d) for d in drawn] == [br.PREFIX_LEN] * 100 == [32] * 100
    assert outs == [d + msg for d in drawn]
    assert len({o[:32] for o in outs}) == 100  # distinct prefixes (a collision has probability < 2^-242)
    fixed = bytes(range(32))
    assert br.prepare(msg, prefix=fixed) == fixed + msg


def test_randomized_signature_on_the_rfc_key_is_standard_pss():
    # Our variant end to end on the RFC's 4096-bit key, salt and blind: prepare() then the PSS-Deterministic steps on
    # the prepared message; cryptography's RSA-PSS verifier (SHA-384, MGF1-SHA-384, salt 48) accepts prefix || msg only.
    v = PSS_DET
    sk = vector_key(v)
    pk = sk.public_key()
    msg, salt, n, e = bytes.fromhex(v["msg"]), bytes.fromhex(v["salt"]), pk.public_numbers().n, pk.public_numbers().e
    input_msg = br.prepare(msg)
    blinded, inv = br.blind(pk, input_msg, salt=salt, inv=int(v["inv"], 16))
    assert blinded.hex() != v["blinded_msg"]
    sig = br.finalize(pk, input_msg, br.blind_sign(sk, blinded), inv)
    pk.verify(sig, input_msg, pss(48), hashes.SHA384())
    assert pow(int.from_bytes(sig, "big"), e, n) == int.from_bytes(br.emsa_pss_encode(input_msg, 4095, salt), "big")
    for other in (msg, input_msg[1:], br.prepare(msg)):
        with pytest.raises(InvalidSignature):
            pk.verify(sig, other, pss(48), hashes.SHA384())
    assert sig.hex() != v["sig"]


def test_emsa_pss_encoding_is_the_standard_one(key):
    # A signature made by cryptography's own RSA-PSS signer, recovered with the public operation, is a valid EMSA-PSS
    # encoding; re-encoding with its salt (read back by unmasking) must give the same bytes.
    msg = secrets.token_bytes(64)
    sig = key.sign(msg, padding.PSS(mgf=padding.MGF1(hashes.SHA384()), salt_length=48), hashes.SHA384())
    pub = key.public_key().public_numbers()
    em = pow(int.from_bytes(sig, "big"), pub.e, pub.n).to_bytes(256, "big")
    h = em[-49:-1]
    db = bytes(a ^ b for a, b in zip(em[:-49], br._mgf1(h, 256 - 49), strict=True))
    salt = db[-48:]
    assert br.emsa_pss_encode(msg, pub.n.bit_length() - 1, salt)[1:] == em[1:]
    assert br.emsa_pss_encode(msg, pub.n.bit_length() - 1, salt)[0] & 0x7F == em[0] & 0x7F


@pytest.mark.parametrize("bits", [2048, 3072])
def test_round_trip_gives_a_standard_pss_signature(bits, key):
    sk = key if bits == 2048 else br.generate_key(bits)
    pk = sk.public_key()
    input_msg = br.prepare(secrets.token_bytes(br.MSG_LEN))
    assert len(input_msg) == 64
    blinded, inv = br.blind(pk, input_msg)
    assert len(blinded) == bits // 8
    sig = br.finalize(pk, input_msg, br.blind_sign(sk, blinded), inv)
    pk.verify(sig, input_msg, padding.PSS(mgf=padding.MGF1(hashes.SHA384()), salt_length=48), hashes.SHA384())
    assert br.verify(pk, input_msg, sig)
    assert not br.verify(pk, input_msg[:-1] + bytes([input_msg[-1] ^ 1]), sig)
    assert not br.verify(pk, input_msg, sig[:-1] + bytes([sig[-1] ^ 1]))
    assert not br.verify(pk, input_msg, sig[1:])
    assert not br.verify(br.generate_key(2048).public_key(), input_msg, sig)


def test_two_blindings_of_one_message_share_nothing(key):
    pk = key.public_key()
    input_msg = br.prepare(b"same")
    (b1, i1), (b2, i2) = br.blind(pk, input_msg), br.blind(pk, input_msg)
    assert b1 != b2 and i1 != i2


@BACKENDS
def test_blind_sign_rejects_out_of_range_and_wrong_size(key, openssl):
    n = key.public_key().public_numbers().n
    key = br.SigningKey(key, openssl=openssl)
    for bad in (n, n + 1, 2 ** 2048 - 1):
        with pytest.raises(br.BlindRSAError, match="out of range"):
            br.blind_sign(key, bad.to_bytes(256, "big"))
    assert len(br.blind_sign(key, (n - 1).to_bytes(256, "big"))) == 256
    for size in (0, 255, 257, 512):
        with pytest.raises(br.BlindRSAError, match="unexpected input size"):
            br.blind_sign(key, bytes(size))
    with pytest.raises(br.BlindRSAError):
        br.blind_sign(key, "not bytes")


@BACKENDS
def test_blind_sign_checks_its_own_output(key, monkeypatch, openssl):
    blinded, _ = br.blind(key.public_key(), br.prepare(b"m"))
    signing = br.SigningKey(key, openssl=openssl)
    honest = br.SigningKey.rsasp1
    monkeypatch.setattr(br.SigningKey, "rsasp1", lambda self, m: honest(self, m) + 1)  # a faulty private operation
    with pytest.raises(br.BlindRSAError, match="signing failure"):
        br.blind_sign(signing, blinded)


def test_this_machine_signs_with_openssl(key):
    # The production image and the test machines carry OpenSSL 3's libcrypto: the fast backend is the one measured.
    assert openssl_rsa.available(), "no OpenSSL 3 libcrypto found"
    assert openssl_rsa.version().startswith("OpenSSL 3")
    assert br.SigningKey(key).backend == "openssl"


@pytest.mark.parametrize("bits", [2048, 3072, 4096])
def test_openssl_and_gmp_private_operations_agree(bits, key):
    sk = key if bits == 2048 else (vector_key(PSS_DET) if bits == 4096 else br.generate_key(bits))
    fast, reference = br.SigningKey(sk), br.SigningKey(sk, openssl=False)
    n = fast.n
    for m in [0, 1, 2, n - 1, n - 2] + [secrets.randbelow(n) for _ in range(40)]:
        s = fast.rsasp1(m)
        assert s == reference.rsasp1(m) and pow(s, fast.e, n) == m  # RSA is a permutation of Z_n: s is m^d


def test_openssl_key_refuses_inputs_out_of_range_and_unreadable_keys(key):
    raw = br.SigningKey(key)._raw
    n = key.public_key().public_numbers().n
    for bad in (n.to_bytes(256, "big"), (2 ** 2048 - 1).to_bytes(256, "big"), bytes(255), bytes(257)):
        with pytest.raises(openssl_rsa.OpenSSLError):
            raw.rsasp1(bad)
    assert raw.rsasp1((n - 1).to_bytes(256, "big"))  # and it still works after a refusal (error queue cleared)
    for der in (b"", b"not a key", br.private_key_to_pem(key)):
        with pytest.raises(openssl_rsa.OpenSSLError, match="could not read"):
            openssl_rsa.RawRSAKey(der)


def test_one_openssl_key_signs_from_many_threads(key):
    from concurrent.futures import ThreadPoolExecutor

    signing = br.SigningKey(key)
    inputs = [secrets.randbelow(signing.n) for _ in range(200)]
    with ThreadPoolExecutor(8) as pool:
        outputs = list(pool.map(signing.rsasp1, inputs))
    assert [pow(s, signing.e, signing.n) for s in outputs] == inputs


def test_finalize_rejects_a_bad_blind_signature(key):
    pk = key.public_key()
    input_msg = br.prepare(b"m")
    blinded, inv = br.blind(pk, input_msg)
    other_blinded, _ = br.blind(pk, br.prepare(b"m"))
    with pytest.raises(br.BlindRSAError, match="invalid signature"):
        br.finalize(pk, input_msg, br.blind_sign(key, other_blinded), inv)
    with pytest.raises(br.BlindRSAError, match="unexpected input size"):
        br.finalize(pk, input_msg, br.blind_sign(key, blinded)[1:], inv)


def test_blind_rejects_bad_fixed_randomness(key):
    pk = key.public_key()
    with pytest.raises(br.BlindRSAError):
        br.blind(pk, b"m", salt=bytes(47))
    with pytest.raises(br.BlindRSAError, match="invalid blind"):
        br.blind(pk, b"m", inv=0)
    with pytest.raises(br.BlindRSAError):
        br.prepare(b"m", prefix=bytes(31))


def test_key_serialisations_round_trip(key):
    pk = key.public_key()
    assert br.public_key_from_pem(br.public_key_to_pem(pk)).public_numbers() == pk.public_numbers()
    spki = br.public_key_to_spki(pk)
    assert br.public_key_from_spki(spki).public_numbers() == pk.public_numbers()
    assert br.public_key_to_pem(pk).startswith("-----BEGIN PUBLIC KEY-----")
    assert br.private_key_from_pem(br.private_key_to_pem(key)).private_numbers() == key.private_numbers()
    assert len(br.key_id(pk)) == 64 and br.key_id(pk) != br.key_id(br.generate_key(2048).public_key())


def test_keys_of_other_sizes_or_exponents_are_refused():
    with pytest.raises(br.BlindRSAError):
        br.generate_key(1024)
    weak = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    with pytest.raises(br.BlindRSAError):
        br.private_key_from_pem(br.private_key_to_pem(weak))
    with pytest.raises(br.BlindRSAError):
        br.public_key_from_spki(br.public_key_to_spki(weak.public_key()))
    e3 = rsa.generate_private_key(public_exponent=3, key_size=2048)
    with pytest.raises(br.BlindRSAError):
        br.public_key_from_pem(br.public_key_to_pem(e3.public_key()))
    for junk in ("", "AAAA", "not a key"):
        with pytest.raises(br.BlindRSAError):
            br.public_key_from_spki(junk)


@pytest.mark.parametrize("text", ["a", "ab=", "a+b/", "ab cd", "AB\n", "é", "AB", "AAB"])
def test_b64url_decode_is_strict(text):
    # wrong length, padding, the standard alphabet, blanks, non-ASCII; "AB" and "AAB" have non-zero trailing bits
    with pytest.raises(br.BlindRSAError):
        br.b64url_decode(text)


def test_b64url_round_trips():
    for n in range(0, 70):
        data = secrets.token_bytes(n)
        assert br.b64url_decode(br.b64url_encode(data)) == data
    assert br.b64url_decode("AA") == b"\x00" and br.b64url_decode("_-8") == b"\xff\xef"

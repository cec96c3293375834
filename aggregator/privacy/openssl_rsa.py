"""RSASP1 (RFC 8017 §5.2.1) by the system's OpenSSL 3 libcrypto, reached through ``ctypes``: the blind signature's
private-key operation, cheaper than GMP's (docs/benchmarks.md).

``cryptography`` offers no raw RSA operation, so ``blind_rsa`` would otherwise exponentiate itself (``gmpy2``). This
module asks OpenSSL for exactly that operation: ``EVP_PKEY_decrypt`` with ``RSA_NO_PADDING`` is m^d mod n, computed
with the CRT, OpenSSL's random base blinding (RFC 9474 §7.1: the timing does not follow m) and its own check of the
CRT result against the public exponent. ``blind_rsa.blind_sign`` still verifies every signature before returning it.

``available()`` is False where no OpenSSL 3 libcrypto can be loaded (``blind_rsa`` then keeps to ``gmpy2``).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import threading

__all__ = ["OpenSSLError", "RawRSAKey", "available", "version"]

RSA_NO_PADDING = 3  # openssl/rsa.h
OPENSSL_3 = 0x30000000  # OpenSSL_version_num() of 3.0.0: EVP_PKEY_CTX_set_rsa_padding is a function from 3.0 on


class OpenSSLError(RuntimeError):
    """An OpenSSL call failed (its error queue is cleared)."""


_lock = threading.Lock()
_loaded = False
_lib: ctypes.CDLL | None = None


def _bind(lib: ctypes.CDLL) -> None:
    p = ctypes.c_void_p
    signatures = {
        "OpenSSL_version_num": ([], ctypes.c_ulong),
        "OpenSSL_version": ([ctypes.c_int], ctypes.c_char_p),
        "d2i_AutoPrivateKey": ([p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_long], p),
        "EVP_PKEY_free": ([p], None),
        "EVP_PKEY_CTX_new": ([p, p], p),
        "EVP_PKEY_CTX_free": ([p], None),
        "EVP_PKEY_decrypt_init": ([p], ctypes.c_int),
        "EVP_PKEY_CTX_set_rsa_padding": ([p, ctypes.c_int], ctypes.c_int),
        "EVP_PKEY_decrypt": ([p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t), ctypes.c_char_p, ctypes.c_size_t],
                             ctypes.c_int),
        "EVP_PKEY_get_size": ([p], ctypes.c_int),
        "ERR_clear_error": ([], None),
    }
    for name, (argtypes, restype) in signatures.items():
        function = getattr(lib, name)  # AttributeError: not this libcrypto
        function.argtypes, function.restype = argtypes, restype


def _library() -> ctypes.CDLL | None:
    """The process's libcrypto when it is OpenSSL 3 or later, else None (looked up once)."""
    global _loaded, _lib
    if not _loaded:
        with _lock:
            if not _loaded:
                try:
                    name = ctypes.util.find_library("crypto")
                    lib = ctypes.CDLL(name) if name else None
                    if lib is not None:
                        _bind(lib)
                        if lib.OpenSSL_version_num() < OPENSSL_3:
                            lib = None
                except (OSError, AttributeError):
                    lib = None
                _lib, _loaded = lib, True
    return _lib


def available() -> bool:
    return _library() is not None


def version() -> str | None:
    """OpenSSL's version line (``OpenSSL 3.0.19 27 Jan 2026``), or None."""
    lib = _library()
    return lib.OpenSSL_version(0).decode() if lib is not None else None


class RawRSAKey:
    """An RSA private key held by OpenSSL (from PKCS#8 DER), for ``rsasp1``. Safe to share between threads: each
    call has its own operation context; the key is only read."""

    def __init__(self, pkcs8_der: bytes):
        lib = _library()
        if lib is None:
            raise OpenSSLError("no OpenSSL 3 libcrypto")
        self._lib = lib
        cursor = ctypes.c_char_p(pkcs8_der)
        self._pkey = lib.d2i_AutoPrivateKey(None, ctypes.byref(cursor), len(pkcs8_der))
        if not self._pkey:
            lib.ERR_clear_error()
            raise OpenSSLError("OpenSSL could not read the private key")
        self.size = lib.EVP_PKEY_get_size(self._pkey)  # kLen, bytes

    def rsasp1(self, m: bytes) -> bytes:
        """s = m^d mod n, as ``self.size`` bytes; ``m`` must be ``self.size`` bytes and below n (OpenSSL refuses
        anything else: ``OpenSSLError``)."""
        lib = self._lib
        if len(m) != self.size:
            raise OpenSSLError("input is not kLen bytes")
        ctx = lib.EVP_PKEY_CTX_new(self._pkey, None)
        if not ctx:
            lib.ERR_clear_error()
            raise OpenSSLError("EVP_PKEY_CTX_new failed")
        try:
            out = ctypes.create_string_buffer(self.size)
            length = ctypes.c_size_t(self.size)
            if (lib.EVP_PKEY_decrypt_init(ctx) != 1 or lib.EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING) <= 0
                    or lib.EVP_PKEY_decrypt(ctx, out, ctypes.byref(length), bytes(m), len(m)) != 1
                    or length.value != self.size):
                lib.ERR_clear_error()
                raise OpenSSLError("OpenSSL's RSA private operation failed")
            return out.raw
        finally:
            lib.EVP_PKEY_CTX_free(ctx)

    def __del__(self):
        pkey, self._pkey = getattr(self, "_pkey", None), None
        if pkey:
            self._lib.EVP_PKEY_free(pkey)

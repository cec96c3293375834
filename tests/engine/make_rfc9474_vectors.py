"""Build tests/engine/rfc9474_vectors.json from Debian's golang-github-cloudflare-circl-dev package, and nothing else.

    python -m tests.engine.make_rfc9474_vectors golang-github-cloudflare-circl-dev_1.3.1-2_all.deb
    python -m tests.engine.make_rfc9474_vectors .../blindsign/blindrsa/testdata/test_vectors.json

(``apt-get download golang-github-cloudflare-circl-dev`` fetches the package.) The package's JSON is checked against
its pinned SHA-256 (so both inputs give the same output) and copied value for value (hex strings unchanged); we only
add a name and description per vector and the provenance. Its entries:

0. RFC 9474 Appendix A's RSABSSA-SHA384-PSS-Deterministic vector (4096-bit key, 48-byte salt, identity preparation):
   same key, msg, salt, inv, blinded_msg, blind_sig and sig as the RFC.
1. circl's own vector "Test vector with deterministic padding" (2048-bit key, empty salt, identity preparation), i.e.
   the RSABSSA-SHA384-PSSZERO-Deterministic variant of RFC 9474 §5; not in the RFC.

There is no vector of our variant, RSABSSA-SHA384-PSS-Randomized: the package predates the final RFC. It differs from
entry 0 only by the 32-byte random prefix of PrepareRandomize (RFC 9474 §4.1); tests/engine/test_blind_rsa.py and
tests/js/ cover it against ``cryptography`` and the vendored JS library instead.
"""
from __future__ import annotations

import hashlib
import io
import json
import lzma
import sys
import tarfile
from pathlib import Path

OUT = Path(__file__).resolve().parent / "rfc9474_vectors.json"
PACKAGE = "golang-github-cloudflare-circl-dev"
VERSION = "1.3.1-2"
MEMBER = "usr/share/gocode/src/github.com/cloudflare/circl/blindsign/blindrsa/testdata/test_vectors.json"
MEMBER_SHA256 = "c83c68e5ce1d27db40eff38dff04b0a2d67eb61d2a296c20697c0d148a2b8bd9"
FIELDS = ("p", "q", "n", "e", "d", "msg", "salt", "inv", "encoded_msg", "blinded_msg", "blind_sig", "sig")
DESCRIPTIONS = [
    "RFC 9474 Appendix A, the RSABSSA-SHA384-PSS-Deterministic test vector (identical values)",
    "circl's own vector (msg = 'Test vector with deterministic padding', salt length 0): the "
    "RSABSSA-SHA384-PSSZERO-Deterministic variant of RFC 9474 §5 with a 2048-bit key; not in RFC 9474",
]


def _ar_members(data: bytes) -> dict[str, bytes]:
    """Members of a Debian package, a common ``ar`` archive (deb(5))."""
    if not data.startswith(b"!<arch>\n"):
        raise SystemExit("not a .deb (ar) archive")
    members, pos = {}, 8
    while pos + 60 <= len(data):
        header = data[pos:pos + 60]
        name, size = header[:16].decode().strip().rstrip("/"), int(header[48:58])
        members[name] = data[pos + 60:pos + 60 + size]
        pos += 60 + size + (size & 1)
    return members


def _tar_file(blob: bytes, name: str) -> bytes:
    with tarfile.open(fileobj=io.BytesIO(lzma.decompress(blob))) as tar:
        for info in tar.getmembers():
            if info.name.lstrip("./") == name:
                return tar.extractfile(info).read()
    raise SystemExit(f"{name} is not in the package")


def read_package(path: Path) -> tuple[bytes, dict]:
    """The package's test_vectors.json and a provenance record; ``path`` is the .deb or the JSON extracted from it."""
    raw = path.read_bytes()
    provenance = {"package": PACKAGE, "version": VERSION, "distribution": "Debian",
                  "path_in_package": "/" + MEMBER, "upstream": "https://github.com/cloudflare/circl (BSD-3-Clause)"}
    if path.suffix == ".deb":
        members = _ar_members(raw)
        control = _tar_file(members["control.tar.xz"], "control").decode()
        fields = dict(line.split(": ", 1) for line in control.splitlines() if ": " in line and not line[0].isspace())
        if (fields.get("Package"), fields.get("Version")) != (PACKAGE, VERSION):
            raise SystemExit(f"expected {PACKAGE} {VERSION}, got {fields.get('Package')} {fields.get('Version')}")
        raw = _tar_file(members["data.tar.xz"], MEMBER)
    if hashlib.sha256(raw).hexdigest() != MEMBER_SHA256:
        raise SystemExit(f"this is not {MEMBER} of {PACKAGE} {VERSION} (SHA-256 differs)")
    provenance["sha256"] = MEMBER_SHA256
    return raw, provenance


def build(path: Path) -> dict:
    raw, provenance = read_package(path)
    entries = json.loads(raw)
    if len(entries) != len(DESCRIPTIONS) or any(sorted(e) != sorted(FIELDS) for e in entries):
        raise SystemExit("unexpected layout of the package's test_vectors.json")
    vectors = []
    for index, (entry, description) in enumerate(zip(entries, DESCRIPTIONS, strict=True)):
        pss = {48: "PSS", 0: "PSSZERO"}[len(entry["salt"]) // 2]  # RFC 9474 §5: salt length 48 or 0
        vectors.append({"name": f"RSABSSA-SHA384-{pss}-Deterministic", "index_in_package": index,
                        "description": description, **{k: entry[k] for k in FIELDS}})
    return {
        "source": provenance,
        "note": "Values copied unchanged from the package's JSON (hex, big-endian); only name, index_in_package and "
                "description are added. Both vectors use identity preparation (PrepareIdentity, RFC 9474 §4.1): "
                "input_msg = msg. Built by `python -m tests.engine.make_rfc9474_vectors PATH_TO_DEB_OR_JSON`.",
        "vectors": vectors,
    }


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        raise SystemExit(__doc__)
    OUT.write_text(json.dumps(build(Path(argv[0])), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(sys.argv[1:])

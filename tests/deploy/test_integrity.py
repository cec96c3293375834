"""survey_app.integrity: the randomizer's module graph, its Subresource Integrity values, the import map, the CSP hash
of that import map and the randomizer hash — checked against independent computations (the ``sha256sum`` tool,
hashlib over the files on disk) in development and with production's manifest storage."""
import base64
import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.management import call_command

from survey_app import integrity

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "static" / "js"


def expected_modules() -> set[str]:
    """Every module of the randomizer: static/js, static/js/oracles, static/js/approaches, static/js/credentials and
    static/js/locale (the message catalogues; static/js/dashboard is the dashboard's), and every module of the
    vendored blind-signature library the credentials import (issue 11) and of the HPKE and Binary HTTP libraries of
    static/js/ohttp.mjs."""
    static = ROOT / "static"
    vendored = [p for name in ("blindrsa-ts", "hpke-core", "hpke-common", "bhttp-js")
                for p in (static / "vendor" / name).rglob("*.js")]
    return {str(p.relative_to(static)) for p in [*JS.glob("*.mjs"), *JS.glob("oracles/*.mjs"),
                                                 *JS.glob("approaches/*.mjs"), *JS.glob("credentials/*.mjs"),
                                                 *JS.glob("locale/*.mjs"), *vendored]}


def sri(data: bytes) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode()


def test_imports_are_found_in_every_form_a_module_uses():
    source = '''import { a } from "./a.mjs";
import * as b from '../b.mjs';
import {
  c,
  d,
} from "./sub/c.mjs";
export { e } from "./e.mjs";
import "./side.mjs";
// a comment: import { f } from "./not-an-import.mjs"
const s = "import nothing";
'''
    assert integrity.imports_of("js/x/m.mjs", source) == [
        "js/x/a.mjs", "js/b.mjs", "js/x/sub/c.mjs", "js/x/e.mjs", "js/x/side.mjs"]
    with pytest.raises(ValueError, match="only relative"):
        integrity.imports_of("js/m.mjs", 'import x from "https://cdn.example/x.mjs";')


def test_the_graph_is_every_randomizer_module_and_hashes_match_the_files():
    code = integrity.build()
    assert {m.name for m in code.modules} == expected_modules()
    assert [m.name for m in code.modules] == sorted(m.name for m in code.modules)
    assert code.entry.name == "js/survey.mjs"
    for module in code.modules:
        data = (ROOT / "static" / module.name).read_bytes()
        assert module.integrity == sri(data)
        assert module.url == "/static/" + module.name  # development: unhashed names from the finders


@pytest.mark.skipif(not shutil.which("sha256sum"), reason="coreutils' sha256sum not installed")
def test_randomizer_hash_is_what_sha256sum_prints_for_the_modules():
    """The procedure of docs/verify-randomizer.md, with coreutils instead of our code."""
    code = integrity.build()
    names = sorted(m.name for m in code.modules)
    manifest = subprocess.run(["sha256sum", *names], cwd=ROOT / "static", capture_output=True, text=True, check=True)
    assert manifest.stdout == code.manifest
    assert code.sha256 == hashlib.sha256(manifest.stdout.encode()).hexdigest()
    assert "".join(code.sha256_parts) == code.sha256 and len(code.sha256_parts) == 8


def test_documented_module_list_is_the_current_one():
    """docs/verify-randomizer.md lists the modules to hash from a source checkout: it must be the graph."""
    doc = (ROOT / "docs" / "verify-randomizer.md").read_text()
    block = re.search(r"LC_ALL=C sort <<'EOF'.*?\n(.*?)\nEOF", doc, re.S).group(1)
    assert set(block.split()) == {m.name for m in integrity.build().modules}


def test_import_map_pins_every_module_and_its_csp_hash_is_its_text():
    code = integrity.build()
    import_map = json.loads(code.import_map)
    assert import_map == {"integrity": {m.url: m.integrity for m in code.modules}}  # development: no remapping
    digest = hashlib.sha256(code.import_map.encode()).digest()
    assert code.import_map_csp_source == f"'sha256-{base64.b64encode(digest).decode()}'"
    assert "</" not in code.import_map


def test_cached_until_a_module_changes(settings, tmp_path):
    """The computation is cached; editing a module (development) makes the next call recompute."""
    static = tmp_path / "static"
    shutil.copytree(ROOT / "static" / "js", static / "js", ignore=shutil.ignore_patterns("dashboard"))
    for name in ("blindrsa-ts", "hpke-core", "hpke-common", "bhttp-js"):
        shutil.copytree(ROOT / "static" / "vendor" / name, static / "vendor" / name)
    settings.STATICFILES_DIRS = [static]
    integrity._cached = None
    try:
        first = integrity.randomizer()
        assert integrity.randomizer() is first
        noise = static / "js" / "noise.mjs"
        noise.write_text(noise.read_text() + "\n// edited\n")
        second = integrity.randomizer()
        assert second is not first and second.sha256 != first.sha256
        changed = {m.name for m in second.modules if m.digest != {n.name: n.digest for n in first.modules}[m.name]}
        assert changed == {"js/noise.mjs"}
    finally:
        integrity._cached = None


def test_production_manifest_storage_hashes_the_served_files(settings, tmp_path):
    """With whitenoise's CompressedManifestStaticFilesStorage (production), the modules are served under hashed names:
    the integrity values are those of the collected files, relative imports are remapped to them by the import map,
    and the randomizer hash is still the one of the source files (collecting changes names, not content)."""
    development = integrity.build()
    settings.STATIC_ROOT = tmp_path / "collected"
    settings.STORAGES = {**settings.STORAGES,
                         "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}}
    # (Django's setting_changed receivers reset the storage and the finders on each override.)
    call_command("collectstatic", interactive=False, verbosity=0)
    code = integrity.build()
    import_map = json.loads(code.import_map)
    for module in code.modules:
        stem, extension = module.name.rsplit(".", 1)
        assert re.fullmatch(r"/static/" + re.escape(stem) + r"\.[0-9a-f]{12}\." + extension, module.url)
        served = settings.STATIC_ROOT / module.url.removeprefix("/static/")
        assert module.integrity == sri(served.read_bytes())
        assert import_map["imports"]["/static/" + module.name] == module.url
        assert import_map["integrity"][module.url] == module.integrity
    assert code.sha256 == development.sha256
    assert staticfiles_storage.url("js/survey.mjs") == code.entry.url

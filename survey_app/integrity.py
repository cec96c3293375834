"""Subresource Integrity for the browser randomizer, and the one hash that names its code.

The survey page (templates/survey/respond.html) loads ``static/js/survey.mjs``, which imports the other ES modules of
``static/js/``; together they are the code that randomizes a respondent's answers before anything leaves the browser.
This module finds that module graph (following the static ``import … from "…"`` statements from the entry), reads
every module **as it is served** — the collected, content-hashed copy under ``STATIC_ROOT`` in production (whitenoise's
manifest storage), the source file found by the staticfiles finders otherwise — and derives:

- each module's SHA-256, as a Subresource Integrity value (``sha256-<base64>``) and in hexadecimal;
- an import map (``<script type="importmap">``) whose ``"integrity"`` section makes the browser check every module
  it loads against that value and refuse any other code, and whose ``"imports"`` section sends the modules' relative
  imports (``./protocol.mjs``) to the hashed file names of production;
- the CSP source (``'sha256-…'``) that allows exactly that inline import map, and no other inline script;
- **the randomizer hash**: the SHA-256 of the manifest that ``sha256sum`` prints for the modules, one line
  ``"<hex>  <name>\\n"`` per module (``name`` relative to the static root, e.g. ``js/survey.mjs``), sorted by name.
  Collecting static files never changes a module's content (only its file name), so the hash computed from a source
  checkout equals the one the page shows: docs/verify-randomizer.md gives the procedure.

The result is cached and recomputed only when a module's file changes (its size or modification time), so a
development server follows edits and production reads the files once.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import posixpath
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage

ENTRY = "js/survey.mjs"

# Static imports and re-exports: `import x from "…"`, `import {a, b} from "…"` (over several lines too),
# `import * as m from "…"`, `export … from "…"`, and side-effect imports `import "…"`. Between the keyword and `from`
# only names, braces, commas and `*` (so an `export class …` followed by a doc comment's example import is no import).
IMPORT = re.compile(r"""^\s*(?:import|export)\b[\w\s{},*$]*?\bfrom\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']""",
                    re.MULTILINE)


def groups_of_8(hex_digest: str) -> list[str]:
    """A hexadecimal hash in groups of 8 digits: the page lets a long line break between them (``<wbr>``), and a copy
    of the text is still the plain hash."""
    return [hex_digest[i:i + 8] for i in range(0, len(hex_digest), 8)]


@dataclass(frozen=True)
class Module:
    """One ES module of the randomizer: its static name, the URL it is served at and its SHA-256."""

    name: str
    url: str
    digest: bytes

    @property
    def sha256(self) -> str:
        return self.digest.hex()

    @property
    def integrity(self) -> str:
        """The Subresource Integrity metadata of the served file."""
        return "sha256-" + base64.b64encode(self.digest).decode("ascii")

    @property
    def sha256_parts(self) -> list[str]:
        return groups_of_8(self.sha256)


@dataclass(frozen=True)
class Randomizer:
    """The randomizer's modules (sorted by name) and what the survey page needs to load them integrity-checked."""

    entry: Module
    modules: tuple[Module, ...]
    import_map: str
    stamp: tuple = ()

    @property
    def manifest(self) -> str:
        """What ``sha256sum`` prints for the modules, in name order."""
        return "".join(f"{module.sha256}  {module.name}\n" for module in self.modules)

    @property
    def sha256(self) -> str:
        """The randomizer hash: SHA-256 (hex) of the manifest."""
        return hashlib.sha256(self.manifest.encode("utf-8")).hexdigest()

    @property
    def sha256_parts(self) -> list[str]:
        return groups_of_8(self.sha256)

    @property
    def import_map_csp_source(self) -> str:
        """The CSP ``script-src`` source that allows the inline import map (its exact text) and nothing else."""
        digest = hashlib.sha256(self.import_map.encode("utf-8")).digest()
        return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def imports_of(name: str, source: str) -> list[str]:
    """The static names of the relative modules that ``source`` (the module ``name``) imports."""
    found = []
    for match in IMPORT.finditer(source):
        specifier = match.group(1) or match.group(2)
        if not specifier.startswith(("./", "../")):
            raise ValueError(f"{name} imports {specifier!r}: the randomizer imports only relative modules")
        found.append(posixpath.normpath(posixpath.join(posixpath.dirname(name), specifier)))
    return found


def served_path(name: str) -> Path:
    """The file served for the static ``name``: the hashed copy of the manifest storage in production (what
    whitenoise serves from ``STATIC_ROOT``), the source file found by the staticfiles finders otherwise."""
    storage = staticfiles_storage
    if hasattr(storage, "stored_name"):  # ManifestStaticFilesStorage and whitenoise's subclasses
        return Path(storage.path(storage.stored_name(name)))
    found = finders.find(name)
    if not found:
        raise FileNotFoundError(f"static file {name} not found")
    return Path(found)


def _stamp(paths) -> tuple:
    """What changes when a served file changes: its path, size and modification time."""
    stamp = []
    for path in paths:
        info = os.stat(path)
        stamp.append((str(path), info.st_size, info.st_mtime_ns))
    return tuple(stamp)


def build(entry: str = ENTRY) -> Randomizer:
    """Read the module graph from ``entry`` as served and compute every hash (uncached)."""
    modules: dict[str, Module] = {}
    paths = []
    pending = [entry]
    while pending:
        name = pending.pop()
        if name in modules:
            continue
        path = served_path(name)
        data = path.read_bytes()
        paths.append(path)
        modules[name] = Module(name=name, url=staticfiles_storage.url(name), digest=hashlib.sha256(data).digest())
        pending.extend(imports_of(name, data.decode("utf-8")))
    ordered = tuple(modules[name] for name in sorted(modules))
    # A relative import resolves to the module's unhashed URL (STATIC_URL + name); production serves hashed names.
    logical = {module.name: staticfiles_storage.base_url + module.name for module in ordered}
    import_map = {
        "imports": {logical[m.name]: m.url for m in ordered if logical[m.name] != m.url},
        "integrity": {m.url: m.integrity for m in ordered},
    }
    if not import_map["imports"]:
        del import_map["imports"]
    text = json.dumps(import_map, separators=(",", ":"), sort_keys=True)
    return Randomizer(entry=modules[entry], modules=ordered, import_map=text, stamp=_stamp(paths))


_lock = threading.Lock()
_cached: Randomizer | None = None


def randomizer() -> Randomizer:
    """The randomizer as served now, cached until one of its files changes."""
    global _cached
    cached = _cached
    try:
        if cached is not None and _stamp(Path(p) for p, _, _ in cached.stamp) == cached.stamp:
            return cached
    except OSError:  # a file went away: rebuild
        pass
    with _lock:
        _cached = build()
        return _cached

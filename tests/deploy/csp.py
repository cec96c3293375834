"""What a page may hold under the Content-Security-Policy: shared by the CSP tests (client and browser)."""
from __future__ import annotations

import base64
import hashlib
from html.parser import HTMLParser

# <script> types the browser runs (or, for import maps and speculation rules, reads as code-like) and CSP governs;
# any other type (application/json, as json_script writes) is an inert data block.
EXECUTABLE = {"", "text/javascript", "application/javascript", "module", "importmap", "speculationrules"}
UNSAFE = ("'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'", "*", "http:", "https:", "data:")


def directives(header: str) -> dict[str, list[str]]:
    """A Content-Security-Policy header as {directive: [sources]}."""
    parsed = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            parsed[words[0]] = words[1:]
    return parsed


def source_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


class InlineContent(HTMLParser):
    """Collects what a CSP without 'unsafe-inline' must account for: inline <script> and <style> elements (with
    their exact text, to compare with the policy's hashes), event-handler and style attributes, javascript: URLs."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.scripts: list[tuple[str, str]] = []  # (type, text) of <script> elements without src
        self.styles: list[str] = []
        self.attributes: list[str] = []
        self._open: tuple[str, str] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        for name, value in attrs:
            if name.startswith("on") or name == "style":
                self.attributes.append(f"<{tag} {name}={value!r}>")
            url = (value or "").strip().lower()
            if name in ("href", "src", "action", "formaction") and url.startswith("javascript:"):
                self.attributes.append(f"<{tag} {name}={value!r}>")
        if tag == "script" and "src" not in values and (values.get("type") or "").strip().lower() in EXECUTABLE:
            self._open, self._text = ("script", values.get("type") or ""), []
        elif tag == "style":
            self._open, self._text = ("style", ""), []

    def handle_data(self, data):
        if self._open:
            self._text.append(data)

    def handle_endtag(self, tag):
        if self._open and tag == self._open[0]:
            text = "".join(self._text)
            if tag == "script":
                self.scripts.append((self._open[1], text))
            else:
                self.styles.append(text)
            self._open = None


def violations(html: str, header: str) -> list[str]:
    """Everything in ``html`` that the policy ``header`` would block, and any unsafe source in the policy."""
    policy = directives(header)
    problems = [f"{name} allows {source}" for name, sources in policy.items() if name.endswith("-src")
                for source in sources if source in UNSAFE and not (name == "img-src" and source == "data:")]
    page = InlineContent()
    page.feed(html)
    scripts = policy.get("script-src", policy.get("default-src", []))
    styles = policy.get("style-src", policy.get("default-src", []))
    for kind, text in page.scripts:
        if source_hash(text) not in scripts:
            problems.append(f"inline <script type={kind!r}> not allowed by a hash: {text[:80]!r}")
    for text in page.styles:
        if source_hash(text) not in styles:
            problems.append(f"inline <style> not allowed by a hash: {text[:80]!r}")
    problems += [f"inline attribute {a}" for a in page.attributes]
    return problems

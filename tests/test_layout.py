"""The test tree's layout: no module imports a test module (``test_*.py``). Shared surveys and reports come from
tests/factories.py, other shared helpers from modules that are not test modules (issue 10)."""
import ast
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def imported_modules(source: str, package: str) -> set[str]:
    """Every module a source imports, as dotted names (relative imports resolved against ``package``); for
    ``from p import a`` both ``p`` and ``p.a`` are listed, since ``a`` may be a module."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            base = ".".join(parts[:len(parts) - node.level + 1] if node.level else [])
            module = ".".join(p for p in (base, node.module or "") if p)
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def imported_test_modules(source: str, package: str) -> set[str]:
    """The test modules (last component ``test_*``) among a source's imports."""
    return {name for name in imported_modules(source, package) if name.rsplit(".", 1)[-1].startswith("test_")}


@pytest.mark.parametrize("source, found", [
    ("from tests.survey.test_api import make_survey", {"tests.survey.test_api"}),
    ("from .test_shard_services import stored", {"tests.integration.test_shard_services"}),
    ("from . import test_worker", {"tests.integration.test_worker"}),
    ("from ..survey import test_api", {"tests.survey.test_api"}),
    ("import tests.engine.test_oracles as t", {"tests.engine.test_oracles"}),
    ("def f():\n    from tests.survey.test_api import simulated_reports", {"tests.survey.test_api"}),
    ("from tests.factories import make_survey\nfrom .helpers import stored\nimport pytest", set()),
])
def test_the_check_sees_every_form_of_import(source, found):
    assert imported_test_modules(source, "tests.integration") == found


def test_no_test_module_imports_another_test_module():
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        package = ".".join(path.relative_to(TESTS.parent).parent.parts)
        for name in sorted(imported_test_modules(path.read_text(encoding="utf-8"), package)):
            offenders.append(f"{path.relative_to(TESTS.parent)} imports {name}")
    assert offenders == [], "move what is shared to tests/factories.py or a helper module:\n" + "\n".join(offenders)


# -- no history in product code ----------------------------------------------------------------------------------------
ROOT = TESTS.parent
#: The product's own modules: Python of the project and the app packages, the browser's ES modules (migrations are
#: history and may keep it).
PRODUCT = ("coinflip", "survey_app", "aggregator", "static/js")
ISSUE_NUMBER = re.compile(r"\b[Ii]ssues? *#? *\d+|(?<![\w&])#\d+ item\b")


def product_modules() -> list[Path]:
    """Every product module: ``*.py`` and ``*.mjs`` under ``PRODUCT``, migrations and node_modules excluded."""
    return sorted(path for top in PRODUCT for suffix in ("*.py", "*.mjs") for path in (ROOT / top).rglob(suffix)
                  if not {"migrations", "node_modules"} & set(path.relative_to(ROOT).parts))


def issue_numbers(source: str) -> list[tuple[int, str]]:
    """(line number, line) of every line of ``source`` that mentions an issue number."""
    return [(number, line.strip()) for number, line in enumerate(source.splitlines(), 1) if ISSUE_NUMBER.search(line)]


@pytest.mark.parametrize("line, found", [
    ("# the default since issue 13", True),
    ('"""Unlinkable invitations (Issue 11 item 4; RFC 9474)."""', True),
    ("// as asked in issues 5 and 6", True),
    ("# see issue #12", True),
    ("# the tissue 5 grams", False),
    ("# every issue of the survey", False),
    ("color: #123456;", False),
])
def test_the_issue_check_sees_every_form(line, found):
    assert bool(issue_numbers(line)) is found


def test_no_product_module_mentions_an_issue_number():
    """Issue numbers go stale in code: they belong in docs/ and commit messages (BRIEF: Standards)."""
    modules = product_modules()
    assert len(modules) > 100 and any(path.suffix == ".mjs" for path in modules)
    found = [f"{path.relative_to(ROOT)}:{number}: {line}" for path in modules
             for number, line in issue_numbers(path.read_text(encoding="utf-8"))]
    assert not found, "issue numbers in product code:\n" + "\n".join(found)

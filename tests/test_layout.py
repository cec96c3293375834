"""The test tree's layout: no module imports a test module (``test_*.py``). Shared surveys and reports come from
tests/factories.py, other shared helpers from modules that are not test modules (issue 10)."""
import ast
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

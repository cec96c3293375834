"""The engine (aggregator/privacy) must not depend on Django, nor on pandas (numpy and scipy only)."""
import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "aggregator" / "privacy"
FORBIDDEN = {"django", "rest_framework", "celery", "pandas"}


def _imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_no_engine_module_imports_a_framework():
    offenders = {
        str(path.relative_to(ENGINE)): sorted(_imported_roots(path) & FORBIDDEN)
        for path in ENGINE.rglob("*.py")
        if _imported_roots(path) & FORBIDDEN
    }
    assert offenders == {}


def test_importing_every_engine_module_loads_no_framework():
    modules = [
        "aggregator.privacy." + ".".join(p.relative_to(ENGINE).with_suffix("").parts)
        for p in sorted(ENGINE.rglob("*.py"))
    ]
    modules = [m.removesuffix(".__init__") for m in modules]
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        f"bad = sorted(r for r in {sorted(FORBIDDEN)!r} if r in sys.modules)\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ENGINE.parents[1], env={"PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == ""

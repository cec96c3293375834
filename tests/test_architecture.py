"""The import graph of the product (``coinflip``, ``survey_app``, ``aggregator``), read with ``ast`` — every import
statement, those inside functions included (a late import is still a dependency), those under ``TYPE_CHECKING``
left out:

* no cycle between modules;
* survey_app depends on the aggregator only through the engine (``aggregator.privacy``, framework-free) and the
  aggregator's selectors (``aggregator.selectors``, exactly ``SELECTORS``);
* the aggregator never touches survey_app's report, inbox, credential, token or key tables: it imports none of
  those models, names none of those tables in SQL, and asks survey_app only through ``SURVEY_APP_CONTRACT``.
"""
import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("coinflip", "survey_app", "aggregator")

#: What the aggregator may read of its own tables for survey_app (aggregator/selectors.py).
SELECTORS = {"validation_version_number", "validation_version_metrics", "version_exists", "planned_accuracy"}

#: survey_app's tables that belong to the report path: the aggregator reaches them only through survey_app.inbox.
REPORT_TABLE_MODELS = {"PendingReport", "Report", "SpentCredential", "InvitationToken", "SurveyKey"}

#: survey_app module → the names the aggregator may import from it (``None``: any public name).
SURVEY_APP_CONTRACT = {
    "survey_app": {"inbox"},
    "survey_app.inbox": None,                 # the drain's service and the inbox's selectors
    "survey_app.models": {"Survey", "Question", "Choice", "PREFER_NOT_TO_SAY", "NOT_ASKED", "feature_labels",
                          "feature_texts", "settings_config", "skip_rules"},
    "survey_app.protocol": {"get_protocol"},
    "survey_app.reports": {"todays_assignment", "utc_midnight"},
    "survey_app.permissions": {"can_manage", "surveys_for"},
    "survey_app.services": {"create_survey_from_table", "open_survey"},
    "survey_app.tables": None,                # reading CSV tables (framework-free)
    "survey_app.credentials": {"start_credential", "finish_credential"},  # the client half (simulations)
    "survey_app.tasks": {"deliver_webhook"},  # a published version's webhook
    # The report API's HTTP helpers, shared by the model API.
    "survey_app.api": {"BoundedJSONParser", "ErrorSchema", "FieldErrors", "SlugParameter", "public_survey"},
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _product_files() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" not in path.parts:
                out[_module_name(path)] = path
    return out


MODULES = _product_files()


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(module: str, path: Path) -> list[tuple[str, str | None, int]]:
    """(imported module, imported name or None, line) of every runtime import statement of ``module``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            skipped.update(id(child) for stmt in node.body for child in ast.walk(stmt))
    out = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            out += [(alias.name, None, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out += [(target, alias.name, node.lineno) for alias in node.names]
    return out


def _edges() -> dict[str, set[str]]:
    """Module → the product modules it imports (``from p import m`` counts as importing the module ``p.m``)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in MODULES.items():
        for target, name, _ in _imports(module, path):
            if name is not None and f"{target}.{name}" in MODULES:
                target = f"{target}.{name}"
            if target in MODULES and target != module:
                graph[module].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10000))
    try:
        for v in sorted(MODULES):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return out


def test_the_graph_reader_sees_a_cycle():
    """Control: a two-module circle and a three-module one are found, an acyclic chain is not."""
    global MODULES
    saved = MODULES
    MODULES = {m: Path() for m in ("a", "b", "c", "d", "e")}
    try:
        assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c"}}) == [["a", "b"], ["c", "d", "e"]]
        assert _cycles({"a": {"b"}, "b": {"c"}}) == []
    finally:
        MODULES = saved


def test_no_import_cycle_between_product_modules():
    assert _cycles(_edges()) == []


def test_no_alias_module_of_the_engine_protocol():
    assert "aggregator.privacy.survey_protocol" not in MODULES


def _cross(source: str, target: str):
    for module, path in sorted(MODULES.items()):
        if module.split(".")[0] != source:
            continue
        for imported, name, line in _imports(module, path):
            if imported.split(".")[0] == target:
                yield module, imported, name, line


def test_survey_app_asks_the_aggregator_only_through_the_engine_and_its_selectors():
    offending = [(m, i, n, line) for m, i, n, line in _cross("survey_app", "aggregator")
                 if not (i == "aggregator.privacy" or i.startswith("aggregator.privacy.")
                         or i == "aggregator.selectors" or (i == "aggregator" and n in ("privacy", "selectors")))]
    assert offending == []
    tree = ast.parse((ROOT / "aggregator" / "selectors.py").read_text())
    public = {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}
    assert public == SELECTORS


def test_the_aggregator_asks_survey_app_only_through_its_services_and_selectors():
    offending = []
    for module, imported, name, line in _cross("aggregator", "survey_app"):
        allowed = SURVEY_APP_CONTRACT.get(imported, set())
        if name is None or (allowed is not None and name not in allowed) or name in REPORT_TABLE_MODELS:
            offending.append(f"{module}:{line} from {imported} import {name}")
    assert offending == []


@pytest.mark.parametrize("table", sorted(f"survey_app_{m.lower()}" for m in REPORT_TABLE_MODELS))
def test_no_aggregator_module_names_a_survey_app_report_table(table):
    for module, path in MODULES.items():
        if module.startswith("aggregator"):
            strings = [n.value for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Constant)
                       and isinstance(n.value, str)]
            assert not [s for s in strings if table in s], module


def test_the_products_csv_import_is_free_of_the_lab():
    lab = [(m, i, line) for m, i, _, line in _cross("survey_app", "aggregator") if i.startswith("aggregator.lab")]
    assert lab == []

"""The request path as folders: each module imports only its own package and the ones ranked below it
(server/README.md lists the ranks), and no import cycle exists anywhere — imports inside functions
and under TYPE_CHECKING count too, since a type-only cycle is still a tangle for the reader."""

from __future__ import annotations

import ast
import tokenize
from pathlib import Path

import server

ROOT = Path(server.__file__).resolve().parent

# Lower imports nothing higher. Equal ranks do not import each other (a package and itself excepted).
RANKS = {
    "server": 0,
    "server.errors": 0,
    "server.router": 0,
    "server.defaults": 0,
    "server.metrics": 0,
    "server.heap": 0,
    "server.plaintext": 0,
    "server.quoting": 0,
    "server.transport": 0,
    "server.store": 1,
    "server.manifest": 1,
    "server.answering": 1,
    "server.settings": 2,
    "server.keys": 2,
    "server.identity": 3,
    "server.cluster": 3,
    "server.access": 4,
    "server.asking": 5,
    "server.tools": 6,
    "server.chokepoint": 7,
    "server.http": 8,
    "server.web": 9,
    "server.oauth": 10,
    "server.app": 11,
    "server.cli": 11,
}


def module_name(path: Path) -> str:
    parts = ("server", *path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in ROOT.rglob("*.py")}


def layer(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def imports(module: str) -> set[str]:
    """Every server module this one imports, anywhere in its body."""
    tree = ast.parse(MODULES[module].read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from server.x import y`: y is a module when server.x.y is one, else a name in server.x
            names = [
                f"{node.module}.{alias.name}"
                if f"{node.module}.{alias.name}" in MODULES
                else node.module
                for alias in node.names
            ]
        else:
            continue
        found |= {name for name in names if name == "server" or name.startswith("server.")}
    return {name for name in found if name in MODULES}


GRAPH = {module: imports(module) for module in MODULES}


def test_every_module_has_a_rank():
    assert sorted({layer(m) for m in MODULES} - set(RANKS)) == []


def against_the_grain(graph: dict[str, set[str]]) -> list[str]:
    wrong = []
    for module, targets in graph.items():
        for target in targets:
            source, dest = layer(module), layer(target)
            if source == dest or target == "server":
                continue
            if RANKS[dest] >= RANKS[source]:
                wrong.append(
                    f"{module} imports {target} ({dest} ranks {RANKS[dest]}, {source} ranks {RANKS[source]})"
                )
    return sorted(wrong)


def test_no_module_imports_against_the_grain():
    assert against_the_grain(GRAPH) == []


def test_the_answering_sandbox_and_the_store_stay_leaves():
    for module, targets in GRAPH.items():
        if layer(module) == "server.answering":
            assert {layer(t) for t in targets} <= {"server.answering", "server.router"}, module
        if layer(module) == "server.store":
            assert {layer(t) for t in targets} <= {"server.store", "server.errors"}, module


def test_there_is_no_import_cycle():
    state: dict[str, int] = {}
    cycles = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(GRAPH[module]):
            if state.get(target) == 1:
                cycles.append(
                    " → ".join(path[path.index(target) :] + [target]) if target in path else target
                )
            elif target not in state:
                visit(target, path + [target])
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_the_layer_check_sees_a_planted_violation():
    """The check above can fail: a store module importing the chokepoint, or a type-only import of
    the endpoint from a tool, is caught."""
    planted = {
        **GRAPH,
        "server.store.audit": GRAPH["server.store.audit"] | {"server.chokepoint.chokepoint"},
        "server.tools.inbox": GRAPH["server.tools.inbox"] | {"server.http.endpoint"},
    }
    assert against_the_grain(planted) == [
        "server.store.audit imports server.chokepoint.chokepoint (server.chokepoint ranks 7, server.store ranks 1)",
        "server.tools.inbox imports server.http.endpoint (server.http ranks 8, server.tools ranks 6)",
    ]


def test_sql_lives_only_in_the_store():
    import re

    statement = re.compile(r"\b(SELECT .+ FROM|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b")
    outside = [
        f"{module}: {match.group(0)}"
        for module, path in MODULES.items()
        if layer(module) != "server.store"
        for match in statement.finditer(path.read_text())
    ]
    assert outside == []


def _logical_lines(path: Path) -> int:
    """Statements, not physical lines: a call the formatter spreads over ten lines is still one."""
    with path.open("rb") as source:
        return sum(1 for t in tokenize.tokenize(source.readline) if t.type == tokenize.NEWLINE)


def test_no_module_is_over_320_logical_lines():
    """One concern a module. Counted in logical lines so that formatting cannot move the measure;
    320 is where the longest modules stood when the formatter came in (the limit then was 400
    physical lines, which the longest reached at about 310 logical lines)."""
    long = {module: n for module, path in MODULES.items() if (n := _logical_lines(path)) > 320}
    assert long == {}


def test_authlib_is_imported_only_by_its_typed_adapter():
    """authlib ships no types; `server/oauth/authlib_api.py` declares the part Parley uses, so any
    other module importing authlib itself would put classes mypy cannot see back in the package."""
    importers = set()
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            if any(name == "authlib" or name.startswith("authlib.") for name in names):
                importers.add(module)
    assert importers == {"server.oauth.authlib_api"}

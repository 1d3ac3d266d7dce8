"""Outside `store/` nothing asks which database is behind the store, only what it can do
(`Database.shared`, `over_network`, `pool_stats`, …): a third backend changes the store alone."""

from __future__ import annotations

import ast
from pathlib import Path

import server
from server.store.database import Database
from server.store.opening import open_db, shared_store

ROOT = Path(server.__file__).resolve().parent
BACKENDS = {"PostgresDatabase", "SqliteDatabase"}


def _backend_checks(path: Path) -> list[str]:
    """`isinstance(x, <backend class>)`, a comparison with `.backend` and `getattr(x, "backend")`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            args = node.args
            if node.func.id == "isinstance" and len(args) == 2:
                classes = args[1].elts if isinstance(args[1], ast.Tuple) else [args[1]]
                if any(isinstance(c, ast.Name) and c.id in BACKENDS for c in classes):
                    found.append(f"{path.name}:{node.lineno} isinstance")
            if node.func.id == "getattr" and len(args) > 1:
                if isinstance(args[1], ast.Constant) and args[1].value == "backend":
                    found.append(f"{path.name}:{node.lineno} getattr backend")
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(isinstance(side, ast.Attribute) and side.attr == "backend" for side in sides):
                found.append(f"{path.name}:{node.lineno} .backend compared")
    return found


def test_no_backend_check_outside_the_store() -> None:
    checks = []
    for path in sorted(ROOT.rglob("*.py")):
        if path.relative_to(ROOT).parts[0] != "store":
            checks += _backend_checks(path)
    assert checks == []


def test_the_embedded_store_is_neither_shared_nor_across_a_network(tmp_path: Path) -> None:
    db: Database = open_db(tmp_path / "club.db")
    try:
        assert (db.shared, db.over_network, db.pool_stats(), shared_store(db)) == (
            False,
            False,
            None,
            None,
        )
        assert db.audit_unwritten(3) is False
    finally:
        db.close()

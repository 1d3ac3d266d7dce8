"""A tool receives what it may use, never the database or a key: `server/tools/facade.py` reads and
writes only the caller's own records (and the member directory), and a tool gets the context its
flags allow: a pure tool no store, a tool that writes nothing no writes. These hold the contract by
shape; `test_pure_tools.py` holds the `pure` promise by behaviour."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from types import ModuleType

import pytest

from server import tools
from server.access import Access
from server.cli import demo
from server.identity.resolver import Resolver
from server.keys.mandate import SigningKey
from server.manifest.loading import load_manifest
from server.store.opening import open_db
from server.tools.facade import Club, Reads, Writes
from server.tools.registry import (
    REGISTRY,
    NoArgs,
    Output,
    PureContext,
    ToolContext,
    ToolError,
    WriteContext,
    tool,
)

REACHING = ("Database", "SigningKey")  # what a tool never holds: the store and a key
LOWER = ("server.store", "server.identity", "server.asking", "server.keys")


def _reaches(obj: object) -> bool:
    """Whether a function or class takes the database or a key (its annotations say so)."""
    target = obj.__init__ if inspect.isclass(obj) else obj  # type: ignore[misc]
    try:
        annotations = [str(p.annotation) for p in inspect.signature(target).parameters.values()]
    except (TypeError, ValueError):
        return False
    return any(name in text for text in annotations for name in REACHING)


def _problems(module: ModuleType) -> list[str]:
    name = module.__name__
    found = []
    for imported, obj in vars(module).items():
        if isinstance(obj, ModuleType) and obj.__name__.startswith(LOWER):
            found.append(f"{name} imports the module {obj.__name__} (as {imported})")
        elif (
            (inspect.isfunction(obj) or inspect.isclass(obj))
            and obj.__module__.startswith(LOWER)
            and _reaches(obj)
        ):
            found.append(f"{name} imports {imported}, which takes the database or a key")
    tree = ast.parse(Path(module.__file__ or "").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("db", "key"):
            found.append(f"{name}:{node.lineno} reads .{node.attr}")
    return found


def test_no_tool_module_reaches_the_database_or_a_key():
    """Every tool reads and writes through `ctx.reads` / `ctx.writes`: no tool module imports a store,
    identity, asking or keys module, nor a function that takes the database or a key."""
    assert tools.MODULES, "no tool modules found: the test would check nothing"
    problems = [problem for module in tools.MODULES for problem in _problems(module)]
    assert problems == [], "\n".join(problems)


def test_the_facade_takes_no_principal_from_its_callers():
    """The principal a read or write is for comes from the caller the facade was built for."""
    taken = [
        f"{part.__name__}.{method}({param})"
        for part in (Reads, Writes)
        for method, func in vars(part).items()
        if not method.startswith("_") and callable(func)
        for param in inspect.signature(func).parameters
        if "principal" in param or param in ("asker_id", "member_id", "agent", "caller")
    ]
    assert taken == []


@pytest.fixture
def world(tmp_path):
    manifest = load_manifest()
    db = open_db(tmp_path / "club.db")
    key = SigningKey.load_or_create(tmp_path / "keys")
    minted = demo.prepare(db, key, manifest)
    access = Access(manifest, Resolver(db, key, frozenset(manifest.scopes)))
    yield Club(db, key, manifest), access, minted
    db.close()


def test_each_tool_gets_the_context_its_flags_allow(world):
    club, access, minted = world
    caller = access.from_header(f"Bearer {minted.member.token}")
    for name, spec in tools.load_all().items():
        ctx = spec.context(club, caller)
        expected = WriteContext if spec.writes else PureContext if spec.pure else ToolContext
        assert type(ctx) is expected, name
        assert hasattr(ctx, "reads") is not spec.pure, name
        assert hasattr(ctx, "writes") is spec.writes, name


def test_reads_and_writes_stay_with_the_caller(world):
    club, access, minted = world
    member = access.from_header(f"Bearer {minted.member.token}")
    applicant = access.from_header(f"Bearer {minted.applicant.token}")
    before = len(Reads(club, applicant).evidence())
    logged = Writes(club, member).add_evidence("portfolio", "Mine alone", "", None)
    assert logged in Reads(club, member).evidence()
    assert len(Reads(club, applicant).evidence()) == before
    guest = access.from_header(None)
    with pytest.raises(ToolError, match="acts for a principal"):
        Writes(club, guest).add_evidence("portfolio", "For nobody", "", None)
    with pytest.raises(ToolError, match="apply from a connection without a credential"):
        Writes(club, member).apply("second-self", "Me Again", "I would like a second go.")


class _Out(Output):
    n: int


def _doc(func):
    func.__doc__ = "A tool of this test, never registered: the decorator refuses it."
    return func


@pytest.mark.parametrize(
    ("flags", "context"),
    [
        ({"pure": True}, ToolContext),  # a pure tool that could read the store
        ({"pure": True}, WriteContext),
        ({}, WriteContext),  # a read-only tool that could write
        ({"writes": True, "pure": True}, WriteContext),
    ],
)
def test_the_decorator_refuses_a_context_wider_than_the_flags(flags, context):
    def wide(ctx, args: NoArgs) -> _Out:
        return _Out(n=0)

    wide.__annotations__["ctx"] = context
    with pytest.raises(TypeError, match="ctx must be|writes is not pure"):
        tool(**flags)(_doc(wide))
    assert "wide" not in REGISTRY

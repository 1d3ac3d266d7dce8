"""The MCP SDK's private internals Parley relies on (server/transport/sdk.py) are where and what that
module expects on the installed SDK: an upgrade that moves one fails here, naming it, before any
request reaches the lean exchange, the session quota or the live notifications."""

from __future__ import annotations

import ast
import importlib.metadata
from pathlib import Path

import pytest
from mcp.server.session import ServerSession
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

import server
from server.transport import sdk

ROOT = Path(server.__file__).resolve().parent


def test_the_installed_sdk_is_the_series_the_seam_was_written_for() -> None:
    installed = importlib.metadata.version("mcp")
    assert installed.split(".")[:2] == sdk.WRITTEN_FOR.split("."), (
        f"server/transport/sdk.py was written for mcp {sdk.WRITTEN_FOR}.x, mcp {installed} is "
        "installed: check every internal it reads, then raise WRITTEN_FOR"
    )


def test_every_private_internal_the_seam_reads_is_where_it_expects() -> None:
    problems = sdk.moved()
    assert not problems, "the MCP SDK's internals moved:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("cls", "attribute", "named"),
    [
        (StreamableHTTPSessionManager, "_server_instances", "_server_instances is gone"),
        (StreamableHTTPSessionManager, "_lifespan_state", "_lifespan_state is gone"),
        (StreamableHTTPServerTransport, "_requests_in_flight", "_requests_in_flight is gone"),
        (ServerSession, "_connection", "ServerSession._connection is gone"),
    ],
)
def test_an_sdk_whose_internals_moved_is_named(
    monkeypatch: pytest.MonkeyPatch, cls: type, attribute: str, named: str
) -> None:
    """A faked SDK shape: the class's constructor no longer sets the attribute."""
    made = cls.__init__

    def without(self: object, *args: object, **kwargs: object) -> None:
        made(self, *args, **kwargs)
        delattr(self, attribute)

    monkeypatch.setattr(cls, "__init__", without)
    assert any(named in problem for problem in sdk.moved())


def test_an_attribute_of_another_shape_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    made = StreamableHTTPServerTransport.__init__

    def counted_elsewhere(self: StreamableHTTPServerTransport, *args: object, **kw: object) -> None:
        made(self, *args, **kw)
        self._requests_in_flight = set()  # type: ignore[assignment]

    monkeypatch.setattr(StreamableHTTPServerTransport, "__init__", counted_elsewhere)
    assert sdk.moved() == [
        "StreamableHTTPServerTransport._requests_in_flight changed shape: set set()"
    ]


def _private_reaches(path: Path) -> list[str]:
    """`x._name` on anything but self/cls, `getattr(x, "_name")`, and imports of `mcp…._module`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mcp"):
            if any(part.startswith("_") for part in node.module.split(".")):
                found.append(f"{path.name}:{node.lineno} from {node.module}")
        elif (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append(f"{path.name}:{node.lineno} .{node.attr}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr")
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and str(node.args[1].value).startswith("_")
        ):
            found.append(f"{path.name}:{node.lineno} {node.func.id}(…, {node.args[1].value!r})")
    return found


def test_no_module_outside_the_seam_reaches_into_the_mcp_sdk() -> None:
    """Modules that import the SDK reach nothing private of anyone's outside server/transport/."""
    reaching = []
    for path in sorted(ROOT.rglob("*.py")):
        if "transport" in path.relative_to(ROOT).parts:
            continue
        text = path.read_text()
        if "from mcp" in text or "import mcp" in text:
            reaching += _private_reaches(path)
    assert reaching == []

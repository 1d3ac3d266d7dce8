"""Every private internal of the MCP SDK that Parley relies on, and nothing else.

Written for mcp 2.3 (`WRITTEN_FOR`; pyproject pins `mcp>=2.3,<2.4`). The SDK publishes no way to
know which sessions its manager holds, to run a request with the manager's lifespan state, to count
a request in flight for a session's idle timeout, or to reach the connection behind a per-request
session; Parley's lean exchange (`server.http.lean`), its session quota (`server.app`) and its live
notifications (`server.http.live`) need each. They reach them here, by name, and `moved()` checks
every one on the installed SDK: tests/transport/ fails on an SDK whose internals moved, naming what.
"""

from __future__ import annotations

import contextlib
import inspect
import math
from collections import deque
from collections.abc import Iterator
from contextlib import AsyncExitStack

import anyio
from mcp.server._otel import OpenTelemetryMiddleware
from mcp.server.connection import Connection
from mcp.server.context import HandlerResult
from mcp.server.lowlevel import Server
from mcp.server.runner import ServerRunner
from mcp.server.session import ServerSession
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

__all__ = [
    "WRITTEN_FOR",
    "OpenTelemetryMiddleware",
    "ResultShaper",
    "has_cleanup",
    "held_open",
    "holds",
    "idle_timeout",
    "lifespan_state",
    "moved",
    "open_session",
    "requests_in_flight",
    "running",
    "session_connection",
    "transport_of",
]

WRITTEN_FOR = "2.3"  # the SDK series whose internals this module reads


def running(manager: StreamableHTTPSessionManager) -> bool:
    """Whether the manager's `run()` is active (its task group set): only then does it serve."""
    return manager._task_group is not None


def lifespan_state(manager: StreamableHTTPSessionManager) -> object:
    """The lifespan state `run()` gave the manager, which every `ServerRunner` it makes carries (Parley
    only hands it on, never reads it)."""
    return manager._lifespan_state


def holds(manager: StreamableHTTPSessionManager, session_id: str) -> bool:
    """Whether the manager still holds this session (it publishes no other way to know it ended)."""
    return session_id in manager._server_instances


def transport_of(
    manager: StreamableHTTPSessionManager, session_id: str
) -> StreamableHTTPServerTransport | None:
    """The transport of a session the manager holds (terminated or not)."""
    return manager._server_instances.get(session_id)


def open_session(
    manager: StreamableHTTPSessionManager, session_id: str
) -> StreamableHTTPServerTransport | None:
    """The session's transport, if the SDK would serve a request on it without an owner to check:
    held, not terminated, opened without an SDK `AuthorizationContext` owner, and not idle-expired."""
    transport = manager._server_instances.get(session_id)
    if transport is None or transport.is_terminated or session_id in manager._session_owners:
        return None
    if transport.idle_scope is not None and transport.idle_scope.cancel_called:
        return None
    return transport


def idle_timeout(transport: StreamableHTTPServerTransport) -> float | None:
    return transport._idle_timeout


def requests_in_flight(transport: StreamableHTTPServerTransport) -> int:
    return transport._requests_in_flight


@contextlib.contextmanager
def held_open(transport: StreamableHTTPServerTransport) -> Iterator[None]:
    """A request in flight for the session's idle timeout, exactly as the transport's own
    `handle_request` counts one: the countdown stops while any is served and restarts after the last."""
    idle, timeout = transport.idle_scope, transport._idle_timeout
    if idle is None or timeout is None:
        yield
        return
    transport._requests_in_flight += 1
    idle.deadline = math.inf
    try:
        yield
    finally:
        transport._requests_in_flight -= 1
        if not transport._requests_in_flight:
            idle.deadline = anyio.current_time() + timeout


def has_cleanup(stack: AsyncExitStack) -> bool:
    """Whether anything was pushed on a connection's exit stack (contextlib's private list); a stack
    whose callbacks cannot be seen counts as having some, so it is unwound as before."""
    return bool(getattr(stack, "_exit_callbacks", True))


def session_connection(session: ServerSession) -> Connection | None:
    """The long-lived connection behind a per-request `ServerSession` (SDK 2.3 builds one per
    request and keeps the connection, whose standalone stream carries server-initiated
    notifications, only as a private attribute)."""
    connection = getattr(session, "_connection", None)
    return connection if isinstance(connection, Connection) else None


class ResultShaper:
    """A handler's result in the wire form the SDK's kernel gives it (`ServerRunner._serialize`:
    cache hints, the protocol version's surface, the 2026-07-28 server stamp), for a middleware that
    answers a request itself instead of handing its result down to a handler to be shaped. That
    method reads only the runner's server, so one runner serves every connection here."""

    def __init__(self, server: Server[dict[str, object]]):  # its lifespan the SDK's default
        connection = Connection(None, protocol_version="2025-06-18")  # type: ignore[arg-type]
        self._runner = ServerRunner(server, connection, {})  # the default lifespan's state

    def shape(self, method: str, version: str, result: HandlerResult) -> dict[str, object]:
        return self._runner._serialize(method, version, result)


def moved() -> list[str]:
    """What this module relies on that the installed SDK no longer has in the expected shape: one
    line for each, naming the internal. Empty on the SDK it was written for."""
    problems: list[str] = []

    def expect(owner: str, name: str, value: object, ok: bool) -> None:
        if value is _MISSING:
            problems.append(f"{owner}.{name} is gone")
        elif not ok:
            problems.append(f"{owner}.{name} changed shape: {type(value).__name__} {value!r:.60}")

    manager = StreamableHTTPSessionManager(Server("transport-check"), json_response=True)
    owner = "StreamableHTTPSessionManager"
    for name, kind in (("_server_instances", dict), ("_session_owners", dict)):
        value = getattr(manager, name, _MISSING)
        expect(owner, name, value, isinstance(value, kind) and not value)
    value = getattr(manager, "_task_group", _MISSING)
    expect(owner, "_task_group", value, value is None)  # set only while run() is active
    value = getattr(manager, "_lifespan_state", _MISSING)
    expect(owner, "_lifespan_state", value, value is None)

    transport = StreamableHTTPServerTransport(None, is_json_response_enabled=True, idle_timeout=7.0)
    owner = "StreamableHTTPServerTransport"
    value = getattr(transport, "_idle_timeout", _MISSING)
    expect(owner, "_idle_timeout", value, value == 7.0)
    value = getattr(transport, "_requests_in_flight", _MISSING)
    expect(owner, "_requests_in_flight", value, type(value) is int and value == 0)
    if not hasattr(transport, "idle_scope"):
        problems.append(f"{owner}.idle_scope is gone")

    connection = Connection(None, protocol_version="2025-06-18")  # type: ignore[arg-type]
    value = getattr(connection.exit_stack, "_exit_callbacks", _MISSING)
    expect(
        "Connection.exit_stack", "_exit_callbacks", value, isinstance(value, deque) and not value
    )
    session = ServerSession(None, connection)  # type: ignore[arg-type]
    value = getattr(session, "_connection", _MISSING)
    expect("ServerSession", "_connection", value, value is connection)

    parameters = list(inspect.signature(getattr(ServerRunner, "_serialize", moved)).parameters)
    if parameters != ["self", "method", "version", "result"]:
        problems.append(f"ServerRunner._serialize is gone or changed shape: {parameters}")

    # What the names mean: the transport counts its requests there, and run() sets the two it reads.
    for cls, lines in _ASSIGNED:
        source = inspect.getsource(cls)
        problems += [
            f"{cls.__name__} no longer does `{line}`" for line in lines if line not in source
        ]
    return problems


_ASSIGNED = (
    (
        StreamableHTTPServerTransport,
        ("self._requests_in_flight += 1", "self._requests_in_flight -= 1"),
    ),
    (
        StreamableHTTPSessionManager,
        ("self._task_group = tg", "self._lifespan_state = lifespan_state"),
    ),
)


_MISSING = object()

"""One /mcp request's state: made once at the edge (the gate), handed along the path, typed.

The gate reads the request's headers and query into a `RequestState`, resolves its caller into it,
reads and parses its body at most once, and hands it on in the ASGI scope it passes to the MCP app
(`handed_on`). Each layer after it reads the state from the scope it was given (`state_in`), and a
handler from the Starlette request the SDK puts on its request context (`caller_of(ctx)`): the
state travels with the request itself, never through a context variable.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp.server.context import ServerRequestContext
from starlette.requests import Request
from starlette.types import Scope

from server.access import Caller
from server.chokepoint.audit import Held

# A JSON value as parsed from a request body.
JSON = dict[str, "JSON"] | list["JSON"] | str | int | float | bool | None

# A message's context as Parley's middleware and handlers read it, with the SDK's defaults: the
# server's lifespan state (never read) and the request the transport attached (over HTTP, the
# Starlette request, which `caller_of` checks).
McpContext = ServerRequestContext

# The key of the state in the scope the gate hands to the MCP app (and only in that copy: the gate
# clears it when the request ends, so nothing the SDK keeps holds the request's state).
SCOPE_KEY = "parley.request"


@dataclass(slots=True)
class RequestState:
    """What the gate learned of one request, for every step after it."""

    authorization: str | None  # the one Authorization header, as sent (never logged)
    session: str | None  # the Mcp-Session-Id header
    address: str  # the client's address, for the guest budget
    refuses_guest: bool  # `?guest=no`: a missing credential is a 401, not the guest lane
    caller: Caller | None = None  # once admitted
    body: bytes | None = None  # read by the gate when it must judge it; the SDK gets it replayed
    message: JSON = None  # `body` parsed, once (None: not read, or not JSON)
    parsed: bool = False  # whether `message` holds the parse of `body`
    # a message's token last use, written once its answer has left (None: written at once)
    last_uses: dict[str, str] | None = None
    # the audit rows its calls record, written once its answer has left (None: written at once)
    held: Held | None = None

    def release(self) -> None:
        """The request ended: drop what it read, so a context the SDK keeps holds none of it."""
        self.body = self.message = None
        self.caller = None
        self.held = None


def handed_on(scope: Scope, state: RequestState) -> Scope:
    """The scope the MCP app gets: a copy of the gate's, carrying the request's state."""
    return {**scope, SCOPE_KEY: state}


def state_in(scope: Scope) -> RequestState | None:
    """The state the gate handed on with this scope, if it came through the gate."""
    state = scope.get(SCOPE_KEY)
    return state if isinstance(state, RequestState) else None


def _state_of(ctx: McpContext) -> RequestState | None:
    """The state of the request that carried this message, from the Starlette request the SDK puts
    on the context."""
    request = ctx.request
    return state_in(request.scope) if isinstance(request, Request) else None


def caller_of(ctx: McpContext) -> Caller:
    """The caller the gate resolved for the request that carried this message; fails closed when
    there is none."""
    state = _state_of(ctx)
    if state is None or state.caller is None:  # only reachable if the gate were bypassed
        raise RuntimeError("no resolved caller on this request")
    return state.caller


def held_of(ctx: McpContext) -> Held | None:
    """The audit hold of the request that carried this message, for the calls it carries: None once
    the request ended (or for a request the gate did not hold), and their rows are written at once."""
    state = _state_of(ctx)
    return state.held if state is not None else None

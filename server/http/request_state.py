"""One /mcp request's state: made once at the edge (the gate), handed along the path, typed.

The gate reads the request's headers and query into a `RequestState`, resolves its caller into it,
reads and parses its body at most once, and makes it the request's own (`serving`). The SDK
carries the context of the task that sent a message to the handlers it runs for it, so a handler
finds the state of its very request with `state_of(ctx)`, never through a key in the ASGI scope.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from mcp.server.context import ServerRequestContext
from mcp_types import CallToolResult

from server.access import Caller

# A JSON value as parsed from a request body.
JSON = dict[str, "JSON"] | list["JSON"] | str | int | float | bool | None


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
    answer: CallToolResult | None = None  # a tools/call's answer, for the SDK's handler to shape

    def release(self) -> None:
        """The request ended: drop what it read, so a context the SDK keeps holds none of it."""
        self.body = self.message = self.answer = None
        self.caller = None


_CURRENT: contextvars.ContextVar[RequestState | None] = contextvars.ContextVar(
    "parley_request", default=None
)


@contextmanager
def serving(state: RequestState) -> Iterator[RequestState]:
    """Within this block, `state` is the request this context serves."""
    token = _CURRENT.set(state)
    try:
        yield state
    finally:
        _CURRENT.reset(token)
        state.release()


def current() -> RequestState | None:
    """The state of the request this context serves, if any."""
    return _CURRENT.get()


def state_of(ctx: ServerRequestContext) -> RequestState:
    """The state of the request that carried this message; fails closed when there is none."""
    state = _CURRENT.get()
    if state is None or state.caller is None:  # only reachable if the gate were bypassed
        raise RuntimeError("no resolved caller on this request")
    return state


def caller_of(ctx: ServerRequestContext) -> Caller:
    """The caller the gate resolved for the request that carried this message."""
    caller = state_of(ctx).caller
    if caller is None:
        raise RuntimeError("no resolved caller on this request")
    return caller

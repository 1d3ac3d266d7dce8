"""A handler finds its request's caller on the SDK's request context, never through a context
variable: the gate hands its `RequestState` on in the scope the MCP app gets, and `caller_of(ctx)`
reads it from the Starlette request the SDK carries on `ctx.request`."""

from __future__ import annotations

import pytest
from mcp.server.context import ServerRequestContext
from starlette.requests import Request

from server.access import Access
from server.http.request_state import RequestState, caller_of, handed_on, state_in
from server.manifest.loading import load_manifest


def _context(request: Request | None) -> ServerRequestContext:
    return ServerRequestContext(
        session=None,  # type: ignore[arg-type]  # not read here
        lifespan_context={},
        protocol_version="2025-06-18",
        method="tools/call",
        request_id=1,
        request=request,
    )


def test_the_caller_is_read_from_the_request_that_carried_the_message():
    guest = Access(load_manifest(), None).guest()  # type: ignore[arg-type]
    state = RequestState(None, None, "127.0.0.1", False, caller=guest)
    gate_scope = {"type": "http", "method": "POST", "headers": [], "path": "/mcp"}
    scope = handed_on(gate_scope, state)
    assert state_in(gate_scope) is None and state_in(scope) is state  # the copy carries it
    assert caller_of(_context(Request(scope))) is guest


def test_no_caller_without_the_gate_fails_closed():
    scope = {"type": "http", "method": "POST", "headers": [], "path": "/mcp"}
    with pytest.raises(RuntimeError, match="no resolved caller"):
        caller_of(_context(Request(scope)))  # a request the gate never saw
    with pytest.raises(RuntimeError, match="no resolved caller"):
        caller_of(_context(None))  # a message that came over no HTTP request
    state = RequestState(None, None, "127.0.0.1", False)
    scope = handed_on(scope, state)
    with pytest.raises(RuntimeError, match="no resolved caller"):
        caller_of(_context(Request(scope)))  # read, but not admitted
    state.caller = Access(load_manifest(), None).guest()  # type: ignore[arg-type]
    state.release()  # the request ended: what a kept context still holds answers nothing
    with pytest.raises(RuntimeError, match="no resolved caller"):
        caller_of(_context(Request(scope)))

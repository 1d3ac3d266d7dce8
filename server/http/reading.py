"""The request, read once: its headers and query into a `RequestState`, its body (when the gate
must judge it) read whole and bounded and parsed once, then checked as a JSON-RPC envelope."""

from __future__ import annotations

from urllib.parse import parse_qs

import pydantic_core
from starlette.types import Receive, Scope

from server.http.request_state import RequestState

MAX_MCP_BODY = 4 * 1024 * 1024
_QUERY_CREDENTIALS = ("access_token", "token", "bearer", "authorization")


class Unreadable(Exception):
    """A request the gate refuses before reading any credential: the message says why (a 400)."""


def read_request(scope: Scope) -> RequestState:
    """The request's own state from its headers and query; raises Unreadable for a request that
    sends its credential twice or in the URL."""
    authorization: str | None = None
    session: str | None = None
    for raw_name, raw_value in scope["headers"]:
        name = raw_name.lower()
        if name == b"authorization":
            if authorization is not None:
                raise Unreadable("send one Authorization header, not several")
            authorization = raw_value.decode("latin-1")
        elif name == b"mcp-session-id":
            session = raw_value.decode("latin-1")
    query = _query_of(scope)
    if any(name.lower() in _QUERY_CREDENTIALS for name in query):
        # RFC 6750 §2.3 is not for MCP: a token in a URL ends up in logs, histories and referrers.
        raise Unreadable("send the credential in the Authorization header, never in the URL")
    client = scope.get("client") or ("unknown", 0)
    refuses_guest = query.get("guest", [""])[-1].lower() in ("no", "false", "0")
    return RequestState(authorization, session, client[0], refuses_guest)


def _query_of(scope: Scope) -> dict[str, list[str]]:
    """The query string's parameters, blank ones kept; most requests have none."""
    raw = scope.get("query_string")
    return parse_qs(raw.decode("latin-1"), keep_blank_values=True) if raw else {}


async def read_body(state: RequestState, receive: Receive) -> bool:
    """The whole request body into `state`, parsed once (False when it is larger than any MCP
    message should be). Parsed as the SDK parses it (pydantic-core), but with NaN and Infinity
    refused: they are not JSON."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_MCP_BODY:
            return False
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    state.body = b"".join(chunks)
    try:
        state.message = pydantic_core.from_json(state.body, allow_inf_nan=False)
        state.parsed = True
    except ValueError:
        state.message, state.parsed = None, False
    return True


def envelope_problem(state: RequestState) -> tuple[int, str] | None:
    """(JSON-RPC error code, message) for a body that is not a well-formed JSON-RPC message, else
    None."""
    if not state.parsed:
        return -32700, "Parse error"
    message = state.message
    for item in message if isinstance(message, list) else [message]:
        if not isinstance(item, dict) or item.get("jsonrpc") != "2.0":
            return -32600, "Invalid Request: not a JSON-RPC 2.0 message"
        ident = item.get("id")
        if "id" in item and (isinstance(ident, bool) or not isinstance(ident, (str, int))):
            return -32600, "Invalid Request: an id is a string or an integer"
        if "method" in item and not isinstance(item["method"], str):
            return -32600, "Invalid Request: a method is a string"
    return None

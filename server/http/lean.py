"""The lean exchange: one JSON-RPC request in a JSON-answered POST, served in the request's own task.

Why it exists. The SDK's Streamable HTTP transport serves every handshake-era POST through
machinery built for streams: the message goes into the session's memory stream, the session's
dispatcher loop takes it out and spawns a task for the handler, the handler's answer goes into a
write stream, a router task moves it to a per-request stream, and the POST's task takes it out to
answer. With JSON responses (Parley's mode) none of that carries anything a request needs, and it
cost more than all of Parley's own steps together (a third of an authenticated `whoami`). Here the
same request runs straight through the SDK's own kernel (`ServerRunner.on_request`: the same
middleware chain, the same per-version validation, the same handlers and result shaping) with the
SDK's own message models (`jsonrpc_message_adapter`, `JSONRPCResponse`, `JSONRPCError`).

What it keeps. Only a request the SDK would itself take is served here; for any other the SDK's
way runs, untouched, and answers as it always does (the body handed on as if never read):
- a POST of one JSON-RPC request (not `initialize`, not a notification, a response or a batch),
  with a protocol version header absent or of the handshake era (2026-07-28 requests already take
  the SDK's own single-exchange path), a body within the SDK's limit (declared and read), a
  Content-Type and Accept the transport accepts, and Host/Origin passing the SDK's own
  `TransportSecurityMiddleware`;
- stateful: a session the manager holds, not terminated or idle-expired, opened without an SDK
  `AuthenticatedUser` (Parley's gate binds sessions to callers itself), and whose connection this
  module saw open; its request counts as in flight for the session's idle timeout, exactly as the
  transport counts it;
- stateless: a fresh, born-ready connection per request, as the SDK's stateless path builds it.
It answers as the transport would: the result or the JSON-RPC error the dispatcher would write
(its exception mapping, its log line), `Request cancelled` (-32800) for a request the client
cancelled with `notifications/cancelled`, a 500 `Session terminated before the request completed`
when the session ends under it; the same headers. Server-initiated messages tied to the request
are dropped, as the transport drops them in JSON mode; the connection's standalone stream is the
session's own (the dispatch context, the answer and the response: `server.http.lean_wire`).
tests/http/test_lean_exchange.py sends each case both ways and compares the answers.

Fairness. The SDK's way suspends a request several times (its streams); a lean request, whose
handler often awaits nothing that suspends, would run from its body to its answer in one step. It
yields to the loop once, after its body is read: requests that arrived in the same turn are all
read before any is served, and a saturated server does not keep serving the connections it served
last (scripts/bench_http.py: wrk's p99 at 100 connections).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

import anyio
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult
from mcp.server.runner import ServerRunner, aclose_shielded
from mcp.server.streamable_http import check_accept_headers
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecurityMiddleware
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.jsonrpc_dispatcher import (
    cancelled_request_id_from_params,
    progress_token_from_params,
)
from mcp.shared.message import ServerMessageMetadata
from mcp.shared.transport_context import TransportContext
from mcp_types import (
    DEFAULT_NEGOTIATED_VERSION,
    INTERNAL_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCRequest,
    RequestId,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.http import lean_wire as wire
from server.http.live import connection_of
from server.http.request_state import McpContext, RequestState, state_in
from server.transport import sdk

_STATEFUL = TransportContext(
    kind="jsonrpc", can_send_request=False
)  # the loop dispatcher's, JSON mode
_STATELESS = TransportContext(kind="streamable-http", can_send_request=False)
# the headers the transport judges a POST by (Host, Origin, Content-Type, Accept), and all it reads
_JUDGED = (b"host", b"origin", b"content-type", b"accept")
_READ = frozenset((*_JUDGED, b"mcp-protocol-version", b"mcp-session-id", b"content-length"))


@dataclass
class _Flight:
    """A request in flight on a session: its scope, cancelled by the client or the session's end."""

    scope: anyio.CancelScope
    dispatch: wire.Dispatch
    ended: bool = False  # the session ended under it


@dataclass
class _Session:
    """A stateful session's connection (the one its dispatcher loop serves) and its requests here."""

    connection: Connection
    runner: ServerRunner[object]  # its lifespan state only handed on
    in_flight: dict[RequestId, _Flight] = field(default_factory=dict)


@dataclass
class _Exchange:
    """A request the lean exchange takes: everything the SDK would have checked has passed."""

    request: Request
    message: JSONRPCRequest
    version: str | None  # the protocol version header
    session_id: str | None
    session: _Session | None


class LeanExchange:
    """ASGI, between the gate and the SDK's session manager (`sdk_way`: what serves anything else)."""

    def __init__(self, manager: StreamableHTTPSessionManager, sdk_way: ASGIApp):
        self.manager = manager
        self.server = manager.app
        self.sdk_way = sdk_way
        self.security = TransportSecurityMiddleware(manager.security_settings)
        self._sessions: dict[str, _Session] = {}
        self._verdicts: dict[tuple[bytes | None, ...], bool] = {}
        # first in the chain: it notes each session's connection as the SDK opens it, and hands a
        # client's cancellation on to requests served here
        self.server.middleware.insert(0, self._watch)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        taken = await self._take(scope, receive)
        if isinstance(taken, _Exchange):
            # One turn of the loop before serving: a lean request otherwise runs from its body to
            # its answer without a suspension (see the module docstring). wrk at 100 connections,
            # median p99 of 5 interleaved rounds: 480 ms without, 87 ms with; 734 vs 240 in another run.
            await asyncio.sleep(0)
            await self._serve(taken, send)
        else:
            await self.sdk_way(scope, taken, send)

    async def _watch(self, ctx: McpContext, call_next: CallNext) -> HandlerResult:
        if ctx.request_id is None:
            if ctx.method == "notifications/cancelled":
                self._cancel(ctx)
        elif ctx.method == "initialize":
            self._note(ctx)
        return await call_next(ctx)

    def _note(self, ctx: McpContext) -> None:
        connection = connection_of(ctx)
        sid = connection.session_id if connection is not None else None
        if connection is None or sid is None or sid in self._sessions:
            return
        session = _Session(
            connection, ServerRunner(self.server, connection, sdk.lifespan_state(self.manager))
        )
        self._sessions[sid] = session
        connection.exit_stack.callback(self._ended, sid, session)

    def _ended(self, sid: str, session: _Session) -> None:
        """The session's loop ended (DELETE, idle timeout, shutdown): its requests here end too."""
        if self._sessions.get(sid) is session:
            del self._sessions[sid]
        for flight in list(session.in_flight.values()):
            flight.ended = True
            flight.scope.cancel()

    def _cancel(self, ctx: McpContext) -> None:
        """`notifications/cancelled` for a request served here, read as the dispatcher reads it."""
        connection = connection_of(ctx)
        sid = connection.session_id if connection is not None else None
        session = self._sessions.get(sid) if sid is not None else None
        request_id = cancelled_request_id_from_params(ctx.params)
        if session is None or request_id is None:
            return
        flight = session.in_flight.get(coerce_request_id(request_id))
        if flight is not None:
            flight.dispatch.cancel()
            flight.scope.cancel()

    async def _take(self, scope: Scope, receive: Receive) -> _Exchange | Receive:
        """The exchange, when the SDK would take this request; else the receive to hand it on with."""
        manager = self.manager
        if scope["method"] != "POST" or not manager.json_response or not sdk.running(manager):
            return receive
        first: dict[bytes, bytes] = {}  # each header's first value: the one the SDK reads
        for name, value in scope["headers"]:
            if name in _READ and name not in first:
                first[name] = value
        version = first.get(b"mcp-protocol-version")
        if version is not None and version.decode("latin-1") not in HANDSHAKE_PROTOCOL_VERSIONS:
            return receive
        if _declared_too_large(first.get(b"content-length"), manager.max_request_body_size):
            return receive
        sid = first.get(b"mcp-session-id")
        session = None
        if not manager.stateless:
            session = self._session(scope, None if sid is None else sid.decode("latin-1"))
            if session is None:
                return receive
        if not await self._headers_pass(first):
            return receive
        state = state_in(scope)
        body, receive = await self._body(state, receive)
        if body is None:
            return receive
        message = wire.request_in(body, state)
        if message is None:
            return receive
        return _Exchange(
            Request(scope, receive),
            message,
            None if version is None else version.decode("latin-1"),
            None if manager.stateless or sid is None else sid.decode("latin-1"),
            session,
        )

    async def _headers_pass(self, first: dict[bytes, bytes]) -> bool:
        """Whether the transport accepts these headers: Host and Origin (the SDK's own
        `TransportSecurityMiddleware`), Content-Type (it and the transport's own rule) and Accept
        (the SDK's `check_accept_headers`). The SDK's functions judge each combination once; the
        verdict is kept, as it depends on nothing else."""
        key = tuple(first.get(name) for name in _JUDGED)
        verdict = self._verdicts.get(key)
        if verdict is None:
            headers = [
                (name, value) for name, value in zip(_JUDGED, key, strict=True) if value is not None
            ]
            request = Request({"type": "http", "headers": headers})
            verdict = (
                await self.security.validate_request(request, is_post=True) is None
                and check_accept_headers(request)[0]
                and _json_content(request)
            )
            if len(self._verdicts) >= 256:
                self._verdicts.clear()
            self._verdicts[key] = verdict
        return verdict

    def _session(self, scope: Scope, sid: str | None) -> _Session | None:
        """The session this request names, if the SDK would serve the request on it as it stands."""
        if sid is None or isinstance(scope.get("user"), AuthenticatedUser):
            return None
        if sdk.open_session(self.manager, sid) is None:
            return None
        return self._sessions.get(sid)

    async def _body(
        self, state: RequestState | None, receive: Receive
    ) -> tuple[bytes | None, Receive]:
        """The body (the gate's read, or read here within the SDK's limit), and the receive that
        replays it to whatever reads the request next."""
        if state is not None and state.body is not None:
            return state.body, receive  # the gate's relay replays it to the SDK's way
        chunks: list[bytes] = []
        size, more, ending = 0, True, None
        while more:
            message = await receive()
            if message["type"] != "http.request":
                ending = message
                break
            chunk = message.get("body", b"")
            chunks.append(chunk)
            size += len(chunk)
            more = bool(message.get("more_body"))
            if size > self.manager.max_request_body_size:
                break
        replay: list[Message] = [
            {"type": "http.request", "body": b"".join(chunks), "more_body": more}
        ]
        if ending is not None:
            replay.append(ending)

        async def replayed() -> Message:
            return replay.pop(0) if replay else await receive()

        if more or ending is not None or size > self.manager.max_request_body_size:
            return None, replayed
        return b"".join(chunks), replayed

    async def _serve(self, exchange: _Exchange, send: Send) -> None:
        message, session, lifespan = (
            exchange.message,
            exchange.session,
            sdk.lifespan_state(self.manager),
        )
        dispatch = wire.Dispatch(
            _STATELESS if session is None else _STATEFUL,
            message.id,
            ServerMessageMetadata(request_context=exchange.request, can_send_request=False),
            progress_token_from_params(message.params),
        )
        if session is None:  # stateless: a born-ready connection for this request, as the SDK's
            connection = Connection.from_envelope(
                exchange.version or DEFAULT_NEGOTIATED_VERSION, None, None
            )
            try:
                runner = ServerRunner(self.server, connection, lifespan)
                answer = await wire.answer(runner, dispatch, message)
            finally:
                if sdk.has_cleanup(connection.exit_stack):
                    await aclose_shielded(connection)
            await wire.respond(send, 200, answer or wire.cancelled(message), None)
            return
        assert exchange.session_id is not None
        transport = sdk.transport_of(self.manager, exchange.session_id)
        flight = _Flight(anyio.CancelScope(), dispatch)
        key = coerce_request_id(message.id)
        session.in_flight[key] = flight  # a duplicate id overwrites, as in the dispatcher's table

        def landed() -> None:  # the handler is done: no cancellation applies to it any more
            if session.in_flight.get(key) is flight:
                del session.in_flight[key]

        answer = None
        # in flight for the idle timeout, as the transport's handle_request counts a request
        with contextlib.nullcontext() if transport is None else sdk.held_open(transport):
            try:
                with flight.scope:
                    if session.runner.lifespan_state is not lifespan:
                        session.runner = ServerRunner(self.server, session.connection, lifespan)
                    answer = await wire.answer(session.runner, dispatch, message, landed)
            finally:
                landed()
        if flight.ended:
            ended = ErrorData(
                code=INTERNAL_ERROR, message="Session terminated before the request completed"
            )
            await wire.respond(
                send, 500, JSONRPCError(jsonrpc="2.0", id=None, error=ended), exchange.session_id
            )
            return
        await wire.respond(send, 200, answer or wire.cancelled(message), exchange.session_id)


def _declared_too_large(declared: bytes | None, limit: int) -> bool:
    """The SDK's body limit on a declared Content-Length (`RequestBodyLimitMiddleware`)."""
    if declared is None:
        return False
    try:
        return int(declared.decode("latin-1")) > limit
    except ValueError:
        return False


def _json_content(request: Request) -> bool:
    """The transport's Content-Type rule: a type before any parameter is exactly application/json."""
    content_type = request.headers.get("content-type", "")
    return any(part.strip() == "application/json" for part in content_type.split(";")[0].split(","))

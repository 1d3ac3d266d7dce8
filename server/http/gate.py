"""The HTTP gate in front of /mcp: identity and budget for every request, before the SDK sees it.

The SDK's bearer middleware answers the same 401 to a missing and a failing credential, and
letting anonymous requests past it makes a bad token fall silently into the guest lane. This
gate keeps the three outcomes apart: no credential → guest (said in a header), a credential that
verifies → its lane, a credential that fails → 401 with the reason and `resource_metadata`.
"""

from __future__ import annotations

import functools
import json
import logging
from typing import NamedTuple
from urllib.parse import parse_qs

import anyio
import pydantic_core
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp.server.context import ServerRequestContext

from server.access import Access, Caller
from server.chokepoint.audit import AuditTrail, Carried
from server.http.relay import Relay
from server.http.session_owners import SessionOwners
from server.http.ratelimit import Budget, SharedBudget, retry_after_header
from server.identity.credentials import CredentialRejected
from server.identity.resolver import last_use_deferred
from server.manifest.schema import Manifest
from server.metrics import RATE_LIMITED, STATEMENT_SOURCE, requests_by
from server.store.database import StoreUnavailable

log = logging.getLogger("parley.gate")

# Seconds the audit writer leaves answered calls' rows for the next request's budget statement to carry
# (a store across the network): under load they cost no round trip of their own.
CARRY_LINGER = 0.02

CALLER_KEY = "parley.caller"


def caller_of(ctx: ServerRequestContext) -> Caller:
    """The caller the gate resolved for the request that carried this message."""
    request = ctx.request
    caller = request.scope.get(CALLER_KEY) if request is not None else None
    if not isinstance(caller, Caller):  # only reachable if the gate were bypassed: fail closed
        raise RuntimeError("no resolved caller on this request")
    return caller


def _quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', "'")


class _Admission(NamedTuple):
    caller: Caller | None
    rejected: CredentialRejected | None
    wait: float | None  # seconds until the budget allows a request; None: allowed


class Gate:
    def __init__(
        self,
        app: ASGIApp,
        access: Access,
        resource_metadata_url: str,
        manifest: Manifest,
        guest_limiter: Budget,
        token_limiter: Budget,
        audit: AuditTrail,
        offload: bool = False,
    ):
        self.app = app
        self.audit = audit
        self.access = access
        self.resource_metadata_url = resource_metadata_url
        self.manifest = manifest
        self.guest_limiter = guest_limiter
        self.token_limiter = token_limiter
        # A store across the network (PostgreSQL): resolving a credential and spending a budget wait on
        # it, so admission runs in a worker thread, never on the event loop.
        self.offload = offload
        self.sessions = SessionOwners()
        # A shared budget (PostgreSQL) reads the revision and writes earlier requests' audit rows in
        # the statement that spends it: a caller the resolver remembers costs one round trip.
        self.shared_budget = token_limiter if isinstance(token_limiter, SharedBudget) else None
        if self.shared_budget is not None:
            audit.linger = CARRY_LINGER

    def _admit(self, authorization: str | None, address: str, refuses_guest: bool,
               remembered: str | None = None, carry: Carried | None = None) -> _Admission:
        """Who is calling and whether their budget allows it: one pass, run in a worker thread when it
        may wait (a store across the network, an OAuth issuer's keys). `remembered`: the digest of a
        token whose chain the resolver keeps, on a shared budget: then one statement spends the budget,
        reads the revision to resolve at and writes the audit rows `carry` holds."""
        if remembered is not None and self.shared_budget is not None:
            statement, values = carry.statement() if carry is not None else (None, [])
            wait, current = self.shared_budget.take_reading_revision(f"token:{remembered}", statement, values)
            if carry is not None:
                carry.written = True
            try:
                caller = self.access.from_header_at(authorization, current)
            except CredentialRejected as exc:
                return _Admission(None, exc, self.guest_limiter.take(f"guest:{address}"))
            return _Admission(caller, None, wait)
        try:
            caller = self.access.from_header(authorization)
        except CredentialRejected as exc:
            # Failed credentials spend the address's guest budget, so guessing is throttled too.
            return _Admission(None, exc, self.guest_limiter.take(f"guest:{address}"))
        if caller.lane == "guest" and refuses_guest:
            return _Admission(caller, None, None)  # answered 401 before any budget is spent
        if caller.token_hash:
            return _Admission(caller, None, self.token_limiter.take(f"token:{caller.token_hash}"))
        return _Admission(caller, None, self.guest_limiter.take(f"guest:{address}"))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] != "POST":  # a stream may stay open for hours: what it leaves to write is written now
            await self._serve(scope, receive, send)
            return
        # A message answers first: what it leaves to write (its calls' audit rows, its token's last use)
        # is written once the answer has left, before the request ends.
        held = self.audit.hold()
        source = STATEMENT_SOURCE.set("request")
        with last_use_deferred() as last_use:
            try:
                await self._serve(scope, receive, send)
            finally:
                STATEMENT_SOURCE.reset(source)  # what is written after the answer is the writer's business
                await self.audit.write_held(held)
                if last_use:
                    await self._write_last_use(last_use)

    async def _write_last_use(self, stamps: dict[str, str]) -> None:
        try:
            if self.offload:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(self.access.resolver.write_last_use, stamps)
            else:
                self.access.resolver.write_last_use(stamps)
        except Exception:  # the answer has left: nobody to tell but the log
            log.exception("%d token last use(s) not written", len(stamps))

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        authorization: str | None = None
        session: str | None = None
        for raw_name, raw_value in scope["headers"]:
            name = raw_name.lower()
            if name == b"authorization":
                if authorization is not None:
                    await self._bad_request(send, "send one Authorization header, not several")
                    return
                authorization = raw_value.decode("latin-1")
            elif name == b"mcp-session-id":
                session = raw_value.decode("latin-1")
        query = _query_of(scope)
        if any(name.lower() in _QUERY_CREDENTIALS for name in query):
            # RFC 6750 §2.3 is not for MCP: a token in a URL ends up in logs, histories and referrers.
            await self._bad_request(send, "send the credential in the Authorization header, never in the URL")
            return
        client = scope.get("client") or ("unknown", 0)
        refuses_guest = query.get("guest", [""])[-1].lower() in ("no", "false", "0")
        remembered = self.access.resolver.remembered(authorization) if self.shared_budget is not None else None
        carry = self.audit.carry() if remembered is not None else None
        try:
            if self.offload or (authorization is not None and authorization.count(".") >= 2):
                admission = await anyio.to_thread.run_sync(self._admit, authorization, client[0], refuses_guest,
                                                           remembered, carry)
            else:
                admission = self._admit(authorization, client[0], refuses_guest)
        except StoreUnavailable as exc:
            await self._unavailable(send, str(exc))
            return
        finally:
            if carry is not None:
                await self.audit.carried(carry)
        caller, rejected, wait = admission
        if rejected is not None or caller is None:
            rejected = rejected or CredentialRejected("no caller")  # fail closed
            log.warning("rejected credential from %s: %s", client[0], rejected.reason)
            if wait is not None:
                await self._too_many(send, "guest", wait)
                return
            requests_by("none", "rejected").inc()
            await self._reject(send, rejected.reason)
            return
        if caller.lane == "guest" and refuses_guest:
            # The connection asked never to be a guest (?guest=no): a missing credential is a 401,
            # which is also what starts an MCP client's OAuth discovery.
            await self._challenge(send)
            return
        if wait is not None:
            await self._too_many(send, caller.lane, wait)
            return
        if session is not None and not self.sessions.admits(session, caller):
            # A session belongs to the principal and agent that first used it with a credential:
            # anyone else is told it does not exist, as the SDK's own auth answers.
            await respond(send, 404, json.dumps({"jsonrpc": "2.0", "id": None, "error": {
                "code": -32600, "message": "Session not found"}}).encode(), [])
            return
        # The MCP app gets its own copy of the scope, and receive/send through a relay let go of when
        # the request ends: the SDK keeps each session's last message, and with it this request, until
        # that session's next request. Released, the request's headers, body, caller and connection die
        # with the request instead of ageing into the oldest GC generation, whose full collections
        # grow with every open session (seconds, with 10,000 of them).
        scope = {**scope, CALLER_KEY: caller}
        replayed: bytes | None = None  # a body the gate read to judge it, handed on as if never read
        if scope["method"] == "POST" and (caller.credential == "oauth" or session is not None):
            body = await _read_body(receive)
            if body is None:
                await respond(send, 413, b'{"error": "request body too large"}', [])
                return
            if session is not None:
                # The SDK's session transport acknowledges some malformed messages with 202: answer them here.
                problem = _envelope_problem(body)
                if problem is not None:
                    code, message = problem
                    await respond(send, 400, json.dumps({"jsonrpc": "2.0", "id": None, "error": {
                        "code": code, "message": message}}).encode(), [])
                    return
            if caller.credential == "oauth":
                missing = self._step_up_scope(caller, body)
                if missing is not None:
                    await self._insufficient_scope(send, missing)
                    return
            replayed = body
        requests_by(caller.lane, "admitted").inc()
        lane_headers = _lane_headers(caller.lane)

        async def send_with_lane(message: Message) -> None:
            if message["type"] == "http.response.start":
                if session is None:  # a session opened with a credential is bound to it now
                    opened = _session_of(message)
                    if opened is not None:
                        self.sessions.admits(opened, caller)
                message = {**message, "headers": [*message.get("headers", ()), *lane_headers]}
            await send(message)

        relay = Relay(receive, send_with_lane, replayed)
        try:
            await self.app(scope, relay.receive, relay.send)
        finally:
            relay.release()
            scope.clear()

    def _step_up_scope(self, caller: Caller, body: bytes) -> str | None:
        """The scope a tools/call needs that this OAuth token lacks but its principal could grant.

        Such a call answers 403 insufficient_scope so the client can step up. A scope beyond the
        mandate or the lane is no step-up: that tool stays unknown, as every hidden tool is.
        """
        try:
            message = json.loads(body)
        except (ValueError, RecursionError):  # the SDK answers the parse error itself
            return None
        if not isinstance(message, dict) or message.get("method") != "tools/call":
            return None
        params = message.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        tool = self.manifest.tools.get(name) if isinstance(name, str) else None
        if tool is None or tool.needs is None or tool.needs in caller.token_scopes:
            return None
        return tool.needs if tool.needs in self.access.grantable(caller) else None

    async def _bad_request(self, send: Send, description: str) -> None:
        body = json.dumps({"error": "invalid_request", "error_description": description})
        await respond(send, 400, body.encode(), [])

    async def _challenge(self, send: Send) -> None:
        challenge = f'Bearer resource_metadata="{self.resource_metadata_url}"'
        body = json.dumps({"error": "unauthorized", "error_description": "this connection refuses the guest lane: send a credential"})
        await respond(send, 401, body.encode(), [(b"www-authenticate", challenge.encode())])

    async def _insufficient_scope(self, send: Send, needed: str) -> None:
        challenge = (
            f'Bearer error="insufficient_scope", scope="{needed}", '
            f'error_description="this call needs {needed}", resource_metadata="{self.resource_metadata_url}"'
        )
        body = json.dumps({"error": "insufficient_scope", "scope": needed})
        await respond(send, 403, body.encode(), [(b"www-authenticate", challenge.encode())])

    async def _reject(self, send: Send, reason: str) -> None:
        challenge = (
            f'Bearer error="invalid_token", error_description="{_quote(reason)}", '
            f'resource_metadata="{self.resource_metadata_url}"'
        )
        body = json.dumps({"error": "invalid_token", "error_description": reason}).encode()
        await respond(send, 401, body, [(b"www-authenticate", challenge.encode())])

    async def _unavailable(self, send: Send, description: str) -> None:
        requests_by("none", "unavailable").inc()
        body = json.dumps({"error": "temporarily_unavailable", "error_description": description})
        await respond(send, 503, body.encode(), [(b"retry-after", b"1")])

    async def _too_many(self, send: Send, lane: str, wait: float) -> None:
        RATE_LIMITED.labels(lane).inc()
        requests_by(lane, "rate_limited").inc()
        seconds = retry_after_header(wait)
        message = f"rate limit for the {lane} lane reached; retry after {seconds} second(s)"
        body = json.dumps({"error": "rate_limited", "error_description": message, "retry_after": int(seconds)})
        await respond(send, 429, body.encode(), [(b"retry-after", seconds.encode())])


async def respond(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    """A whole JSON answer, sent before the app ever sees the request."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _envelope_problem(body: bytes) -> tuple[int, str] | None:
    """(JSON-RPC error code, message) for a body that is not a well-formed JSON-RPC message, else None.
    Parsed as the SDK parses it (pydantic-core), but with NaN and Infinity refused: they are not JSON."""
    try:
        message = pydantic_core.from_json(body, allow_inf_nan=False)
    except ValueError:
        return -32700, "Parse error"
    for item in message if isinstance(message, list) else [message]:
        if not isinstance(item, dict) or item.get("jsonrpc") != "2.0":
            return -32600, "Invalid Request: not a JSON-RPC 2.0 message"
        if "id" in item and (isinstance(item["id"], bool) or not isinstance(item["id"], (str, int))):
            return -32600, "Invalid Request: an id is a string or an integer"
        if "method" in item and not isinstance(item["method"], str):
            return -32600, "Invalid Request: a method is a string"
    return None


@functools.cache
def _lane_headers(lane: str) -> tuple[tuple[bytes, bytes], ...]:
    """The headers that tell a client its lane (and a guest why)."""
    if lane == "guest":
        return ((b"parley-lane", b"guest"),
                (b"parley-lane-reason", b"no credential sent; send Authorization: Bearer <token>"))
    return ((b"parley-lane", lane.encode()),)


def _session_of(message: Message) -> str | None:
    for name, value in message.get("headers", []):
        if name.lower() == b"mcp-session-id":
            return value.decode("latin-1")
    return None


_QUERY_CREDENTIALS = ("access_token", "token", "bearer", "authorization")


def _query_of(scope: Scope) -> dict[str, list[str]]:
    """The query string's parameters, blank ones kept; most requests have none."""
    raw = scope.get("query_string")
    return parse_qs(raw.decode("latin-1"), keep_blank_values=True) if raw else {}


MAX_MCP_BODY = 4 * 1024 * 1024


async def _read_body(receive: Receive) -> bytes | None:
    """The whole request body, or None when it is larger than any MCP message should be."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_MCP_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks)

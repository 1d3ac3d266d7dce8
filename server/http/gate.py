"""The HTTP gate in front of /mcp: identity and budget for every request, before the SDK sees it.

The SDK's bearer middleware answers the same 401 to a missing and a failing credential, and
letting anonymous requests past it makes a bad token fall silently into the guest lane. This
gate keeps the three outcomes apart: no credential → guest (said in a header), a credential that
verifies → its lane, a credential that fails → 401 with the reason and `resource_metadata`.

The path, one module a step: the request read once into its `RequestState` (`reading`), identity
and budget (`admission`), lane and scopes (`step_up`), the gate's own answers (`replies`); then the
MCP app, which gets the same state in its scope (`request_state.handed_on`; handlers read it from the
SDK's request context, `request_state.caller_of`), and the chokepoint.
"""

from __future__ import annotations

import functools
import logging

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.access import Access, Caller, Lane
from server.chokepoint.audit import AuditTrail
from server.http import replies
from server.http.admission import Admission, Admitter
from server.http.ratelimit import Budget
from server.http.reading import Unreadable, envelope_problem, read_body, read_request
from server.http.relay import Relay
from server.http.request_state import RequestState, handed_on
from server.http.session_owners import SessionOwners
from server.http.step_up import step_up_scope
from server.identity.credentials import CredentialKind, CredentialRejected
from server.manifest.schema import Manifest
from server.metrics import STATEMENT_SOURCE, requests_by
from server.store.database import StoreUnavailable

log = logging.getLogger("parley.gate")


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
        self.admitter = Admitter(access, guest_limiter, token_limiter)
        # A store across the network (PostgreSQL): resolving a credential and spending a budget wait
        # on it, so admission runs in a worker thread, never on the event loop.
        self.offload = offload
        self.sessions = SessionOwners()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            state = read_request(scope)
        except Unreadable as exc:
            await replies.bad_request(send, str(exc))
            return
        try:
            # a stream may stay open for hours: its writes are at once
            if scope["method"] != "POST":
                await self._serve(state, scope, receive, send)
                return
            # A message answers first: what it leaves to write (its calls' audit rows, its token's
            # last use) is written once the answer has left, before the request ends.
            held = state.held = self.audit.hold()  # handed to its calls with the state
            source = STATEMENT_SOURCE.set("request")
            last_uses = state.last_uses = {}  # the admission puts its token's last use here
            try:
                await self._serve(state, scope, receive, send)
            finally:
                STATEMENT_SOURCE.reset(source)  # writes after the answer are background
                await self.audit.write_held(held)
                if last_uses:
                    await self._write_last_use(last_uses)
        finally:
            state.release()

    async def _write_last_use(self, stamps: dict[str, str]) -> None:
        try:
            if self.offload:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(self.access.resolver.write_last_use, stamps)
            else:
                self.access.resolver.write_last_use(stamps)
        except Exception:  # the answer has left: nobody to tell but the log
            log.exception("%d token last use(s) not written", len(stamps))

    async def _admit(self, state: RequestState) -> Admission:
        """Identity and budget, in a worker thread when they may wait. Two paths, on purpose: a
        request whose budget key is known before its caller is (a remembered token's, a guest's, on
        PostgreSQL) goes in the statement sent with the requests beside it, from the loop
        (`admit_together`); any other (a token not yet resolved, whose failure spends its address's
        guest budget instead; the store known down, which only the pooled path tries again; SQLite)
        takes `admit`. Sending all through `admit` measured 0.30 → 1.08 round trips and 287 → 630
        µs of worker CPU a whoami (`scripts/bench --database postgresql --workers 2`)."""
        authorization = state.authorization
        remembered = self.admitter.remembered(state)
        if remembered is not None or self.admitter.guest_in_one(state):
            admission = await self.admitter.admit_together(state, remembered)
            if admission is not None:
                return admission
        if self.offload or (authorization is not None and authorization.count(".") >= 2):
            return await anyio.to_thread.run_sync(self.admitter.admit, state, remembered)
        return self.admitter.admit(state)

    async def _serve(self, state: RequestState, scope: Scope, receive: Receive, send: Send) -> None:
        caller = await self._admitted(state, send)
        if caller is None:
            return  # refused, and the reply says why
        session = state.session
        state.caller = caller
        if scope["method"] == "POST" and (
            caller.credential == CredentialKind.OAUTH or session is not None
        ):
            if not await self._body_accepted(state, caller, receive, send):
                return
        requests_by(caller.lane, "admitted").inc()
        await self._pass_on(state, caller, scope, receive, send)

    async def _admitted(self, state: RequestState, send: Send) -> Caller | None:
        """The request's caller, or None once the refusal is sent: a rejected credential, a guest
        where the connection refuses one, a spent budget, or a session that is someone else's."""
        try:
            caller, rejected, wait = await self._admit(state)
        except StoreUnavailable as exc:
            await replies.unavailable(send, str(exc))
            return None
        if rejected is not None or caller is None:
            rejected = rejected or CredentialRejected("no caller")  # fail closed
            log.warning("rejected credential from %s: %s", state.address, rejected.reason)
            if wait is not None:
                await replies.too_many(send, Lane.GUEST, wait)
                return None
            await replies.reject(send, rejected.reason, self.resource_metadata_url)
            return None
        if caller.lane == Lane.GUEST and state.refuses_guest:
            # The connection asked never to be a guest (?guest=no): a missing credential is a 401,
            # which is also what starts an MCP client's OAuth discovery.
            await replies.challenge(send, self.resource_metadata_url)
            return None
        if wait is not None:
            await replies.too_many(send, caller.lane, wait)
            return None
        session = state.session
        if session is not None and not self.sessions.admits(session, caller):
            # A session belongs to the principal and agent that first used it with a credential:
            # anyone else is told it does not exist, as the SDK's own auth answers.
            await replies.json_rpc_error(send, 404, -32600, "Session not found")
            return None
        return caller

    async def _body_accepted(
        self, state: RequestState, caller: Caller, receive: Receive, send: Send
    ) -> bool:
        """A POST's body read here (an OAuth call or a session's message): within its size, a
        well-formed envelope for a session, and within the scopes an OAuth token holds. False once
        the refusal is sent."""
        if not await read_body(state, receive):
            await replies.too_large(send)
            return False
        if state.session is not None:
            # The SDK's session transport acknowledges some malformed messages with 202: answer
            # them here.
            problem = envelope_problem(state)
            if problem is not None:
                await replies.json_rpc_error(send, 400, *problem)
                return False
        if caller.credential == CredentialKind.OAUTH:
            missing = step_up_scope(self.manifest, self.access, caller, state)
            if missing is not None:
                await replies.insufficient_scope(send, missing, self.resource_metadata_url)
                return False
        return True

    async def _pass_on(
        self, state: RequestState, caller: Caller, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """The admitted request to the MCP app, every response telling the client its lane."""
        session = state.session
        lane_headers = _lane_headers(caller.lane)

        async def send_with_lane(message: Message) -> None:
            if message["type"] == "http.response.start":
                if session is None:  # a session opened with a credential is bound to it now
                    opened = _session_of(message)
                    if opened is not None:
                        self.sessions.admits(opened, caller)
                message = {**message, "headers": [*message.get("headers", ()), *lane_headers]}
            await send(message)

        # The MCP app gets its own copy of the scope, and receive/send through a relay let go of
        # when the request ends (`server.http.relay`); a body the gate read is handed on as if never
        # read.
        scope = handed_on(scope, state)
        relay = Relay(receive, send_with_lane, state.body)
        try:
            await self.app(scope, relay.receive, relay.send)
        finally:
            relay.release()
            scope.clear()


@functools.cache
def _lane_headers(lane: str) -> tuple[tuple[bytes, bytes], ...]:
    """The headers that tell a client its lane (and a guest why)."""
    if lane == Lane.GUEST:
        return (
            (b"parley-lane", b"guest"),
            (b"parley-lane-reason", b"no credential sent; send Authorization: Bearer <token>"),
        )
    return ((b"parley-lane", lane.encode()),)


def _session_of(message: Message) -> str | None:
    headers: list[tuple[bytes, bytes]] = message.get("headers", [])
    for name, value in headers:
        if name.lower() == b"mcp-session-id":
            return value.decode("latin-1")
    return None

"""Shares of the handshake-era session table (PARLEY_MAX_SESSIONS), so no lane can lock another out.

10,100 guest `initialize` calls filled the table and members got 503. Guests together may hold at most
half of it, and one guest address a small slice of that; applicants at most a quarter; one principal at
most PER_PRINCIPAL. So a quarter of the table stays reserved for members, and a member with a valid
token always gets a session unless that member alone holds PER_PRINCIPAL of them.

A slot is taken when the opening request is admitted (before the SDK answers), so concurrent openers
cannot overshoot; it is kept if the answer opened a session and given back otherwise. Sessions end in
the SDK (DELETE, idle timeout, crash); `is_open` asks it, and ended sessions are forgotten when a share
looks full.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.access import Caller, Lane
from server.http.replies import respond
from server.http.request_state import state_in
from server.metrics import requests_by

GUEST_SHARE = 0.5
APPLICANT_SHARE = 0.25
PER_PRINCIPAL = 64


@dataclass(frozen=True)
class Slot:
    keys: tuple[str, ...]  # the shares this session counts against


class SessionQuota:
    def __init__(self, capacity: int, is_open: Callable[[str], bool]):
        self.is_open = is_open
        guests = max(1, int(capacity * GUEST_SHARE))
        self.limits = {
            "lane:guest": guests,
            "lane:applicant": max(1, int(capacity * APPLICANT_SHARE)),
            "address": max(1, min(64, guests // 8)),  # one guest address
            "principal": PER_PRINCIPAL,
        }
        self.counts: Counter[str] = Counter()
        self.sessions: dict[str, Slot] = {}

    def _keys(self, caller: Caller, address: str) -> tuple[str, ...]:
        if caller.principal_id is None:
            return ("lane:guest", f"address:{address}")
        keys = (f"principal:{caller.principal_id}",)
        return ("lane:applicant", *keys) if caller.lane == Lane.APPLICANT else keys

    def _limit(self, key: str) -> int:
        return self.limits.get(key) or self.limits[key.split(":", 1)[0]]

    def _full(self, keys: tuple[str, ...]) -> str | None:
        return next((key for key in keys if self.counts[key] >= self._limit(key)), None)

    def _forget_ended(self) -> None:
        for session in [session for session in self.sessions if not self.is_open(session)]:
            self.release(self.sessions.pop(session))

    def take(self, caller: Caller, address: str) -> Slot | str:
        """A slot for a session this caller may open, or which share is full ("lane:guest", "address",
        "lane:applicant" or "principal")."""
        keys = self._keys(caller, address)
        if self._full(keys) is not None:
            self._forget_ended()
        full = self._full(keys)
        if full is not None:
            return full if full.startswith("lane:") else full.split(":", 1)[0]
        self.counts.update(keys)
        return Slot(keys)

    def opened(self, session: str, slot: Slot) -> None:
        self.sessions[session] = slot

    def release(self, slot: Slot) -> None:
        self.counts.subtract(slot.keys)
        for key in slot.keys:
            if self.counts[key] <= 0:
                del self.counts[key]  # one entry per address ever seen would grow without end


def full_answer(share: str) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
    """No new session: this address or principal holds its share (429), or its lane does (503)."""
    whose = {
        "address": "this address's guest sessions",
        "principal": "this principal's sessions",
        "lane:guest": "the guest lane's sessions",
        "lane:applicant": "the applicant lane's sessions",
    }[share]
    message = (
        f"{whose} are at their limit; reuse an open session, end one (DELETE /mcp) or retry later"
    )
    body = json.dumps({"error": "too_many_sessions", "error_description": message}).encode()
    return (429 if share in ("address", "principal") else 503), body, [(b"retry-after", b"30")]


class SessionShares:
    """ASGI, between the gate (which put the caller in the scope) and the SDK's session manager: a
    request that would open a session takes a slot first, or is refused with the share that is full."""

    def __init__(self, app: ASGIApp, quota: SessionQuota):
        self.app = app
        self.quota = quota

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = state_in(scope)
        caller = state.caller if state is not None else None
        headers = {name.lower(): value for name, value in scope["headers"]}
        version = headers.get(b"mcp-protocol-version")
        # only a handshake-era POST without a session may open one (a 2026-07-28 request never does)
        if (
            scope["method"] != "POST"
            or caller is None
            or b"mcp-session-id" in headers
            or (
                version is not None and version.decode("latin-1") not in HANDSHAKE_PROTOCOL_VERSIONS
            )
        ):
            await self.app(scope, receive, send)
            return
        address = (scope.get("client") or ("unknown", 0))[0]
        slot = self.quota.take(caller, address)
        if isinstance(slot, str):
            requests_by(caller.lane, "sessions_full").inc()
            await respond(send, *full_answer(slot))
            return
        kept = False

        async def watch(message: Message) -> None:
            nonlocal kept
            if message["type"] == "http.response.start" and not kept:
                opened = next(
                    (
                        value.decode("latin-1")
                        for name, value in message.get("headers", ())
                        if name.lower() == b"mcp-session-id"
                    ),
                    None,
                )
                if opened is not None:
                    self.quota.opened(opened, slot)
                    kept = True
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            if not kept:
                self.quota.release(slot)  # this request opened no session

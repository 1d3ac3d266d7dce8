"""Tell live sessions when their tool list changes, whichever process changed the database.

Handshake-era sessions get `notifications/tools/list_changed` on their standalone stream;
2026-07-28 clients get it on their `subscriptions/listen` stream. A watcher polls the store's
revision counter (bumped by triggers), so a mandate narrowed from the CLI or the console reaches
open sessions without waiting for their next request; on PostgreSQL the change feed nudges the
watcher the moment any process commits. The SDK keeps no registry of sessions,
so this module keeps its own, weakly, and only token digests, never tokens.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import anyio
import mcp_types as types
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourcesListChanged,
    ResourceUpdated,
    ToolsListChanged,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from server.access import Access, Caller
from server.identity.credentials import CredentialRejected
from server.store.database import StoreUnavailable
from server.transport import sdk

log = logging.getLogger("parley.notify")


INBOX_URI = "parley://inbox"


@dataclass
class _Watch:
    caller: Caller  # what the session last presented, to re-resolve as its next request would
    tools: tuple[str, ...]
    subscribed: set[str] | None = None  # resource URIs a handshake-era session subscribed to


def connection_of(ctx: ServerRequestContext) -> Connection | None:
    """The long-lived connection behind a request's per-request session.

    The SDK keeps it private (`server.transport.sdk.session_connection`);
    tests/http/test_e2e_live_changes.py and tests/transport/ fail if an SDK upgrade moves it.
    """
    return sdk.session_connection(ctx.session)


class LiveSessions:
    def __init__(
        self,
        access: Access,
        revision: Callable[[], int],
        caller_of: Callable[[ServerRequestContext], Caller],
        poll_seconds: float = 0.25,
    ):
        self.access = access
        self.revision = revision
        self.caller_of = caller_of
        self.poll_seconds = poll_seconds
        self._sessions: weakref.WeakKeyDictionary[Connection, _Watch] = weakref.WeakKeyDictionary()
        self._listeners: dict[int, tuple[_Watch, InMemorySubscriptionBus]] = {}
        self._wake: anyio.Event | None = None

    def nudge(self) -> None:
        """Something changed (the change feed said so): sweep now rather than at the next poll.
        Call on the event loop."""
        if self._wake is not None:
            self._wake.set()

    def current_tools(self, caller: Caller) -> tuple[str, ...]:
        try:
            return self.access.again(caller).tools
        except CredentialRejected:
            return ()

    async def seen(self, ctx: ServerRequestContext, caller: Caller) -> None:
        """Track a handshake-era session; if its tools moved since its last request, say so now."""
        if ctx.protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS:
            return
        connection = connection_of(ctx)
        if connection is None:
            return
        watch = self._sessions.get(connection)
        if watch is None:
            self._sessions[connection] = _Watch(caller, caller.tools)
            return
        changed = watch.tools != caller.tools
        if changed or watch.caller.identity is not caller.identity:
            # the resolver hands out one identity per credential and revision: the same one means the
            # same caller, and keeping the first spares a new object per request that outlives it
            watch.caller, watch.tools = caller, caller.tools
        if changed and ctx.method != "tools/list":
            await self._send_legacy(connection)

    def subscribe(
        self, ctx: ServerRequestContext, caller: Caller, uri: str, on: bool = True
    ) -> None:
        """resources/subscribe and unsubscribe, for handshake-era sessions."""
        connection = connection_of(ctx)
        if connection is None:
            return
        watch = self._sessions.setdefault(connection, _Watch(caller, caller.tools))
        watch.subscribed = watch.subscribed or set()
        (watch.subscribed.add if on else watch.subscribed.discard)(uri)

    async def inbox_changed(self, principal_id: int | None) -> int:
        """A decision reached this principal's inbox (None: perhaps any inbox, after the change feed
        lost announcements): tell their subscribed sessions. Returns how many."""
        told = 0
        for connection, watch in list(self._sessions.items()):
            if principal_id in (None, watch.caller.principal_id) and INBOX_URI in (
                watch.subscribed or ()
            ):
                try:
                    await connection.send_resource_updated(INBOX_URI)
                    told += 1
                except Exception:
                    self._sessions.pop(connection, None)
        for watch, bus in list(self._listeners.values()):
            if principal_id in (None, watch.caller.principal_id):
                await bus.publish(ResourceUpdated(INBOX_URI))
                told += 1
        return told

    async def listen(
        self, ctx: ServerRequestContext, params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        """Serve one `subscriptions/listen` stream bound to the credential that opened it."""
        caller = self.caller_of(ctx)
        bus = InMemorySubscriptionBus()
        slot = id(bus)
        self._listeners[slot] = (_Watch(caller, caller.tools), bus)
        try:
            return await ListenHandler(bus)(ctx, params)
        finally:
            self._listeners.pop(slot, None)

    async def _send_legacy(self, connection: Connection) -> None:
        try:
            await connection.send_tool_list_changed()
            await (
                connection.send_resource_list_changed()
            )  # the persona, and so its knowledge, moved too
        except Exception:  # a closed connection: forget it
            self._sessions.pop(connection, None)

    async def sweep(self) -> int:
        """Recompute every live session's tools; notify those whose list changed. Returns how many."""
        sessions, listeners = list(self._sessions.items()), list(self._listeners.values())
        callers = [watch.caller for _, watch in sessions] + [watch.caller for watch, _ in listeners]
        # every caller resolved again in one worker-thread pass: the store may be across the network
        now_seeing = iter(
            await anyio.to_thread.run_sync(lambda: [self.current_tools(c) for c in callers])
        )
        notified = 0
        for connection, watch in sessions:
            tools = next(now_seeing)
            if tools != watch.tools:
                watch.tools = tools
                await self._send_legacy(connection)
                notified += 1
        for watch, bus in listeners:
            tools = next(now_seeing)
            if tools != watch.tools:
                watch.tools = tools
                await bus.publish(ToolsListChanged())
                await bus.publish(ResourcesListChanged())
                notified += 1
        return notified

    async def watch(self) -> None:
        """Poll the store's revision counter (or wake when nudged) and sweep on every change, until cancelled.

        The first revision is read like every later one: a process that starts while the store is
        down waits for it to answer instead of ending its task (and with it the process's lifespan)."""
        last: int | None = None
        while True:
            self._wake = anyio.Event()
            if last is not None:
                with anyio.move_on_after(self.poll_seconds):
                    await self._wake.wait()
            try:
                current = await anyio.to_thread.run_sync(self.revision)
                if last is None:
                    last = current
                elif current != last:
                    last = current
                    count = await self.sweep()
                    if count:
                        log.info("tool list changed for %d live session(s)", count)
            except StoreUnavailable:
                if last is None:
                    await anyio.sleep(self.poll_seconds)
                continue  # the store logs its outage once; the next poll tries again
            except Exception:
                log.exception("live-session sweep failed; retrying")

"""The audit log: every tools/call, with who and how it ended, and never what was sent.

Argument values and tokens never reach this table; the outcome is a fixed word, and a tool name
the caller made up is stored only as safe, bounded text.

A request that came through the HTTP gate gets its answer first: the gate opens a hold for it
(`AuditTrail.hold`), which travels on the request's state to the calls it carries (`Chokepoint.call`'s
`held`), keeps the rows they record, and is let go of the moment the answer has been handed to the
connection. While the server runs, its audit writer (`AuditTrail.run_writer`) writes what every
request let go of since its last write in one statement, so calls answered together under load
share one commit; without a writer the gate writes them itself, before the request ends. The
caller never waits on either. A row recorded with no hold (a call made in process), or after its
request already ended (a client that went away mid-call), is written at once.
"""

from __future__ import annotations

import json
import logging
import re
import time
from datetime import UTC, datetime
from typing import NamedTuple

import anyio

from server.access import Caller
from server.access.answers import answers_for
from server.chokepoint.outcomes import OUTCOMES
from server.store import audit as audit_rows
from server.store.audit import AuditEntry
from server.store.database import Database, StoreUnavailable, format_time

log = logging.getLogger("parley.audit")

NAME_LIMIT = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_.:-]")


def safe_name(name: str) -> str:
    """A caller-supplied tool name as printable, bounded text: no escape codes, no newlines."""
    cleaned = _UNSAFE.sub("?", name[:NAME_LIMIT])
    return cleaned + ("…" if len(name) > NAME_LIMIT else "")


class Call(NamedTuple):
    """What a call's row is made of, kept as it came until the row is written."""

    moment: float  # time.time() when the call ended
    caller: Caller
    tool: str
    outcome: str
    duration_ms: float
    rule: str | None
    trail: list[tuple[str, str, str]] | None  # the rules and context sources on the way, by name


def path(call: Call) -> str:
    """The path of the decision, as JSON for Investigate: the caller's scopes, the mandate's state and
    version, each context source and rule by name with what happened. Names and verdicts only: never a
    call's value, an attribute, or a credential. A call that met no rule has its caller's path, kept
    with the caller (it is the same for every such call)."""
    if not call.trail:
        answers = answers_for(call.caller)
        kept = answers.audit_path
        if kept is None:
            kept = answers.audit_path = _path(call.caller, [])
        return kept
    return _path(call.caller, call.trail)


def _path(caller: Caller, steps: list[tuple[str, str, str]]) -> str:
    mandate = caller.mandate
    version = (
        mandate.body.version
        if mandate is not None and mandate.valid and mandate.body is not None
        else None
    )
    return json.dumps(
        {
            "scopes": sorted(caller.scopes),
            "credential": caller.credential,
            "mandate": [mandate.state if mandate is not None else "none", version],
            "steps": steps,
        },
        separators=(",", ":"),
    )


def row(call: Call) -> tuple[object, ...]:
    """The call's row, in `audit_rows.COLUMNS` order: the binding and the rule's name, never the call's
    values or attributes."""
    caller, name = call.caller, safe_name(call.tool)
    persona = (
        caller.entry_persona or None
    )  # the binding: persona · parley · tool, kept as its parts
    return (
        format_time(datetime.fromtimestamp(call.moment, UTC)),
        caller.lane,
        caller.principal,
        caller.agent,
        name,
        call.outcome,
        round(call.duration_ms, 3),
        persona,
        "parley" if persona else None,
        call.rule,
        path(call),
    )


def _insert(db: Database, calls: list[Call]) -> None:
    audit_rows.insert(db, [row(call) for call in calls])


def tail(db: Database, limit: int = 20, principal: str | None = None) -> list[AuditEntry]:
    """The newest rows, oldest first."""
    return audit_rows.tail(db, limit, principal)


class Held:
    """The rows one request's calls recorded, until its answer has left (kept on the event loop).
    Made by the gate for its request and handed to each of that request's calls: a call records
    into the hold of the request that carried it, and into no other."""

    __slots__ = ("open", "rows")

    def __init__(self) -> None:
        self.rows: list[Call] = []
        self.open = True


QUEUE_LIMIT = 10_000  # rows let go of and not yet written: beyond this a request writes its own


class AuditTrail:
    """Where the chokepoint's rows go: held for after the request's answer, or written now."""

    def __init__(self, db: Database, offload: bool):
        self.db = db
        self.offload = offload  # a store across the network: writes wait in a worker thread
        self.waiting = 0  # rows held and not yet written: a reader beside the server waits for 0
        self._queue: list[Call] = []  # let go of by answered requests, for the writer
        self._wake: anyio.Event | None = (
            None  # set when there is something to write; None: no writer runs
        )

    async def run_writer(self) -> None:
        """Write what answered requests let go of, all of it at each turn (one statement for the
        rows answered together), until cancelled; then what is left, and from then on each request
        writes its own. Audit rows are written here, in their own statement, never in another
        request's."""
        self._wake = anyio.Event()
        try:
            while True:
                await self._wake.wait()
                self._wake = anyio.Event()
                await self._write_queued()
        finally:
            self._wake = None
            with anyio.CancelScope(shield=True):
                await self._write_queued()

    async def _write_queued(self) -> None:
        calls, self._queue = self._queue, []
        await self._write_counted(calls)

    async def _write_counted(self, calls: list[Call]) -> None:
        if not calls:
            return
        try:
            await self._write(calls)
        except Exception:  # the answer has left: nobody to tell but the log
            log.exception("%d audit row(s) not written", len(calls))
        finally:
            self.waiting -= len(calls)

    def hold(self) -> Held:
        """A request's hold: from here until `write_held`, the calls it is handed to keep their rows
        instead of writing them."""
        return Held()

    async def write_held(self, held: Held) -> None:
        """After the answer has left: hand what the request's calls recorded to the writer (or write it,
        when none runs); calls recorded into it later write at once."""
        held.open = False
        calls, held.rows = held.rows, []
        if calls and self._wake is not None and len(self._queue) < QUEUE_LIMIT:
            self._queue.extend(calls)  # still counted as waiting until the writer has written them
            self._wake.set()
            return
        await self._write_counted(calls)

    async def record(
        self,
        caller: Caller,
        tool: str,
        outcome: str,
        duration_ms: float,
        rule: str | None = None,
        trail: list[tuple[str, str, str]] | None = None,
        held: Held | None = None,
    ) -> None:
        """The call's row, kept in `held` (its request's hold) while that is open, else written now."""
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown audit outcome {outcome!r}")
        entry = Call(time.time(), caller, tool, outcome, duration_ms, rule, trail)
        if held is not None and held.open:
            held.rows.append(entry)
            self.waiting += 1
            return
        await self._write([entry])

    async def _write(self, calls: list[Call]) -> None:
        try:
            if self.offload:
                with anyio.CancelScope(shield=True):  # a cancelled request is still audited
                    await anyio.to_thread.run_sync(_insert, self.db, calls)
            else:
                _insert(self.db, calls)
        except StoreUnavailable:
            if self.db.audit_unwritten(len(calls)):
                return  # counted into the outage's recovery line: one line an outage, not one a call
            for call in calls:
                log.error(
                    "audit row of a %s call to %s not written: the store is unavailable",
                    call.caller.lane,
                    safe_name(call.tool),
                )

"""Asking a member's answering agent; what it cannot settle goes to the member's queue (`queue`).

This side holds the store: it verifies the member's mandate, hands the answering agent only the
approved notes that mandate reveals to this asker (each with the questions the member confirmed it
answers: its examples ride with it, so a note the asker may not see never brings them), composes the
answer from the notes the agent chose (`answering.grounding`: the notes' own words, nothing the agent
wrote), records the thread, and files an escalation in the member's queue, with the notes the member
should look at.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TypeVar, TypeVarTuple

import anyio

from server.answering import Answer, Note, ScopedRequest, Selection, Terms
from server.answering import answer as deterministic_answer
from server.answering.contract import MAX_EXAMPLES
from server.answering.grounding import Approved, Grounded, compose, escalation
from server.asking.coverage import reveals
from server.asking.errors import AskError
from server.asking.limits import AskLimits as AskLimits
from server.asking.limits import Busy as Busy  # re-exported: where callers found it before
from server.asking.limits import InFlight
from server.asking.members import Members
from server.identity import mandates
from server.identity.mandates import MandateBody
from server.keys.mandate import SigningKey
from server.manifest.schema import Manifest
from server.store import asking as rows
from server.store import examples as example_rows
from server.store import records
from server.store.database import Database, now, write
from server.store.principals import PrincipalStatus

log = logging.getLogger("parley.asking")

# An answerer chooses notes; a sync one may block (run it in a thread), an async one only awaits.
Answerer = Callable[[ScopedRequest, Terms, list[Note]], Selection]
AsyncAnswerer = Callable[[ScopedRequest, Terms, list[Note]], Awaitable[Selection]]
T = TypeVar("T")
Steps = TypeVarTuple("Steps")


@dataclass(frozen=True)
class Asked:
    answer: Answer
    thread_id: int
    quotable: bool
    escalation_id: int | None


@dataclass(frozen=True)
class Prepared:
    """Everything an ask needs from the store, read before the answerer is asked (no store
    connection is held while it thinks)."""

    asker_id: int
    asker_agent: str | None
    member_id: int
    request: ScopedRequest
    terms: Terms | None  # None: the member's mandate does not verify, so the question escalates
    handed: Mapping[str, Approved]  # read-only: kept per revision and shared by asks (`Members`)
    thread_id: int | None
    idempotency_key: str | None
    fingerprint: str


def revealable(
    db: Database, member_id: int, body: MandateBody, asker_is_member: bool
) -> dict[str, Approved]:
    """The approved notes this mandate reveals to this asker, by id: all an answerer is ever handed.
    Each carries its examples, newest first: they are looked up by the ids of the notes revealed, so
    only a revealed note brings any."""
    shown = [
        row
        for row in records.notes_of(db, member_id, "approved")
        if reveals(body.topics, body.reveal, row.topic, row.visibility, asker_is_member)
    ]
    examples = example_rows.questions_by_note(db, member_id, MAX_EXAMPLES) if shown else {}
    return {
        str(row.id): Approved(
            Note(
                id=str(row.id),
                topic=row.topic,
                text=row.text,
                examples=tuple(examples.get(str(row.id), ())),
            ),
            date=str(row.updated_at)[:10],
            relay=bool(row.relay),
        )
        for row in shown
    }


def quotes_json(answer: Answer) -> str | None:
    """The notes an answer quotes, as the inbox keeps them beside its prose (None: it quotes none)."""
    return json.dumps([q.model_dump() for q in answer.quotes]) if answer.quotes else None


class Escalations:
    def __init__(
        self,
        db: Database,
        key: SigningKey,
        manifest: Manifest,
        answerer: Answerer = deterministic_answer,
        on_delivery: Callable[[int], None] | None = None,
        answer_async: AsyncAnswerer | None = None,
        limits: AskLimits | None = None,
    ):
        self.db = db
        self.key = key
        self.manifest = manifest
        self.answerer = answerer
        self.answer_async = answer_async
        self.on_delivery = on_delivery or (lambda principal_id: None)
        self.in_flight = InFlight(limits or AskLimits())
        self.members = Members(db)  # who an ask names, and their mandate's row, per store revision
        # A store across the network (PostgreSQL) is waited on in a worker thread; the embedded one is
        # read and written on the loop, as the chokepoint runs every other tool's store work there.
        self.offload = db.over_network

    # --- asking ------------------------------------------------------------------------------

    async def ask(
        self,
        asker_id: int,
        asker_agent: str | None,
        asker_is_member: bool,
        member: str,
        question: str,
        language: str,
        thread_id: int | None = None,
        idempotency_key: str | None = None,
        revision: int | None = None,
    ) -> Asked:
        """Ask once. With an idempotency key, a retry (same key, same question) returns the first
        result and asks nothing; the same key with another question is refused. `revision`: the
        store's revision the asker was resolved at, read for this request (else read here).

        Three steps, so that nothing is held while the answerer thinks: read what the question needs
        (briefly: `_store`), wait for the answerer's selection (no thread, no store connection, no
        transaction), then record the thread and any escalation (briefly: `_store`)."""
        prepared = await self._store(
            self._prepare,
            asker_id,
            asker_agent,
            asker_is_member,
            member,
            question,
            language,
            thread_id,
            idempotency_key,
            revision,
        )
        if isinstance(prepared, Asked):
            return prepared
        if prepared.terms is None:
            grounded = escalation(
                prepared.request,
                Terms(principal=member, topics=(), quotable=False),
                "outside_mandate",
            )
        else:
            with self.in_flight.hold(asker_id, prepared.member_id):
                selection = await self._select(prepared.request, prepared.terms, prepared.handed)
            grounded = compose(prepared.request, prepared.terms, selection, prepared.handed)
        return await self._store(self._record, prepared, grounded)

    async def _store(self, step: Callable[[*Steps], T], *args: *Steps) -> T:
        """One short step against the store, which ends before it returns (no connection or transaction
        outlives it). PostgreSQL: in a worker thread, as the network may be slow. SQLite: on the loop,
        as the chokepoint runs every other tool's store work on the embedded store; two thread hops
        cost an ask more than the reads and the commit they would carry."""
        if self.offload:
            return await anyio.to_thread.run_sync(step, *args)
        return step(*args)

    async def _select(
        self, request: ScopedRequest, terms: Terms, handed: Mapping[str, Approved]
    ) -> Selection:
        notes = [approved.note for approved in handed.values()]
        if self.answer_async is not None:
            return await self.answer_async(request, terms, notes)
        return await anyio.to_thread.run_sync(self.answerer, request, terms, notes)

    def _earlier(self, asker_id: int, key: str, fingerprint: str) -> Asked | None:
        stored = rows.ask_request(self.db, asker_id, key)
        if stored is None:
            return None
        if stored.fingerprint != fingerprint:
            raise AskError(
                "this idempotency_key was already used for a different question; use a new key"
            )
        data = json.loads(stored.result)
        return Asked(
            Answer.model_validate(data["answer"]),
            data["thread_id"],
            data["quotable"],
            data["escalation_id"],
        )

    def _prepare(
        self,
        asker_id: int,
        asker_agent: str | None,
        asker_is_member: bool,
        member: str,
        question: str,
        language: str,
        thread_id: int | None,
        idempotency_key: str | None,
        revision: int | None = None,
    ) -> Prepared | Asked:
        fingerprint = hashlib.sha256(
            json.dumps([member, question, language, thread_id]).encode()
        ).hexdigest()
        if idempotency_key is not None:
            earlier = self._earlier(asker_id, idempotency_key, fingerprint)
            if earlier is not None:
                return earlier
        named = self.members.named(member, revision)
        if named is None or named.principal.status != PrincipalStatus.MEMBER:
            raise AskError(f"no member with handle '{member}'; search_directory lists members")
        target = named.principal
        if target.id == asker_id:
            raise AskError("you cannot ask your own answering agent; read list_briefing instead")
        if thread_id is not None:
            parties = rows.thread_parties(self.db, thread_id)
            if parties != (asker_id, target.id):
                raise AskError(
                    f"you have no thread {thread_id} with {member}; leave thread_id out to open one"
                )
        if language not in ("en", "pt-BR"):
            raise AskError("language must be en or pt-BR")
        status = mandates.check(self.key, target.id, *(named.mandate or (None, None, None)))
        request = ScopedRequest(question=question, asker=str(asker_id), language=language)  # type: ignore[arg-type]
        terms: Terms | None = None
        handed: Mapping[str, Approved] = {}
        if status.valid and status.body is not None:
            body = status.body
            terms, handed = named.handed(
                body,
                asker_is_member,
                lambda: (
                    Terms(
                        principal=target.handle,
                        topics=tuple(body.topics),
                        quotable=body.quotable,
                    ),
                    MappingProxyType(revealable(self.db, target.id, body, asker_is_member)),
                ),
            )
        return Prepared(
            asker_id,
            asker_agent,
            target.id,
            request,
            terms,
            handed,
            thread_id,
            idempotency_key,
            fingerprint,
        )

    def _record(self, prepared: Prepared, grounded: Grounded) -> Asked:
        answer, question, asker_id = grounded.answer, prepared.request.question, prepared.asker_id
        quotable = prepared.terms.quotable if prepared.terms is not None else False
        key, thread_id, stamp = prepared.idempotency_key, prepared.thread_id, now()
        with write(self.db):
            if key is not None:  # a retry that raced this one: the first result stands
                earlier = self._earlier(asker_id, key, prepared.fingerprint)
                if earlier is not None:
                    return earlier
            if thread_id is None:
                thread_id = rows.open_thread(
                    self.db, asker_id, prepared.member_id, question[:120], stamp
                )
            else:
                rows.touch_thread(self.db, thread_id, stamp)
            exchange: list[tuple[str, str, str, str | None]] = [
                ("question", question, "asked", None)
            ]
            if answer.findings:
                kind, outcome = (  # the inbox reads a decline "escalated" as an escalation
                    ("answer", "answered")
                    if answer.escalate is None and answer.refused is None
                    else ("decline", "escalated" if answer.escalate is not None else "declined")
                )
                exchange.append((kind, answer.findings, outcome, quotes_json(answer)))
            rows.add_exchange(self.db, thread_id, exchange, stamp)
            escalation_id = None
            if answer.escalate is not None:
                escalation_id = rows.file_escalation(
                    self.db,
                    principal_id=prepared.member_id,
                    asker_id=asker_id,
                    asker_agent=prepared.asker_agent,
                    thread_id=thread_id,
                    question=question,
                    language=prepared.request.language,
                    reason=answer.escalate,
                    stamp=stamp,
                    notes=list(grounded.attached),
                )
            asked = Asked(answer, thread_id, quotable, escalation_id)
            if key is not None:
                rows.remember_ask(
                    self.db,
                    asker_id,
                    key,
                    prepared.fingerprint,
                    json.dumps(
                        {
                            "answer": answer.model_dump(mode="json"),
                            "thread_id": thread_id,
                            "quotable": quotable,
                            "escalation_id": escalation_id,
                        }
                    ),
                    stamp,
                )
        return asked

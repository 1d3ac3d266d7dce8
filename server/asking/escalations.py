"""Asking a member's answering agent, and the decision queue for what it cannot settle.

This side holds the store: it verifies the member's mandate, hands the answering agent only the
notes that mandate reveals to this asker, checks what comes back, records the thread, and files
an escalation in the member's queue. The member answers, declines, or widens the mandate to cover
the topic; the outcome lands in the asker's inbox thread and live sessions hear of it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

from server.access import MEMBER
from server.answering import Answer, Note, ScopedRequest, Terms
from server.answering import answer as deterministic_answer
from server.answering.checks import check_output, screen_notes
from server.errors import Conflict, NotFound, ParleyError
from server.identity import mandates
from server.identity.mandates import MandateBody, SigningKey
from server.manifest.schema import Manifest
from server.store import asking as rows
from server.store import principals as principal_rows
from server.store import records
from server.store.database import Database, now, write

Answerer = Callable[[ScopedRequest, Terms, list[Note]], Answer]
TOPIC_LIMIT = 80


class AskError(ParleyError):
    """A question or decision that cannot be made as asked; the message says why."""


class NoSuchEscalation(AskError, NotFound):
    """No such escalation in this principal's queue (whether it exists elsewhere is not said)."""


class AlreadyDecided(AskError, Conflict):
    pass


@dataclass(frozen=True)
class Asked:
    answer: Answer
    thread_id: int
    quotable: bool
    escalation_id: int | None


def revealable(db: Database, member_id: int, body: MandateBody, asker_is_member: bool) -> tuple[list[Note], list[str]]:
    """(notes the mandate reveals to this asker, texts of the notes it withholds)."""
    reveal = set(body.reveal) - {"private"}
    if not asker_is_member:
        reveal.discard("members")
    allowed, withheld = [], []
    for row in records.notes_of(db, member_id):
        if row["visibility"] in reveal and row["topic"] in body.topics:
            allowed.append(Note(topic=row["topic"], text=row["text"]))
        else:
            withheld.append(row["text"])
    return allowed, withheld


class Escalations:
    def __init__(self, db: Database, key: SigningKey, manifest: Manifest, answerer: Answerer = deterministic_answer,
                 on_delivery: Callable[[int], None] | None = None):
        self.db = db
        self.key = key
        self.manifest = manifest
        self.answerer = answerer
        self.on_delivery = on_delivery or (lambda principal_id: None)

    # --- asking ------------------------------------------------------------------------------

    def ask(self, asker_id: int, asker_agent: str | None, asker_is_member: bool, member: str, question: str,
            language: str, thread_id: int | None = None, idempotency_key: str | None = None) -> Asked:
        """Ask once. With an idempotency key, a retry (same key, same question) returns the first
        result and asks nothing; the same key with another question is refused."""
        fingerprint = hashlib.sha256(json.dumps([member, question, language, thread_id]).encode()).hexdigest()
        if idempotency_key is not None:
            earlier = self._earlier(asker_id, idempotency_key, fingerprint)
            if earlier is not None:
                return earlier
        asked = self._ask(asker_id, asker_agent, asker_is_member, member, question, language, thread_id,
                          idempotency_key, fingerprint)
        return asked

    def _earlier(self, asker_id: int, key: str, fingerprint: str) -> Asked | None:
        stored = rows.ask_request(self.db, asker_id, key)
        if stored is None:
            return None
        if stored["fingerprint"] != fingerprint:
            raise AskError("this idempotency_key was already used for a different question; use a new key")
        data = json.loads(stored["result"])
        return Asked(Answer.model_validate(data["answer"]), data["thread_id"], data["quotable"], data["escalation_id"])

    def _ask(self, asker_id: int, asker_agent: str | None, asker_is_member: bool, member: str, question: str,
             language: str, thread_id: int | None, idempotency_key: str | None, fingerprint: str) -> Asked:
        target = principal_rows.by_handle(self.db, member)
        if target is None or target["status"] != "member":
            raise AskError(f"no member with handle '{member}'; search_directory lists members")
        if target["id"] == asker_id:
            raise AskError("you cannot ask your own answering agent; read list_briefing instead")
        if thread_id is not None:
            parties = rows.thread_parties(self.db, thread_id)
            if parties != (asker_id, target["id"]):
                raise AskError(f"you have no thread {thread_id} with {member}; leave thread_id out to open one")
        status = mandates.current(self.db, self.key, target["id"])
        if language not in ("en", "pt-BR"):
            raise AskError("language must be en or pt-BR")
        request = ScopedRequest(question=question, asker=str(asker_id), language=language)  # type: ignore[arg-type]
        if status.valid and status.body is not None:
            answer = self._answer(target["id"], target["handle"], status.body, request, asker_is_member)
            quotable = status.body.quotable
        else:
            answer = Answer(answered=False, scopedRequest=question, openQuestions=[question],
                            escalate="outside_mandate", findings=None)
            quotable = False
        stamp = now()
        with write(self.db):
            if idempotency_key is not None:  # a retry that raced this one: the first result stands
                earlier = self._earlier(asker_id, idempotency_key, fingerprint)
                if earlier is not None:
                    return earlier
            if thread_id is None:
                thread_id = rows.open_thread(self.db, asker_id, target["id"], question[:120], stamp)
            rows.add_message(self.db, thread_id, "question", question, stamp, "asked")
            if answer.findings:
                kind, outcome = (("answer", "answered") if answer.escalate is None and answer.refused is None else
                                 ("decline", "escalated" if answer.escalate is not None else "declined"))
                rows.add_message(self.db, thread_id, kind, answer.findings, stamp, outcome)
            escalation_id = None
            if answer.escalate is not None:
                escalation_id = rows.file_escalation(
                    self.db, principal_id=target["id"], asker_id=asker_id, asker_agent=asker_agent,
                    thread_id=thread_id, question=question, language=language, reason=answer.escalate, stamp=stamp)
            asked = Asked(answer, thread_id, quotable, escalation_id)
            if idempotency_key is not None:
                rows.remember_ask(self.db, asker_id, idempotency_key, fingerprint, json.dumps({
                    "answer": answer.model_dump(mode="json"), "thread_id": thread_id, "quotable": quotable,
                    "escalation_id": escalation_id}), stamp)
        return asked

    def _answer(self, member_id: int, handle: str, body: MandateBody, request: ScopedRequest,
                asker_is_member: bool) -> Answer:
        """The answering agent, handed only what this mandate reveals to this asker, its output checked."""
        notes, withheld = revealable(self.db, member_id, body, asker_is_member)
        screening = screen_notes(notes)  # instructions and links in notes are never relayed as the member's words
        terms = Terms(principal=handle, topics=tuple(body.topics), quotable=body.quotable)
        answer = self.answerer(request, terms, screening.notes)
        return check_output(answer, request.language, withheld, handle, screening.flagged)

    # --- the queue ---------------------------------------------------------------------------

    def queue(self, principal_id: int, status: str = "open") -> list[dict]:
        return rows.queue(self.db, principal_id, status)

    def open_count(self, principal_id: int) -> int:
        return rows.open_count(self.db, principal_id)

    def get(self, principal_id: int, escalation_id: int) -> dict:
        found = rows.escalation(self.db, principal_id, escalation_id)
        if found is None:
            raise NoSuchEscalation(f"there is no question {escalation_id} in your queue")
        return found

    def thread(self, thread_id: int) -> list[dict]:
        return rows.messages(self.db, thread_id)

    def decide(self, principal_id: int, escalation_id: int, action: str, text: str = "") -> dict:
        """answer (with the principal's own words), decline, or widen (add a topic and re-answer).

        A decision that cannot be made changes nothing: a widen whose new topic still answers
        nothing leaves the mandate as it was."""
        escalation = self.get(principal_id, escalation_id)
        if escalation["status"] != "open":
            raise AlreadyDecided(f"question {escalation_id} was already {escalation['status']}")
        text = text.strip()
        if action == "answer":
            if not text:
                raise AskError("write the answer you want delivered")
            delivered, status = text, "answered"
        elif action == "decline":
            delivered = text or ("Declined by the member." if escalation["language"] == "en" else "Recusado pelo membro.")
            status = "declined"
        elif action == "widen":
            delivered, status = self._widen(principal_id, escalation, text), "widened"
        else:
            raise AskError("the decision must be answer, decline or widen")
        stamp = now()
        with write(self.db):
            if not rows.decide(self.db, escalation_id, status, delivered, stamp):
                raise AlreadyDecided(f"question {escalation_id} was decided meanwhile")
            member = principal_rows.by_id(self.db, principal_id)
            rows.add_message(self.db, escalation["thread_id"], "decision", delivered, stamp, "decided",
                             member["handle"] if member else None)
            self.db.announce_inbox(escalation["asker_id"])  # every process hears of it when this commits
        self.on_delivery(escalation["asker_id"])
        return self.get(principal_id, escalation_id)

    def _widen(self, principal_id: int, escalation: dict, topic: str) -> str:
        """Answer under the mandate with one more topic; sign that mandate only if it answers."""
        topic = topic.strip().lower()
        if not topic or len(topic) > TOPIC_LIMIT:
            raise AskError(f"name the topic (1 to {TOPIC_LIMIT} characters) the mandate should now cover")
        if escalation["reason"] == "commitment":
            raise AskError("widening cannot help: this question asks for a commitment, which no mandate lets the "
                           "answering agent make; answer it in your own words or decline")
        status = mandates.current(self.db, self.key, principal_id)
        if not status.valid or status.body is None:
            raise AskError("your mandate is not valid; sign a new one before widening it")
        candidate = status.body.model_copy(update={"topics": sorted(set(status.body.topics) | {topic})})
        request = ScopedRequest(question=escalation["question"], asker=str(escalation["asker_id"]),
                                language=escalation["language"])
        answer = self._answer(principal_id, candidate.principal, candidate, request,
                              escalation["asker_status"] == MEMBER)
        if answer.escalate is not None or answer.refused is not None or not answer.findings:
            raise AskError(f"even with '{topic}' in the mandate, no note answers this; answer it in your own words "
                           "(your mandate was not changed)")
        mandates.amend(self.db, self.key, principal_id=principal_id, topics=list(candidate.topics),
                       known_scopes=frozenset(self.manifest.scopes), agent_scopes=self.manifest.agent_scopes)
        return answer.findings

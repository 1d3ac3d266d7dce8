"""The decision queue: questions a member's answering agent did not settle, and the member's decisions.

One code path for the console's Queue page and `parley queue`. A member settles a question by
pointing at the note that answers it, by answering in their own words (saved, if they like, as an
approved note of theirs), by declining, or by widening their mandate to a topic. Pointing at a note,
or saving the words as one, answers the asker with that note composed as any grounded answer
(`answering.grounding.compose`) and keeps the question as an example of the note: the member teaches
their agent by answering. A decision is final for its question and recorded with who made it (a
console session of the member's, or the command line), how and when.

Only a `Decider` decides, and nothing on an agent's path makes one: no tool reaches this module, and
a console decider must name a live console session of the member's own.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Literal

from server.access import MEMBER
from server.answering import Note, ScopedRequest, Selection, Terms
from server.answering.grounding import Approved, Grounded, compose
from server.asking import briefing
from server.asking.errors import AlreadyDecided, AskError, NoSuchEscalation
from server.asking.escalations import Escalations, quotes_json, revealable
from server.asking.reasons import why
from server.identity import mandates
from server.identity.mandates import MandateBody
from server.store import asking as rows
from server.store import examples as example_rows
from server.store import principals as principal_rows
from server.store import records
from server.store import sessions as session_rows
from server.store.asking import Escalation, Message
from server.store.database import Database, now, write
from server.store.records import BriefingNote

log = logging.getLogger("parley.asking.queue")

TOPIC_LIMIT = 80
TEXT_LIMIT = 4000
Action = Literal["answer", "note", "decline", "widen"]
# What a decision delivers: the words the asker reads, the status, the note that answered (it becomes
# an example of it), and the notes those words quote, as data beside them (JSON; None: none).
Outcome = tuple[str, str, int | None, str | None]
ACTIONS: tuple[Action, ...] = ("answer", "note", "decline", "widen")


@dataclass(frozen=True)
class Decider:
    """Who decides: the member in a console session of their own (its row), or the command line."""

    via: Literal["console", "cli"]
    session_id: int | None = None

    @property
    def recorded(self) -> str:
        return f"console session {self.session_id}" if self.via == "console" else "command line"


COMMAND_LINE = Decider("cli")


@dataclass(frozen=True)
class Decision:
    """What the member decided. `text`: answer: their words; decline: an optional reason; widen: the
    topic. `note_id`: note: the note that answers it. `save_topic`: answer: keep the words as an
    approved note of theirs on this topic (and the question as its example)."""

    action: Action
    text: str = ""
    note_id: int | None = None
    save_topic: str | None = None

    @classmethod
    def of(
        cls, action: str, text: str = "", note_id: int | None = None, save_topic: str | None = None
    ) -> Decision:
        """A decision from words a person gave (a form, a command line): an unknown action refused."""
        for known in ACTIONS:
            if action == known:
                return cls(known, text, note_id, save_topic)
        raise AskError("the decision must be answer, note, decline or widen")


@dataclass(frozen=True)
class Waiting:
    """An open question as its member sees it: the row, why it is here (worded now, from today's
    mandate and notes), and the candidate notes it came with that are still approved."""

    row: Escalation
    why: str
    candidates: list[BriefingNote]


def open_count(db: Database, principal_id: int) -> int:
    return rows.open_count(db, principal_id)


class Queue:
    def __init__(self, asking: Escalations):
        self.asking = asking
        self.db = asking.db

    # --- reading -----------------------------------------------------------------------------

    def listed(self, principal_id: int, status: str = "open") -> list[Escalation]:
        return rows.queue(self.db, principal_id, status)

    def waiting(self, principal_id: int, handle: str) -> list[Waiting]:
        """The open questions, oldest first, each with its reason and candidates as they stand now."""
        status = mandates.current(self.db, self.asking.key, principal_id)
        found = []
        for row in self.listed(principal_id):
            candidates = self.candidates(principal_id, row)
            found.append(Waiting(row, why(row, candidates, status, handle), candidates))
        return found

    def candidates(self, principal_id: int, row: Escalation) -> list[BriefingNote]:
        """The notes the answering agent attached (the ones it rated closest), still approved."""
        ids = [int(i) for i in json.loads(row.notes or "[]") if str(i).isdigit()]
        notes = (records.note_of(self.db, principal_id, note_id) for note_id in ids)
        return [note for note in notes if note is not None and note.status == "approved"]

    def get(self, principal_id: int, escalation_id: int) -> Escalation:
        found = rows.escalation(self.db, principal_id, escalation_id)
        if found is None:
            raise NoSuchEscalation(f"there is no question {escalation_id} in your queue")
        return found

    def thread(self, thread_id: int) -> list[Message]:
        return rows.messages(self.db, thread_id)

    # --- deciding ----------------------------------------------------------------------------

    def decide(
        self, principal_id: int, escalation_id: int, decision: Decision, decider: Decider
    ) -> Escalation:
        """Make one decision, final for its question. One that cannot be made changes nothing: no note
        saved, no example kept, the mandate as it was."""
        self._may_decide(principal_id, decider)
        escalation = self.get(principal_id, escalation_id)
        if escalation.status != "open":
            raise AlreadyDecided(f"question {escalation_id} was already {escalation.status}")
        widened = (
            self._widen(principal_id, escalation, decision.text)
            if decision.action == "widen"  # the answerer may be a slow model: before the unit
            else None
        )
        stamp = now()
        with write(self.db):
            delivered, status, note_id, quotes = widened or self._outcome(
                principal_id, escalation, decision
            )
            if not rows.decide(
                self.db,
                escalation_id,
                status,
                delivered,
                stamp,
                via=decider.via,
                session_id=decider.session_id,
                note_id=note_id,
            ):
                raise AlreadyDecided(f"question {escalation_id} was decided meanwhile")
            if note_id is not None and not example_rows.add(
                self.db,
                principal_id=principal_id,
                note_id=note_id,
                question=escalation.question,
                escalation_id=escalation_id,
                via=decider.via,
                session_id=decider.session_id,
                stamp=stamp,
            ):
                raise AskError(f"note {note_id} is not one of your approved notes")
            member = principal_rows.by_id(self.db, principal_id)
            rows.add_message(
                self.db,
                escalation.thread_id,
                # a decline the member wrote nothing for is told in Parley's words, not as theirs
                "decline"
                if decision.action == "decline" and not decision.text.strip()
                else "decision",
                delivered,
                stamp,
                "decided",
                member.handle if member else None,
                quotes,
            )
            self.db.announce_inbox(escalation.asker_id)  # every process hears of it at commit
        log.info(
            "question %s of principal %s %s (%s%s) by %s",
            escalation_id,
            principal_id,
            status,
            decision.action,
            f" with note {note_id}" if note_id is not None else "",
            decider.recorded,
        )
        self.asking.on_delivery(escalation.asker_id)
        return self.get(principal_id, escalation_id)

    def _may_decide(self, principal_id: int, decider: Decider) -> None:
        """Fail closed: a console decision needs a live console session of this member's own."""
        if decider.via == "cli" and decider.session_id is None:
            return
        if (
            decider.via == "console"
            and decider.session_id is not None
            and session_rows.live_owner(self.db, decider.session_id) == principal_id
        ):
            return
        raise AskError(
            "only the member decides their questions: signed in to their console, or at the command line"
        )

    def _outcome(self, principal_id: int, escalation: Escalation, decision: Decision) -> Outcome:
        """(what the asker reads, the status, the note that answered it, the notes it quotes as data),
        inside the decision's unit."""
        text = decision.text.strip()
        if len(text) > TEXT_LIMIT:
            raise AskError(f"keep it under {TEXT_LIMIT} characters")
        if decision.action == "decline":
            english = escalation.language == "en"
            declined = "Declined by the member." if english else "Recusado pelo membro."
            return text or declined, "declined", None, None
        if decision.action == "note":
            if decision.note_id is None:
                raise AskError("name the note that answers it")
            note = records.note_of(self.db, principal_id, decision.note_id)
            if note is None or note.status != "approved":
                raise AskError(f"note {decision.note_id} is not one of your approved notes")
            return self._quoted(principal_id, escalation, note)
        if not text:
            raise AskError("write the answer you want delivered")
        if decision.save_topic is None:
            return text, "answered", None, None
        topic = decision.save_topic.strip().lower()
        if not 1 <= len(topic) <= TOPIC_LIMIT:
            raise AskError(f"name the note's topic in 1 to {TOPIC_LIMIT} characters")
        # the smallest audience that holds this asker: members, or anyone who asks
        audience: briefing.Visibility = "members" if escalation.asker_status == MEMBER else "public"
        note = briefing.write_note(self.db, principal_id, topic, text, audience, agent=None)
        return self._quoted(principal_id, escalation, note)

    def _quoted(self, principal_id: int, escalation: Escalation, note: BriefingNote) -> Outcome:
        """The note the member chose, composed for the asker as any grounded answer. The member's
        choice, made reading the note beside the question, is their consent to relay it this once; who
        may hear the note still holds (a private note, or a members' note to an applicant, is refused)."""
        if note.visibility == "private" or (
            note.visibility == "members" and escalation.asker_status != MEMBER
        ):
            kept = (
                "you keep it for yourself" if note.visibility == "private" else "it is for members"
            )
            raise AskError(
                f"note {note.id} cannot go to @{escalation.asker}: {kept}; answer in your own words"
            )
        member = principal_rows.by_id(self.db, principal_id)
        status = mandates.current(self.db, self.asking.key, principal_id)
        body = status.body if status.valid else None
        terms = Terms(
            principal=member.handle if member else "",
            topics=tuple(body.topics) if body else (),
            quotable=bool(body and body.quotable),
        )
        request = ScopedRequest(
            question=escalation.question,
            asker=str(escalation.asker_id),
            language=escalation.language,
        )
        note_id = str(note.id)
        handed = {
            note_id: Approved(
                Note(id=note_id, topic=note.topic, text=note.text),
                date=str(note.updated_at)[:10],
                relay=True,
            )
        }
        grounded = compose(request, terms, Selection(notes=(note_id,)), handed)
        if grounded.answer.findings is None or grounded.quoted != (note_id,):
            raise AskError(f"note {note_id} could not be quoted; answer in your own words")
        return grounded.answer.findings, "answered", int(note_id), quotes_json(grounded.answer)

    def _widen(self, principal_id: int, escalation: Escalation, topic: str) -> Outcome:
        """Answer under the mandate with one more topic; sign that mandate only if it answers."""
        topic = topic.strip().lower()
        if not topic or len(topic) > TOPIC_LIMIT:
            raise AskError(
                f"name the topic (1 to {TOPIC_LIMIT} characters) the mandate should now cover"
            )
        if escalation.reason == "commitment":
            raise AskError(
                "widening cannot help: this question asks for a commitment, which no mandate lets the "
                "answering agent make; answer it in your own words or decline"
            )
        key, manifest = self.asking.key, self.asking.manifest
        status = mandates.current(self.db, key, principal_id)
        if not status.valid or status.body is None:
            raise AskError("your mandate is not valid; sign a new one before widening it")
        candidate = status.body.model_copy(
            update={"topics": sorted(set(status.body.topics) | {topic})}
        )
        request = ScopedRequest(
            question=escalation.question,
            asker=str(escalation.asker_id),
            language=escalation.language,
        )
        answer = self._answer(
            principal_id, candidate, request, escalation.asker_status == MEMBER
        ).answer
        if answer.escalate is not None or answer.refused is not None or not answer.findings:
            raise AskError(
                f"even with '{topic}' in the mandate, no note answers this; answer it in your own words "
                "(your mandate was not changed)"
            )
        mandates.amend(
            self.db,
            key,
            principal_id=principal_id,
            topics=list(candidate.topics),
            known_scopes=frozenset(manifest.scopes),
            agent_scopes=manifest.agent_scopes,
        )
        return answer.findings, "widened", None, quotes_json(answer)

    def _answer(
        self, member_id: int, body: MandateBody, request: ScopedRequest, asker_is_member: bool
    ) -> Grounded:
        """The answering agent, from the queue: handed only what this mandate reveals to this asker."""
        handed = revealable(self.db, member_id, body, asker_is_member)
        terms = Terms(principal=body.principal, topics=tuple(body.topics), quotable=body.quotable)
        notes = [approved.note for approved in handed.values()]
        return compose(request, terms, self.asking.answerer(request, terms, notes), handed)

"""Asking a member's answering agent, and the decision queue for what it cannot settle.

This side holds the store: it verifies the member's mandate, hands the answering agent only the
notes that mandate reveals to this asker, checks what comes back, records the thread, and files
an escalation in the member's queue. The member answers, declines, or widens the mandate to cover
the topic; the outcome lands in the asker's inbox thread and live sessions hear of it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

import sqlite_utils

from server.identity import principals
from server.identity import mandates
from server.answering import Answer, Note, ScopedRequest, Terms
from server.answering import answer as deterministic_answer
from server.identity.mandates import SigningKey
from server.manifest.loading import Manifest
from server.router import lexicon as lx
from server.router.reader import find_verb, fold, read
from server.store.database import now

log = logging.getLogger("parley.escalations")

Answerer = Callable[[ScopedRequest, Terms, list[Note]], Answer]


class AskError(ValueError):
    """A question that cannot be put as asked; the message says why."""


class NotFound(LookupError):
    """No such escalation in this principal's queue (whether it exists elsewhere is not said)."""


@dataclass(frozen=True)
class Asked:
    answer: Answer
    thread_id: int
    quotable: bool
    escalation_id: int | None


def _shingles(text: str, size: int = 6) -> set[str]:
    words = re.findall(r"[a-z0-9]+", fold(text))
    return {" ".join(words[i:i + size]) for i in range(max(0, len(words) - size + 1))}


def commits(text: str, language: str) -> bool:
    """Whether `text` commits someone: a commitment verb, not past, not negated, anywhere in it.

    Every verb position is checked, not only each clause's first: "(may be quoted) Yes, I accept"
    commits even though its first verb is a harmless participle."""
    negations = lx.NEGATIONS[language]
    for sentence in re.split(r"(?<=[.!?;:])\s+", text):
        reading = read(sentence, language)
        if reading.form.frame == "question":
            continue
        tokens = reading.tokens
        negated = False  # a negation holds until the clause ends or "but" turns it: "cannot agree, accept, …"
        for i, token in enumerate(tokens):
            if token.norm in negations or token.norm.endswith("n't"):
                negated = True
                continue
            if token.kind == "punct" and token.norm != "," or token.norm in ("but", "mas", "however", "porem"):
                negated = False
                continue
            verb = find_verb(tokens[i:i + 2], language)
            if verb is None or verb.index != 0 or verb.action not in lx.COMMITMENTS or verb.tense == "past":
                continue
            if not negated:
                return True
    return False


def check_output(answer: Answer, language: str, withheld: list[str], who: str) -> Answer:
    """The answering agent's output passes here whoever produced it: no commitment, no withheld note."""
    findings = answer.findings or ""
    if answer.escalate is None and answer.refused is None:
        if commits(findings, language):
            log.warning("answer for %s withheld: it read as a commitment", who)
            return Answer(answered=False, scopedRequest=answer.scopedRequest, openQuestions=[answer.scopedRequest],
                          findings=None, escalate="commitment")
        leaked = _shingles(findings)
        if any(_shingles(text) & leaked for text in withheld):
            log.warning("answer for %s withheld: it repeated a note its mandate does not reveal", who)
            return Answer(answered=False, scopedRequest=answer.scopedRequest, openQuestions=[answer.scopedRequest],
                          findings=None, escalate="outside_mandate")
    return answer


def _notes(db: sqlite_utils.Database, member_id: int, body: mandates.MandateBody, asker_is_member: bool):
    """(revealable notes, withheld note texts) for this asker under this mandate."""
    reveal = set(body.reveal) - {"private"}
    if not asker_is_member:
        reveal.discard("members")
    allowed, withheld = [], []
    for row in db.query("SELECT topic, text, visibility FROM briefing WHERE principal_id = ? ORDER BY topic, id",
                        [member_id]):
        if row["visibility"] in reveal and row["topic"] in body.topics:
            allowed.append(Note(topic=row["topic"], text=row["text"]))
        else:
            withheld.append(row["text"])
    return allowed, withheld


class Escalations:
    def __init__(self, db: sqlite_utils.Database, key: SigningKey, manifest: Manifest,
                 answerer: Answerer = deterministic_answer, on_delivery: Callable[[int], None] | None = None):
        self.db = db
        self.key = key
        self.manifest = manifest
        self.answerer = answerer
        self.on_delivery = on_delivery or (lambda principal_id: None)

    # --- asking ------------------------------------------------------------------------------

    def ask(self, asker_id: int, asker_agent: str | None, asker_is_member: bool, member: str, question: str,
            language: str, thread_id: int | None = None) -> Asked:
        try:
            target = principals.find_principal(self.db, member)
        except principals.ClubError:
            target = None
        if target is None or target.status != "member":
            raise AskError(f"no member with handle '{member}'; search_directory lists members")
        if target.id == asker_id:
            raise AskError("you cannot ask your own answering agent; read list_briefing instead")
        if thread_id is not None:
            row = self.db.execute("SELECT asker_id, answerer_id FROM threads WHERE id = ?", [thread_id]).fetchone()
            if row is None or row[0] != asker_id or row[1] != target.id:
                raise AskError(f"you have no thread {thread_id} with {member}; leave thread_id out to open one")
        status = mandates.current(self.db, self.key, target.id)
        request = ScopedRequest(question=question, asker=str(asker_id), language=language)
        if status.valid:
            body = status.body
            answer = self._answer(target.id, target.handle, body, request, asker_is_member)
            quotable = body.quotable
        else:
            answer = Answer(answered=False, scopedRequest=question, openQuestions=[question], escalate="outside_mandate",
                            findings=None)
            quotable = False
        stamp = now()
        with self.db.atomic():
            if thread_id is None:
                thread_id = self.db["threads"].insert({
                    "asker_id": asker_id, "answerer_id": target.id, "subject": question[:120],
                    "created_at": stamp, "updated_at": stamp}).last_pk
            else:
                self.db.execute("UPDATE threads SET updated_at = ? WHERE id = ?", [stamp, thread_id])
            self.db["messages"].insert({"thread_id": thread_id, "kind": "question", "body": question, "created_at": stamp})
            if answer.findings:
                kind = "answer" if answer.escalate is None and answer.refused is None else "decline"
                self.db["messages"].insert({"thread_id": thread_id, "kind": kind, "body": answer.findings,
                                            "created_at": stamp})
            escalation_id = None
            if answer.escalate is not None:
                escalation_id = self.db["escalations"].insert({
                    "principal_id": target.id, "asker_id": asker_id, "asker_agent": asker_agent,
                    "thread_id": thread_id, "question": question, "language": language,
                    "reason": answer.escalate, "status": "open", "decision": None,
                    "created_at": stamp, "decided_at": None}).last_pk
        return Asked(answer, thread_id, quotable, escalation_id)

    def _answer(self, member_id: int, handle: str, body: mandates.MandateBody, request: ScopedRequest,
                asker_is_member: bool) -> Answer:
        """The answering agent, handed only what this mandate reveals to this asker, its output checked."""
        notes, withheld = _notes(self.db, member_id, body, asker_is_member)
        terms = Terms(principal=handle, topics=tuple(body.topics), quotable=body.quotable)
        return check_output(self.answerer(request, terms, notes), request.language, withheld, handle)

    # --- the queue ---------------------------------------------------------------------------

    def queue(self, principal_id: int, status: str = "open") -> list[dict]:
        rows = self.db.query(
            """SELECT e.id, e.question, e.reason, e.status, e.language, e.created_at, e.decided_at, e.decision,
                      e.thread_id, e.asker_agent, p.handle AS asker
               FROM escalations e JOIN principals p ON p.id = e.asker_id
               WHERE e.principal_id = ? AND e.status = ? ORDER BY e.id""",
            [principal_id, status],
        )
        return list(rows)

    def open_count(self, principal_id: int) -> int:
        return self.db.execute("SELECT COUNT(*) FROM escalations WHERE principal_id = ? AND status = 'open'",
                               [principal_id]).fetchone()[0]

    def get(self, principal_id: int, escalation_id: int) -> dict:
        rows = list(self.db.query(
            """SELECT e.*, p.handle AS asker FROM escalations e JOIN principals p ON p.id = e.asker_id
               WHERE e.id = ? AND e.principal_id = ?""", [escalation_id, principal_id]))
        if not rows:
            raise NotFound(escalation_id)
        return rows[0]

    def thread(self, thread_id: int) -> list[dict]:
        return list(self.db.query("SELECT kind, body, created_at FROM messages WHERE thread_id = ? ORDER BY id",
                                  [thread_id]))

    def decide(self, principal_id: int, escalation_id: int, action: str, text: str = "") -> dict:
        """answer (with the principal's own words), decline, or widen (add a topic and re-answer)."""
        escalation = self.get(principal_id, escalation_id)
        if escalation["status"] != "open":
            raise AskError(f"escalation {escalation_id} was already {escalation['status']}")
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
        with self.db.atomic():
            changed = self.db.execute(
                "UPDATE escalations SET status = ?, decision = ?, decided_at = ? WHERE id = ? AND status = 'open'",
                [status, delivered, stamp, escalation_id]).rowcount
            if changed != 1:
                raise AskError(f"escalation {escalation_id} was decided meanwhile")
            self.db["messages"].insert({"thread_id": escalation["thread_id"], "kind": "decision", "body": delivered,
                                        "created_at": stamp})
            self.db.execute("UPDATE threads SET updated_at = ? WHERE id = ?", [stamp, escalation["thread_id"]])
        self.on_delivery(escalation["asker_id"])
        return self.get(principal_id, escalation_id)

    def _widen(self, principal_id: int, escalation: dict, topic: str) -> str:
        topic = topic.strip().lower()
        if not topic or len(topic) > 80:
            raise AskError("name the topic (1 to 80 characters) the mandate should now cover")
        status = mandates.current(self.db, self.key, principal_id)
        if not status.valid:
            raise AskError("your mandate is not valid; sign a new one before widening it")
        widened = mandates.amend(
            self.db, self.key, principal_id=principal_id, topics=sorted(set(status.body.topics) | {topic}),
            known_scopes=frozenset(self.manifest.scopes), agent_scopes=self.manifest.agent_scopes,
        )
        asker_is_member = self.db.execute("SELECT status FROM principals WHERE id = ?",
                                          [escalation["asker_id"]]).fetchone()[0] == "member"
        request = ScopedRequest(question=escalation["question"], asker=str(escalation["asker_id"]),
                                language=escalation["language"])
        answer = self._answer(principal_id, widened.principal, widened, request, asker_is_member)
        if answer.escalate is None and answer.refused is None and answer.findings:
            return answer.findings
        raise AskError(f"even with '{topic}' in the mandate, no note answers this; answer it in your own words")

"""`scripts/answer-rate --learn`: the answer rate once the member has taught the agent (issue #46).

For each corpus, a club in a temporary SQLite store, built with the code the server runs: the corpus's
member (its notes approved, revealed to members, under a signed mandate naming their topics) and one
other member who asks. Through the real ask path (`Escalations.ask`, the deterministic answerer, the
grounded composition, the store's escalations):
1. each note's first question (in the corpus's order) is asked; where it escalates, the member points
   at the note that answers it through the real command line, `parley queue answer HANDLE ID --note
   NOTE_ID` (ID: the `escalation_id` the ask returned), which keeps the question as an example of it;
2. then every other question is asked, the unanswerable ones included, and scored as the asker got it.
The figures on step 2's questions are reported beside the same questions asked before any teaching
(first ask), in the same store: right, wrong, unanswerable answered, en and pt-BR. Last, each taught
question is asked again in its own words (`again`): the member's decision on it, which the asker gets
unless the note is one the member consents to each time (an escalation for their consent, `held`).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from tests.answering.answer_rate import Question
from tests.answering.corpora import MemberCorpus
from tests.answering.tally import Tally

ASKER = "asker"

if TYPE_CHECKING:
    from server.asking.escalations import Asked


@dataclass
class Learned:
    corpus: str
    taught: int  # first questions that escalated and that the member answered with their note
    first_ask: Tally  # step 2's questions, asked before any teaching
    learned: Tally  # the same questions, asked after
    first_questions: Tally  # step 1's questions as first asked
    again: Tally  # the taught questions asked again, in their own words, after teaching
    held: int  # ... of which escalated for the member's consent (a note that would bind them)


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class Club:
    """One corpus's member and an asker, in a store of their own."""

    def __init__(self, folder: Path, member: MemberCorpus) -> None:
        from server.asking import Escalations
        from server.keys.mandate import SigningKey
        from server.manifest.loading import load_manifest
        from server.settings import Settings
        from server.store.opening import open_db

        self.env = {"PARLEY_DB": str(folder / "club.db"), "PARLEY_KEYS": str(folder / "keys")}
        settings = Settings.from_env(self.env)
        self.db = open_db(settings.store)
        self.key = SigningKey.load_or_create(settings.keys_dir)
        self.manifest = load_manifest(settings.manifest_path)
        self.member = member
        self.note_ids = self._populate()  # corpus note id -> store note id
        self.by_text = {text: note_id for note_id, _, text in member.notes}
        self.service = Escalations(self.db, self.key, self.manifest)

    def _populate(self) -> dict[str, int]:
        from server.access import default_scopes
        from server.identity import mandates, principals
        from server.plaintext import folded
        from server.store import records
        from server.store.database import now, write

        topics = sorted({topic for _, topic, _ in self.member.notes})
        ids: dict[str, int] = {}
        with write(self.db):
            for handle, name, their_topics in (
                (self.member.name, self.member.member_name, topics),
                (ASKER, "Asker", ["asking"]),
            ):
                principal = principals.add_principal(self.db, handle, name, status="member")
                principals.add_agent(self.db, principal.handle)
                mandates.sign_mandate(
                    self.db,
                    self.key,
                    principal_id=principal.id,
                    topics=their_topics,
                    reveal=["public", "members"],
                    quotable=True,
                    scopes=sorted(default_scopes(self.manifest, "member")),
                    known_scopes=frozenset(self.manifest.scopes),
                    agent_scopes=self.manifest.agent_scopes,
                    valid_for=timedelta(days=365),
                )
                if handle == self.member.name:
                    stamp = now()
                    for note_id, topic, text in self.member.notes:
                        ids[note_id] = records.add_note(
                            self.db,
                            principal.id,
                            folded(topic),  # as every way a member writes a note keeps it
                            text,
                            "members",
                            stamp,
                            status="approved",
                            written_by="principal",
                        )
            self.asker_id = principals.find_principal(self.db, ASKER).id
        return ids

    def ask(self, q: Question) -> tuple[tuple[str, ...], int | None]:
        """(the corpus note ids whose text the answer quotes, the escalation's id if it escalated)."""
        asked = self.asked(q)
        return self.quoted(asked), asked.escalation_id

    def quoted(self, asked: Asked) -> tuple[str, ...]:
        """The corpus note ids whose text an answer quotes (none if it escalated)."""
        findings = asked.answer.findings or ""
        quoted = tuple(
            self.by_text[text]
            for text in self.by_text
            if asked.escalation_id is None and text in findings
        )
        return quoted

    def asked(self, q: Question) -> Asked:
        """The question asked through the real ask path, as the asker gets it."""
        from server.store.database import revision

        asked = asyncio.run(
            self.service.ask(
                self.asker_id,
                None,
                True,
                self.member.name,
                q.text,
                q.language,
                revision=revision(self.db),
            )
        )
        return asked

    def answer_with(self, escalation_id: int, note: str) -> None:
        """The member points at the note, as a steward or script would: `parley queue answer`."""
        from server.cli.main import main

        argv = ["queue", "answer", self.member.name, str(escalation_id), "--note"]
        with _environment(self.env), contextlib.redirect_stdout(io.StringIO()):
            code = main([*argv, str(self.note_ids[note])])
        if code != 0:
            raise SystemExit(f"parley queue answer failed ({code}) for question {escalation_id}")

    def close(self) -> None:
        self.db.close()


def learn(member: MemberCorpus) -> Learned:
    """Step 1 and step 2 (see the module's docstring) on one corpus, in a store of its own."""
    first: dict[str, Question] = {}
    rest: list[Question] = []
    for q in member.questions:
        if q.note is not None and q.note not in first:
            first[q.note] = q
        else:
            rest.append(q)
    with tempfile.TemporaryDirectory() as folder:
        club = Club(Path(folder), member)
        try:
            before = Tally()
            for q in rest:  # asked before any teaching: what the asker would have got
                before.add(q, club.ask(q)[0])
            firsts = Tally()
            taught: list[Question] = []
            for note, q in first.items():
                quoted, escalation = club.ask(q)
                firsts.add(q, quoted)
                if escalation is not None:
                    club.answer_with(escalation, note)
                    taught.append(q)
            after = Tally()
            for q in rest:
                after.add(q, club.ask(q)[0])
            again = Tally()
            held = 0
            for q in taught:
                asked = club.asked(q)
                again.add(q, club.quoted(asked))
                held += asked.answer.escalate == "commitment"
        finally:
            club.close()
    return Learned(member.name, len(taught), before, after, firsts, again, held)

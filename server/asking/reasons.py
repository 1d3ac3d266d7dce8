"""Why a question waits in its member's queue, worded when the member reads it, not when it arrived.

An escalation keeps why the answering agent did not answer (`outside_mandate` or `commitment`) and
the notes it attached. What the sentence says about the member's mandate and notes is read from them
as they stand now: after the member adds a topic or lets a note be relayed, the queue says so.
"""

from __future__ import annotations

from server.answering import Note
from server.answering.grounding import consent_needed
from server.identity.mandates import MandateStatus
from server.store.asking import Escalation
from server.store.records import BriefingNote


def why(row: Escalation, candidates: list[BriefingNote], status: MandateStatus, handle: str) -> str:
    """The reason, in the member's words, from the escalation and today's mandate and notes."""
    held = [
        note
        for note in candidates
        if not note.relay
        and consent_needed(Note(id=str(note.id), topic=note.topic, text=note.text), handle)
    ]
    if row.reason == "commitment" and held:
        return (
            "Your note that would answer it names a price, an offer, a link or words to an agent: "
            "your agent relays such a note only when you let it (“relay as written”)."
        )
    if row.reason == "commitment" and candidates:
        return (
            "Your agent held it back: it never agrees, books, buys or promises, and the note it would "
            "have quoted may now be relayed as written, so you can point at it."
        )
    if row.reason == "commitment":
        return "It asks for a commitment — your agent informs, it never agrees, books, buys or promises."
    if not status.valid or status.body is None:
        return (
            "Your mandate is not valid now, so your agent answers nothing on its own: sign it on "
            "the Mandate page."
        )
    if candidates:
        return "Your agent was not sure which of your notes answers it, and it does not guess."
    topics = ", ".join(sorted(status.body.topics))
    covered = f"Your mandate covers: {topics}." if topics else "Your mandate covers no topic yet."
    return f"None of the notes your agent may quote to @{row.asker} seems to answer it. {covered}"

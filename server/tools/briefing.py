"""The briefing: what this member's answering agent knows, note by note, each with a visibility.

Notes written here wait for the principal's approval (the console's Notes page, or `parley notes
approve`) before the answering agent may quote them: an agent that read a poisoned page cannot put
words in its principal's mouth.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from server.asking.briefing import reach
from server.errors import ParleyError
from server.identity.mandates import MandateStatus
from server.tools.facade import BriefingNote
from server.tools.registry import (
    MAX_ID,
    Args,
    FoldedText,
    NoArgs,
    Output,
    ToolContext,
    ToolError,
    WriteContext,
    tool,
)


class UpdateBriefingArgs(Args):
    topic: FoldedText = Field(
        min_length=1, max_length=80, description="What the note is about (kept in lower case)."
    )
    text: str = Field(min_length=1, max_length=4000)
    visibility: Literal["public", "members", "private"] = Field(
        description="public: any asker; members: askers who are members; private: never revealed."
    )
    note_id: int | None = Field(
        default=None, ge=1, le=MAX_ID, description="Replace this note instead of adding one."
    )


class Note(Output):
    id: int
    revision: int = Field(
        description="Moves on with every change to the text, topic or visibility; your principal "
        "approves a revision, the text they read."
    )
    topic: str
    text: str
    visibility: str
    updated_at: str
    status: Literal["pending", "approved", "rejected"] = Field(
        description="pending: waits for your principal's approval and is never quoted until then; approved: "
        "your principal approved this revision; rejected: your principal turned it down."
    )
    when_approved: str = Field(
        description="What happens to a question this note would answer once it is approved, from the "
        "signed mandate and the note's flags as they stand now."
    )


def _note(row: BriefingNote, who: str, status: MandateStatus) -> Note:
    return Note(
        id=row.id,
        revision=row.revision,
        topic=row.topic,
        text=row.text,
        visibility=row.visibility,
        updated_at=row.updated_at,
        status=row.status,
        when_approved=reach(row, who, status, "your principal"),
    )


@tool(writes=True)
def update_briefing(ctx: WriteContext, args: UpdateBriefingArgs) -> Note:
    """Propose a note for your principal's answering agent, or a replacement of one by `note_id`.

    The note is `pending` until your principal approves it in the console: until then the answering
    agent never quotes it (a replaced note is not quoted until the new text is approved). Once
    approved, the agent quotes it word for word to askers whose access the signed mandate's `reveal`
    covers, under a topic the mandate lists; `when_approved` says whether that will be so. At most 200
    notes may wait for approval at once.
    """
    try:
        row = ctx.writes.write_note(args.topic, args.text, args.visibility, args.note_id)
    except ParleyError as exc:
        raise ToolError(f"{exc}; list_briefing shows your notes") from None
    return _note(row, ctx.caller.principal or "", ctx.reads.mandate())


class Briefing(Output):
    notes: list[Note]


@tool()
def list_briefing(ctx: ToolContext, args: NoArgs) -> Briefing:
    """Every note in your answering agent's briefing, by topic, with whether your principal approved it."""
    who, status = ctx.caller.principal or "", ctx.reads.mandate()
    return Briefing(notes=[_note(row, who, status) for row in ctx.reads.notes()])

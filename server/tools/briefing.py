"""The briefing: what this member's answering agent knows, note by note, each with a visibility."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from server.store import records
from server.store.database import now
from server.tools.registry import MAX_ID, Args, NoArgs, Output, ToolContext, ToolError, tool


class UpdateBriefingArgs(Args):
    topic: str = Field(min_length=1, max_length=80, description="What the note is about.")
    text: str = Field(min_length=1, max_length=4000)
    visibility: Literal["public", "members", "private"] = Field(
        description="public: any asker; members: askers who are members; private: never revealed."
    )
    note_id: int | None = Field(default=None, ge=1, le=MAX_ID, description="Replace this note instead of adding one.")


class Note(Output):
    id: int
    topic: str
    text: str
    visibility: str
    updated_at: str


@tool(writes=True)
def update_briefing(ctx: ToolContext, args: UpdateBriefingArgs) -> Note:
    """Add a note to your answering agent's briefing, or replace one by `note_id`.

    The agent reveals a note only when your signed mandate's `reveal` covers its visibility.
    """
    me = ctx.principal_id
    stamp = now()
    topic = args.topic.lower()
    if args.note_id is None:
        note_id = records.add_note(ctx.db, me, topic, args.text, args.visibility, stamp)
    else:
        if not records.replace_note(ctx.db, args.note_id, me, topic, args.text, args.visibility, stamp):
            raise ToolError(f"you have no briefing note {args.note_id}; list_briefing shows yours")
        note_id = args.note_id
    return Note(id=note_id, topic=topic, text=args.text, visibility=args.visibility, updated_at=stamp)


class Briefing(Output):
    notes: list[Note]


@tool()
def list_briefing(ctx: ToolContext, args: NoArgs) -> Briefing:
    """Every note in your answering agent's briefing, by topic."""
    return Briefing(notes=[Note(**row) for row in records.notes_of(ctx.db, ctx.principal_id)])

"""The inbox: threads this principal's agents opened, with every answer, decline and decision."""

from __future__ import annotations

from pydantic import Field

from server.store import asking
from server.tools.registry import Args, Output, ToolContext, tool


class InboxArgs(Args):
    limit: int = Field(default=20, ge=1, le=100, description="How many threads, newest first.")


class Message(Output):
    kind: str = Field(description="question, answer, decline or decision.")
    status: str | None = Field(description="asked; answered (the answering agent answered); escalated (it went to the "
                               "member in person, whose decision comes later); declined (refused outright); decided "
                               "(the member's own decision, see decided_by).")
    decided_by: str | None = Field(description="For a decision: the member who made it.")
    body: str
    created_at: str


class Thread(Output):
    thread_id: int
    with_member: str
    role: str = Field(description="asker: your agent asked; answerer: your principal was asked.")
    subject: str
    updated_at: str
    messages: list[Message]


class Inbox(Output):
    threads: list[Thread]


@tool()
def inbox(ctx: ToolContext, args: InboxArgs) -> Inbox:
    """Your threads, newest first: questions your agent asked and what came back (answers, declines,
    and decisions your counterpart's principal made later), plus questions put to your principal.
    """
    me = ctx.principal_id
    return Inbox(threads=[
        Thread(thread_id=thread["id"], with_member=thread["other"],
               role="asker" if thread["asker_id"] == me else "answerer", subject=thread["subject"],
               updated_at=thread["updated_at"], messages=[Message(**m) for m in asking.messages(ctx.db, thread["id"])])
        for thread in asking.threads_of(ctx.db, me, args.limit)
    ])

"""The inbox: threads this principal's agents opened, with every answer, decline and decision."""

from __future__ import annotations

from pydantic import Field

from server.store import asking
from server.store.console import application_decision
from server.tools.registry import Args, Output, ToolContext, tool


class InboxArgs(Args):
    limit: int = Field(default=20, ge=1, le=100, description="How many threads, newest first.")


class Message(Output):
    kind: str = Field(description="question, answer, decline or decision.")
    status: str | None = Field(
        description="asked; answered (the answering agent answered); escalated (it went to the "
        "member in person, whose decision comes later); declined (refused outright); decided "
        "(the member's own decision, see decided_by)."
    )
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


class Application(Output):
    status: str = Field(description="open (a steward has not decided), admitted, or declined.")
    applied_at: str
    decided_at: str | None
    decision: str | None = Field(
        description="For a declined application: the steward's reason, in their words."
    )


class Inbox(Output):
    threads: list[Thread]
    application: Application | None = Field(
        description="Your principal's application to the club and how it was "
        "decided, when there is one."
    )


@tool()
def inbox(ctx: ToolContext, args: InboxArgs) -> Inbox:
    """Your threads, newest first: questions your agent asked and what came back (answers, declines,
    and decisions your counterpart's principal made later), plus questions put to your principal.
    Each message has a `status` (answered, escalated, declined, decided). `application` says how your
    principal's application to the club was decided, with a steward's reason when it was declined.
    """
    me = ctx.principal_id
    applied = application_decision(ctx.db, me)
    application = (
        None
        if applied is None
        else Application(
            status=applied["status"],
            applied_at=applied["created_at"],
            decided_at=applied["decided_at"],
            decision=applied["decision"],
        )
    )
    return Inbox(
        application=application,
        threads=[
            Thread(
                thread_id=thread["id"],
                with_member=thread["other"],
                role="asker" if thread["asker_id"] == me else "answerer",
                subject=thread["subject"],
                updated_at=thread["updated_at"],
                messages=[Message(**m) for m in asking.messages(ctx.db, thread["id"])],
            )
            for thread in asking.threads_of(ctx.db, me, args.limit)
        ],
    )

"""The inbox: threads this principal's agents opened, with every answer, decline and decision."""

from __future__ import annotations

from pydantic import Field

from server.tools import Args, Output, ToolContext, tool


class InboxArgs(Args):
    limit: int = Field(default=20, ge=1, le=100, description="How many threads, newest first.")


class Message(Output):
    kind: str = Field(description="question, answer, decline or decision.")
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
    me = ctx.caller.principal_id
    threads = list(
        ctx.db.query(
            """
            SELECT t.id, t.subject, t.updated_at, t.asker_id,
                   CASE WHEN t.asker_id = :me THEN b.handle ELSE a.handle END AS other
            FROM threads t JOIN principals a ON a.id = t.asker_id JOIN principals b ON b.id = t.answerer_id
            WHERE t.asker_id = :me OR t.answerer_id = :me
            ORDER BY t.updated_at DESC, t.id DESC LIMIT :limit
            """,
            {"me": me, "limit": args.limit},
        )
    )
    out = []
    for thread in threads:
        messages = ctx.db.query(
            "SELECT kind, body, created_at FROM messages WHERE thread_id = ? ORDER BY id", [thread["id"]]
        )
        out.append(
            Thread(
                thread_id=thread["id"],
                with_member=thread["other"],
                role="asker" if thread["asker_id"] == me else "answerer",
                subject=thread["subject"],
                updated_at=thread["updated_at"],
                messages=[Message(**m) for m in messages],
            )
        )
    return Inbox(threads=out)

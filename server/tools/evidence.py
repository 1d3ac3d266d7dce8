"""Evidence for admission: what an applicant (or member) logs to support their standing."""

from __future__ import annotations

from pydantic import Field, HttpUrl

from server.store.database import now
from server.tools import Args, NoArgs, Output, ToolContext, ToolError, tool


class LogEvidenceArgs(Args):
    kind: str = Field(min_length=1, max_length=40, description="One of the club's evidence kinds (about_club).")
    title: str = Field(min_length=1, max_length=200)
    detail: str = Field(default="", max_length=4000)
    url: HttpUrl | None = Field(default=None, description="An optional link that supports it.")


class EvidenceItem(Output):
    id: int
    kind: str
    title: str
    detail: str
    url: str | None
    created_at: str


@tool(writes=True)
def log_evidence(ctx: ToolContext, args: LogEvidenceArgs) -> EvidenceItem:
    """Log one piece of evidence for your principal's admission (a reference, portfolio, ...).

    `kind` must be one of the club's evidence kinds, listed by `about_club`. Returns the stored item.
    """
    kinds = ctx.manifest.evidence_kinds
    if args.kind not in kinds:
        raise ToolError(f"kind must be one of: {', '.join(kinds)}")
    record = {
        "principal_id": ctx.caller.principal_id,
        "kind": args.kind,
        "title": args.title,
        "detail": args.detail,
        "url": str(args.url) if args.url else None,
        "created_at": now(),
    }
    item_id = ctx.db["evidence"].insert(record).last_pk
    return EvidenceItem(id=item_id, **{k: v for k, v in record.items() if k != "principal_id"})


class EvidenceList(Output):
    items: list[EvidenceItem]


@tool()
def list_evidence(ctx: ToolContext, args: NoArgs) -> EvidenceList:
    """The evidence your principal has logged, oldest first."""
    rows = ctx.db.query(
        "SELECT id, kind, title, detail, url, created_at FROM evidence WHERE principal_id = ? ORDER BY id",
        [ctx.caller.principal_id],
    )
    return EvidenceList(items=[EvidenceItem(**row) for row in rows])

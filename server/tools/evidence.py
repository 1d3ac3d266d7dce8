"""Evidence for admission: what an applicant (or member) logs to support their standing."""

from __future__ import annotations

from pydantic import Field, HttpUrl

from server.store import records
from server.store.database import now
from server.tools.registry import Args, NoArgs, Output, ToolContext, ToolError, tool


class LogEvidenceArgs(Args):
    kind: str = Field(
        min_length=1, max_length=40, description="One of the club's evidence kinds (about_club)."
    )
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
    url, stamp = (str(args.url) if args.url else None), now()
    item_id = records.add_evidence(
        ctx.db, ctx.principal_id, args.kind, args.title, args.detail, url, stamp
    )
    return EvidenceItem(
        id=item_id, kind=args.kind, title=args.title, detail=args.detail, url=url, created_at=stamp
    )


class EvidenceList(Output):
    items: list[EvidenceItem]


@tool()
def list_evidence(ctx: ToolContext, args: NoArgs) -> EvidenceList:
    """The evidence your principal has logged, oldest first."""
    return EvidenceList(
        items=[EvidenceItem(**row) for row in records.evidence_of(ctx.db, ctx.principal_id)]
    )

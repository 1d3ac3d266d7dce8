"""`refund_order`: the seed's refund desk, for clubs (and the demo manifest) that declare it.

It records a refund request; the rules on its binding decide when it may be made.
"""

from __future__ import annotations

from pydantic import Field

from server.store import records
from server.store.database import now
from server.tools.registry import Args, Output, ToolContext, tool


class RefundArgs(Args):
    order_id: str = Field(min_length=1, max_length=40, description="The order to refund.")
    amount: float = Field(gt=0, le=1_000_000, description="How much to refund.")
    expedite: bool = Field(default=False, description="Refund today rather than in the next batch.")
    reason: str = Field(default="", max_length=500)


class RefundRequest(Output):
    id: int
    order_id: str
    amount: float
    expedite: bool
    status: str = Field(description="requested: the refund is queued for payment.")


@tool(writes=True)
def refund_order(ctx: ToolContext, args: RefundArgs) -> RefundRequest:
    """Refund an order, in part or whole. Rules on this tool may limit the amount, the orders, or who
    may ask; a refused call says which rule was not met."""
    refund_id = records.add_refund(
        ctx.db,
        principal_id=ctx.principal_id,
        agent=ctx.caller.agent,
        order_id=args.order_id,
        amount=args.amount,
        expedite=args.expedite,
        reason=args.reason,
        stamp=now(),
    )
    return RefundRequest(
        id=refund_id,
        order_id=args.order_id,
        amount=args.amount,
        expedite=args.expedite,
        status="requested",
    )

"""`refund_order`: the seed's refund desk, for clubs (and the demo manifest) that declare it.

It records a refund request; the rules on its binding decide when it may be made.
"""

from __future__ import annotations

from pydantic import Field

from server.tools.registry import Args, Output, WriteContext, tool


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
def refund_order(ctx: WriteContext, args: RefundArgs) -> RefundRequest:
    """Refund an order, in part or whole. Rules on this tool may limit the amount, the orders, or who
    may ask; a refused call says which rule was not met."""
    refund_id = ctx.writes.add_refund(args.order_id, args.amount, args.expedite, args.reason)
    return RefundRequest(
        id=refund_id,
        order_id=args.order_id,
        amount=args.amount,
        expedite=args.expedite,
        status="requested",
    )

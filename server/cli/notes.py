"""`parley notes`: a principal's briefing notes, and approving the ones their agents wrote.

The same approval as the console's Notes page (`server.asking.briefing`): a pending note is never
quoted by the answering agent until approved; approving, `--relay` is the principal's "my agent may
relay this as written", without which a note that states a price, an offer, a link or words to an
agent is never quoted.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from server.cli.context import Context, add_json, err, listing

if TYPE_CHECKING:  # imported when a command runs: `parley notes --help` loads no asking stack
    from server.asking import briefing
    from server.store.database import Row


def _concerns(row: Row, handle: str) -> str:
    from server.asking import briefing

    return ", ".join(c.flag for c in briefing.concerns(row["topic"], row["text"], handle))


def notes_list(args: argparse.Namespace) -> int:
    from server.asking import briefing
    from server.identity import principals

    ctx = Context()
    principal = principals.find_principal(ctx.db, args.handle)
    rows = [
        {**row, "relay": bool(row["relay"]), "concerns": _concerns(row, principal.handle)}
        for row in briefing.notes(ctx.db, principal.id, "pending" if args.pending else None)
    ]
    return listing(
        args,
        rows,
        ["id", "status", "topic", "visibility", "relay", "concerns", "text"],
        lambda r: {**r, "relay": "relay" if r["relay"] else "", "text": r["text"][:60]},
    )


def notes_review(action: briefing.Review) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        from server.asking import briefing
        from server.identity import principals

        ctx = Context()
        principal = principals.find_principal(ctx.db, args.handle)
        row = briefing.review(
            ctx.db, principal.id, args.note_id, action, relay=getattr(args, "relay", False)
        )
        concerns = _concerns(row, principal.handle)
        print(
            f"note {row['id']} of {principal.handle} {row['status']}"
            f"{' (may be relayed as written)' if row['relay'] else ''}"
        )
        if action == "approve" and concerns and not row["relay"]:
            err(
                f"it is flagged ({concerns}): a question it would answer goes to {principal.handle} in person; "
                f"approve with --relay to let the agent quote it"
            )
        return 0

    return run


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "notes",
        help="list a principal's briefing notes; approve or reject the pending ones",
        description="Briefing notes an agent wrote wait for their principal's approval before the "
        "answering agent may quote them.",
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    s = actions.add_parser(
        "list", help="a principal's notes, with status and what to look at twice"
    )
    s.add_argument("handle", help="the principal's handle")
    s.add_argument("--pending", action="store_true", help="only the notes waiting for approval")
    add_json(s)
    s.set_defaults(func=notes_list)
    for name, action, helptext in (
        ("approve", "approve", "approve a note: the answering agent may quote it"),
        ("reject", "reject", "reject a note: it is never quoted"),
    ):
        s = actions.add_parser(name, help=helptext)
        s.add_argument("handle", help="the principal's handle")
        s.add_argument("note_id", type=int, help="the note's id (parley notes list shows them)")
        if name == "approve":
            s.add_argument(
                "--relay",
                action="store_true",
                help="my agent may relay this as written (needed for a price, an offer, a link)",
            )
        s.set_defaults(func=notes_review(action))  # type: ignore[arg-type]

"""`parley notes`: a principal's briefing notes, and approving the ones their agents wrote.

The same approval as the console's Notes page (`server.asking.briefing`): a pending note is never
quoted by the answering agent until approved; approving, `--relay` is the principal's "my agent may
relay this as written", without which a note that states a price, an offer, a link or words to an
agent is never quoted. A note is named with the revision read (`ID@REVISION`, as `notes list` shows
it): a note changed since is not reviewed, and its new text is shown instead.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING

from server.cli.context import Context, UsageError, add_json, err, listing

if TYPE_CHECKING:  # imported when a command runs: `parley notes --help` loads no asking stack
    from server.asking import briefing
    from server.identity import principals
    from server.store.records import BriefingNote


def _concerns(row: BriefingNote, handle: str) -> str:
    from server.asking import briefing

    return ", ".join(c.flag for c in briefing.concerns(row.topic, row.text, handle))


def notes_list(args: argparse.Namespace) -> int:
    from server.asking import briefing
    from server.identity import principals

    ctx = Context()
    principal = principals.find_principal(ctx.db, args.handle)
    rows = [
        {
            **asdict(row),
            "note": f"{row.id}@{row.revision}",
            "relay": bool(row.relay),
            "concerns": _concerns(row, principal.handle),
        }
        for row in briefing.notes(ctx.db, principal.id, "pending" if args.pending else None)
    ]
    return listing(
        args,
        rows,
        ["note", "status", "topic", "visibility", "relay", "concerns", "text"],
        lambda r: {**r, "relay": "relay" if r["relay"] else "", "text": str(r["text"])[:60]},
    )


def _read(text: str) -> tuple[int, int | None]:
    """A note as named on the command line: ID@REVISION (the revision read), or a bare ID."""
    note, _, revision = text.partition("@")
    if not note.isdecimal() or (revision and not revision.isdecimal()):
        raise UsageError(
            f"'{text}' is not a note: give ID@REVISION as 'parley notes list' shows it"
        )
    return int(note), int(revision) if revision else None


def _review_one(
    ctx: Context, principal: principals.Principal, action: briefing.Review, named: str, relay: bool
) -> bool:
    """Review one note at the revision named; say exactly what was reviewed, or why nothing was."""
    from server.asking import briefing
    from server.identity import mandates

    handle = principal.handle
    note_id, revision = _read(named)
    if revision is None:
        try:
            row = briefing.note(ctx.db, principal.id, note_id, owner=handle)
        except briefing.NoSuchNote as exc:
            err(str(exc))
            return False
        err(
            f"note {note_id} of {handle} not {action}d: name the revision you read. It is at revision "
            f"{row.revision} and reads: \u201c{row.text}\u201d (topic \u201c{row.topic}\u201d); "
            f"to {action} this text: parley notes {action} {handle} {note_id}@{row.revision}"
        )
        return False
    try:
        row = briefing.review(
            ctx.db, principal.id, note_id, action, revision=revision, relay=relay, owner=handle
        )
    except briefing.NoSuchNote as exc:
        err(str(exc))
        return False
    except briefing.Changed as exc:
        now = exc.note
        err(
            f"note {note_id} of {handle} changed after revision {revision} was read, so nothing was "
            f"{action}d. Revision {now.revision} reads: \u201c{now.text}\u201d (topic "
            f"\u201c{now.topic}\u201d); review it again as {note_id}@{now.revision}"
        )
        return False
    print(
        f"note {row.id}@{row.revision} of {handle} {row.status}"
        f"{' (may be relayed as written)' if row.relay else ''}: "
        f"\u201c{row.text}\u201d (topic \u201c{row.topic}\u201d, {row.visibility})"
    )
    if action == "approve":
        said = briefing.reach(row, handle, mandates.current(ctx.db, ctx.key, principal.id), handle)
        if briefing.held(row.topic, row.text, handle) and not row.relay:
            said += " Approve with --relay to let the agent quote it as written."
        err(said)
    return True


def notes_review(action: briefing.Review) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        from server.identity import principals

        ctx = Context()
        principal = principals.find_principal(ctx.db, args.handle)
        relay = getattr(args, "relay", False)
        done = [_review_one(ctx, principal, action, named, relay) for named in args.notes]
        return 0 if all(done) else 1

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
        s.add_argument(
            "notes",
            nargs="+",
            metavar="ID@REVISION",
            help="each note as 'parley notes list' shows it: its id and the revision you read",
        )
        if name == "approve":
            s.add_argument(
                "--relay",
                action="store_true",
                help="my agent may relay this as written (needed for a price, an offer, a link)",
            )
        s.set_defaults(func=notes_review(action))  # type: ignore[arg-type]

"""`parley queue`: a member's decision queue from the command line, for stewards, scripts and tests.

The same decisions as the console's Queue page, through the same code (`server.asking.queue`): an
escalation's ID is the `escalation_id` the asker's `ask` result named. Pointing at a note, or saving
the answer as a note, answers the asker with that note and keeps the question as an example of it;
every decision is final and recorded as made at the command line.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from server.cli.context import Context, add_json, emit_json, table

# The asking stack is imported when a command runs, not for `--help` (tests/cli/test_cli_startup.py).
if TYPE_CHECKING:
    from server.asking.queue import Decision, Queue


def _queue(ctx: Context) -> Queue:
    from server.asking.escalations import Escalations
    from server.asking.queue import Queue

    return Queue(Escalations(ctx.db, ctx.key, ctx.manifest))


def queue_list(args: argparse.Namespace) -> int:
    from server.identity import principals

    ctx = Context()
    principal = principals.find_principal(ctx.db, args.handle)
    queued = _queue(ctx).waiting(principal.id, principal.handle)
    rows = [
        {
            "id": waiting.row.id,
            "question": waiting.row.question,
            "asker": waiting.row.asker,
            "language": waiting.row.language,
            "reason": waiting.row.reason,
            "why": waiting.why,
            "candidates": [{"id": note.id, "text": note.text} for note in waiting.candidates],
        }
        for waiting in queued
    ]
    if args.json:
        emit_json(rows)
        return 0
    table(
        [
            {
                "id": waiting.row.id,
                "asker": waiting.row.asker,
                "reason": waiting.row.reason,
                "candidates": ", ".join(str(note.id) for note in waiting.candidates),
                "question": waiting.row.question[:60],
            }
            for waiting in queued
        ],
        ["id", "asker", "reason", "candidates", "question"],
    )
    for waiting in queued:
        for note in waiting.candidates:
            print(f"  question {waiting.row.id}, note {note.id}: {note.text[:100]}")
    return 0


def queue_answer(args: argparse.Namespace) -> int:
    from server.asking.errors import AskError
    from server.asking.queue import Decision

    if (args.note is None) == (args.text is None):
        raise AskError('answer with --note NOTE_ID or with --text "..." (one of them)')
    if args.save_note != (args.topic is not None):
        raise AskError("--save-note and --topic go together: the note's topic")
    if args.note is not None:
        decision = Decision.of("note", note_id=args.note)
    else:
        decision = Decision.of("answer", args.text, save_topic=args.topic)
    return _decide(args, decision)


def queue_decline(args: argparse.Namespace) -> int:
    from server.asking.queue import Decision

    return _decide(args, Decision.of("decline"))


def _decide(args: argparse.Namespace, decision: Decision) -> int:
    from server.asking.errors import NoSuchEscalation
    from server.asking.queue import COMMAND_LINE
    from server.identity import principals

    ctx = Context()
    principal = principals.find_principal(ctx.db, args.handle)
    try:
        row = _queue(ctx).decide(principal.id, args.id, decision, COMMAND_LINE)
    except NoSuchEscalation:
        raise NoSuchEscalation(
            f"there is no question {args.id} in {principal.handle}'s queue; "
            f"'parley queue list {principal.handle}' shows the open ones"
        ) from None
    taught = (
        f"; the question is now an example of note {row.answered_with}"
        if row.answered_with is not None
        else ""
    )
    print(f"question {row.id} of {principal.handle} {row.status}{taught}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "queue",
        help="a member's decision queue: list open questions, answer or decline them",
        description="Questions a member's answering agent did not settle wait in their queue. A "
        "decision is final; pointing at a note keeps the question as an example of it.",
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    s = actions.add_parser(
        "list", help="a member's open questions: id, question, asker, reason, candidate notes"
    )
    s.add_argument("handle", help="the member's handle")
    add_json(s)
    s.set_defaults(func=queue_list)
    s = actions.add_parser(
        "answer", help="answer a question with one of the member's notes, or in their words"
    )
    s.add_argument("handle", help="the member's handle")
    s.add_argument("id", type=int, help="the question's id (the asker's escalation_id)")
    s.add_argument("--note", type=int, metavar="NOTE_ID", help="the approved note that answers it")
    s.add_argument("--text", help="the answer in the member's own words")
    s.add_argument(
        "--save-note",
        action="store_true",
        help="keep --text as an approved note of the member's (needs --topic)",
    )
    s.add_argument("--topic", help="the saved note's topic")
    s.set_defaults(func=queue_answer)
    s = actions.add_parser("decline", help="decline a question; the asker is told")
    s.add_argument("handle", help="the member's handle")
    s.add_argument("id", type=int, help="the question's id (the asker's escalation_id)")
    s.set_defaults(func=queue_decline)

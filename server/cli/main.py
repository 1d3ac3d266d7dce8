"""`parley`: the admin command line. A public interface: scripts rely on its output.

`parley token mint` prints the token alone on stdout (details go to stderr), so
`TOKEN=$(parley token mint bruno)` works. Every error is one line on stderr saying what to do
next: exit 1 for a refusal, 2 for wrong words.
"""

from __future__ import annotations

import argparse
import os
import sys


def parser() -> argparse.ArgumentParser:
    # Imported here, not above: `parley serve --workers N` spawns each worker with this module as its
    # `__main__`, and a worker must answer its supervisor's health check before it has imported the club.
    from server.cli import cluster, members, notes, operations, queue, rules

    top = argparse.ArgumentParser(
        prog="parley",
        description="Parley: an MCP club for agents and their principals.",
        epilog="The store is PARLEY_DB (default .parley/club.db); run 'parley COMMAND --help' for a command's flags.",
    )
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    operations.register(sub)
    members.register(sub)
    notes.register(sub)
    queue.register(sub)
    rules.register(sub)
    cluster.register(sub)
    return top


def _deepest(top: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub)command parser the words reached: `parley token mint --bad` is mint's to explain."""
    found = top
    while True:
        chosen = next(
            (action for action in found._actions if isinstance(action, argparse._SubParsersAction)),
            None,
        )
        name = getattr(args, chosen.dest, None) if chosen is not None and chosen.dest else None
        if chosen is None or name not in chosen.choices:
            return found
        found = chosen.choices[name]


def main(argv: list[str] | None = None) -> int:
    try:
        code = _main(argv)
        sys.stdout.flush()  # here, where a reader that went away is caught, not at interpreter exit
        return code
    except BrokenPipeError:
        # the reader went away (`parley … | head`): no traceback; what was left to print goes nowhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _main(argv: list[str] | None) -> int:
    from server.cli.context import UsageError, err
    from server.errors import ParleyError

    top = parser()
    args, unknown = top.parse_known_args(argv)
    if unknown:
        _deepest(top, args).error(
            f"unrecognized arguments: {' '.join(unknown)}"
        )  # its usage, exit 2
    if getattr(args, "func", None) is None:
        top.print_help()
        return 0 if args.command is None else 2
    try:
        return int(args.func(args))
    except UsageError as exc:
        err(f"error: {exc}")
        return 2
    except ParleyError as exc:
        err(f"error: {exc}")
        return 1


if __name__ == "__main__":
    sys.exit(main())

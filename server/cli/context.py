"""What every admin command shares: settings, the manifest, the store and key, output helpers.

The store is opened only when a command needs it, and never created by a command that expects
one: `parley demo` and `parley init` create stores, everything else refuses a missing one.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Callable, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from server.errors import ParleyError

# Every command module imports this one, and `parley COMMAND --help` imports every command module:
# the settings, the manifest, the store and the keys are imported when a command first uses them.
if TYPE_CHECKING:
    from server.keys.mandate import SigningKey
    from server.manifest.schema import Manifest
    from server.store.database import Database

# A line of a listing as the command line shows it: a column's name and its value.
Fields = dict[str, object]


class UsageError(ParleyError):
    """A command given the wrong words; exits 2 like argparse does."""


class Context:
    def __init__(self, create_store: bool = False) -> None:
        from server.settings import Settings

        self.settings = Settings.from_env()
        self.create_store = create_store

    @cached_property
    def manifest(self) -> Manifest:
        from server.manifest.loading import load_manifest

        return load_manifest(self.settings.manifest_path)

    @cached_property
    def db(self) -> Database:
        """The store. On PostgreSQL the commands that create a club (demo, init) also create the keys
        folder and migrate; every other command refuses a schema that is not current."""
        from server.store.migrations import migrate, require_current
        from server.store.opening import open_db

        self.manifest  # noqa: B018 - a broken manifest is reported first, whatever the command
        db = open_db(self.settings.store, create=self.create_store)
        if db.shared:
            if self.create_store:
                from server.cluster.keyfolder import cluster_record, init_keys  # the OAuth keys too

                init_keys(self.settings.keys_dir)
                migrate(db, cluster_record(self.settings.keys_dir, self.settings.manifest_path))
            else:
                require_current(db)
        return db

    @cached_property
    def key(self) -> SigningKey:
        from server.keys.mandate import SigningKey

        self.db  # noqa: B018 - a key lives beside a store: refuse first if the store is missing
        # a cluster's keys folder is made once, by `parley keys init` (or demo / init)
        return SigningKey.load_or_create(
            self.settings.keys_dir, create=not self.settings.shared_store
        )


def command() -> str:
    """This command line as the person can run it again, for the hints it prints: `scripts/parley` sets
    PARLEY_COMMAND to the path it was run by (`parley` is then on no PATH but the script's own); the
    console script run by its path (`.venv/bin/parley`) is named by that path, as it was typed."""
    from server.settings import Settings

    named = Settings.from_env().command
    if named:
        return named
    typed, found = sys.argv[0], shutil.which("parley")
    if Path(typed).name == "parley":
        return "parley" if found and Path(found).resolve() == Path(typed).resolve() else typed
    return "parley" if found else f"{sys.executable} -m server.cli.main"


def err(text: str) -> None:
    print(text, file=sys.stderr)


def csv(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [part.strip() for part in text.split(",") if part.strip()]


def emit_json(data: object) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def listing(
    args: argparse.Namespace,
    rows: list[Fields],
    columns: list[str],
    shown: Callable[[Fields], Fields] | None = None,
) -> int:
    """A listing command's output: JSON with --json, else a table (`shown` adapts a row for people)."""
    if getattr(args, "json", False):
        emit_json(rows)
    else:
        table([shown(row) for row in rows] if shown else rows, columns)
    return 0


def facts(
    args: argparse.Namespace,
    data: Mapping[str, object],
    shown: Callable[[str, object], tuple[str, object]],
) -> int:
    """A command's named facts: JSON with --json, else one aligned `name value` line each as `shown`
    words it for people."""
    if getattr(args, "json", False):
        emit_json(data)
    else:
        for name, value in (shown(name, value) for name, value in data.items()):
            print(f"{name:<15} {value}")
    return 0


def table(rows: list[Fields], columns: list[str]) -> None:
    """A plain aligned table: a header, then one line a row."""
    if not rows:
        print("(none)")
        return
    widths = {
        c: max(len(c), *(len(str(r.get(c) if r.get(c) is not None else "-")) for r in rows))
        for c in columns
    }
    print("  ".join(c.upper().ljust(widths[c]) for c in columns).rstrip())
    for row in rows:
        print(
            "  ".join(
                str(row.get(c) if row.get(c) is not None else "-").ljust(widths[c]) for c in columns
            ).rstrip()
        )

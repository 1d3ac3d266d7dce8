"""`parley db` and `parley keys`: the schema of a PostgreSQL store, and the keys folder a cluster shares."""

from __future__ import annotations

import argparse

from server.cli.context import Context, add_json, command, err, facts

# Each command imports what it uses when it runs (`parley db --help` imports none of it).


def db_migrate(args: argparse.Namespace) -> int:
    """Create or upgrade the schema (once, whoever else runs it at the same moment) and record the
    keys' fingerprints and the manifest's digest that every server of the cluster must match."""
    from server.cluster.keyfolder import cluster_record
    from server.settings import Settings
    from server.store.migrations import migrate
    from server.store.opening import open_db

    settings = Settings.from_env()
    Context().manifest  # noqa: B018 - a broken manifest is reported before anything is recorded
    db = open_db(settings.store, create=False, upgrade=False)
    try:
        record = cluster_record(settings.keys_dir, settings.manifest_path)
        before, after = migrate(db, record)
    finally:
        db.close()
    recorded = "recorded the keys' fingerprints and the manifest's digest"
    if before == after:
        print(f"{settings.store_name}: schema already at version {after}; {recorded}")
    else:
        done = "created at" if before is None else f"upgraded from {before} to"
        print(f"{settings.store_name}: schema {done} version {after}; {recorded}")
    return 0


def db_status(args: argparse.Namespace) -> int:
    from server.settings import Settings
    from server.store.migrations import schema_version
    from server.store.opening import open_db

    settings = Settings.from_env()
    db = open_db(settings.store, create=False)
    try:
        found = {
            "backend": db.backend,
            "store": settings.store_name,
            "schema_version": schema_version(db),
        }
    finally:
        db.close()
    return facts(
        args,
        found,
        lambda name, value: (
            name,
            value if value is not None else f"(none: run {command()} db migrate)",
        ),
    )


def keys_init(args: argparse.Namespace) -> int:
    from server.cluster.keyfolder import init_keys
    from server.settings import Settings

    settings = Settings.from_env()
    made = init_keys(settings.keys_dir)
    folder = settings.keys_dir.resolve()
    if made:
        print(f"created in {folder}: {', '.join(made)}")
    else:
        print(f"{folder} already holds every key; nothing created")
    err(
        f"give every process this folder (PARLEY_KEYS), read-only; then run '{command()} db migrate'"
    )
    return 0


def keys_fingerprints(args: argparse.Namespace) -> int:
    from server.cluster.keyfolder import fingerprints
    from server.settings import Settings

    return facts(
        args,
        fingerprints(Settings.from_env().keys_dir),
        lambda name, value: (name.removeprefix("fingerprint."), value),
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("db", help="the store's schema (PostgreSQL: PARLEY_DATABASE_URL)")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    s = actions.add_parser(
        "migrate",
        help="create or upgrade the schema once, and record the cluster's keys and manifest",
    )
    s.set_defaults(func=db_migrate)
    s = actions.add_parser("status", help="the backend and the schema version")
    add_json(s)
    s.set_defaults(func=db_status)
    p = sub.add_parser("keys", help="the keys folder every process shares (PARLEY_KEYS)")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    s = actions.add_parser(
        "init", help="create the mandate key, the OAuth signing key and the console secret"
    )
    s.set_defaults(func=keys_init)
    s = actions.add_parser(
        "fingerprints", help="digests of the keys, as 'parley db migrate' records them"
    )
    add_json(s)
    s.set_defaults(func=keys_fingerprints)

"""What moves the store's revision: a trigger on every table that decides a caller's lane or scopes,
and on the briefing notes an answering agent is handed; SQLite's as it keeps them, PostgreSQL's too."""

from __future__ import annotations

# Anything that can change a caller's lane or scopes bumps the revision.
WATCHED = (
    "principals",
    "agents",
    "tokens",
    "mandates",
    "oauth_grants",
    "rules",
    "oauth_retired_keys",
)
# Updates that decide nothing about a caller leave the revision alone: a token's last use is written
# once a minute per token, and bumping the revision for it would drop every cached caller each time.
WATCHED_UPDATES = {
    "tokens": (
        "public_id",
        "hash",
        "kind",
        "principal_id",
        "agent_id",
        "scopes",
        "created_at",
        "expires_at",
        "revoked_at",
    )
}


def _update_event(table: str) -> str:
    columns = WATCHED_UPDATES.get(table)
    return f"UPDATE OF {', '.join(columns)}" if columns else "UPDATE"


# What a member's answering agent is handed moves the revision too: a change to an approved briefing
# note, so an ask can keep the notes it hands over per revision (asking/members.py) and the next ask
# after a change reads them afresh. A pending note, which no answerer sees, moves nothing: an agent
# drafting notes drops no caller's cache. Row triggers with these conditions on both stores.
HANDED = "briefing"
HANDED_WHEN = {
    "INSERT": "NEW.status = 'approved'",
    "UPDATE": "OLD.status = 'approved' OR NEW.status = 'approved'",
    "DELETE": "OLD.status = 'approved'",
}


def revision_triggers() -> dict[str, str]:
    """Each trigger's name and the statement that makes it, as SQLite keeps it in sqlite_master."""
    triggers = {}
    for table in WATCHED:
        for event in ("INSERT", "UPDATE", "DELETE"):
            name = f"bump_{table}_{event.lower()}"
            when = _update_event(table) if event == "UPDATE" else event
            triggers[name] = (
                f"CREATE TRIGGER {name} AFTER {when} ON {table} "
                "BEGIN UPDATE revision SET n = n + 1 WHERE id = 1; END"
            )
    for event, condition in HANDED_WHEN.items():
        name = f"bump_{HANDED}_{event.lower()}"
        triggers[name] = (
            f"CREATE TRIGGER {name} AFTER {event} ON {HANDED} WHEN {condition} "
            "BEGIN UPDATE revision SET n = n + 1 WHERE id = 1; END"
        )
    return triggers


def handed_triggers_postgres() -> str:
    """PostgreSQL's row triggers for `HANDED_WHEN` (the bump function comes with the baseline)."""
    return "\n".join(
        f"DROP TRIGGER IF EXISTS bump_{HANDED}_{event.lower()} ON {HANDED};\n"
        f"CREATE TRIGGER bump_{HANDED}_{event.lower()} AFTER {event} ON {HANDED} FOR EACH ROW "
        f"WHEN ({condition}) EXECUTE FUNCTION parley_bump_revision();"
        for event, condition in HANDED_WHEN.items()
    )


def postgres_revision_triggers() -> str:
    """PostgreSQL's statement trigger that bumps the revision and announces it to every process
    (`NOTIFY` is sent at COMMIT, never on rollback), on every watched table."""
    triggers = "\n".join(
        f"DROP TRIGGER IF EXISTS bump_{table} ON {table};\n"
        f"CREATE TRIGGER bump_{table} AFTER INSERT OR {_update_event(table)} OR DELETE ON {table} "
        "FOR EACH STATEMENT EXECUTE FUNCTION parley_bump_revision();"
        for table in WATCHED
    )
    return (
        """
CREATE OR REPLACE FUNCTION parley_bump_revision() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE bumped BIGINT;
BEGIN
    UPDATE revision SET n = n + 1 WHERE id = 1 RETURNING n INTO bumped;
    PERFORM pg_notify('parley_revision', bumped::text || ':' || extract(epoch FROM clock_timestamp())::text);
    RETURN NULL;
END $$;
"""
        + triggers
    )

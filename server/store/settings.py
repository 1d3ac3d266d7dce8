"""Rows of `router_settings`: the language the router reads and what it does with a twice-unread turn,
per member, with the club's defaults (set by a steward) under principal 0."""

from __future__ import annotations

from server.store.database import Database, now, text

CLUB = 0
DEFAULTS = {"language": "en", "on_unread": "refuse"}


def router_settings(db: Database, principal_id: int | None) -> dict[str, str]:
    """The member's own settings, else the club's, else the built-in defaults."""
    ids = [principal_id, CLUB] if principal_id is not None else [CLUB]
    for owner in ids:
        row = db.execute(
            "SELECT language, on_unread FROM router_settings WHERE principal_id = ?", [owner]
        ).fetchone()
        if row is not None:
            return {"language": text(row[0]), "on_unread": text(row[1])}
    return dict(DEFAULTS)


def set_router_settings(db: Database, principal_id: int, language: str, on_unread: str) -> None:
    db.execute(
        "INSERT INTO router_settings (principal_id, language, on_unread, updated_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (principal_id) DO UPDATE SET language = excluded.language, "
        "on_unread = excluded.on_unread, updated_at = excluded.updated_at",
        [principal_id, language, on_unread, now()],
    )


def clear_router_settings(db: Database, principal_id: int) -> None:
    """Forget a member's own choice: the club's defaults hold for them again."""
    db.execute("DELETE FROM router_settings WHERE principal_id = ?", [principal_id])

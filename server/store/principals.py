"""Rows of `principals`: the people of the club, their standing and their sign-in secret's hash."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum

from server.store.database import (
    Database,
    first_record,
    integer,
    number,
    records,
    text,
    text_or_none,
)


class PrincipalStatus(StrEnum):
    """A principal's standing, as the `principals.status` column holds it. A StrEnum: each equals its
    text, so rows, JSON and the console read as before; compare with these, never with a literal."""

    APPLICANT = "applicant"
    MEMBER = "member"
    SUSPENDED = "suspended"


@dataclass(frozen=True, slots=True)
class PrincipalRow:
    """A principal as its row holds it (tags: a JSON array; steward: 0 or 1)."""

    id: int
    handle: str
    name: str
    status: str
    steward: int
    bio: str
    tags: str
    created_at: str
    admitted_at: str | None


@dataclass(frozen=True, slots=True)
class ListedPrincipal:
    """A line of the club's roster."""

    handle: str
    name: str
    status: str
    steward: int
    created_at: str
    admitted_at: str | None


@dataclass(frozen=True, slots=True)
class Applicant:
    id: int
    handle: str
    name: str
    created_at: str


@dataclass(frozen=True, slots=True)
class FoundMember:
    """A member a directory search found (tags: a JSON array)."""

    handle: str
    name: str
    bio: str
    tags: str


_COLUMNS = "id, handle, name, status, steward, bio, tags, created_at, admitted_at"


def by_handle(db: Database, handle: str) -> PrincipalRow | None:
    return first_record(
        db, PrincipalRow, f"SELECT {_COLUMNS} FROM principals WHERE handle = ?", [handle]
    )


def by_id(db: Database, principal_id: int) -> PrincipalRow | None:
    return first_record(
        db, PrincipalRow, f"SELECT {_COLUMNS} FROM principals WHERE id = ?", [principal_id]
    )


def handle_taken(db: Database, handle: str) -> bool:
    return db.execute("SELECT 1 FROM principals WHERE handle = ?", [handle]).fetchone() is not None


def insert(
    db: Database,
    *,
    handle: str,
    name: str,
    status: str,
    steward: bool,
    bio: str,
    tags: list[str],
    created_at: str,
) -> int:
    return db.insert(
        "principals",
        {
            "handle": handle,
            "name": name,
            "status": status,
            "steward": int(steward),
            "bio": bio,
            "tags": json.dumps(sorted(set(tags))),
            "created_at": created_at,
            "admitted_at": created_at if status == PrincipalStatus.MEMBER else None,
        },
    )


def set_status(db: Database, principal_id: int, status: str, admitted_at: str | None) -> None:
    db.execute(
        "UPDATE principals SET status = ?, admitted_at = ? WHERE id = ?",
        [status, admitted_at, principal_id],
    )


def set_password_hash(db: Database, principal_id: int, password_hash: str) -> None:
    db.execute(
        "UPDATE principals SET password_hash = ? WHERE id = ?", [password_hash, principal_id]
    )


def status_of(db: Database, principal_id: int) -> str | None:
    row = db.execute("SELECT status FROM principals WHERE id = ?", [principal_id]).fetchone()
    return text(row[0]) if row else None


def status_by_handle(db: Database, handle: str) -> str | None:
    row = db.execute("SELECT status FROM principals WHERE handle = ?", [handle]).fetchone()
    return text(row[0]) if row else None


def sign_in_record(db: Database, handle: str) -> tuple[int, str, str | None] | None:
    """(id, status, password hash) for the sign-in check, or None."""
    row = db.execute(
        "SELECT id, status, password_hash FROM principals WHERE handle = ?", [handle]
    ).fetchone()
    return (integer(row[0]), text(row[1]), text_or_none(row[2])) if row else None


def count(db: Database) -> int:
    return number(db.execute("SELECT COUNT(*) FROM principals"))


def listing(db: Database) -> list[ListedPrincipal]:
    return records(
        db,
        ListedPrincipal,
        "SELECT handle, name, status, steward, created_at, admitted_at FROM principals "
        "ORDER BY handle",
    )


def applicants(db: Database) -> list[Applicant]:
    return records(
        db,
        Applicant,
        "SELECT id, handle, name, created_at FROM principals WHERE status = 'applicant' "
        "ORDER BY id",
    )


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def search_members(db: Database, words: list[str], limit: int) -> list[FoundMember]:
    """Admitted members whose handle, name, bio or tags contain every word (case-insensitive)."""
    where = ["status = 'member'"]
    params: list[str | int] = []
    for word in words:
        where.append("lower(handle || ' ' || name || ' ' || bio || ' ' || tags) LIKE ? ESCAPE '\\'")
        params.append(f"%{_escape_like(word.lower())}%")
    params.append(limit)
    return records(
        db,
        FoundMember,
        f"SELECT handle, name, bio, tags FROM principals WHERE {' AND '.join(where)} "
        "ORDER BY handle LIMIT ?",
        params,
    )


def member_handles(db: Database, limit: int = 500) -> list[str]:
    """Handles of admitted members, for the router's known values."""
    return [
        text(row[0])
        for row in db.execute(
            "SELECT handle FROM principals WHERE status = 'member' ORDER BY handle LIMIT ?", [limit]
        ).fetchall()
    ]

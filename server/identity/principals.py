"""Principals and agents: who belongs to the club, and which agents act for whom."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import sqlite_utils

from server.identity.passwords import hash_password
from server.store.database import now

HANDLE = re.compile(r"^[a-z][a-z0-9_-]{1,31}$")
STATUSES = ("applicant", "member", "suspended")
DEFAULT_AGENT = "assistant"


class ClubError(ValueError):
    """A club operation that cannot be done as asked; the message says why and what to do."""


@dataclass(frozen=True)
class Principal:
    id: int
    handle: str
    name: str
    status: str
    steward: bool
    bio: str
    tags: tuple[str, ...]
    created_at: str
    admitted_at: str | None


def _principal(row: dict) -> Principal:
    return Principal(
        id=row["id"],
        handle=row["handle"],
        name=row["name"],
        status=row["status"],
        steward=bool(row["steward"]),
        bio=row["bio"],
        tags=tuple(json.loads(row["tags"])),
        created_at=row["created_at"],
        admitted_at=row["admitted_at"],
    )


def find_principal(db: sqlite_utils.Database, handle: str) -> Principal:
    rows = list(db.query("SELECT * FROM principals WHERE handle = ?", [handle]))
    if not rows:
        raise ClubError(f"no principal with handle '{handle}'")
    return _principal(rows[0])


def get_principal(db: sqlite_utils.Database, principal_id: int) -> Principal:
    rows = list(db.query("SELECT * FROM principals WHERE id = ?", [principal_id]))
    if not rows:
        raise ClubError(f"no principal with id {principal_id}")
    return _principal(rows[0])


def add_principal(
    db: sqlite_utils.Database,
    handle: str,
    name: str,
    *,
    status: str = "applicant",
    steward: bool = False,
    bio: str = "",
    tags: list[str] | None = None,
) -> Principal:
    if not HANDLE.match(handle):
        raise ClubError(
            f"handle '{handle}' is not valid: 2 to 32 characters, lowercase letters, digits, '-' or '_', "
            "starting with a letter"
        )
    if status not in STATUSES:
        raise ClubError(f"status must be one of {', '.join(STATUSES)}")
    if not name.strip():
        raise ClubError("a principal needs a name")
    if db.execute("SELECT 1 FROM principals WHERE handle = ?", [handle]).fetchone():
        raise ClubError(f"handle '{handle}' is taken")
    stamp = now()
    db["principals"].insert(
        {
            "handle": handle,
            "name": name.strip(),
            "status": status,
            "steward": int(steward),
            "bio": bio,
            "tags": json.dumps(sorted(set(tags or []))),
            "created_at": stamp,
            "admitted_at": stamp if status == "member" else None,
        }
    )
    return find_principal(db, handle)


def set_status(db: sqlite_utils.Database, handle: str, status: str) -> Principal:
    principal = find_principal(db, handle)
    if status not in STATUSES:
        raise ClubError(f"status must be one of {', '.join(STATUSES)}")
    if status == "member" and principal.status == "member":
        raise ClubError(f"{handle} is already a member")
    if status == "suspended" and principal.status == "suspended":
        raise ClubError(f"{handle} is already suspended")
    admitted = principal.admitted_at or (now() if status == "member" else None)
    db.execute("UPDATE principals SET status = ?, admitted_at = ? WHERE id = ?", [status, admitted, principal.id])
    return find_principal(db, handle)


def add_agent(db: sqlite_utils.Database, handle: str, name: str = DEFAULT_AGENT) -> int:
    principal = find_principal(db, handle)
    if not re.match(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,47}$", name):
        raise ClubError(f"agent name '{name}' is not valid: 1 to 48 letters, digits, spaces, '.', '_' or '-'")
    if db.execute("SELECT 1 FROM agents WHERE principal_id = ? AND name = ?", [principal.id, name]).fetchone():
        raise ClubError(f"{handle} already has an agent named '{name}'")
    return db["agents"].insert({"principal_id": principal.id, "name": name, "created_at": now()}).last_pk


def find_agent(db: sqlite_utils.Database, handle: str, name: str | None = None) -> tuple[int, str]:
    """The named agent of a principal, or its first (default) agent."""
    principal = find_principal(db, handle)
    if name is None:
        row = db.execute(
            "SELECT id, name FROM agents WHERE principal_id = ? ORDER BY id LIMIT 1", [principal.id]
        ).fetchone()
        if row is None:
            raise ClubError(f"{handle} has no agent yet: add one with 'parley agent add {handle} NAME'")
    else:
        row = db.execute(
            "SELECT id, name FROM agents WHERE principal_id = ? AND name = ?", [principal.id, name]
        ).fetchone()
        if row is None:
            raise ClubError(f"{handle} has no agent named '{name}'")
    return row[0], row[1]


def set_password(db: sqlite_utils.Database, handle: str, password: str) -> None:
    """Set the password a principal signs in with (console, OAuth consent)."""
    principal = find_principal(db, handle)
    db.execute("UPDATE principals SET password_hash = ? WHERE id = ?", [hash_password(password), principal.id])


def revoke_agent(db: sqlite_utils.Database, handle: str, name: str) -> None:
    """Revoke an agent: every token and OAuth grant it holds is refused from the next request."""
    agent_id, _ = find_agent(db, handle, name)
    db.execute("UPDATE agents SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [now(), agent_id])

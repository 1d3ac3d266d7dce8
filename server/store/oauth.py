"""Rows of the embedded authorization server: clients, codes, grant families and refresh tokens.

Codes and refresh tokens are stored as digests. Claims of one-time secrets are single statements
(`UPDATE … WHERE used IS NULL`), so of two concurrent redemptions exactly one wins.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Literal

from server.store.database import Database, first_record, text, text_or_none, write


@dataclass(frozen=True, slots=True)
class ClientRow:
    """A registered client: its metadata as JSON text, its secret as a digest (None: public)."""

    client_id: str
    secret_hash: str | None
    metadata: str
    issued_at: int


@dataclass(frozen=True, slots=True)
class CodeRow:
    """An authorization code (stored as its digest) and what it was issued for."""

    id: int
    client_id: str
    redirect_uri: str
    scope: str
    resource: str
    principal_id: int
    agent_id: int
    code_challenge: str
    code_challenge_method: Literal["S256"]  # the column's CHECK
    expires_at: int
    used_at: int | None
    family: str | None  # the grant family it bought, once redeemed


@dataclass(frozen=True, slots=True)
class GrantRow:
    """A grant family: what one consent gave one client, for one agent."""

    family: str
    client_id: str
    principal_id: int
    agent_id: int
    scope: str
    resource: str


@dataclass(frozen=True, slots=True)
class RefreshTokenRow:
    """A refresh token (stored as its digest) of a grant family."""

    family: str
    client_id: str
    scope: str
    issued_at: int
    expires_at: int
    rotated_at: int | None


_CLIENT = "client_id, secret_hash, metadata, issued_at"
_CODE = (
    "id, client_id, redirect_uri, scope, resource, principal_id, agent_id, code_challenge, "
    "code_challenge_method, expires_at, used_at, family"
)
_GRANT = "family, client_id, principal_id, agent_id, scope, resource"
_REFRESH_TOKEN = "family, client_id, scope, issued_at, expires_at, rotated_at"


def client(db: Database, client_id: str) -> ClientRow | None:
    return first_record(
        db, ClientRow, f"SELECT {_CLIENT} FROM oauth_clients WHERE client_id = ?", [client_id]
    )


def add_client(
    db: Database,
    client_id: str,
    secret_hash: str | None,
    metadata: dict[str, object],
    issued_at: int,
) -> ClientRow:
    row = ClientRow(
        client_id=client_id,
        secret_hash=secret_hash,
        metadata=json.dumps(metadata),
        issued_at=issued_at,
    )
    db.insert("oauth_clients", asdict(row))
    return row


def add_code(db: Database, row: dict[str, object]) -> None:
    db.insert("oauth_codes", {**row, "used_at": None, "family": None})


def code(db: Database, code_hash: str) -> CodeRow | None:
    return first_record(
        db, CodeRow, f"SELECT {_CODE} FROM oauth_codes WHERE code_hash = ?", [code_hash]
    )


def claim_code(db: Database, code_id: int, family: str | None, stamp: int) -> bool:
    """Mark a code used (with the family it buys, or none when it is burnt); False if already used."""
    return (
        db.execute(
            "UPDATE oauth_codes SET used_at = ?, family = ? WHERE id = ? AND used_at IS NULL",
            [stamp, family, code_id],
        ).rowcount
        == 1
    )


def grant(db: Database, family: str) -> GrantRow | None:
    """The grant family if it exists and is not revoked."""
    return first_record(
        db,
        GrantRow,
        f"SELECT {_GRANT} FROM oauth_grants WHERE family = ? AND revoked_at IS NULL",
        [family],
    )


def grant_revoked(db: Database, family: str) -> bool:
    row = db.execute("SELECT revoked_at FROM oauth_grants WHERE family = ?", [family]).fetchone()
    return row is None or row[0] is not None


def revoke_grant(
    db: Database, family: str, reason: str, stamp: str, principal_id: int | None = None
) -> bool:
    mine = " AND principal_id = ?" if principal_id is not None else ""
    params: list[object] = [stamp, reason, family] + (
        [principal_id] if principal_id is not None else []
    )
    return (
        db.execute(
            f"UPDATE oauth_grants SET revoked_at = ?, revoked_reason = ? WHERE family = ?{mine} "
            "AND revoked_at IS NULL",
            params,
        ).rowcount
        == 1
    )


def add_grant_once(db: Database, row: dict[str, object]) -> None:
    """Record a grant family the first time a token of it is issued."""
    db.execute(
        "INSERT INTO oauth_grants (family, client_id, principal_id, agent_id, scope, resource, created_at, "
        "revoked_at, revoked_reason) VALUES (:family, :client_id, :principal_id, :agent_id, :scope, "
        ":resource, :created_at, NULL, NULL) ON CONFLICT (family) DO NOTHING",
        row,
    )


@dataclass(frozen=True, slots=True)
class ListedGrant:
    """A grant family as its principal sees it listed: the app (its registered name, else its client
    id), the agent it acts as, its scope and whether it was taken back."""

    family: str
    client_id: str
    client_name: str
    agent: str
    scope: str
    created_at: str
    revoked_at: str | None


def grants_of(db: Database, principal_id: int) -> list[ListedGrant]:
    rows = list(
        db.query(
            """SELECT g.family, g.client_id, g.scope, g.created_at, g.revoked_at, a.name AS agent, c.metadata
           FROM oauth_grants g JOIN agents a ON a.id = g.agent_id
           LEFT JOIN oauth_clients c ON c.client_id = g.client_id
           WHERE g.principal_id = ? ORDER BY g.id""",
            [principal_id],
        )
    )
    listed = []
    for row in rows:
        metadata = json.loads(text_or_none(row["metadata"]) or "{}")
        listed.append(
            ListedGrant(
                family=text(row["family"]),
                client_id=text(row["client_id"]),
                client_name=metadata.get("client_name") or text(row["client_id"]),
                agent=text(row["agent"]),
                scope=text(row["scope"]),
                created_at=text(row["created_at"]),
                revoked_at=text_or_none(row["revoked_at"]),
            )
        )
    return listed


def refresh_token(db: Database, token_hash: str) -> RefreshTokenRow | None:
    return first_record(
        db,
        RefreshTokenRow,
        f"SELECT {_REFRESH_TOKEN} FROM oauth_refresh_tokens WHERE token_hash = ?",
        [token_hash],
    )


def claim_refresh_token(db: Database, token_hash: str, stamp: int) -> RefreshTokenRow | None:
    """Rotate a refresh token in one statement; None when it is unknown or was already rotated."""
    with write(db):
        # read to the end inside the unit, before COMMIT: RETURNING rows belong to the statement
        return first_record(
            db,
            RefreshTokenRow,
            "UPDATE oauth_refresh_tokens SET rotated_at = ? WHERE token_hash = ? "
            f"AND rotated_at IS NULL RETURNING {_REFRESH_TOKEN}",
            [stamp, token_hash],
        )


def add_refresh_token(db: Database, row: dict[str, object]) -> None:
    db.insert("oauth_refresh_tokens", {**row, "rotated_at": None})


def retired_kids(db: Database) -> list[str]:
    return [
        text(row[0])
        for row in db.execute("SELECT kid FROM oauth_retired_keys ORDER BY id").fetchall()
    ]


def retire_kid(db: Database, kid: str, stamp: str) -> None:
    db.execute(
        "INSERT INTO oauth_retired_keys (kid, retired_at) VALUES (?, ?) ON CONFLICT (kid) DO NOTHING",
        [kid, stamp],
    )

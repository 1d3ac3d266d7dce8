"""Signed mandates: what a principal lets its answering agent treat, reveal and be quoted on.

A mandate is canonical JSON signed with Ed25519. The signing key lives in a file beside the
database, never in it, so whoever can write the database still cannot forge or widen a mandate.
A mandate whose signature fails, that has expired, or that is missing counts as no mandate.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from server.errors import ParleyError
from server.keys.mandate import SigningKey
from server.store import mandates as mandate_rows
from server.store import principals as principal_rows
from server.store.database import Database, format_time, now, parse_time, write

VISIBILITIES = ("public", "members", "private")


class MandateBody(BaseModel):
    """The signed terms. Field names are part of the signature: change them only with a version bump."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: int = 1
    principal_id: int
    principal: str
    version: int = Field(ge=1)
    topics: list[str]
    reveal: list[str]
    quotable: bool
    scopes: list[str]
    issued_at: str
    expires_at: str


def canonical_json(data: Mapping[str, object]) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def _verify(body: str, signature: str, key_id: str, key: SigningKey) -> MandateBody | None:
    if key_id != key.key_id:
        return None
    try:
        Ed25519PublicKey.from_public_bytes(key.public_raw).verify(
            base64.b64decode(signature, validate=True), body.encode()
        )
        parsed = MandateBody.model_validate_json(body)
    except (InvalidSignature, ValueError, ValidationError):
        return None
    if canonical_json(parsed.model_dump()) != body.encode():
        return None
    return parsed


# The newest verified mandate of each principal, by its exact text: one entry a principal, so the
# cache is as large as the club (never a fixed size that callers in turn overflow), and a changed
# byte of body or signature misses it and is verified afresh.
_VERIFIED: dict[tuple[int, bytes], tuple[str, str, str, MandateBody | None]] = {}


def _verified_body(
    principal_id: int, body: str, signature: str, key_id: str, key: SigningKey
) -> MandateBody | None:
    slot = (principal_id, key.public_raw)
    hit = _VERIFIED.get(slot)
    if hit is not None and hit[0] == body and hit[1] == signature and hit[2] == key_id:
        return hit[3]
    parsed = _verify(body, signature, key_id, key)
    _VERIFIED[slot] = (body, signature, key_id, parsed)
    return parsed


@dataclass(frozen=True)
class MandateStatus:
    """A mandate as the chokepoint sees it: usable or not, and why."""

    state: str  # valid | missing | invalid_signature | expired | wrong_principal
    body: MandateBody | None

    @property
    def valid(self) -> bool:
        return self.state == "valid"

    @property
    def scopes(self) -> frozenset[str]:
        return frozenset(self.body.scopes) if self.valid and self.body else frozenset()

    def describe(self) -> str:
        return {
            "valid": "signed and verified",
            "missing": "no mandate has been signed",
            "invalid_signature": "the stored mandate's signature does not verify; it counts as no mandate",
            "expired": "the mandate has expired; it counts as no mandate",
            "wrong_principal": "the stored mandate names another principal; it counts as no mandate",
        }[self.state]


def check(
    key: SigningKey, principal_id: int, body: str | None, signature: str | None, key_id: str | None
) -> MandateStatus:
    if body is None or signature is None or key_id is None:
        return MandateStatus("missing", None)
    parsed = _verified_body(principal_id, body, signature, key_id, key)
    if parsed is None:
        return MandateStatus("invalid_signature", None)
    if parsed.principal_id != principal_id:
        return MandateStatus("wrong_principal", None)
    if parsed.expires_at <= now():  # fixed-width UTC ISO text: string order is time order
        return MandateStatus("expired", parsed)
    return MandateStatus("valid", parsed)


class MandateError(ParleyError):
    """A mandate that cannot be signed as asked; the message says what to change."""


def sign_mandate(
    db: Database,
    key: SigningKey,
    *,
    principal_id: int,
    topics: list[str],
    reveal: list[str],
    quotable: bool,
    scopes: list[str],
    known_scopes: frozenset[str],
    agent_scopes: frozenset[str],
    valid_for: timedelta | None = None,
    expires_at: datetime | None = None,
) -> MandateBody:
    """Record a new version of a principal's mandate, signed. Earlier versions stay for the record."""
    principal = principal_rows.by_id(db, principal_id)
    if principal is None:
        raise MandateError(f"no principal with id {principal_id}")
    unknown = sorted(set(scopes) - known_scopes)
    if unknown:
        raise MandateError(f"unknown scope(s): {', '.join(unknown)}")
    withheld = sorted(set(scopes) - agent_scopes)
    if withheld:
        raise MandateError(
            f"a mandate governs agents and can never grant {', '.join(withheld)}: "
            "an agent that can widen its own mandate has no mandate"
        )
    bad = sorted(set(reveal) - set(VISIBILITIES))
    if bad:
        raise MandateError(
            f"reveal takes visibilities from {', '.join(VISIBILITIES)}; not {', '.join(bad)}"
        )
    if "private" in reveal:
        raise MandateError("private notes are never revealed to other members' agents")
    clean_topics = sorted({t.strip().lower() for t in topics if t.strip()})
    issued = datetime.now(UTC)
    ends = expires_at if expires_at is not None else issued + (valid_for or timedelta(0))
    if ends <= issued:
        raise MandateError("a mandate must be valid for a positive time")
    with write(db):
        version = mandate_rows.next_version(db, principal_id)
        body = MandateBody(
            principal_id=principal_id,
            principal=principal.handle,
            version=version,
            topics=clean_topics,
            reveal=sorted(set(reveal)),
            quotable=quotable,
            scopes=sorted(set(scopes)),
            issued_at=format_time(issued),
            expires_at=format_time(ends),
        )
        text = canonical_json(body.model_dump())
        mandate_rows.insert(
            db,
            principal_id=principal_id,
            version=body.version,
            body=text.decode("utf-8"),
            signature=key.sign(text),
            key_id=key.key_id,
            created_at=now(),
        )
    return body


def current(db: Database, key: SigningKey, principal_id: int) -> MandateStatus:
    row = mandate_rows.latest(db, principal_id)
    if row is None:
        return MandateStatus("missing", None)
    return check(key, principal_id, *row)


def amend(
    db: Database,
    key: SigningKey,
    *,
    principal_id: int,
    known_scopes: frozenset[str],
    agent_scopes: frozenset[str],
    topics: list[str] | None = None,
    reveal: list[str] | None = None,
    quotable: bool | None = None,
    scopes: list[str] | None = None,
    valid_for: timedelta | None = None,
    default_scopes: list[str] | tuple[str, ...] = (),
) -> MandateBody:
    """Sign a new version that changes only what is given: the rest, and by default the time left,
    carry over from the current mandate (or modest defaults when there is none)."""
    body = current(db, key, principal_id).body
    expires_at = None
    if valid_for is None:
        expires_at = parse_time(body.expires_at) if body else datetime.now(UTC)
        if expires_at <= datetime.now(UTC):
            raise MandateError(
                "the current mandate has expired or is missing: give valid_days for the new one"
            )
    return sign_mandate(
        db,
        key,
        principal_id=principal_id,
        topics=topics if topics is not None else (body.topics if body else []),
        reveal=reveal if reveal is not None else (body.reveal if body else ["public"]),
        quotable=quotable if quotable is not None else (body.quotable if body else False),
        scopes=scopes if scopes is not None else (body.scopes if body else list(default_scopes)),
        known_scopes=known_scopes,
        agent_scopes=agent_scopes,
        valid_for=valid_for,
        expires_at=expires_at,
    )

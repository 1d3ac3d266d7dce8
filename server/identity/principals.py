"""Principals and their agents: who belongs to the club, and which agents act for whom.

A principal's *agents* hold tokens and act for them; they are not the manifest's personas (the
`agents:` a caller talks to, chosen by the entry table), which live in `server.access`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from server.errors import Conflict, NotFound, ParleyError
from server.identity.passwords import hash_password
from server.quoting import plain_name
from server.store import agents as agent_rows
from server.store import principals as principal_rows
from server.store import sessions
from server.store.database import Database, now, write
from server.store.principals import PrincipalRow
from server.store.principals import PrincipalStatus as PrincipalStatus  # the statuses, here too

HANDLE = re.compile(r"^[a-z][a-z0-9_-]{1,31}$")
AGENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,47}$")
STATUSES = tuple(PrincipalStatus)
DEFAULT_AGENT = "assistant"
# What a note written through the principal's own token records as its agent (`tools.briefing`).
OWN_TOKEN = "principal token"


def acted_through(agent: str | None, yours: bool = True) -> str:
    """Who acted for a principal, in the words Notes, Activity and `parley audit tail` all use: an
    agent by its name, or the principal themselves through their own token (`yours`: the reader is
    that principal)."""
    if agent and agent != OWN_TOKEN:
        return agent
    return "you (your own token)" if yours else "their own token"


class ClubError(ParleyError):
    """A club operation that cannot be done as asked; the message says why and what to do."""


class NoSuchPrincipal(ClubError, NotFound):
    """No principal (or agent) by that name: the message names what was looked for."""


class AlreadyThere(ClubError, Conflict):
    """A handle or agent name taken, or a status already held."""


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


def _principal(row: PrincipalRow) -> Principal:
    return Principal(
        id=row.id,
        handle=row.handle,
        name=row.name,
        status=row.status,
        steward=bool(row.steward),
        bio=row.bio,
        tags=tuple(json.loads(row.tags)),
        created_at=row.created_at,
        admitted_at=row.admitted_at,
    )


def find_principal(db: Database, handle: str) -> Principal:
    row = principal_rows.by_handle(db, handle)
    if row is None:
        raise NoSuchPrincipal(f"no principal with handle '{handle}'")
    return _principal(row)


def get_principal(db: Database, principal_id: int) -> Principal:
    row = principal_rows.by_id(db, principal_id)
    if row is None:
        raise NoSuchPrincipal(f"no principal with id {principal_id}")
    return _principal(row)


def add_principal(
    db: Database,
    handle: str,
    name: str,
    *,
    status: str = PrincipalStatus.APPLICANT,
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
    problem = None if name.strip() == handle else plain_name(name.strip())  # a handle is plain
    if problem is not None:
        raise ClubError(f"that name is not a plain name: {problem}")
    if principal_rows.handle_taken(db, handle):
        raise AlreadyThere(f"handle '{handle}' is taken")
    principal_rows.insert(
        db,
        handle=handle,
        name=name.strip(),
        status=status,
        steward=steward,
        bio=bio,
        tags=tags or [],
        created_at=now(),
    )
    return find_principal(db, handle)


def set_status(db: Database, handle: str, status: str) -> Principal:
    principal = find_principal(db, handle)
    if status not in STATUSES:
        raise ClubError(f"status must be one of {', '.join(STATUSES)}")
    if status == principal.status:
        raise AlreadyThere(
            f"{handle} is already {'a member' if status == PrincipalStatus.MEMBER else status}"
        )
    admitted = principal.admitted_at or (now() if status == PrincipalStatus.MEMBER else None)
    with write(db):
        principal_rows.set_status(db, principal.id, status, admitted)
        if status == PrincipalStatus.SUSPENDED:
            sessions.end_all(db, principal.id, "suspended")
    return find_principal(db, handle)


def add_agent(db: Database, handle: str, name: str = DEFAULT_AGENT) -> int:
    principal = find_principal(db, handle)
    if not AGENT_NAME.match(name):
        raise ClubError(
            f"agent name '{name}' is not valid: 1 to 48 letters, digits, spaces, '.', '_' or '-'"
        )
    if agent_rows.named(db, principal.id, name) is not None:
        raise AlreadyThere(f"{handle} already has an agent named '{name}'")
    return agent_rows.insert(db, principal.id, name, now())


def find_agent(db: Database, handle: str, name: str | None = None) -> tuple[int, str]:
    """The named agent of a principal, or its first (default) agent."""
    principal = find_principal(db, handle)
    if name is None:
        found = agent_rows.first(db, principal.id)
        if found is None:
            raise NoSuchPrincipal(
                f"{handle} has no agent yet: add one with 'parley agent add {handle} NAME'"
            )
    else:
        found = agent_rows.named(db, principal.id, name)
        if found is None:
            raise NoSuchPrincipal(f"{handle} has no agent named '{name}'")
    return found


def set_password(db: Database, handle: str, password: str) -> None:
    """Set the password a principal signs in with (console, OAuth consent)."""
    principal = find_principal(db, handle)
    hashed = hash_password(password)
    with write(db):
        principal_rows.set_password_hash(db, principal.id, hashed)
        sessions.end_all(
            db, principal.id, "password changed"
        )  # every console sign-in ends with the old password


def revoke_agent(db: Database, handle: str, name: str) -> None:
    """Revoke an agent: every token and OAuth grant it holds is refused from the next request."""
    agent_id, _ = find_agent(db, handle, name)
    agent_rows.revoke(db, agent_id, now())


def bind_subject(db: Database, issuer: str, subject: str, handle: str, name: str) -> None:
    """An external issuer's subject acts as this principal's agent from the next request."""
    if not subject.strip() or len(subject) > 255:
        raise ClubError("give the issuer's subject (1 to 255 characters) with --subject")
    agent_id, _ = find_agent(db, handle, name)
    agent_rows.bind_subject(db, issuer, subject, agent_id)

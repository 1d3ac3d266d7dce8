"""One way in for every surface's credential (`server.identity.authenticate`), and the one rule every
identity and access cache follows (`server.identity.cache`): a value is good at the store revision it
was kept at, and at no other."""

from __future__ import annotations

import dataclasses
import secrets
from datetime import UTC, datetime, timedelta

import pytest

from server.access import Access
from server.identity import principals
from server.identity.authenticate import Bearer, ConsoleSession, authenticate
from server.identity.cache import AtRevision
from server.identity.credentials import CredentialRejected, digest
from server.identity.resolved import Identity
from server.identity.resolver import Resolver
from server.manifest.loading import load_manifest
from server.store import sessions
from server.store.database import format_time, revision


@pytest.fixture
def world(demo_minted):
    db, key, manifest, minted = demo_minted
    resolver = Resolver(db, key, frozenset(manifest.scopes))
    return db, resolver, Access(manifest, resolver), minted


def test_a_value_is_answered_at_the_revision_it_was_kept_at_and_no_other():
    kept: AtRevision[str, str] = AtRevision(limit=2)
    kept.put("a", 7, "chain")
    assert kept.get("a", 7) == "chain"
    assert kept.get("a", 8) is None and kept.get("a", 6) is None  # another revision: as if absent
    assert (
        "a" in kept and kept.last("a") == "chain"
    )  # known, for what carries over, never to answer
    kept.put("b", 7, "other")
    kept.put("c", 7, "third")  # full: emptied whole, then kept
    assert len(kept) == 1 and kept.get("c", 7) == "third" and kept.get("a", 7) is None


def test_a_bearer_and_a_console_session_come_in_through_the_same_function(world):
    db, resolver, _, minted = world
    identity = authenticate(resolver, Bearer(f"Bearer {minted.member.token}"))
    assert isinstance(identity, Identity) and identity.principal == "bruno"
    assert authenticate(resolver, Bearer(None)) is None  # no credential: the guest lane
    with pytest.raises(CredentialRejected, match="unknown token"):
        authenticate(resolver, Bearer("Bearer pa_" + "x" * 40))

    bruno = principals.find_principal(db, "bruno").id
    secret = secrets.token_urlsafe(32)
    expires = format_time(datetime.now(UTC) + timedelta(hours=1))
    sessions.start(db, digest(secret), bruno, expires)
    assert authenticate(resolver, ConsoleSession(secret)) == bruno
    assert authenticate(resolver, ConsoleSession(secrets.token_urlsafe(32))) is None
    sessions.end(db, digest(secret), "signed out")
    assert authenticate(resolver, ConsoleSession(secret)) is None  # ended: signed out at once


def test_a_kept_chain_and_caller_are_not_answered_once_the_revision_moves(world):
    db, resolver, access, minted = world
    header = f"Bearer {minted.member.token}"
    first = access.from_header(header)
    assert access.from_header(header) is first  # kept at this revision: the very caller
    before = revision(db)
    db.execute("UPDATE principals SET status = status WHERE handle = 'bruno'")  # moves the revision
    assert revision(db) != before
    moved = access.from_header(header)
    assert moved is not first and moved.identity is not first.identity
    assert moved.revision == revision(db) and first.revision == before


def test_a_caller_holds_nothing_that_changes():
    """A `Caller` is immutable all the way down: every value it holds is of an immutable type (a
    pure tool's answers to it are kept beside it, `server.access.answers`)."""
    manifest = load_manifest()
    caller = Access(manifest, None).guest()  # type: ignore[arg-type]
    immutable = (type(None), str, int, bool, frozenset, tuple, Identity)
    for field in dataclasses.fields(caller):
        value = getattr(caller, field.name)
        assert isinstance(value, immutable), (field.name, type(value).__name__)
    assert hash(caller) == hash(dataclasses.replace(caller))

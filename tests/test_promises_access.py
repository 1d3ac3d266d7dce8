"""The access stage: the claims the entry table reads, the lane rule failing closed, and a caller
re-resolved as its next request would be. Found by the mutation run (scripts/mutate)."""

from __future__ import annotations

import pytest

from server.access import Access, lane_of
from server.cli import demo
from server.identity import tokens
from server.identity import principals as club_ops
from server.identity.credentials import CredentialRejected
from server.identity.mandates import SigningKey
from server.identity.resolver import Resolver
from server.manifest.loading import load_manifest
from server.store.opening import open_db
from tests.conftest import manifest_copy

ROWS = ("entry:\n"
        "  - { claims: { handle: bruno }, agent: steward }\n"
        "  - { claims: { credential: principal_token }, agent: applicant }\n")


@pytest.fixture
def world(tmp_path):
    path = manifest_copy(tmp_path, lambda text: text.replace("entry:\n", ROWS, 1))
    manifest = load_manifest(path)
    db = open_db(tmp_path / "club.db")
    key = SigningKey.load_or_create(tmp_path / "keys")
    minted = demo.prepare(db, key, manifest)
    yield db, Access(manifest, Resolver(db, key, frozenset(manifest.scopes))), minted
    db.close()


def test_the_entry_table_reads_the_handle_and_credential_claims(world):
    db, access, minted = world
    assert access.from_header(f"Bearer {minted.member.token}").entry_persona == "steward"  # bruno, by handle
    assert access.from_header(f"Bearer {minted.steward_principal.token}").entry_persona == "applicant"
    assert access.from_header(f"Bearer {minted.applicant.token}").entry_persona == "applicant"
    assert access.from_header(None).entry_persona == "lobby"


def test_again_re_resolves_what_the_caller_presented(world):
    db, access, minted = world
    bruno = club_ops.find_principal(db, "bruno")
    agent_id, _ = club_ops.find_agent(db, "bruno")
    spare = tokens.mint(db, principal_id=bruno.id, agent_id=agent_id, scopes={"club:read", "inbox:read"})
    caller = access.from_header(f"Bearer {spare.token}")
    again = access.again(caller)
    assert again == caller and again.scopes == frozenset({"club:read", "inbox:read"})
    assert access.again(access.from_header(None)) == access.guest()
    tokens.revoke(db, spare.public_id)
    with pytest.raises(CredentialRejected, match="token was revoked"):
        access.again(caller)


@pytest.mark.parametrize("status", ["rejected", "suspended", ""])
def test_a_status_no_lane_knows_fails_closed_and_says_which(status):
    with pytest.raises(CredentialRejected) as err:
        lane_of(status)
    assert err.value.reason == f"a principal who is {status} reaches no lane"


def test_the_entry_table_reads_the_lane_claim(tmp_path):
    path = manifest_copy(tmp_path, lambda text: text.replace(
        "entry:\n", "entry:\n  - { claims: { lane: applicant }, agent: steward }\n", 1))
    manifest = load_manifest(path)
    db = open_db(tmp_path / "club.db")
    key = SigningKey.load_or_create(tmp_path / "keys")
    minted = demo.prepare(db, key, manifest)
    access = Access(manifest, Resolver(db, key, frozenset(manifest.scopes)))
    try:
        assert access.from_header(f"Bearer {minted.applicant.token}").entry_persona == "steward"
        assert access.from_header(f"Bearer {minted.member.token}").entry_persona == "member"
    finally:
        db.close()


def test_a_persona_that_leaves_out_one_tool_still_shows_the_ones_after_it(tmp_path):
    path = manifest_copy(tmp_path, lambda text: text.replace(
        "    tools: [about_club, whoami, apply]\n", "    tools: [about_club, apply]\n", 1))
    manifest = load_manifest(path)
    db = open_db(tmp_path / "club.db")
    key = SigningKey.load_or_create(tmp_path / "keys")
    try:
        guest = Access(manifest, Resolver(db, key, frozenset(manifest.scopes))).from_header(None)
    finally:
        db.close()
    assert guest.entry_persona == "lobby" and guest.tools == ("about_club", "apply")


def test_a_principals_own_token_may_carry_every_scope_an_agents_never_mandate_write():
    from server.access import token_scopes_allowed

    manifest = load_manifest()
    assert token_scopes_allowed(manifest, True) == frozenset(manifest.scopes)
    assert "mandate:write" in token_scopes_allowed(manifest, True)
    assert token_scopes_allowed(manifest, False) == manifest.agent_scopes
    assert "mandate:write" not in token_scopes_allowed(manifest, False)

"""Credentials to callers: the chain, the signed mandate, and effective scopes, against a real store."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from server.access import Access
from server.identity import mandates, principals, tokens
from server.identity.credentials import CredentialRejected
from server.identity.mandates import MandateError
from server.identity.resolver import Resolver
from server.keys.mandate import KEY_FILE, SigningKey
from tests.access.test_e2e_lanes import GUEST, member_tools_within
from tests.store_dump import store_dump


@pytest.fixture
def world(demo_minted):
    db, key, manifest, minted = demo_minted
    return (
        db,
        key,
        manifest,
        Access(manifest, Resolver(db, key, frozenset(manifest.scopes))),
        minted,
    )


def bearer(token: str) -> str:
    return f"Bearer {token}"


def sign(world, handle: str, scopes, valid_for=timedelta(days=1), key=None):
    db, own_key, manifest, _, _ = world
    return mandates.sign_mandate(
        db,
        key or own_key,
        principal_id=principals.find_principal(db, handle).id,
        topics=["x"],
        reveal=["public"],
        quotable=False,
        scopes=sorted(scopes),
        known_scopes=frozenset(manifest.scopes),
        agent_scopes=manifest.agent_scopes,
        valid_for=valid_for,
    )


def test_no_header_is_guest_and_says_why(world):
    *_, resolver, _ = world
    caller = resolver.from_header(None)
    assert caller.lane == "guest" and caller.why == "no credential was sent"
    assert caller.tools == tuple(GUEST) and caller.scopes == frozenset()


@pytest.mark.parametrize(
    "header, reason",
    [
        ("Basic dXNlcjpwYXNz", "malformed Authorization header"),
        ("Bearer", "empty bearer token"),
        ("Bearer    ", "empty bearer token"),
        ("Bearer a b", "malformed bearer token"),
        ("Bearer pa_unknown", "unknown token"),
        ("", "malformed Authorization header"),
    ],
)
def test_bad_headers_are_rejected_not_downgraded(world, header, reason):
    *_, resolver, _ = world
    with pytest.raises(CredentialRejected, match=reason):
        resolver.from_header(header)


def test_member_agent_scopes_are_token_mandate_and_ceiling(world):
    db, key, manifest, resolver, minted = world
    caller = resolver.from_header(bearer(minted.member.token))
    assert caller.lane == "member" and caller.principal == "bruno" and caller.agent == "assistant"
    assert caller.scopes == manifest.agent_scopes
    assert "mandate:write" not in caller.scopes


def test_applicant_agent_has_four_scopes(world):
    *_, resolver, minted = world
    caller = resolver.from_header(bearer(minted.applicant.token))
    assert caller.lane == "applicant"
    assert caller.scopes == {"club:read", "evidence:write", "questions:ask", "inbox:read"}


def test_token_narrower_than_mandate_wins(world):
    db, key, manifest, resolver, _ = world
    bruno = principals.find_principal(db, "bruno")
    agent_id, _ = principals.find_agent(db, "bruno")
    narrow = tokens.mint(db, principal_id=bruno.id, agent_id=agent_id, scopes={"club:read"})
    assert resolver.from_header(bearer(narrow.token)).scopes == {"club:read"}


def test_mandate_narrower_than_token_wins_on_next_request(world):
    db, key, manifest, resolver, minted = world
    before = resolver.from_header(bearer(minted.member.token))
    assert "directory:read" in before.scopes
    sign(world, "bruno", ["club:read", "inbox:read"])
    after = resolver.from_header(bearer(minted.member.token))
    assert after.scopes == {"club:read", "inbox:read"}
    assert "search_directory" not in after.tools


def test_lane_ceiling_caps_an_applicant_even_with_a_wide_mandate(world):
    db, key, manifest, resolver, minted = world
    sign(world, "carla", manifest.agent_scopes)
    caller = resolver.from_header(bearer(minted.applicant.token))
    assert "directory:read" not in caller.scopes and "briefing:write" not in caller.scopes


def test_revoked_expired_suspended_and_broken_chains(world):
    db, key, manifest, resolver, minted = world
    bruno = principals.find_principal(db, "bruno")
    agent_id, _ = principals.find_agent(db, "bruno")

    revoked = tokens.mint(db, principal_id=bruno.id, agent_id=agent_id, scopes={"club:read"})
    assert tokens.revoke(db, revoked.public_id) == revoked.public_id
    with pytest.raises(CredentialRejected, match="revoked"):
        resolver.from_header(bearer(revoked.token))

    expired = tokens.mint(
        db,
        principal_id=bruno.id,
        agent_id=agent_id,
        scopes={"club:read"},
        ttl=timedelta(seconds=-1),
    )
    with pytest.raises(CredentialRejected, match="expired"):
        resolver.from_header(bearer(expired.token))

    moved = tokens.mint(db, principal_id=bruno.id, agent_id=agent_id, scopes={"club:read"})
    ana = principals.find_principal(db, "ana")
    db.execute(
        "UPDATE agents SET principal_id = ?, name = 'moved' WHERE id = ?", [ana.id, agent_id]
    )
    with pytest.raises(CredentialRejected, match="no longer belongs"):
        resolver.from_header(bearer(moved.token))
    db.execute(
        "UPDATE agents SET principal_id = ?, name = 'assistant' WHERE id = ?", [bruno.id, agent_id]
    )

    db.execute("DELETE FROM agents WHERE id = ?", [agent_id])
    with pytest.raises(CredentialRejected, match="agent no longer exists"):
        resolver.from_header(bearer(minted.member.token))

    principals.set_status(db, "ana", "suspended")
    with pytest.raises(CredentialRejected, match="ana is suspended"):
        resolver.from_header(bearer(minted.steward_principal.token))


def test_tampered_mandate_gives_zero_scopes(world):
    db, key, manifest, resolver, minted = world
    bruno = principals.find_principal(db, "bruno")
    row = db.execute(
        "SELECT id, body FROM mandates WHERE principal_id = ? ORDER BY version DESC LIMIT 1",
        [bruno.id],
    ).fetchone()
    body = json.loads(row[1])
    body["topics"].append("everything")
    db.execute(
        "UPDATE mandates SET body = ? WHERE id = ?",
        [mandates.canonical_json(body).decode(), row[0]],
    )
    caller = resolver.from_header(bearer(minted.member.token))
    assert caller.lane == "member" and caller.scopes == frozenset()
    assert caller.mandate.state == "invalid_signature"
    assert caller.tools == tuple(member_tools_within())  # the public tools only


def test_a_mandate_copied_from_another_principal_does_not_verify_for_this_one(world):
    db, key, manifest, resolver, minted = world
    ana, bruno = principals.find_principal(db, "ana"), principals.find_principal(db, "bruno")
    body, sig, kid = db.execute(
        "SELECT body, signature, key_id FROM mandates WHERE principal_id = ? ORDER BY version DESC",
        [ana.id],
    ).fetchone()
    db.execute(
        "INSERT INTO mandates (principal_id, version, body, signature, key_id, created_at)"
        " VALUES (?, 99, ?, ?, ?, 'x')",
        [bruno.id, body, sig, kid],
    )
    caller = resolver.from_header(bearer(minted.member.token))
    assert caller.mandate.state == "wrong_principal" and caller.scopes == frozenset()


def test_a_mandate_signed_with_another_key_does_not_verify(world, tmp_path):
    db, key, manifest, resolver, minted = world
    sign(
        world,
        "bruno",
        manifest.agent_scopes,
        key=SigningKey.load_or_create(tmp_path / "other-keys"),
    )
    assert resolver.from_header(bearer(minted.member.token)).scopes == frozenset()


def test_expired_and_missing_mandates_count_as_none(world):
    db, key, manifest, resolver, minted = world
    bruno = principals.find_principal(db, "bruno")
    sign(world, "bruno", manifest.agent_scopes, valid_for=timedelta(microseconds=1))
    caller = resolver.from_header(bearer(minted.member.token))
    assert caller.mandate.state == "expired" and caller.scopes == frozenset()
    db.execute("DELETE FROM mandates WHERE principal_id = ?", [bruno.id])
    caller = resolver.from_header(bearer(minted.member.token))
    assert caller.mandate.state == "missing" and caller.scopes == frozenset()


def test_principal_token_is_bounded_by_lane_not_by_its_own_mandate(world):
    db, key, manifest, resolver, minted = world
    caller = resolver.from_header(bearer(minted.steward_principal.token))
    assert caller.credential == "principal_token" and "mandate:write" in caller.scopes
    assert "amend_mandate" in caller.tools


@pytest.mark.parametrize(
    "change, message",
    [
        ({"scopes": ["mandate:write"]}, "can never grant mandate:write"),
        ({"scopes": ["root"]}, "unknown scope"),
        ({"reveal": ["private"]}, "never revealed"),
        ({"reveal": ["everyone"]}, "reveal takes visibilities"),
        ({"valid_for": timedelta(0)}, "positive time"),
    ],
)
def test_sign_refuses_what_no_mandate_may_say(world, change, message):
    db, key, manifest, _, _ = world
    bruno = principals.find_principal(db, "bruno")
    args = dict(
        principal_id=bruno.id,
        topics=[],
        reveal=["public"],
        quotable=False,
        scopes=["club:read"],
        known_scopes=frozenset(manifest.scopes),
        agent_scopes=manifest.agent_scopes,
        valid_for=timedelta(days=1),
    )
    args.update(change)
    versions = db.execute("SELECT COUNT(*) FROM mandates").fetchone()[0]
    with pytest.raises(MandateError, match=message):
        mandates.sign_mandate(db, key, **args)
    assert db.execute("SELECT COUNT(*) FROM mandates").fetchone()[0] == versions


def test_database_file_holds_no_token_in_clear(world, tmp_path):
    db, key, manifest, resolver, minted = world
    blobs = store_dump(db, tmp_path)
    for token in (minted.member.token, minted.applicant.token, minted.steward_principal.token):
        assert token.encode() not in blobs
        assert token[3:].encode() not in blobs  # not even without its prefix
        assert tokens.digest(token).encode() in blobs  # what is there is the digest


def test_signing_key_file_is_owner_only(world, tmp_path):
    path = tmp_path / "keys" / KEY_FILE
    assert path.stat().st_mode & 0o077 == 0
    assert SigningKey.load_or_create(tmp_path / "keys").key_id == world[1].key_id


def test_a_deleted_agents_token_never_revives_on_a_new_agent(world):
    db, key, manifest, resolver, _ = world
    bruno = principals.find_principal(db, "bruno")
    newest = principals.add_agent(db, "bruno", "newest")
    token = tokens.mint(db, principal_id=bruno.id, agent_id=newest, scopes={"club:read"})
    db.execute("DELETE FROM agents WHERE id = ?", [newest])
    replacement = principals.add_agent(db, "bruno", "newest")
    assert replacement != newest
    with pytest.raises(CredentialRejected, match="agent no longer exists"):
        resolver.from_header(bearer(token.token))


def test_an_access_token_past_its_expiry_is_refused_when_re_resolved(world):
    """A live session's OAuth token is re-checked on every reuse: past expiry plus leeway, it is refused."""
    import time

    from server.identity.credentials import LEEWAY_SECONDS, AccessClaims

    db, key, manifest, resolver, minted = world
    claims = AccessClaims(
        issuer="https://issuer.example",
        subject="agent:1",
        scopes=frozenset({"club:read"}),
        family="fam_x",
        client_id="c",
        expires_at=int(time.time()) - LEEWAY_SECONDS - 5,
    )
    with pytest.raises(CredentialRejected) as err:
        resolver.resolver.from_claims(claims, None)
    assert err.value.reason == "token expired"

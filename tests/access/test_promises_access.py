"""The access stage: the claims the entry table reads, the lane rule failing closed, and a caller
re-resolved as its next request would be. Found by the mutation run (scripts/mutate)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from server.access import Access, lane_of
from server.cli import demo
from server.identity import mandates, tokens
from server.identity import principals as club_ops
from server.identity.credentials import CredentialRejected
from server.identity.resolver import Resolver
from server.keys.mandate import SigningKey
from server.manifest.loading import load_manifest
from server.store.database import parse_time
from server.store.opening import open_db
from tests.conftest import manifest_copy

ROWS = (
    "entry:\n"
    "  - { claims: { handle: bruno }, agent: steward }\n"
    "  - { claims: { credential: principal_token }, agent: applicant }\n"
)


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
    assert (
        access.from_header(f"Bearer {minted.member.token}").entry_persona == "steward"
    )  # bruno, by handle
    assert (
        access.from_header(f"Bearer {minted.steward_principal.token}").entry_persona == "applicant"
    )
    assert access.from_header(f"Bearer {minted.applicant.token}").entry_persona == "applicant"
    assert access.from_header(None).entry_persona == "lobby"


def test_again_re_resolves_what_the_caller_presented(world):
    db, access, minted = world
    bruno = club_ops.find_principal(db, "bruno")
    agent_id, _ = club_ops.find_agent(db, "bruno")
    spare = tokens.mint(
        db, principal_id=bruno.id, agent_id=agent_id, scopes={"club:read", "inbox:read"}
    )
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
    path = manifest_copy(
        tmp_path,
        lambda text: text.replace(
            "entry:\n", "entry:\n  - { claims: { lane: applicant }, agent: steward }\n", 1
        ),
    )
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
    path = manifest_copy(
        tmp_path,
        lambda text: text.replace(
            "    tools: [about_club, whoami, apply]\n", "    tools: [about_club, apply]\n", 1
        ),
    )
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


# --- what a caller is told, and what only a verified caller sees ----------------------------------


def test_whoami_tells_a_member_they_are_admitted_and_an_applicant_they_are_not(world):
    db, access, minted = world
    member = access.from_header(f"Bearer {minted.member.token}")
    applicant = access.from_header(f"Bearer {minted.applicant.token}")
    assert member.lane == "member" and member.why.endswith("bruno is an admitted member")
    assert applicant.lane == "applicant" and applicant.why.endswith(
        "is an applicant, not yet admitted"
    )


def test_a_private_tool_a_guest_persona_lists_is_still_hidden_from_guests(tmp_path):
    # whoami needs no scope: only `access: private` keeps it from a caller who sent no credential
    path = manifest_copy(
        tmp_path,
        lambda text: text.replace(
            "  whoami:\n    access: public\n", "  whoami:\n    access: private\n", 1
        ),
    )
    manifest = load_manifest(path)
    db = open_db(tmp_path / "club.db")
    key = SigningKey.load_or_create(tmp_path / "keys")
    try:
        minted = demo.prepare(db, key, manifest)
        access = Access(manifest, Resolver(db, key, frozenset(manifest.scopes)))
        guest = access.from_header(None)
        applicant = access.from_header(f"Bearer {minted.applicant.token}")
    finally:
        db.close()
    assert "whoami" in manifest.agents["lobby"].tools
    assert guest.tools == ("about_club", "apply")
    assert "whoami" in applicant.tools


# --- the resolver remembers a chain only while it stays true --------------------------------------


def _brunos_spare_token(db, **kwargs) -> tokens.MintedToken:
    bruno = club_ops.find_principal(db, "bruno")
    agent_id, _ = club_ops.find_agent(db, "bruno")
    return tokens.mint(
        db, principal_id=bruno.id, agent_id=agent_id, scopes={"club:read", "inbox:read"}, **kwargs
    )


def test_a_credential_is_read_from_the_store_once_while_nothing_changes(world, monkeypatch):
    from server.store import chains

    db, access, minted = world
    reads: list[str] = []
    read = chains.token
    monkeypatch.setattr(
        chains, "token", lambda db, digest: reads.append(digest) or read(db, digest)
    )
    header = f"Bearer {minted.member.token}"
    first = access.from_header(header)
    for _ in range(3):
        assert access.from_header(header) == first
    assert len(reads) == 1  # the chain was remembered
    _brunos_spare_token(db)  # any change to the tokens: the next request reads the chain again
    assert access.from_header(header) == first
    assert len(reads) == 2


def test_a_chain_read_while_a_change_lands_is_remembered_as_of_the_revision_read_before_it(
    world, monkeypatch
):
    """Requests resolve side by side (worker threads on PostgreSQL): one reads the revision, then the
    chain; meanwhile a change commits and another request resolves under the new revision. The
    first one's chain must not pass for current: the revocation it missed holds on the next request."""
    from server.store import chains

    db, access, minted = world
    spare = _brunos_spare_token(db)
    header = f"Bearer {spare.token}"
    read = chains.token
    landed: list[str] = []

    def read_then_change_lands(db_, digest_):
        row = read(db_, digest_)  # the chain as it was: not yet revoked
        if not landed:
            landed.append(tokens.revoke(db, spare.public_id))
            assert (
                access.from_header(f"Bearer {minted.member.token}").lane == "member"
            )  # another request
        return row

    monkeypatch.setattr(chains, "token", read_then_change_lands)
    assert access.from_header(header).lane == "member"  # answered as of the revision it read first
    assert landed == [spare.public_id]
    with pytest.raises(CredentialRejected, match="token was revoked"):
        access.from_header(header)


def test_a_tokens_last_use_is_written_once_a_minute_not_on_every_request(world):
    db, access, minted = world
    spare = _brunos_spare_token(db)

    def last_used() -> str | None:
        return db.execute(
            "SELECT last_used_at FROM tokens WHERE public_id = ?", [spare.public_id]
        ).fetchone()[0]

    assert last_used() is None
    access.from_header(f"Bearer {spare.token}")
    first = last_used()
    assert first is not None
    time.sleep(0.01)
    access.from_header(f"Bearer {spare.token}")  # remembered
    _brunos_spare_token(db)
    access.from_header(f"Bearer {spare.token}")  # read again from the store
    assert last_used() == first


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_over_http_a_tokens_last_use_is_written_once_the_answer_has_left(
    club, backend, monkeypatch
):
    """A request through the gate never waits on its token's last-use write: the answer arrives while
    that write is held up here, and the stamp is in the store once the request has ended."""
    import threading

    import httpx2

    from server.store import tokens as token_rows
    from tests.http.test_fuzz import initialize_message, rpc_headers

    db = club.db()
    spare = _brunos_spare_token(db)
    touch = token_rows.touch
    writing, release, written = threading.Event(), threading.Event(), threading.Event()

    def held_up(db, digest, stamp):
        writing.set()
        release.wait(10)
        touch(db, digest, stamp)
        written.set()

    def last_used() -> str | None:
        return db.execute(
            "SELECT last_used_at FROM tokens WHERE public_id = ?", [spare.public_id]
        ).fetchone()[0]

    monkeypatch.setattr(token_rows, "touch", held_up)
    try:
        with httpx2.Client(timeout=30) as http:
            opened = http.post(
                club.url, headers=rpc_headers(spare.token), json=initialize_message()
            )
        assert opened.status_code == 200 and opened.headers["parley-lane"] == "member"
        assert writing.wait(5) and not written.is_set()  # answered, with the write under way
        assert last_used() is None
    finally:
        release.set()
    assert written.wait(10)
    assert last_used() is not None


def test_a_token_that_expires_between_two_requests_is_refused_on_the_second(world):
    db, access, minted = world
    spare = _brunos_spare_token(db, ttl=timedelta(milliseconds=400))
    assert access.from_header(f"Bearer {spare.token}").scopes  # resolved, and remembered
    time.sleep(0.5)
    with pytest.raises(CredentialRejected, match="token expired at"):
        access.from_header(f"Bearer {spare.token}")


def test_a_token_is_refused_from_the_very_instant_it_expires(world, monkeypatch):
    from server.identity import resolver as resolver_module

    db, access, minted = world
    spare = _brunos_spare_token(db, ttl=timedelta(hours=1))
    assert spare.expires_at is not None
    expiry = parse_time(spare.expires_at)
    just_before = expiry - timedelta(microseconds=1)
    monkeypatch.setattr(
        resolver_module, "now", lambda: just_before.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    )
    monkeypatch.setattr(resolver_module, "wall_clock", just_before.timestamp)
    assert access.from_header(f"Bearer {spare.token}").lane == "member"  # resolved, and remembered
    assert (
        access.from_header(f"Bearer {spare.token}").lane == "member"
    )  # the remembered chain, still valid
    monkeypatch.setattr(resolver_module, "now", lambda: spare.expires_at)
    monkeypatch.setattr(resolver_module, "wall_clock", expiry.timestamp)
    with pytest.raises(CredentialRejected, match="token expired at"):
        access.from_header(f"Bearer {spare.token}")


def test_a_mandate_that_expires_between_two_requests_counts_as_none_on_the_second(world):
    db, access, minted = world
    manifest = access.manifest
    bruno = club_ops.find_principal(db, "bruno")
    mandates.sign_mandate(
        db,
        access.resolver.key,
        principal_id=bruno.id,
        topics=["music"],
        reveal=["public"],
        quotable=False,
        scopes=["club:read", "inbox:read"],
        known_scopes=frozenset(manifest.scopes),
        agent_scopes=manifest.agent_scopes,
        valid_for=timedelta(milliseconds=400),
    )
    header = f"Bearer {minted.member.token}"
    before = access.from_header(header)
    assert before.mandate.state == "valid" and before.scopes == frozenset(
        {"club:read", "inbox:read"}
    )
    time.sleep(0.5)
    after = access.from_header(header)  # nothing in the store changed: only the clock moved
    assert after.mandate.state == "expired" and after.scopes == frozenset()
    assert "mandate: the mandate has expired" in after.why


def test_an_access_token_is_honoured_within_the_clock_skew_leeway_and_refused_past_it(world):
    from dataclasses import replace

    from server.identity.credentials import EMBEDDED_SUBJECT_PREFIX, LEEWAY_SECONDS, AccessClaims
    from server.store import oauth as oauth_rows
    from server.store.database import now

    db, access, minted = world
    bruno = club_ops.find_principal(db, "bruno")
    agent_id, _ = club_ops.find_agent(db, "bruno")
    oauth_rows.add_grant_once(
        db,
        {
            "family": "fam_leeway",
            "client_id": "client-leeway",
            "principal_id": bruno.id,
            "agent_id": agent_id,
            "scope": "club:read",
            "resource": "http://club/mcp",
            "created_at": now(),
        },
    )
    claims = AccessClaims(
        issuer="https://issuer.example",
        subject=f"{EMBEDDED_SUBJECT_PREFIX}{agent_id}",
        scopes=frozenset({"club:read"}),
        family="fam_leeway",
        client_id="client-leeway",
        expires_at=int(time.time()) + 5,
    )
    for expires_at in (int(time.time()) + 5, int(time.time()) - LEEWAY_SECONDS // 2):
        identity = access.resolver.from_claims(replace(claims, expires_at=expires_at), None)
        assert identity.principal == "bruno" and identity.credential == "oauth"
    with pytest.raises(CredentialRejected) as err:
        access.resolver.from_claims(
            replace(claims, expires_at=int(time.time()) - LEEWAY_SECONDS - 5), None
        )
    assert err.value.reason == "token expired"


def test_a_revoked_grant_says_why_and_one_revoked_without_a_reason_still_says_revoked(world):
    from server.identity.credentials import EMBEDDED_SUBJECT_PREFIX, AccessClaims
    from server.store import oauth as oauth_rows
    from server.store.database import now

    db, access, minted = world
    bruno = club_ops.find_principal(db, "bruno")
    agent_id, _ = club_ops.find_agent(db, "bruno")
    for family in ("fam_console", "fam_operator"):
        oauth_rows.add_grant_once(
            db,
            {
                "family": family,
                "client_id": "client-x",
                "principal_id": bruno.id,
                "agent_id": agent_id,
                "scope": "club:read",
                "resource": "http://club/mcp",
                "created_at": now(),
            },
        )
    oauth_rows.revoke_grant(
        db, "fam_console", "revoked in the console", now(), principal_id=bruno.id
    )
    # an operator's own UPDATE, outside Parley, records no reason
    db.execute("UPDATE oauth_grants SET revoked_at = ? WHERE family = 'fam_operator'", [now()])
    expected = {
        "fam_console": "token's grant was revoked (revoked in the console)",
        "fam_operator": "token's grant was revoked (revoked)",
    }
    for family, reason in expected.items():
        claims = AccessClaims(
            issuer="https://issuer.example",
            subject=f"{EMBEDDED_SUBJECT_PREFIX}{agent_id}",
            scopes=frozenset({"club:read"}),
            family=family,
            client_id="client-x",
            expires_at=int(time.time()) + 60,
        )
        with pytest.raises(CredentialRejected) as err:
            access.resolver.from_claims(claims, None)
        assert err.value.reason == reason

"""Mandates: an expired one keeps its terms for the record and for amending, says why it counts as
none, and a half-missing row is missing. Found by the mutation run (scripts/mutate)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from server.identity import mandates, principals
from server.identity.mandates import MandateError, MandateStatus


@pytest.fixture
def world(demo_world):
    return demo_world


def _expire_bruno(world) -> int:
    db, key, manifest = world
    bruno = principals.find_principal(db, "bruno").id
    mandates.sign_mandate(
        db,
        key,
        principal_id=bruno,
        topics=["touring", "music"],
        reveal=["public"],
        quotable=True,
        scopes=["club:read"],
        known_scopes=frozenset(manifest.scopes),
        agent_scopes=manifest.agent_scopes,
        valid_for=timedelta(milliseconds=1),
    )
    time.sleep(0.01)
    return bruno


def test_an_expired_mandate_keeps_its_terms_and_says_why_it_counts_as_none(world):
    db, key, manifest = world
    status = mandates.current(db, key, _expire_bruno(world))
    assert status.state == "expired" and not status.valid and status.scopes == frozenset()
    assert (
        status.body is not None
        and status.body.topics == ["music", "touring"]
        and status.body.quotable is True
    )
    assert status.describe() == "the mandate has expired; it counts as no mandate"


def test_amending_an_expired_mandate_needs_a_new_term_and_carries_the_rest(world):
    db, key, manifest = world
    bruno = _expire_bruno(world)
    kwargs = dict(
        principal_id=bruno,
        known_scopes=frozenset(manifest.scopes),
        agent_scopes=manifest.agent_scopes,
    )
    with pytest.raises(MandateError) as err:
        mandates.amend(db, key, scopes=["club:read", "inbox:read"], **kwargs)
    assert (
        str(err.value)
        == "the current mandate has expired or is missing: give valid_days for the new one"
    )
    body = mandates.amend(
        db, key, scopes=["club:read", "inbox:read"], valid_for=timedelta(days=3), **kwargs
    )
    assert (
        body.topics == ["music", "touring"]
        and body.quotable is True
        and body.scopes == ["club:read", "inbox:read"]
    )
    assert mandates.current(db, key, bruno).state == "valid"


@pytest.mark.parametrize("missing", ["body", "signature", "key_id"])
def test_a_row_without_its_body_signature_or_key_is_missing(world, missing):
    db, key, manifest = world
    parts = {"body": '{"x":1}', "signature": "c2ln", "key_id": key.key_id, missing: None}
    status = mandates.check(key, 1, parts["body"], parts["signature"], parts["key_id"])
    assert status == MandateStatus("missing", None)
    assert status.describe() == "no mandate has been signed"


# A mandate row verifies only as it was written: a signature with a byte added, even one that a lenient
# base64 reader would skip (so the same 64 signature bytes come out), is not the signature the key made.
@pytest.mark.parametrize(
    "respell",
    [
        lambda s: s + "!",
        lambda s: " " + s,
        lambda s: s[:12] + "\n" + s[12:],
        lambda s: s.replace("=", "=*"),
    ],
)
def test_a_signature_altered_in_any_byte_is_no_signature(world, respell):
    db, key, manifest = world
    bruno = principals.find_principal(db, "bruno").id
    body, signature, key_id = db.execute(
        "SELECT body, signature, key_id FROM mandates WHERE principal_id = ? "
        "ORDER BY version DESC LIMIT 1",
        [bruno],
    ).fetchone()
    assert mandates.check(key, bruno, body, signature, key_id).state == "valid"
    altered = respell(signature)
    assert altered != signature
    status = mandates.check(key, bruno, body, altered, key_id)
    assert status == MandateStatus("invalid_signature", None)
    assert mandates.check(key, bruno, body, signature, key_id).state == "valid"

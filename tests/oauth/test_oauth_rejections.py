"""Access tokens that must be refused, each with a 401 and a reason; key rotation; an external issuer."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from server.identity import principals as club_ops
from server.keys.oauth import KeyRing
from tests.access.test_e2e_lanes import APPLICANT, MEMBER
from tests.conftest import connect, running_club, tool_names
from tests.http_stub import reply
from tests.oauth.test_oauth_flow import authorize, code_of, pkce, redeem, register

ACCEPT = {"Accept": "application/json, text/event-stream"}


async def probe(url: str, token: str) -> httpx2.Response:
    async with httpx2.AsyncClient(timeout=30) as http:
        return await http.post(
            url,
            headers={**ACCEPT, "Authorization": f"Bearer {token}"},
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "probe", "version": "1"},
                },
            },
        )


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


async def issued_claims(club) -> dict:
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, club.live.base)
        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, client["client_id"], challenge))
        token = (await redeem(http, club.live.base, client["client_id"], code, verifier)).json()[
            "access_token"
        ]
    assert (await probe(club.url, token)).status_code == 200
    return jwt.decode(token, options={"verify_signature": False})


async def test_rejection_matrix(club):
    claims = await issued_claims(club)
    ring = KeyRing(club.settings.keys_dir)
    key = ring.current
    now = int(time.time())

    def signed(changes: dict, drop: tuple[str, ...] = (), headers: dict | None = None) -> str:
        body = {**claims, "iat": now, "nbf": now, "exp": now + 600, **changes}
        for name in drop:
            body.pop(name, None)
        return jwt.encode(
            body, key.private, algorithm="ES256", headers={"kid": key.kid, **(headers or {})}
        )

    good = signed({})
    public_pem = key.private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    head = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": key.kid}).encode())
    payload = b64(json.dumps({**claims, "exp": now + 600}).encode())
    hs256_with_public_key = f"{head}.{payload}." + b64(
        hmac.new(public_pem, f"{head}.{payload}".encode(), hashlib.sha256).digest()
    )
    none_token = jwt.encode({**claims, "exp": now + 600}, None, algorithm="none")
    other_key = ec.generate_private_key(ec.SECP256R1())
    cases = {
        "wrong audience": (
            signed({"aud": "https://elsewhere.example/mcp"}),
            "audience is not this resource",
        ),
        "sibling service audience": (
            signed({"aud": club.live.base + "/mcp-admin"}),
            "audience is not this resource",
        ),
        "wrong issuer": (signed({"iss": "https://issuer.example"}), "issuer is not trusted"),
        "expired": (
            signed({"exp": now - 300, "iat": now - 900, "nbf": now - 900}),
            "token expired",
        ),
        "not yet valid": (signed({"nbf": now + 300}), "not yet valid"),
        "bad signature": (
            jwt.encode(
                {**claims, "exp": now + 600}, other_key, algorithm="ES256", headers={"kid": key.kid}
            ),
            "signature does not verify",
        ),
        "unknown kid": (signed({}, headers={"kid": "no-such-key"}), "unknown key"),
        "alg none": (none_token, "algorithm 'none' is not allowed"),
        "HS256 with the public key": (hs256_with_public_key, "algorithm 'HS256' is not allowed"),
        "missing sub": (signed({}, drop=("sub",)), "no 'sub' claim"),
        "unknown grant": (signed({"sid": "fam_unknown"}), "grant is unknown"),
        "subject agent unknown": (
            signed({"sub": "agent:999999"}),
            "subject does not match its grant",
        ),
        "scope asks for mandate:write": (
            signed({"scope": "club:read mandate:write"}),
            "never carry mandate:write",
        ),
        "garbage": ("a.b.c", "malformed access token"),
    }
    assert (await probe(club.url, good)).status_code == 200
    for name, (token, reason) in cases.items():
        response = await probe(club.url, token)
        assert response.status_code == 401, name
        assert response.headers["www-authenticate"].startswith('Bearer error="invalid_token"'), name
        assert reason in response.json()["error_description"], (name, response.json())
    db = club.db()
    club_ops.revoke_agent(db, "bruno", "assistant")
    db.close()
    revoked = await probe(club.url, good)
    assert revoked.status_code == 401 and "was revoked" in revoked.json()["error_description"]


async def test_key_rotation_keeps_old_tokens_until_retired(club):
    claims = await issued_claims(club)
    ring = KeyRing(club.settings.keys_dir)
    old = ring.current
    now = int(time.time())
    body = {**claims, "iat": now, "nbf": now, "exp": now + 600}
    old_token = jwt.encode(body, old.private, algorithm="ES256", headers={"kid": old.kid})
    new = ring.rotate()  # another process rotates: the server learns of it on the unknown kid
    new_token = jwt.encode(body, new.private, algorithm="ES256", headers={"kid": new.kid})
    assert (await probe(club.url, new_token)).status_code == 200
    assert (await probe(club.url, old_token)).status_code == 200
    async with httpx2.AsyncClient() as http:
        kids = [k["kid"] for k in (await http.get(club.live.base + "/oauth/jwks")).json()["keys"]]
    assert kids == [old.kid, new.kid]
    ring.retire(old.kid)  # as `parley oauth retire-key` would, from another process
    assert (await probe(club.url, old_token)).status_code == 401
    assert (await probe(club.url, new_token)).status_code == 200


class _JwksHandler(BaseHTTPRequestHandler):
    jwks: dict = {"keys": []}
    hits = 0

    def do_GET(self):  # noqa: N802 - the stdlib's name
        type(self).hits += 1
        reply(self, 200, type(self).jwks)

    def log_message(self, *args):
        pass


def rsa_jwk(private, kid: str) -> dict:
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(private.public_key()))
    return {**jwk, "kid": kid, "alg": "RS256", "use": "sig"}


async def test_external_issuer_by_jwks_url(tmp_path):
    idp = HTTPServer(("127.0.0.1", 0), _JwksHandler)
    threading.Thread(target=idp.serve_forever, daemon=True).start()
    first = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    _JwksHandler.jwks = {"keys": [rsa_jwk(first, "k1")]}
    issuer = "https://idp.example"
    try:
        with running_club(
            tmp_path,
            env={
                "PARLEY_OAUTH_ISSUER": issuer,
                "PARLEY_OAUTH_JWKS_URL": f"http://127.0.0.1:{idp.server_port}/jwks",
            },
        ) as club:
            db = club.db()
            agent_id, _ = club_ops.find_agent(db, "carla")
            db.insert(
                "external_subjects",
                {"issuer": issuer, "subject": "idp|carla", "agent_id": agent_id},
            )
            db.close()
            now = int(time.time())
            claims = {
                "iss": issuer,
                "sub": "idp|carla",
                "aud": club.url,
                "iat": now,
                "exp": now + 600,
                "scope": "club:read evidence:write inbox:read questions:ask directory:read",
            }
            token = jwt.encode(claims, first, algorithm="RS256", headers={"kid": "k1"})
            async with connect(club.url, token, "auto") as client:
                assert await tool_names(client) == APPLICANT  # the lane caps directory:read
            # the IdP rotates: an unknown kid refreshes the cached JWKS once
            second = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            _JwksHandler.jwks = {"keys": [rsa_jwk(first, "k1"), rsa_jwk(second, "k2")]}
            club.live.parley.access.resolver.verifier.keys.min_refresh = 0
            rotated = jwt.encode(claims, second, algorithm="RS256", headers={"kid": "k2"})
            assert (await probe(club.url, rotated)).status_code == 200
            unbound = jwt.encode(
                {**claims, "sub": "idp|stranger"}, first, algorithm="RS256", headers={"kid": "k1"}
            )
            response = await probe(club.url, unbound)
            assert (
                response.status_code == 401
                and "not bound to any agent" in response.json()["error_description"]
            )
            async with httpx2.AsyncClient() as http:
                meta = (
                    await http.get(club.live.base + "/.well-known/oauth-protected-resource/mcp")
                ).json()
                assert meta["authorization_servers"] == [issuer]
                assert (
                    await http.get(club.live.base + "/.well-known/oauth-authorization-server")
                ).status_code == 404
    finally:
        idp.shutdown()


async def test_external_issuer_by_jwks_file(tmp_path):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps({"keys": [rsa_jwk(key, "file-1")]}))
    issuer = "https://corp-idp.example"
    with running_club(
        tmp_path, env={"PARLEY_OAUTH_ISSUER": issuer, "PARLEY_OAUTH_JWKS_FILE": str(jwks)}
    ) as club:
        db = club.db()
        agent_id, _ = club_ops.find_agent(db, "bruno")
        db.insert(
            "external_subjects", {"issuer": issuer, "subject": "u-bruno", "agent_id": agent_id}
        )
        db.close()
        now = int(time.time())
        token = jwt.encode(
            {
                "iss": issuer,
                "sub": "u-bruno",
                "aud": [club.url, "https://other.example"],
                "iat": now,
                "exp": now + 600,
                "scope": " ".join(sorted(club.manifest().agent_scopes)),
            },
            key,
            algorithm="RS256",
            headers={"kid": "file-1"},
        )
        async with connect(club.url, token) as client:
            assert await tool_names(client) == MEMBER
        # an embedded-issuer token is worthless here
        assert (await probe(club.url, "pa_" + "x" * 43)).status_code == 401


@pytest.mark.parametrize("bad", ["HS256", "none"])
def test_symmetric_or_none_algorithms_are_refused_in_settings(bad):
    from server.oauth.verify import AccessTokenVerifier, FileSource

    with pytest.raises(ValueError, match="asymmetric"):
        AccessTokenVerifier("https://i", "https://r", FileSource("x"), algorithms=("RS256", bad))

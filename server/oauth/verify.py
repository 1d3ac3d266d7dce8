"""Verifying OAuth access tokens offline, as a resource server: pyjwt against the issuer's keys.

Algorithms are pinned to the issuer's asymmetric keys (never `none`, never HS*), `iss` must match
exactly, `aud` must contain this server's canonical resource URI, and time claims get a small
leeway. Keys come from the embedded key ring, a JWKS file, or a JWKS URL cached and refreshed
when an unknown `kid` appears. Every refusal has a reason a client can act on, and none of them
carries the token.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

import httpx2
import jwt

from server.identity.credentials import LEEWAY_SECONDS, AccessClaims, CredentialRejected
from server.keys.oauth import KeyRing
from server.manifest.schema import as_text

# Claims the resolver decides from itself; a token cannot set these for the entry table.
_REGISTERED = frozenset(
    {
        "iss",
        "sub",
        "aud",
        "exp",
        "nbf",
        "iat",
        "jti",
        "scope",
        "sid",
        "client_id",
        "status",
        "steward",
        "lane",
        "handle",
        "credential",
    }
)

log = logging.getLogger("parley.oauth")

ASYMMETRIC = ("ES256", "ES384", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "EdDSA")
VERIFIED_CACHE = 10_000


# A JSON Web Key Set as read: from our own ring, or from a file or URL (outside data)
JWKS = Mapping[str, object]


def keys_of(jwks: JWKS) -> list[Mapping[str, object]]:
    """The set's keys that are JSON objects; anything else in it is no key."""
    keys = jwks.get("keys")
    return [key for key in keys if isinstance(key, dict)] if isinstance(keys, list) else []


class KeySource(Protocol):
    # `revision`: the store's revision this request has read already, for a source that checks it
    def jwks(self, refresh: bool = False, revision: int | None = None) -> JWKS: ...


class RingSource:
    """The embedded authorization server's own keys; re-read when a kid is unknown (rotation)."""

    def __init__(self, ring: KeyRing) -> None:
        self.ring = ring
        self._cached: JWKS | None = None
        self._seen: tuple[int, int, int] | None = None

    def jwks(self, refresh: bool = False, revision: int | None = None) -> JWKS:
        # Another process (the CLI) may rotate or retire keys: the key index's stat says when.
        seen = self.ring.index_signature(revision)
        if refresh or seen != self._seen:
            self.ring.reload()
            self._seen = seen
            self._cached = None
        if self._cached is None:
            self._cached = self.ring.jwks()
        return self._cached


class FileSource:
    def __init__(self, path: Path):
        self.path = Path(path)
        self._cached: JWKS | None = None

    def jwks(self, refresh: bool = False, revision: int | None = None) -> JWKS:
        if self._cached is None or refresh:
            self._cached = json.loads(self.path.read_text())
        return self._cached


class UrlSource:
    """A remote JWKS, cached; an unknown kid refreshes it, at most once per `min_refresh` seconds."""

    def __init__(
        self, url: str, ttl: float = 300.0, min_refresh: float = 10.0, timeout: float = 5.0
    ):
        self.url = url
        self.ttl = ttl
        self.min_refresh = min_refresh
        self.timeout = timeout
        self._cached: JWKS | None = None
        self._fetched = 0.0
        self._lock = threading.Lock()

    def jwks(self, refresh: bool = False, revision: int | None = None) -> JWKS:
        with self._lock:
            age = time.monotonic() - self._fetched
            stale = self._cached is None or age > self.ttl or (refresh and age > self.min_refresh)
            if stale:
                try:
                    response = httpx2.get(self.url, timeout=self.timeout)
                    response.raise_for_status()
                    self._cached = response.json()
                    self._fetched = time.monotonic()
                except (httpx2.HTTPError, ValueError) as exc:
                    log.warning("could not fetch JWKS from %s: %s", self.url, exc)
                    if self._cached is None:
                        raise CredentialRejected(
                            "the token issuer's keys cannot be fetched right now"
                        ) from None
            if self._cached is None:
                raise CredentialRejected("the token issuer's keys cannot be fetched right now")
            return self._cached


class AccessTokenVerifier:
    def __init__(
        self, issuer: str, resource: str, keys: KeySource, algorithms: tuple[str, ...] = ASYMMETRIC
    ):
        bad = [alg for alg in algorithms if alg not in ASYMMETRIC]
        if bad:
            raise ValueError(f"algorithms must be asymmetric; refusing {', '.join(bad)}")
        self.issuer = issuer
        self.resource = resource
        self.keys = keys
        self.algorithms = algorithms
        self._parsed: dict[tuple[str, str], jwt.PyJWK] = {}
        self._verified: OrderedDict[str, tuple[AccessClaims, str | None]] = OrderedDict()

    def _key(self, kid: str | None, alg: str, revision: int | None) -> jwt.PyJWK:
        for refresh in (False, True):
            jwks = self.keys.jwks(refresh=refresh, revision=revision)
            if refresh:
                self._parsed.clear()
            elif kid is not None and (kid, alg) in self._parsed:
                return self._parsed[(kid, alg)]
            for jwk in keys_of(jwks):
                if kid is not None and jwk.get("kid") != kid:
                    continue
                if jwk.get("alg") not in (None, alg):
                    continue
                try:
                    key = jwt.PyJWK(dict(jwk), algorithm=alg)
                except jwt.PyJWTError:
                    continue
                if kid is not None:
                    self._parsed[(kid, alg)] = key
                return key
        raise CredentialRejected("token signed with an unknown key")

    def verify(self, token: str, revision: int | None = None) -> AccessClaims:
        """Verify once per distinct token: the cache key is the whole token's digest, so a changed
        byte misses it; expiry is re-checked by the caller on every use. `revision`: the store's,
        when the request has read it already (whether a key was retired is judged at it)."""
        fingerprint = hashlib.sha256(token.encode()).hexdigest()
        cached = self._verified.get(fingerprint)
        if cached is not None:
            claims, kid = cached
            if any(jwk.get("kid") == kid for jwk in keys_of(self.keys.jwks(revision=revision))):
                self._verified.move_to_end(fingerprint)
                return claims
            del self._verified[fingerprint]  # its key was retired: verify afresh, which now fails
            self._parsed.clear()
        claims, kid = self._verify(token, revision)
        self._verified[fingerprint] = (claims, kid)
        if len(self._verified) > VERIFIED_CACHE:
            self._verified.popitem(last=False)
        return claims

    def _verify(self, token: str, revision: int | None) -> tuple[AccessClaims, str | None]:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise CredentialRejected("malformed access token") from None
        alg = header.get("alg")
        if alg not in self.algorithms:
            raise CredentialRejected(f"token algorithm '{alg}' is not allowed")
        key = self._key(header.get("kid"), alg, revision)
        try:
            claims = jwt.decode(
                token,
                key=key,
                algorithms=[alg],
                audience=self.resource,
                issuer=self.issuer,
                leeway=LEEWAY_SECONDS,
                options={"require": ["exp", "iat", "iss", "aud", "sub"]},
            )
        except jwt.ExpiredSignatureError:
            raise CredentialRejected("token expired") from None
        except jwt.ImmatureSignatureError:
            raise CredentialRejected("token not yet valid") from None
        except jwt.InvalidAudienceError:
            raise CredentialRejected(
                f"token audience is not this resource ({self.resource})"
            ) from None
        except jwt.InvalidIssuerError:
            raise CredentialRejected("token issuer is not trusted here") from None
        except jwt.InvalidSignatureError:
            raise CredentialRejected("token signature does not verify") from None
        except jwt.MissingRequiredClaimError as exc:
            raise CredentialRejected(f"token has no '{exc.claim}' claim") from None
        except jwt.PyJWTError:
            raise CredentialRejected("malformed access token") from None
        subject = claims.get("sub")
        if not isinstance(subject, str) or not subject:
            raise CredentialRejected("token has no 'sub' claim")
        scope = claims.get("scope", "")
        if not isinstance(scope, str):
            raise CredentialRejected("token 'scope' claim must be a space-separated string")
        scopes = frozenset(scope.split())
        family = claims.get("sid")
        verified = AccessClaims(
            issuer=claims["iss"],
            subject=subject,
            scopes=scopes,
            family=family if isinstance(family, str) else None,
            client_id=claims.get("client_id"),
            expires_at=int(claims["exp"]),
            extra=tuple(
                sorted(
                    (name, as_text(value))
                    for name, value in claims.items()
                    if name not in _REGISTERED and isinstance(value, (str, int, float, bool))
                )
            ),
        )
        return verified, header.get("kid")

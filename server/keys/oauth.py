"""The embedded authorization server's token-signing keys: ES256, rotated, published as a JWKS.

Keys live as PEM files in the keys folder (never in the database). Rotation makes a new key current
and keeps the previous ones published, so tokens signed before a rotation verify until they expire;
`retire` records the key id in the store (a cluster's keys folder may be a read-only mount), and
every process stops publishing it and refuses every token it signed from its next request.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from server.errors import KeyMissing
from server.store import oauth as oauth_rows
from server.store.database import Database, now

ALGORITHM = "ES256"
_INDEX = "oauth-keys.json"


class JWKSet(TypedDict):
    """A JSON Web Key Set (RFC 7517): the public keys, each with its kid, use and alg."""

    keys: list[dict[str, str]]


@dataclass(frozen=True)
class SigningKey:
    kid: str
    private: ec.EllipticCurvePrivateKey

    def public_jwk(self) -> dict[str, str]:
        public = jwt.algorithms.ECAlgorithm.to_jwk(self.private.public_key())
        jwk: dict[str, str] = json.loads(public)
        return {**jwk, "kid": self.kid, "use": "sig", "alg": ALGORITHM}


class KeyRing:
    """All published keys; the newest is the one that signs. With a store, keys retired there are
    left out; `create=False` (a cluster's shared folder) refuses a folder without keys."""

    def __init__(self, keys_dir: Path, db: Database | None = None, create: bool = True):
        self.dir = Path(keys_dir)
        self.db = db
        self._keys: list[SigningKey] = []
        self.reload()
        if not self._keys:
            if not create:
                raise KeyMissing("OAuth signing keys", self.dir.resolve())
            self.rotate()

    def _index(self) -> Path:
        return self.dir / _INDEX

    def reload(self) -> None:
        path = self._index()
        if not path.exists():
            self._keys = []
            return
        kids = json.loads(path.read_text())["keys"]
        retired = set(oauth_rows.retired_kids(self.db)) if self.db is not None else set()
        self._keys = [self._load(kid) for kid in kids if kid not in retired]

    def _load(self, kid: str) -> SigningKey:
        private = serialization.load_pem_private_key(
            (self.dir / f"oauth-{kid}.pem").read_bytes(), password=None
        )
        if not isinstance(private, ec.EllipticCurvePrivateKey):
            raise ValueError(f"oauth-{kid}.pem is not an EC private key")
        return SigningKey(kid, private)

    def index_signature(self, revision: int | None = None) -> tuple[int, int, int] | None:
        """Changes when the index file is rewritten (a rotation) or the store's revision moves (a
        retirement). `revision`: the store's, when the request has read it already (no second read)."""
        try:
            stat = self._index().stat()
        except FileNotFoundError:
            return None
        if revision is None:
            revision = self.db.revision() if self.db is not None else 0
        return (stat.st_mtime_ns, stat.st_ino, revision)

    def _write_index(self) -> None:
        tmp = self._index().with_suffix(".tmp")
        tmp.write_text(json.dumps({"keys": [k.kid for k in self._keys]}))
        os.replace(tmp, self._index())

    def rotate(self) -> SigningKey:
        self.dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.dir, 0o700)
        kid = time.strftime("%Y%m%d") + "-" + secrets.token_hex(4)
        private = ec.generate_private_key(ec.SECP256R1())
        pem = private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        fd = os.open(self.dir / f"oauth-{kid}.pem", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(pem)
        key = SigningKey(kid, private)
        self._keys.append(key)
        self._write_index()
        return key

    def retire(self, kid: str) -> None:
        if kid not in {k.kid for k in self._keys}:
            raise KeyError(f"no published key {kid}")
        if len(self._keys) == 1:
            raise ValueError("cannot retire the only key: rotate first")
        self._keys = [k for k in self._keys if k.kid != kid]
        if self.db is not None:
            oauth_rows.retire_kid(self.db, kid, now())
        else:
            self._write_index()

    @property
    def current(self) -> SigningKey:
        return self._keys[-1]

    @property
    def kids(self) -> list[str]:
        return [k.kid for k in self._keys]

    def jwks(self) -> JWKSet:
        return {"keys": [k.public_jwk() for k in self._keys]}

    def sign(self, claims: dict[str, object]) -> str:
        key = self.current
        return jwt.encode(
            claims, key.private, algorithm=ALGORITHM, headers={"kid": key.kid, "typ": "at+jwt"}
        )

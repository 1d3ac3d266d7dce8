"""The club's mandate-signing key (Ed25519): one PEM file in the keys folder, `mandate-signing.pem`."""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from server.errors import KeyMissing

KEY_FILE = "mandate-signing.pem"


class SigningKey:
    """The club's mandate-signing key, created on first use with owner-only permissions."""

    def __init__(self, private: Ed25519PrivateKey):
        self._private = private
        raw = private.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self.public_raw = raw
        self.key_id = hashlib.sha256(raw).hexdigest()[:16]

    @classmethod
    def load_or_create(cls, keys_dir: Path, create: bool = True) -> SigningKey:
        """The mandate-signing key of the keys folder; `create=False` (a cluster's shared folder,
        created once by `parley keys init`) refuses a folder without one instead of making a key
        no other process has."""
        path = Path(keys_dir) / KEY_FILE
        if not path.exists() and not create:
            raise KeyMissing("mandate-signing key", Path(keys_dir).resolve())
        if path.exists():
            private = serialization.load_pem_private_key(path.read_bytes(), password=None)
            if not isinstance(private, Ed25519PrivateKey):
                raise ValueError(f"{path} is not an Ed25519 private key")
            return cls(private)
        path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(path.parent, 0o700)
        private = Ed25519PrivateKey.generate()
        pem = private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(pem)
        return cls(private)

    def sign(self, body: bytes) -> str:
        return base64.b64encode(self._private.sign(body)).decode("ascii")

"""One-time secrets (a freshly minted token) on their way to the page that shows them once. Starlette's
session cookie is signed, not encrypted: anything put in it can be read by whoever sees the cookie (a
proxy's log, a shared machine). A secret is therefore sealed (AES-GCM, under a key derived from the
server-side session secret) before it enters the cookie, and only the server can open it."""

from __future__ import annotations

import base64
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

PURPOSE = b"parley console: one-time secrets in the session cookie"


class Sealer:
    def __init__(self, server_secret: str):
        key = HKDF(algorithm=SHA256(), length=32, salt=None, info=PURPOSE).derive(
            server_secret.encode()
        )
        self._aead = AESGCM(key)

    def seal(self, secret: str) -> str:
        nonce = os.urandom(12)
        return base64.urlsafe_b64encode(
            nonce + self._aead.encrypt(nonce, secret.encode(), PURPOSE)
        ).decode()

    def open(self, sealed: object) -> str | None:
        """The secret, or None for anything this server did not seal (or sealed under another secret)."""
        if not isinstance(sealed, str):
            return None
        try:
            raw = base64.urlsafe_b64decode(sealed.encode())
            return self._aead.decrypt(raw[:12], raw[12:], PURPOSE).decode()
        except (ValueError, InvalidTag):
            return None

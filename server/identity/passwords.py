"""Principal passwords for the sign-in pages: scrypt from the standard library, never stored in clear.

scrypt is memory-hard and ships with Python's hashlib, so no extra dependency is needed; the
parameters follow current guidance for interactive logins (n=2**14, r=8, p=1).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from server.errors import ParleyError

_N, _R, _P, _LEN = 2**14, 8, 1, 32
MIN_LENGTH = 10


class PasswordError(ParleyError):
    """A password that cannot be set; the message says why."""


def hash_password(password: str) -> str:
    if len(password) < MIN_LENGTH:
        raise PasswordError(f"a password needs at least {MIN_LENGTH} characters")
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=_N, r=_R, p=_P, dklen=_LEN)
    return "scrypt$" + base64.b64encode(salt).decode() + "$" + base64.b64encode(digest).decode()


def check_password(password: str, stored: str | None) -> bool:
    if not stored or not stored.startswith("scrypt$"):
        # Spend the same work so a missing account answers as slowly as a wrong password.
        hashlib.scrypt(password.encode("utf-8"), salt=b"0" * 16, n=_N, r=_R, p=_P, dklen=_LEN)
        return False
    _, salt_b64, digest_b64 = stored.split("$")
    digest = hashlib.scrypt(
        password.encode("utf-8"), salt=base64.b64decode(salt_b64), n=_N, r=_R, p=_P, dklen=_LEN
    )
    return hmac.compare_digest(digest, base64.b64decode(digest_b64))

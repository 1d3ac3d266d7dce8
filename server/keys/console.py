"""The console's session secret: it signs console cookies; one file in the keys folder, `session-secret`."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from server.errors import KeyMissing

SESSION_SECRET_FILE = "session-secret"


def session_secret(keys_dir: Path, create: bool = True) -> str:
    """The secret that signs console cookies; every process of a cluster must share it (`create=False`
    refuses a keys folder without one: `parley keys init` makes it once)."""
    path = Path(keys_dir) / SESSION_SECRET_FILE
    if not path.exists() and not create:
        raise KeyMissing("console session secret", Path(keys_dir).resolve())
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(48))
    return path.read_text().strip()

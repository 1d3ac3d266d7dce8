"""Settings from the environment, with the defaults the README promises scripts can rely on."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from server.manifest import DEFAULT_MANIFEST


@dataclass(frozen=True)
class Settings:
    db_path: Path
    keys_dir: Path
    manifest_path: Path
    host: str
    port: int
    public_url: str

    @property
    def mcp_url(self) -> str:
        return f"{self.public_url}/mcp"

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        env = dict(os.environ if env is None else env)
        db_path = Path(env.get("PARLEY_DB") or ".parley/club.db")
        keys_dir = Path(env.get("PARLEY_KEYS") or db_path.parent / "keys")
        host = env.get("PARLEY_HOST") or "127.0.0.1"
        try:
            port = int(env.get("PARLEY_PORT") or 8765)
        except ValueError:
            raise SystemExit(f"PARLEY_PORT must be a number, not {env['PARLEY_PORT']!r}") from None
        public_url = (env.get("PARLEY_PUBLIC_URL") or f"http://{host}:{port}").rstrip("/")
        manifest_path = Path(env.get("PARLEY_MANIFEST") or DEFAULT_MANIFEST)
        return cls(db_path, keys_dir, manifest_path, host, port, public_url)

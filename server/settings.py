"""Settings from the environment, with the defaults the README promises scripts can rely on."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from server.errors import ConfigError
from server.manifest.loading import default_manifest_path


@dataclass(frozen=True)
class Settings:
    db_path: Path
    keys_dir: Path
    manifest_path: Path
    host: str
    port: int
    public_url: str
    # An external OAuth issuer instead of the embedded authorization server (both None: embedded).
    oauth_issuer: str | None = None
    oauth_jwks_url: str | None = None
    oauth_jwks_file: Path | None = None
    oauth_algorithms: tuple[str, ...] = ("RS256", "ES256")
    # A model-backed answering agent (any OpenAI-compatible endpoint); unset: the deterministic one.
    answerer_url: str | None = None
    answerer_model: str | None = None
    answerer_key_env: str | None = None  # the NAME of the variable holding the key; the key is never stored
    answerer_workers: int = 2  # answering worker processes (PARLEY_ANSWERER_WORKERS)
    max_sessions: int = 10_000  # open handshake-era MCP sessions at once (PARLEY_MAX_SESSIONS)
    # PostgreSQL instead of the embedded SQLite file: several processes on several machines.
    database_url: str | None = None
    # Handshake-era MCP sessions pinned to the process that opened them (pushed notifications), or
    # none (any process takes any request). PARLEY_SESSIONS; default: stateless on PostgreSQL.
    stateless: bool = False
    db_pool: int = 20  # pooled PostgreSQL connections a process (PARLEY_DB_POOL)
    # PARLEY_PUBLIC_URL was given: pages show it; unset, they show the address each request came in on
    public_url_given: bool = False

    @property
    def store(self) -> Path | str:
        """Where the club's store is: the PostgreSQL URL when set, else the SQLite file."""
        return self.database_url or self.db_path

    @property
    def shared_store(self) -> bool:
        """PostgreSQL: processes share the store and keys folder, and none may create keys on its own."""
        return self.database_url is not None

    @property
    def store_name(self) -> str:
        """The store, for messages: a PostgreSQL URL without its password."""
        if self.database_url is None:
            return str(self.db_path)
        parts = urlsplit(self.database_url)
        host = parts.hostname or "localhost"
        return f"postgresql://{host}{f':{parts.port}' if parts.port else ''}{parts.path}"

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
            raise ConfigError(f"PARLEY_PORT must be a number, not {env['PARLEY_PORT']!r}") from None
        public_url = (env.get("PARLEY_PUBLIC_URL") or f"http://{host}:{port}").rstrip("/")
        manifest_path = Path(env.get("PARLEY_MANIFEST") or default_manifest_path())
        issuer = env.get("PARLEY_OAUTH_ISSUER") or None
        jwks_url = env.get("PARLEY_OAUTH_JWKS_URL") or None
        jwks_file = Path(env["PARLEY_OAUTH_JWKS_FILE"]) if env.get("PARLEY_OAUTH_JWKS_FILE") else None
        if (jwks_url or jwks_file) and not issuer:
            raise ConfigError("PARLEY_OAUTH_JWKS_URL / PARLEY_OAUTH_JWKS_FILE need PARLEY_OAUTH_ISSUER")
        if issuer and not (jwks_url or jwks_file):
            raise ConfigError("PARLEY_OAUTH_ISSUER needs PARLEY_OAUTH_JWKS_URL or PARLEY_OAUTH_JWKS_FILE")
        algorithms = tuple(a.strip() for a in (env.get("PARLEY_OAUTH_ALGORITHMS") or "RS256,ES256").split(",") if a.strip())
        answerer_url = env.get("PARLEY_ANSWERER_URL") or None
        answerer_model = env.get("PARLEY_ANSWERER_MODEL") or None
        if answerer_url and not answerer_model:
            raise ConfigError("PARLEY_ANSWERER_URL needs PARLEY_ANSWERER_MODEL")
        workers = env.get("PARLEY_ANSWERER_WORKERS") or "2"
        if not workers.isdigit() or not 1 <= int(workers) <= 32:
            raise ConfigError(f"PARLEY_ANSWERER_WORKERS must be a number from 1 to 32, not {workers!r}")
        sessions = env.get("PARLEY_MAX_SESSIONS") or "10000"
        if not sessions.isdigit() or not 1 <= int(sessions) <= 10_000_000:
            raise ConfigError(f"PARLEY_MAX_SESSIONS must be a number from 1 to 10000000, not {sessions!r}")
        database_url = env.get("PARLEY_DATABASE_URL") or None
        if database_url is not None and not database_url.startswith(("postgresql://", "postgres://")):
            raise ConfigError("PARLEY_DATABASE_URL must be a postgresql:// URL (unset: the SQLite file PARLEY_DB)")
        sessions_mode = env.get("PARLEY_SESSIONS") or ("stateless" if database_url else "stateful")
        if sessions_mode not in ("stateless", "stateful"):
            raise ConfigError(f"PARLEY_SESSIONS must be stateless or stateful, not {sessions_mode!r}")
        pool = env.get("PARLEY_DB_POOL") or "20"
        if not pool.isdigit() or not 2 <= int(pool) <= 500:
            raise ConfigError(f"PARLEY_DB_POOL must be a number from 2 to 500, not {pool!r}")
        return cls(db_path, keys_dir, manifest_path, host, port, public_url, issuer, jwks_url, jwks_file, algorithms,
                   answerer_url, answerer_model, env.get("PARLEY_ANSWERER_KEY_ENV") or None, int(workers),
                   int(sessions), database_url, sessions_mode == "stateless", int(pool),
                   public_url_given=bool(env.get("PARLEY_PUBLIC_URL")))

    @property
    def embedded_issuer(self) -> bool:
        return self.oauth_issuer is None

    @property
    def issuer(self) -> str:
        return self.oauth_issuer or self.public_url

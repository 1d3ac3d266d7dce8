"""Settings from the environment, read in one place, with the defaults the README promises scripts
can rely on."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from urllib.parse import urlsplit

from server.errors import ConfigError
from server.manifest.loading import default_manifest_path


def variable(name: str, default: str, meaning: str) -> dict[str, str]:
    """A field's environment variable, its default as the README states it, and what it sets."""
    return {"env": name, "default": default, "meaning": meaning}


@dataclass(frozen=True)
class Settings:
    """Every `PARLEY_*` variable Parley reads, read once (`from_env`) and handed on as one object.

    Each field read from the environment names its variable in its metadata; the README's table of
    settings is tested against these fields, both ways (tests/test_settings.py)."""

    db_path: Path = field(
        metadata=variable(
            "PARLEY_DB",
            "`.parley/club.db`",
            "the SQLite store (when `PARLEY_DATABASE_URL` is unset)",
        )
    )
    keys_dir: Path = field(
        metadata=variable(
            "PARLEY_KEYS", "`keys/` beside the store", "the folder of the signing and OAuth keys"
        )
    )
    manifest_path: Path = field(
        metadata=variable(
            "PARLEY_MANIFEST",
            "the packaged club",
            "the club's manifest: lanes, scopes, tools, rules",
        )
    )
    host: str = field(
        metadata=variable("PARLEY_HOST", "`127.0.0.1`", "the address `parley serve` listens on")
    )
    port: int = field(
        metadata=variable("PARLEY_PORT", "`8765`", "the port `parley serve` listens on")
    )
    public_url: str = field(
        metadata=variable(
            "PARLEY_PUBLIC_URL",
            "`http://HOST:PORT`",
            "where members reach the server (behind a proxy); every link Parley gives starts there",
        )
    )
    # An external OAuth issuer instead of the embedded authorization server (both None: embedded).
    oauth_issuer: str | None = field(
        default=None,
        metadata=variable(
            "PARLEY_OAUTH_ISSUER", "unset: the embedded authorization server", "an external issuer"
        ),
    )
    oauth_jwks_url: str | None = field(
        default=None,
        metadata=variable(
            "PARLEY_OAUTH_JWKS_URL", "unset", "the external issuer's signing keys, by URL"
        ),
    )
    oauth_jwks_file: Path | None = field(
        default=None,
        metadata=variable(
            "PARLEY_OAUTH_JWKS_FILE", "unset", "the external issuer's signing keys, from a file"
        ),
    )
    oauth_algorithms: tuple[str, ...] = field(
        default=("RS256", "ES256"),
        metadata=variable(
            "PARLEY_OAUTH_ALGORITHMS", "`RS256,ES256`", "the algorithms accepted from the issuer"
        ),
    )
    # A model-backed answering agent (any OpenAI-compatible endpoint); unset: the deterministic one.
    answerer_url: str | None = field(
        default=None,
        metadata=variable(
            "PARLEY_ANSWERER_URL",
            "unset: the deterministic answerer",
            "an OpenAI-compatible endpoint for answering agents",
        ),
    )
    answerer_model: str | None = field(
        default=None,
        metadata=variable("PARLEY_ANSWERER_MODEL", "unset", "the model at `PARLEY_ANSWERER_URL`"),
    )
    # The NAME of the variable holding the key; the key itself is never stored.
    answerer_key_env: str | None = field(
        default=None,
        metadata=variable(
            "PARLEY_ANSWERER_KEY_ENV", "unset", "the name of the variable holding the model's key"
        ),
    )
    answerer_workers: int = field(
        default=2,
        metadata=variable("PARLEY_ANSWERER_WORKERS", "`2`", "answering worker processes (1 to 32)"),
    )
    max_sessions: int = field(
        default=10_000,
        metadata=variable(
            "PARLEY_MAX_SESSIONS", "`10000`", "open handshake-era MCP sessions at once"
        ),
    )
    # PostgreSQL instead of the embedded SQLite file: several processes on several machines.
    database_url: str | None = field(
        default=None,
        metadata=variable(
            "PARLEY_DATABASE_URL",
            "unset: the SQLite file",
            "a `postgresql://` store, shared by several processes",
        ),
    )
    # Handshake-era MCP sessions pinned to the process that opened them (pushed notifications), or
    # none (any process takes any request).
    stateless: bool = field(
        default=False,
        metadata=variable(
            "PARLEY_SESSIONS",
            "`stateless` on PostgreSQL, else `stateful`",
            "`stateful` pins a handshake-era session to the process that opened it",
        ),
    )
    db_pool: int = field(
        default=20,
        metadata=variable(
            "PARLEY_DB_POOL", "`20`", "pooled PostgreSQL connections a process (2 to 500)"
        ),
    )
    # The proxies whose X-Forwarded-For / -Proto `parley serve` believes (uvicorn's forwarded_allow_ips);
    # none by default: a client's own address is what its per-address limits count.
    forwarded_allow_ips: str | None = field(
        default=None,
        metadata=variable(
            "PARLEY_FORWARDED_ALLOW_IPS",
            "unset: no proxy is trusted",
            "the proxies (addresses or networks, comma-separated, `*` for any) whose "
            "`X-Forwarded-For` `parley serve` believes",
        ),
    )
    # PARLEY_PUBLIC_URL was given: pages show it; unset, they show the address a request came in on.
    public_url_given: bool = False
    # The command line's own: the credential `parley doctor` sends, and how hints name the command.
    # Out of repr, so no log line or traceback that shows the settings can show the token.
    token: str | None = field(
        default=None,
        repr=False,
        metadata=variable(
            "PARLEY_TOKEN", "unset: ask as a guest", "the bearer token `parley doctor` sends"
        ),
    )
    command: str | None = field(
        default=None,
        metadata=variable(
            "PARLEY_COMMAND", "`parley`, or how it was run", "the command hints print"
        ),
    )

    @property
    def store(self) -> Path | str:
        """Where the club's store is: the PostgreSQL URL when set, else the SQLite file."""
        return self.database_url or self.db_path

    @property
    def shared_store(self) -> bool:
        """PostgreSQL: processes share the store and keys folder; none may create keys alone."""
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
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """The settings of this environment (os.environ unless given); a bad value is a ConfigError
        that names the variable."""
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
        jwks_given = env.get("PARLEY_OAUTH_JWKS_FILE")
        jwks_file = Path(jwks_given) if jwks_given else None
        if (jwks_url or jwks_file) and not issuer:
            raise ConfigError(
                "PARLEY_OAUTH_JWKS_URL / PARLEY_OAUTH_JWKS_FILE need PARLEY_OAUTH_ISSUER"
            )
        if issuer and not (jwks_url or jwks_file):
            raise ConfigError(
                "PARLEY_OAUTH_ISSUER needs PARLEY_OAUTH_JWKS_URL or PARLEY_OAUTH_JWKS_FILE"
            )
        algorithms = tuple(
            a.strip()
            for a in (env.get("PARLEY_OAUTH_ALGORITHMS") or "RS256,ES256").split(",")
            if a.strip()
        )
        answerer_url = env.get("PARLEY_ANSWERER_URL") or None
        answerer_model = env.get("PARLEY_ANSWERER_MODEL") or None
        if answerer_url and not answerer_model:
            raise ConfigError("PARLEY_ANSWERER_URL needs PARLEY_ANSWERER_MODEL")
        workers = env.get("PARLEY_ANSWERER_WORKERS") or "2"
        if not workers.isdigit() or not 1 <= int(workers) <= 32:
            raise ConfigError(
                f"PARLEY_ANSWERER_WORKERS must be a number from 1 to 32, not {workers!r}"
            )
        sessions = env.get("PARLEY_MAX_SESSIONS") or "10000"
        if not sessions.isdigit() or not 1 <= int(sessions) <= 10_000_000:
            raise ConfigError(
                f"PARLEY_MAX_SESSIONS must be a number from 1 to 10000000, not {sessions!r}"
            )
        database_url = env.get("PARLEY_DATABASE_URL") or None
        postgresql = ("postgresql://", "postgres://")
        if database_url is not None and not database_url.startswith(postgresql):
            raise ConfigError(
                "PARLEY_DATABASE_URL must be a postgresql:// URL (unset: the SQLite file PARLEY_DB)"
            )
        sessions_mode = env.get("PARLEY_SESSIONS") or ("stateless" if database_url else "stateful")
        if sessions_mode not in ("stateless", "stateful"):
            raise ConfigError(
                f"PARLEY_SESSIONS must be stateless or stateful, not {sessions_mode!r}"
            )
        pool = env.get("PARLEY_DB_POOL") or "20"
        if not pool.isdigit() or not 2 <= int(pool) <= 500:
            raise ConfigError(f"PARLEY_DB_POOL must be a number from 2 to 500, not {pool!r}")
        return cls(
            db_path=db_path,
            keys_dir=keys_dir,
            manifest_path=manifest_path,
            host=host,
            port=port,
            public_url=public_url,
            oauth_issuer=issuer,
            oauth_jwks_url=jwks_url,
            oauth_jwks_file=jwks_file,
            oauth_algorithms=algorithms,
            answerer_url=answerer_url,
            answerer_model=answerer_model,
            answerer_key_env=env.get("PARLEY_ANSWERER_KEY_ENV") or None,
            answerer_workers=int(workers),
            max_sessions=int(sessions),
            database_url=database_url,
            stateless=sessions_mode == "stateless",
            db_pool=int(pool),
            forwarded_allow_ips=env.get("PARLEY_FORWARDED_ALLOW_IPS") or None,
            public_url_given=bool(env.get("PARLEY_PUBLIC_URL")),
            token=env.get("PARLEY_TOKEN"),  # as given: an empty one is refused, not a guest
            command=env.get("PARLEY_COMMAND") or None,
        )

    @property
    def embedded_issuer(self) -> bool:
        return self.oauth_issuer is None

    @property
    def issuer(self) -> str:
        return self.oauth_issuer or self.public_url


def variables() -> dict[str, dict[str, str]]:
    """Every environment variable the settings read, by name, with its default and meaning."""
    return {f.metadata["env"]: dict(f.metadata) for f in fields(Settings) if "env" in f.metadata}

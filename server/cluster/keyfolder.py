"""The keys folder every process of a cluster shares (a read-only secret mount in production).

`parley keys init` creates it once; on PostgreSQL a server never creates a key on its own. `parley
db migrate` records each key's fingerprint (a digest of public material, or of the secret under a
fixed label: nothing that helps forge), and a process whose keys differ refuses to start, naming
which: a mandate signed with another key would otherwise verify as invalid and silently drop
every agent of that member to zero scopes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from server.errors import ConfigError
from server.keys.console import session_secret
from server.keys.mandate import SigningKey
from server.keys.oauth import KeyRing
from server.store.database import Database
from server.store.migrations import meta

NAMES = {
    "fingerprint.mandate_key": "the mandate-signing key",
    "fingerprint.oauth_keys": "the OAuth signing keys",
    "fingerprint.session_secret": "the console session secret",
}


def init_keys(keys_dir: Path) -> list[str]:
    """Create whatever the folder lacks; the names of the files created (never their contents)."""
    folder = Path(keys_dir)
    before = {path.name for path in folder.glob("*")} if folder.exists() else set()
    SigningKey.load_or_create(folder)
    KeyRing(folder)
    session_secret(folder)
    return sorted({path.name for path in folder.glob("*")} - before)


def _digest(text: bytes) -> str:
    return hashlib.sha256(text).hexdigest()


def fingerprints(keys_dir: Path) -> dict[str, str]:
    """What `parley db migrate` records and every server compares, read from an existing folder."""
    folder = Path(keys_dir)
    mandate = SigningKey.load_or_create(folder, create=False)
    ring = KeyRing(folder, create=False)
    jwks = json.dumps(sorted((key["kid"], key["x"], key["y"]) for key in ring.jwks()["keys"]))
    secret = session_secret(folder, create=False)
    return {
        "fingerprint.mandate_key": _digest(mandate.public_raw),
        "fingerprint.oauth_keys": _digest(jwks.encode()),
        "fingerprint.session_secret": _digest(b"parley console session secret\0" + secret.encode()),
    }


def manifest_digest(manifest_path: Path) -> str:
    return _digest(Path(manifest_path).read_bytes())


def cluster_record(keys_dir: Path, manifest_path: Path) -> dict[str, str]:
    """What `parley db migrate` records for every process to compare."""
    return {**fingerprints(keys_dir), "manifest_digest": manifest_digest(manifest_path)}


def check_cluster(db: Database, keys_dir: Path, manifest_path: Path) -> None:
    """Refuse to start beside processes with other keys or another manifest, naming what differs."""
    mine = cluster_record(keys_dir, manifest_path)
    recorded = {key: meta(db, key) for key in mine}
    if None in recorded.values():
        raise ConfigError(
            "the store has no record of the cluster's keys and manifest: run 'parley db migrate' "
            "with the cluster's keys folder and manifest"
        )
    differ = [NAMES.get(key, "the manifest") for key in mine if recorded[key] != mine[key]]
    if differ:
        raise ConfigError(
            f"not starting: {', '.join(differ)} in {Path(keys_dir).resolve()} or "
            f"{Path(manifest_path).resolve()} differ from what 'parley db migrate' recorded for this "
            "cluster. Give every process the same keys folder (PARLEY_KEYS) and manifest, or run "
            "'parley db migrate' again after a deliberate change"
        )

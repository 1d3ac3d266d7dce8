"""A real PostgreSQL for the tests: the one `.ci/run` started (PARLEY_TEST_DATABASE_URL), else one this
test session starts itself from Debian's binaries with scripts/postgres, on a free loopback port.
Every test that needs it gets a database of its own, dropped afterwards."""

from __future__ import annotations

import os
import subprocess
import tempfile
import uuid
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent


class PostgresCluster:
    def __init__(self) -> None:
        self.folder: Path | None = None
        base = os.environ.get("PARLEY_TEST_DATABASE_URL")
        if not base:
            self.folder = Path(tempfile.mkdtemp(prefix="parley-pg-"))
            started = subprocess.run(
                [str(ROOT / "scripts" / "postgres"), "start", str(self.folder)],
                capture_output=True,
                text=True,
                timeout=300,
            )
            if started.returncode != 0:
                raise RuntimeError(
                    f"could not start a throwaway PostgreSQL: {started.stderr.strip()}"
                )
            base = started.stdout.strip().splitlines()[-1]
        self.base = base
        self.created: list[str] = []

    def url(self, name: str) -> str:
        return self.base.rsplit("/", 1)[0] + f"/{name}"

    def admin(self, sql: str) -> None:
        with psycopg.connect(self.base, autocommit=True) as conn:
            conn.execute(sql)  # type: ignore[arg-type]

    def new_database(self) -> str:
        name = f"parley_test_{uuid.uuid4().hex[:12]}"
        self.admin(f"CREATE DATABASE {name}")
        self.created.append(name)
        return self.url(name)

    def drop(self, url: str) -> None:
        name = url.rsplit("/", 1)[-1]
        self.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        if self.folder is not None:
            subprocess.run(
                [str(ROOT / "scripts" / "postgres"), "stop", str(self.folder)],
                capture_output=True,
                timeout=60,
            )

"""A contender of the HTTP benches: a server process on 127.0.0.1 (start, wait, stop), the venvs the
peers run in, and the uvicorn loop/http implementation every contender shares."""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
PEERS = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PARLEY = VENV / "bin" / "parley"
PYTHON = VENV / "bin" / "python"


class Skip(Exception):
    """A contender that cannot run here; the message says why."""


def ensure_venv(venv: Path, pins: list[str], log: Path) -> Path:
    """A venv with exactly these pins (installed once; reinstalled when the pins change)."""
    python = venv / "bin" / "python"
    stamp = venv / ".bench-pins"
    wanted = " ".join(pins)
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    print(f"preparing {venv} with {wanted} …", file=sys.stderr)
    if not python.exists():
        base = getattr(sys, "_base_executable", None) or shutil.which("python3.11") or "python3"
        subprocess.run([base, "-m", "venv", str(venv)], check=True, timeout=300)
    with log.open("a") as out:
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", *pins],
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=900,
        )
    if done.returncode != 0:
        lines = [
            line for line in log.read_text().splitlines() if "is ignored: it is neither" not in line
        ]
        raise Skip(f"pip install {wanted} failed: {' | '.join(lines[-5:])}")
    stamp.write_text(wanted)
    return python


def version_in(python: Path, package: str) -> str:
    done = subprocess.run(
        [str(python), "-c", f"import importlib.metadata as m; print(m.version({package!r}))"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.stdout.strip() or "?"


def loop_and_http() -> tuple[str, str, str]:
    """uvloop/httptools when Parley's venv has them, else asyncio/h11; the same for every contender."""
    have_uvloop = importlib.util.find_spec("uvloop") is not None
    have_httptools = importlib.util.find_spec("httptools") is not None
    loop = "uvloop" if have_uvloop else "asyncio"
    http_impl = "httptools" if have_httptools else "h11"
    missing = [
        name for name, have in (("uvloop", have_uvloop), ("httptools", have_httptools)) if not have
    ]
    why = (
        f"{', '.join(missing)} not installed in Parley's venv"
        if missing
        else "installed in Parley's venv"
    )
    return loop, http_impl, why


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Contender:
    name: str
    label: str
    port: int
    argv: list[str]
    log: Path
    env: dict[str, str] = field(default_factory=dict)
    token: str | None = None  # the bearer token its wrk run sends; None: no Authorization header
    stateless: bool = False
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                self.argv,
                env={**os.environ, **self.env},
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=str(self.log.parent),
            )

    def wait_up(self, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise Skip(f"exited with {self.proc.returncode} at start-up: {tail(self.log)}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.2)
        raise Skip(f"not listening on {self.port} after {seconds:.0f} s: {tail(self.log)}")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


def tail(path: Path, lines: int = 6) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no log)"
    return " | ".join(line for line in text[-lines:] if "is ignored: it is neither" not in line)

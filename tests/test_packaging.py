"""The wheel carries the whole club: built with `pip wheel .`, installed into a fresh venv, run from an
empty folder, `parley demo && parley serve` serves the default club and a guest sees 3 tools."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import time
import venv
import zipfile
from pathlib import Path

import httpx2
import pytest

from tests.access.test_e2e_lanes import GUEST
from tests.conftest import bound_socket, connect, tool_names

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv with only the built wheel installed; the dependencies come from the test venv's
    site-packages (this machine installs nothing else), never from the source tree."""
    work = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(work)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheel = next(work.glob("parley-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "server/defaults/club.yaml" in names and "server/defaults/vocabulary/en.yaml" in names
    assert (
        "server/defaults/knowledge/member-guide.md" in names
        and "server/web/templates/console_base.html" in names
    )
    env_dir = work / "venv"
    venv.create(env_dir, with_pip=True)
    subprocess.run(
        [env_dir / "bin" / "python", "-m", "pip", "install", "--no-deps", "-q", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    # The dependencies by a .pth file, read at every start: the answering workers run with a scrubbed
    # environment (no PYTHONPATH), as they do in a real install, and must find them all the same.
    deps = [p for p in site.getsitepackages() if p.endswith("site-packages")]
    (next((env_dir / "lib").glob("python3*/site-packages")) / "parley-test-deps.pth").write_text(
        "\n".join(deps) + "\n"
    )
    return env_dir


def run_env(folder: Path, port: int) -> dict:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(folder),
        "PARLEY_PORT": str(port),
        "PYTHONDONTWRITEBYTECODE": "1",
    }


async def test_an_installed_wheel_serves_the_default_club_from_an_empty_folder(installed, tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    sock = bound_socket()
    port = sock.getsockname()[1]
    sock.close()
    parley = installed / "bin" / "parley"
    env = run_env(folder, port)
    located = subprocess.run(
        [installed / "bin" / "python", "-c", "import server; print(server.__file__)"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert located.stdout.startswith(str(installed)), located.stdout  # the wheel, not the checkout
    checked = subprocess.run(
        [parley, "vocabulary", "check"], cwd=folder, env=env, capture_output=True, text=True
    )
    from server.router import vocabulary

    assert checked.returncode == 0 and checked.stdout.split() == [
        "en:",
        vocabulary.load("en").digest,
        "pt-BR:",
        vocabulary.load("pt-BR").digest,
    ]  # the packaged files
    refused = subprocess.run(
        [parley, "principal", "list"], cwd=folder, env=env, capture_output=True, text=True
    )
    assert (
        refused.returncode == 1
        and "no Parley store at" in refused.stderr
        and "parley demo" in refused.stderr
    )
    assert not (folder / ".parley" / "club.db").exists()  # refusing created nothing
    demo = subprocess.run(
        [parley, "demo"], cwd=folder, env=env, capture_output=True, text=True, timeout=60
    )
    assert demo.returncode == 0, demo.stderr
    assert (folder / ".parley" / "club.db").exists() and "pa_" in demo.stdout
    server = subprocess.Popen(
        [parley, "serve"],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx2.HTTPError:
                pass
            if server.poll() is not None or time.monotonic() >= deadline:
                # its output ends only with it: stop it first, or reading waits for ever
                server.kill()
                output = server.communicate(timeout=20)[0]
                raise AssertionError(f"the installed server was not ready within 30 s: {output}")
            time.sleep(0.1)
        async with connect(url, None) as guest:
            assert await tool_names(guest) == GUEST
            guide = await guest.list_resources()
            assert [r.uri for r in guide.resources]  # the lobby's knowledge travelled in the wheel
    finally:
        server.terminate()
        server.wait(20)

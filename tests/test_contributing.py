"""CONTRIBUTING.md stays true: every file or folder it names exists, and the commands it shows are
the project's."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUIDE = (ROOT / "CONTRIBUTING.md").read_text()


def test_every_path_the_guide_names_exists():
    named = set(re.findall(r"`((?:server|tests|scripts|manifests)/[\w./-]*?)`", GUIDE))
    named |= set(re.findall(r"^\s*((?:server|tests|scripts)/[\w./-]+)", GUIDE, re.M))
    # paths with placeholders (`vNNNN_name.py`) and the example of a new file are not real files
    real = {path.rstrip("/") for path in named if "NNNN" not in path and "v0005" not in path}
    assert real, "the guide names no paths?"
    missing = sorted(path for path in real if not (ROOT / path).exists())
    assert missing == []


def test_the_guide_covers_what_newcomers_change():
    for heading in (
        "## The request path in one picture",
        "## How to add a tool",
        "## How to add a rule field type",
        "## How to add a store column",
        "## How to add a console page",
        "## Running tests",
        "## Running the bench",
    ):
        assert heading in GUIDE


def recipe(heading: str) -> list[tuple[str, str, str]]:
    """(path, where, text) for each fenced block of a section whose first line says where it goes:
    `# <path>, a new file`, `, at the end`, `, after \\`<line>\\`` or `, replacing each \\`<text>\\``."""
    section = GUIDE.split(heading, 1)[1].split("\n## ", 1)[0]
    blocks = []
    for indent, body in re.findall(r"^( *)```\w+\n(.*?)^\1```", section, re.M | re.S):
        lines = [line.removeprefix(indent) for line in body.splitlines()]
        header = re.fullmatch(r"# (\S+), (.+)", lines[0])
        assert header, f"a block of {heading!r} does not say where it goes: {lines[0]!r}"
        blocks.append((*header.groups(), "\n".join(lines[1:]) + "\n"))
    return blocks


def apply(root: Path, path: str, where: str, text: str) -> None:
    target = root / path
    if where == "a new file":
        assert not target.exists(), f"{path} exists already"
        target.write_text(text)
    elif where == "at the end":
        target.write_text(target.read_text().rstrip("\n") + "\n\n\n" + text)
    elif found := re.fullmatch(r"after `(.+)`", where):
        lines = target.read_text().splitlines(keepends=True)
        at = lines.index(found.group(1) + "\n") + 1
        target.write_text("".join(lines[:at]) + text + "".join(lines[at:]))
    elif found := re.fullmatch(r"replacing each `(.+)`", where):
        old = target.read_text()
        assert found.group(1) in old, f"{path} has no {found.group(1)!r}"
        target.write_text(old.replace(found.group(1), text.strip("\n")))
    else:
        raise AssertionError(f"the guide's block for {path} says where as {where!r}: unknown")


def test_the_add_a_tool_recipe_runs_as_written(tmp_path):
    """Every block of "How to add a tool", applied as written to a copy of the repository; then the
    recipe's own test calls the new tool over HTTP, and the completeness and pure checks pass."""
    import shutil
    import subprocess
    import sys

    blocks = recipe("## How to add a tool")
    assert {path for path, _, _ in blocks} >= {
        "manifests/club.yaml",
        "tests/tools/test_e2e_tools.py",
    }
    copy = tmp_path / "checkout"
    skip = shutil.ignore_patterns("__pycache__", "browser", "ts", "node_modules")
    for folder in ("server", "manifests", "tests"):
        shutil.copytree(ROOT / folder, copy / folder, ignore=skip)
    shutil.copy(ROOT / "pyproject.toml", copy)
    for block in blocks:
        apply(copy, *block)
    tests = [
        f"{path}::{name}"
        for path, _, text in blocks
        if path.startswith("tests/")
        for name in re.findall(r"^(?:async )?def (test_\w+)", text, re.M)
    ]
    assert tests, "the recipe writes no test"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-x",
            "-p",
            "no:cacheprovider",
            "-k",
            "not postgresql",  # the recipe's test on the embedded store; PostgreSQL adds nothing here
            *tests,
            "tests/tools/test_tools_complete.py",
            "tests/tools/test_pure_tools.py",
        ],
        cwd=copy,
        env={**os.environ, "PYTHONPATH": str(copy)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "ping" in (copy / "manifests" / "club.yaml").read_text()

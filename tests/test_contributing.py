"""CONTRIBUTING.md stays true: every file or folder it names exists, and the commands it shows are
the project's."""

from __future__ import annotations

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

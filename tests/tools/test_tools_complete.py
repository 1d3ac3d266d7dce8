"""Every tool is complete: typed input and output, a description, a manifest entry, and a test.

Adding a tool is one function (in a module of `server/tools/`, imported by itself) plus its entry
in a manifest; the lane lists and counts other tests expect follow from the manifest. What cannot
follow by itself is checked here, each failure naming the tool and what it lacks."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from server import tools
from server.manifest.loading import load_manifest
from server.tools.registry import Args

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = sorted((ROOT / "manifests").glob("*.yaml"))
HERE = Path(__file__).resolve()


def declared_anywhere() -> dict[str, list[str]]:
    """Tool name → the manifests (file names) that declare it."""
    declared: dict[str, list[str]] = {}
    for path in MANIFESTS:
        for name in load_manifest(path).tools:
            declared.setdefault(name, []).append(path.name)
    return declared


def test_the_manifests_are_found():
    assert [path.name for path in MANIFESTS] and "club.yaml" in [path.name for path in MANIFESTS]


def test_every_tool_has_models_and_a_description():
    problems = []
    for name, spec in tools.load_all().items():
        if not issubclass(spec.input_model, Args):
            problems.append(f"{name}: its input is not an Args model (server/tools/registry.py)")
        if not issubclass(spec.output_model, BaseModel):
            problems.append(f"{name}: its output is not a pydantic model")
        if len(spec.description.split()) < 5:
            problems.append(
                f"{name}: its docstring is its description for agents; write a sentence"
            )
    assert problems == [], "\n".join(problems)


def test_every_tool_is_in_a_manifest_and_every_manifest_tool_exists():
    declared = declared_anywhere()
    implemented = set(tools.load_all())
    unlisted = sorted(implemented - set(declared))
    assert unlisted == [], (
        f"tools no manifest declares (add each under `tools:` in manifests/club.yaml "
        f"and to the agents that offer it): {unlisted}"
    )
    missing = {name: where for name, where in declared.items() if name not in implemented}
    assert missing == {}, (
        f"tools a manifest declares that no module of server/tools/ implements: {missing}"
    )


def test_every_tool_is_called_by_name_in_a_test():
    """A test calls the tool: its name appears quoted in a test module other than this one."""
    sources = "\n".join(
        path.read_text()
        for path in sorted((ROOT / "tests").rglob("test_*.py"))
        if path.resolve() != HERE
    )
    untested = [
        name
        for name in tools.load_all()
        if not re.search(
            rf"""call_tool\(\s*["']{name}["']|["']name["']\s*:\s*["']{name}["']"""
            rf"""|\bcall\(\s*\w+,\s*["']{name}["']""",
            sources,
        )
    ]
    assert untested == [], (
        f'tools no test calls by name (call_tool("<name>", …) in tests/): {untested}'
    )

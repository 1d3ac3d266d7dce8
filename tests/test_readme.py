"""The README tells the truth: every command and option is there, with an example and help text, and
the lane figures are the ones the manifest gives."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from server.access import default_scopes, visible_tools
from server.cli.main import parser
from server.manifest.loading import load_manifest

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def leaves(
    top: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], argparse.ArgumentParser, str]]:
    """(command path, its parser, its help) for every command that runs something."""
    found = []
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                nested = leaves(sub, path + (name,))
                found += nested or [(path + (name,), sub, helps.get(name) or "")]
    return found


COMMANDS = leaves(parser())


def test_every_command_has_help_and_a_readme_example():
    missing_help = [" ".join(path) for path, _, helptext in COMMANDS if not helptext.strip()]
    missing_example = [
        " ".join(path)
        for path, _, _ in COMMANDS
        if not re.search(rf"(^|\$\(|\| )parley {' '.join(path)}(\s|$|\))", README, re.M)
    ]
    assert (missing_help, missing_example) == ([], [])


def test_every_option_has_help_and_appears_with_its_command():
    problems = []
    for path, sub, _ in COMMANDS:
        lines = [line for line in README.splitlines() if f"parley {' '.join(path)}" in line]
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if not (action.help or "").strip():
                problems.append(f"{' '.join(path)} {action.dest}: no help")
            for flag in [o for o in action.option_strings if o.startswith("--")][:1]:
                if not any(flag in line for line in lines):
                    problems.append(f"parley {' '.join(path)} {flag}: not in the README")
    assert problems == []


def test_the_lane_figures_in_the_readme_are_the_manifests():
    manifest = load_manifest()
    guest = len(visible_tools(manifest, frozenset(), False, None))
    applicant = len(visible_tools(manifest, default_scopes(manifest, "applicant"), True, None))
    member = len(visible_tools(manifest, default_scopes(manifest, "member"), True, None))
    sentence = (
        f"A guest sees {guest} tools of {len(manifest.tools)}, an applicant's agent {applicant} and a "
        f"member's agent {member}."
    )
    assert sentence in README.replace("\n", " ")
    table = {
        name: needs
        for row in re.findall(r"^\| (`[^|]+`) \| (`[^`]+`|—) \|", README, re.M)
        for name in re.findall(r"`([a-z_]+)`", row[0])
        for needs in [row[1].strip("`")]
    }
    assert table == {name: (decl.needs or "—") for name, decl in manifest.tools.items()}

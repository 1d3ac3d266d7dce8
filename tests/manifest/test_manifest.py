"""The default manifest's lane counts, and load errors that say what to fix."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from server import tools
from server.access import default_scopes, visible_tools
from server.manifest.loading import ManifestError, load_manifest, parse_manifest

# The seed's figures for the tools of DESIGN.md: guest 3, applicant's agent 10, member's agent 14,
# of 15. A tool added since (one file plus its manifest entry) joins the counts by itself: these
# pin only that every tool of the design is there, with its scope, in the lane the seed puts it.
SEED = {"guest": 3, "applicant": 10, "member": 14, "total": 15}
DESIGN_TOOLS = {
    "about_club": None,
    "whoami": None,
    "apply": None,
    "my_profile": "club:read",
    "my_mandate": "club:read",
    "plan": "club:read",
    "log_evidence": "evidence:write",
    "list_evidence": "evidence:write",
    "ask": "questions:ask",
    "inbox": "inbox:read",
    "search_directory": "directory:read",
    "view_member": "directory:read",
    "update_briefing": "briefing:write",
    "list_briefing": "briefing:write",
    "amend_mandate": "mandate:write",
}


def test_default_manifest_holds_the_design_table():
    manifest = load_manifest()
    for name, needs in DESIGN_TOOLS.items():
        assert name in manifest.tools, f"{name}, a tool of DESIGN.md, is missing from the manifest"
        assert manifest.tools[name].needs == needs, name
    assert set(manifest.tools) <= set(tools.load_all())


def test_lane_counts_follow_the_seed():
    """The seed's figures, exactly, over the design's tools: a missing tool is a failure, never a
    smaller expectation."""
    manifest = load_manifest()

    def designed(names: list[str]) -> int:
        return len([name for name in names if name in DESIGN_TOOLS])

    assert len(DESIGN_TOOLS) == SEED["total"] == 15
    assert designed(visible_tools(manifest, frozenset(), False, None)) == SEED["guest"] == 3
    for lane in ("applicant", "member"):
        assert (
            designed(visible_tools(manifest, default_scopes(manifest, lane), True, None))
            == SEED[lane]
        )
    assert (SEED["applicant"], SEED["member"]) == (10, 14)


def test_scope_figures_of_the_seed():
    manifest = load_manifest()
    assert len(manifest.scopes) == 7
    assert len(manifest.agent_scopes) == 6 and "mandate:write" not in manifest.agent_scopes
    assert len(manifest.ceiling("applicant") & manifest.agent_scopes) == 4
    assert "directory:read" not in manifest.ceiling("applicant")


BASE = """
club: {name: C, description: d, how_to_join: j}
scopes:
  a:read: {description: x}
lanes:
  guest: {ceiling: [], description: g, how_to_leave: l}
  applicant: {ceiling: [a:read], description: g, how_to_leave: l}
  member: {ceiling: [a:read], description: g, how_to_leave: l}
tools:
  whoami: {access: public}
"""


def test_minimal_manifest_loads():
    assert list(parse_manifest(BASE).tools) == ["whoami"]


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda t: t.replace(
                "ceiling: [a:read], description: g, how_to_leave: l}\n  member",
                "ceiling: [b:write], description: g, how_to_leave: l}\n  member",
            ),
            "lanes.applicant.ceiling: unknown scope 'b:write'",
        ),
        (
            lambda t: t + "  my_profile: {needs: nope:read}\n",
            "tools.my_profile.needs: unknown scope 'nope:read'",
        ),
        (
            lambda t: (
                t.replace(
                    "  a:read: {description: x}",
                    "  a:read: {description: x}\n  z:write: {description: y}",
                )
                + "  secret: {needs: z:write}\n"
            ),
            "no lane's ceiling holds 'z:write'",
        ),
        (lambda t: t + "  whoami: {access: public}\n", "duplicate name 'whoami'"),
        (
            lambda t: t.replace(
                "  member: {ceiling: [a:read], description: g, how_to_leave: l}\n", ""
            ),
            "lanes: missing member",
        ),
        (
            lambda t: t.replace("guest: {ceiling: []", "guest: {ceiling: [a:read]"),
            "guest lane has no credential",
        ),
        (lambda t: t + "  whoami2: {access: secret}\n", "tools.whoami2.access"),
        (lambda t: t + "bogus: 1\n", "bogus: Extra inputs are not permitted"),
        (lambda t: "- just a list\n", "must be a mapping"),
        (lambda t: t + "  bad: [unclosed\n", "not valid YAML"),
    ],
)
def test_load_errors_name_the_problem(edit, message):
    with pytest.raises(ManifestError) as err:
        parse_manifest(edit(BASE))
    assert message in str(err.value)


def test_duplicate_name_error_has_line(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(BASE + "  whoami: {access: public}\n")
    with pytest.raises(ManifestError) as err:
        load_manifest(path)
    text = str(err.value)
    assert str(path) in text and "line 11" in text and "first declared at line 10" in text


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ManifestError, match="cannot read manifest"):
        load_manifest(tmp_path / "absent.yaml")


def test_server_refuses_a_manifest_tool_it_does_not_implement(tmp_path):
    from server.chokepoint.chokepoint import Chokepoint

    manifest = parse_manifest(textwrap.dedent(BASE) + "  teleport: {access: public}\n")
    with pytest.raises(ManifestError, match="does not implement: teleport"):
        Chokepoint(None, None, manifest, None, tools.load_all())


def test_a_second_checkout_sharing_the_venv_reads_its_own_default_club(tmp_path):
    """The default club is found beside the imported package, not through the editable install's
    mapping: a second checkout run with this venv reads its own manifests/, not the first's."""
    import shutil
    import subprocess
    import sys

    here = Path(__file__).resolve().parents[2]
    other = tmp_path / "checkout"
    shutil.copytree(here / "server", other / "server", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(here / "manifests", other / "manifests")
    club = other / "manifests" / "club.yaml"
    club.write_text(club.read_text().replace("name: Parley Club", "name: Second checkout", 1))
    read = subprocess.run(
        [
            sys.executable,
            "-c",
            "import server.manifest as m; print(m.default_manifest_path()); "
            "print(m.load_manifest().club.name)",
        ],
        cwd=other,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(other)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    path, name = read.stdout.split("\n")[:2]
    assert (Path(path), name) == (club, "Second checkout")

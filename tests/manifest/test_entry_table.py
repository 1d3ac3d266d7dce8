"""Several agents in one manifest, chosen by an ordered entry table before the first answer."""

from __future__ import annotations

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from server.access import entry_persona, visible_tools
from server.cli.serving import findings as cli_findings
from server.manifest.loading import ManifestError, parse_manifest
from tests.access.test_e2e_lanes import GUEST, MEMBER, PRINCIPAL
from tests.conftest import connect, manifest_copy, running_club, tool_names
from tests.manifest.test_manifest import BASE

AGENTS = """
agents:
  home: {name: Ana, instructions: home, tools: [whoami]}
  staff: {name: Ana, instructions: staff, tools: [whoami]}
  portal: {name: Ana, instructions: portal, tools: [whoami]}
"""


def table(rows: str):
    return parse_manifest(BASE + AGENTS + "entry:\n" + rows)


def test_first_matching_row_wins_and_that_is_the_whole_rule():
    manifest = table(
        "  - {authenticated: false, agent: home}\n  - {claims: {role: staff}, agent: staff}\n"
        "  - {agent: portal}\n"
    )
    assert entry_persona(manifest, False, {"role": "staff"}) == "home"  # row order, not specificity
    assert entry_persona(manifest, True, {"role": "staff"}) == "staff"
    assert entry_persona(manifest, True, {"role": "customer"}) == "portal"
    assert entry_persona(manifest, True, {}) == "portal"


def test_claims_lists_are_any_of_and_all_keys_must_match():
    manifest = table(
        "  - {claims: {role: [staff, admin], region: eu}, agent: staff}\n  - {agent: portal}\n"
    )
    assert entry_persona(manifest, True, {"role": "admin", "region": "eu"}) == "staff"
    assert entry_persona(manifest, True, {"role": "admin", "region": "us"}) == "portal"
    assert entry_persona(manifest, True, {"role": "guest", "region": "eu"}) == "portal"
    assert entry_persona(manifest, True, {"region": "eu"}) == "portal"


def test_claims_compare_as_text():
    manifest = table("  - {claims: {role: 2, steward: true}, agent: staff}\n  - {agent: portal}\n")
    assert entry_persona(manifest, True, {"role": "2", "steward": "true"}) == "staff"
    assert entry_persona(manifest, True, {"role": "2", "steward": "false"}) == "portal"


@pytest.mark.parametrize(
    "rows, message",
    [
        (
            "  - {authenticated: false, agent: home}\n",
            "entry row 1: the last row must have no conditions",
        ),
        (
            "  - {agent: portal}\n  - {agent: home}\n",
            "entry row 2: unreachable, row 1 has no conditions",
        ),
        ("  - {agent: nobody}\n", "entry row 1: unknown agent 'nobody'"),
        ("  - {claims: {role: x}}\n  - {agent: portal}\n", "entry.0.agent: Field required"),
        ("  - {agent: portal, tier: gold}\n", "entry.0.tier: Extra inputs"),
    ],
)
def test_entry_table_load_errors_name_the_row(rows, message):
    with pytest.raises(ManifestError, match=message.replace("(", r"\(")):
        table(rows)


def test_agent_is_the_short_form_of_agents_main():
    manifest = parse_manifest(
        BASE + "agent: {name: Solo, instructions: only one, tools: [whoami]}\n"
    )
    assert list(manifest.agents) == ["main"] and entry_persona(manifest, False, {}) == "main"
    assert visible_tools(manifest, frozenset(), False, "main") == ["whoami"]
    with pytest.raises(ManifestError, match="not both"):
        parse_manifest(
            BASE + "agent: {name: A, instructions: x}\n" + AGENTS + "entry: [{agent: home}]\n"
        )


def test_an_agent_narrows_tools_and_every_link_is_listed_in_its_instructions():
    manifest = parse_manifest(
        BASE.replace(
            "tools:\n  whoami: {access: public}",
            "tools:\n  whoami: {access: public}\n  about: {access: public}",
        )
        + """
links: {pricing: "https://acme.test/pricing"}
agents:
  home: {name: Ana, instructions: Hello., tools: [whoami], links: [pricing]}
  portal: {name: Ana, instructions: Hi., tools: [whoami, about], links: {help: "https://acme.test/help"}}
entry:
  - {authenticated: false, agent: home}
  - {agent: portal}
"""
    )
    assert visible_tools(manifest, frozenset(), False, "home") == ["whoami"]
    assert visible_tools(manifest, frozenset(), False, "portal") == ["whoami", "about"]
    assert "- pricing: https://acme.test/pricing" in manifest.agents["home"].full_instructions(
        manifest.links
    )
    assert "- help: https://acme.test/help" in manifest.agents["portal"].full_instructions(
        manifest.links
    )
    assert "pricing" not in manifest.agents["portal"].full_instructions(
        manifest.links
    )  # nothing inherited


def test_tools_check_warns_with_lines(tmp_path):
    path = manifest_copy(
        tmp_path,
        lambda text: (
            text.replace(
                "  - { claims: { status: applicant }, agent: applicant }\n",
                "  - { authenticated: false, claims: { status: applicant }, agent: applicant }\n",
            )
            .replace(
                "knowledge:\n  joining:",
                "knowledge:\n  orphan:\n    title: Unused\n    file: knowledge/joining.md\n"
                "  joining:",
            )
            .replace("entry:\n", "links:\n  stray: https://parley.invalid/stray\n\nentry:\n")
        ),
    )
    findings = [str(f) for f in cli_findings(path)]
    text = path.read_text().splitlines()

    def line_of(fragment: str, after: str = "") -> int:
        start = (
            next(n for n, line in enumerate(text, start=1) if line.startswith(after))
            if after
            else 0
        )
        return next(
            number
            for number, line in enumerate(text, start=1)
            if number > start and fragment in line
        )

    assert (
        f"warning: line {line_of('authenticated: false, claims')}: entry row 3 can never match:"
        " a guest carries no claims" in findings
    )
    assert (
        f"warning: line {line_of('  applicant:', after='agents:')}: agent 'applicant' can never be"
        " selected: no reachable entry row names it" in findings
    )
    assert (
        f"warning: line {line_of('  orphan:')}: knowledge base 'orphan' is declared but no agent uses it"
        in findings
    )
    assert (
        f"warning: line {line_of('  stray:')}: link 'stray' is declared but no agent uses it"
        in findings
    )


def test_tools_check_reports_load_errors_with_lines(tmp_path):
    path = manifest_copy(
        tmp_path,
        lambda text: text.replace(
            "  - { agent: member }\n", "  - { agent: member }\n  - { agent: lobby }\n"
        ).replace("needs: briefing:write\n", "needs: briefing:wirte\n", 1),
    )
    findings = [str(f) for f in cli_findings(path)]
    text = path.read_text().splitlines()
    unreachable = next(n for n, line in enumerate(text, start=1) if line == "  - { agent: lobby }")
    assert (
        f"error: line {unreachable}: entry row 5: unreachable, row 4 has no conditions and matches everyone first"
        in findings
    )
    assert any(
        f.startswith("error: line ")
        and "tools.update_briefing.needs: unknown scope 'briefing:wirte'" in f
        for f in findings
    )


def test_tools_check_on_a_tool_no_lane_reaches(tmp_path):
    from server.manifest.check import warnings

    manifest = parse_manifest(
        BASE + "  orphan: {access: public}\n" + AGENTS + "entry: [{agent: portal}]\n"
    )
    messages = [f.message for f in warnings(manifest)]
    assert "tool 'orphan' is in no selectable agent's tools, so no caller ever sees it" in messages
    assert "agent 'home' can never be selected: no reachable entry row names it" in messages


# --- end to end -------------------------------------------------------------------------------


async def resources_of(client) -> list[str]:
    return sorted(str(r.uri) for r in (await client.list_resources()).resources)


async def test_guest_applicant_and_steward_get_different_agents(club):
    seen = {}
    for who, token in (
        ("guest", None),
        ("applicant", club.tokens.applicant.token),
        ("member", club.tokens.member.token),
        ("steward", club.tokens.steward_principal.token),
    ):
        async with connect(club.url, token) as client:
            seen[who] = (
                client.instructions,
                await resources_of(client),
                await tool_names(client),
                (await client.call_tool("whoami", {})).structured_content["entry_agent"],
            )
    assert [seen[w][3] for w in seen] == ["lobby", "applicant", "member", "steward"]
    assert (
        "You are talking to a guest" in seen["guest"][0]
        and "how_to_join: parley://knowledge/joining" in seen["guest"][0]
    )
    assert "applicant who is not yet admitted" in seen["applicant"][0]
    assert (
        "club steward" in seen["steward"][0]
        and f"console: {club.live.base}/console/applicants" in seen["steward"][0]
    )
    assert seen["guest"][1] == ["parley://knowledge/joining"]
    assert seen["applicant"][1] == ["parley://inbox", "parley://knowledge/applicant_guide"]
    assert seen["steward"][1] == [
        "parley://inbox",
        "parley://knowledge/member_guide",
        "parley://knowledge/steward_guide",
    ]
    assert (
        seen["guest"][2] == GUEST
        and seen["member"][2] == MEMBER
        and seen["steward"][2] == PRINCIPAL
    )
    async with connect(club.url, None) as guest:
        text = (await guest.read_resource("parley://knowledge/joining")).contents[0].text
        assert text.startswith("# Joining Parley Club")
        with pytest.raises(MCPError, match="Resource not found"):
            await guest.read_resource("parley://knowledge/steward_guide")


async def test_a_guest_session_that_signs_in_switches_agent_on_the_same_session(club):
    changed = anyio.Event()

    async def on_message(message) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with httpx2.AsyncClient(timeout=30) as http:
        async with Client(
            streamable_http_client(club.url, http_client=http),
            mode="legacy",
            cache=None,
            message_handler=on_message,
        ) as client:
            assert await tool_names(client) == GUEST
            first = await client.call_tool("whoami", {})
            assert first.structured_content["entry_agent"] == "lobby"
            http.headers["Authorization"] = (
                f"Bearer {club.tokens.member.token}"  # the guest signs in
            )
            who = (await client.call_tool("whoami", {})).structured_content
            assert who["entry_agent"] == "member" and who["lane"] == "member"
            with anyio.fail_after(10):
                await changed.wait()
            assert await tool_names(client) == MEMBER
            assert await resources_of(client) == [
                "parley://inbox",
                "parley://knowledge/member_guide",
            ]


async def test_access_private_holds_under_a_wrong_entry_table(tmp_path):
    wrong = manifest_copy(
        tmp_path,
        lambda text: text.replace(
            "  - { authenticated: false, agent: lobby }\n",
            "  - { authenticated: false, agent: steward }\n",
        ),
    )
    with running_club(tmp_path, wrong) as club:
        async with connect(club.url, None) as guest:
            assert "club steward" in guest.instructions  # the wrong prompt, as configured
            assert await tool_names(guest) == GUEST  # but no private tool
            for tool in (
                "my_profile",
                "inbox",
                "search_directory",
                "view_member",
                "list_briefing",
                "ask",
            ):
                with pytest.raises(MCPError, match=f"Unknown tool: {tool}"):
                    await guest.call_tool(tool, {"handle": "ana"} if tool == "view_member" else {})
            assert "parley://inbox" not in await resources_of(guest)
            with pytest.raises(MCPError):
                await guest.read_resource("parley://inbox")
            who = (await guest.call_tool("whoami", {})).structured_content
            assert who["principal"] is None and who["lane"] == "guest"


def test_tools_check_names_a_rule_that_reads_an_unknown_field(tmp_path):
    path = manifest_copy(
        tmp_path,
        lambda text: text.replace(
            "      - { field: subject.asks_today, op: is less than, value: 20 }",
            "      - { field: subject.asks_per_hour, op: is less than, value: 20 }",
        ),
    )
    findings = [str(f) for f in cli_findings(path)]
    line = next(
        n
        for n, text in enumerate(path.read_text().splitlines(), start=1)
        if text.startswith("  - name: Applicants ask at most 20")
    )
    assert findings == [
        f"error: line {line}: rule 'Applicants ask at most 20 questions a day': "
        "unknown field 'subject.asks_per_hour'"
    ]

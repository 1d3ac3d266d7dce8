"""The tools themselves, through the real endpoint: what they store, return and refuse."""

from __future__ import annotations

import threading

import httpx2
import pytest

from server.identity import principals as club_ops
from server.manifest.loading import load_manifest
from tests.access.test_e2e_lanes import APPLICANT, GUEST, MEMBER, member_tools_within
from tests.conftest import connect, tool_names


def counts(club) -> dict[str, int]:
    db = club.db()
    try:
        return {
            table: db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for table in (
                "principals",
                "agents",
                "tokens",
                "mandates",
                "evidence",
                "briefing",
                "applications",
            )
        }
    finally:
        db.close()


async def call(client, name, args=None):
    return await client.call_tool(name, args or {})


async def test_a_guest_applies_and_reconnects_as_an_applicant(club):
    async with connect(club.url) as guest:
        about = (await call(guest, "about_club")).structured_content
        assert about["name"] == "Parley Club" and about["tools_total"] == len(load_manifest().tools)
        lanes = {lane["lane"]: lane for lane in about["lanes"]}
        assert lanes["guest"]["tools_visible"] == len(GUEST) and lanes["member"][
            "tools_visible"
        ] == len(MEMBER)
        result = await call(
            guest, "apply", {"handle": "eve", "name": "Eve Lima", "statement": "I build agents."}
        )
        assert not result.is_error, result.content
        application = result.structured_content
        assert application["handle"] == "eve" and application["token"].startswith("pa_")
    async with connect(club.url, application["token"]) as applicant:
        assert await tool_names(applicant) == APPLICANT
        logged = await call(
            applicant,
            "log_evidence",
            {"kind": "portfolio", "title": "Agent demos", "url": "https://example.org/eve"},
        )
        assert not logged.is_error, logged.content
        listed = (await call(applicant, "list_evidence")).structured_content["items"]
        assert [item["title"] for item in listed] == [{"quoted": "Agent demos", "by": "eve"}]
        profile = (await call(applicant, "my_profile")).structured_content
        assert profile["status"] == "applicant" and profile["name"] == "Eve Lima"
        mandate = (await call(applicant, "my_mandate")).structured_content
        assert mandate["state"] == "valid" and "directory:read" not in mandate["scopes"]
        again = await call(
            applicant, "apply", {"handle": "eve2", "name": "Eve", "statement": "once more please"}
        )
        assert again.is_error and "already acts for eve" in again.content[0].text


async def test_apply_refuses_a_taken_handle_and_writes_nothing(club):
    before = counts(club)
    async with connect(club.url) as guest:
        result = await call(
            guest, "apply", {"handle": "bruno", "name": "Impostor", "statement": "let me in now"}
        )
    assert result.is_error and "handle 'bruno' is taken" in result.content[0].text
    assert counts(club) == before


@pytest.mark.parametrize(
    "tool, args, fragment",
    [
        (
            "apply",
            {"handle": 7, "name": "x", "statement": "long enough text"},
            "handle: Input should be a valid string",
        ),
        (
            "apply",
            {"handle": "Bad Handle", "name": "x", "statement": "long enough text"},
            "handle: String should match",
        ),
        (
            "apply",
            {"handle": "okhandle", "name": "x", "statement": "y" * 5000},
            "statement: String should have at most",
        ),
        (
            "apply",
            {"handle": "okhandle", "name": "x", "statement": "long enough", "admin": True},
            "admin: Extra inputs",
        ),
        ("apply", {}, "handle: Field required"),
    ],
)
async def test_bad_input_gets_a_clear_error_and_changes_nothing(club, tool, args, fragment):
    before = counts(club)
    async with connect(club.url) as guest:
        result = await call(guest, tool, args)
    assert result.is_error
    text = result.content[0].text
    assert fragment in text and "Nothing was changed" in text
    assert "y" * 100 not in text  # the value sent is never echoed
    assert counts(club) == before


@pytest.mark.parametrize(
    "tool, args, fragment",
    [
        (
            "log_evidence",
            {"kind": "bribe", "title": "x"},
            "Rule not met: kind is one of [reference, portfolio",
        ),
        (
            "log_evidence",
            {"kind": "reference", "title": ""},
            "title: String should have at least 1",
        ),
        ("log_evidence", {"kind": "reference", "title": "t", "url": "javascript:alert(1)"}, "url:"),
        (
            "update_briefing",
            {"topic": "t", "text": "x", "visibility": "secret"},
            "visibility: Input should be",
        ),
        (
            "update_briefing",
            {"topic": "t", "text": "x", "visibility": "public", "note_id": 9999},
            'Rule not met: CEL: args.note_id == null || resource.owner == subject.id (rule "Only the owner edits',
        ),
        ("inbox", {"limit": 0}, "limit: Input should be greater than or equal to 1"),
        ("search_directory", {"query": "q" * 201}, "query: String should have at most 200"),
        ("view_member", {"handle": "carla"}, "no member with handle 'carla'"),
    ],
)
async def test_member_tool_refusals(club, tool, args, fragment):
    before = counts(club)
    async with connect(club.url, club.tokens.member.token) as member:
        result = await call(member, tool, args)
    assert result.is_error and fragment in result.content[0].text, result.content[0].text
    assert counts(club) == before


async def test_directory_shows_members_only(club):
    async with connect(club.url, club.tokens.member.token) as member:
        everyone = (await call(member, "search_directory")).structured_content["members"]
        assert [m["handle"] for m in everyone] == ["ana", "bruno"]
        found = (
            await call(member, "search_directory", {"query": "design lisbon"})
        ).structured_content["members"]
        assert [m["handle"] for m in found] == ["ana"]
        assert (await call(member, "search_directory", {"query": "%"})).structured_content[
            "members"
        ] == []
        ana = (await call(member, "view_member", {"handle": "ana"})).structured_content
        assert (
            ana["askable"]
            and ana["quotable"]
            and "availability" in [t["quoted"] for t in ana["topics"]]
        )


async def test_briefing_notes_add_replace_and_stay_private_to_their_owner(club):
    async with connect(club.url, club.tokens.member.token) as bruno:
        added = (
            await call(
                bruno,
                "update_briefing",
                {"topic": "Travel", "text": "In Porto in March.", "visibility": "members"},
            )
        ).structured_content
        assert added["topic"] == "travel"
        replaced = await call(
            bruno,
            "update_briefing",
            {
                "topic": "travel",
                "text": "In Porto in April.",
                "visibility": "members",
                "note_id": added["id"],
            },
        )
        assert not replaced.is_error
        notes = (await call(bruno, "list_briefing")).structured_content["notes"]
        assert [n["text"] for n in notes if n["topic"] == "travel"] == ["In Porto in April."]
    async with connect(club.url, club.tokens.steward_principal.token) as ana:
        theirs = await call(
            ana,
            "update_briefing",
            {"topic": "x", "text": "y", "visibility": "public", "note_id": added["id"]},
        )
        assert theirs.is_error and "Only the owner edits a briefing note" in theirs.content[0].text
        assert all(
            n["id"] != added["id"]
            for n in (await call(ana, "list_briefing")).structured_content["notes"]
        )


async def test_amend_mandate_with_a_principal_token_narrows_the_agents(club):
    async with connect(club.url, club.tokens.member.token) as agent:
        assert await tool_names(agent) == MEMBER
        assert "amend_mandate" not in await tool_names(agent)
    db = club.db()
    from server.identity import tokens

    bruno = club_ops.find_principal(db, "bruno")
    own = tokens.mint(
        db, principal_id=bruno.id, agent_id=None, scopes=frozenset(club.manifest().scopes)
    )
    db.close()
    async with connect(club.url, own.token) as principal:
        refused = await call(principal, "amend_mandate", {"scopes": ["club:read", "mandate:write"]})
        assert refused.is_error and "can never grant mandate:write" in refused.content[0].text
        amended = await call(
            principal, "amend_mandate", {"scopes": ["club:read"], "topics": ["databases"]}
        )
        assert not amended.is_error
        body = amended.structured_content
        assert body["version"] == 2 and body["scopes"] == ["club:read"] and body["state"] == "valid"
    async with connect(club.url, club.tokens.member.token) as agent:
        assert await tool_names(agent) == member_tools_within("club:read")


async def test_inbox_lists_threads_both_ways(club):
    db = club.db()
    ana, bruno = club_ops.find_principal(db, "ana"), club_ops.find_principal(db, "bruno")
    thread = db.insert(
        "threads",
        {
            "asker_id": bruno.id,
            "answerer_id": ana.id,
            "subject": "availability",
            "created_at": "2026-01-01T00:00:00.000000Z",
            "updated_at": "2026-01-01T00:00:00.000000Z",
        },
    )
    db.insert(
        "messages",
        {
            "thread_id": thread,
            "kind": "question",
            "body": "Is Ana free in March?",
            "created_at": "2026-01-01T00:00:00.000000Z",
        },
    )
    db.close()
    async with connect(club.url, club.tokens.member.token) as bruno_agent:
        threads = (await call(bruno_agent, "inbox")).structured_content["threads"]
        assert threads[0]["with_member"] == "ana" and threads[0]["role"] == "asker"
        assert threads[0]["messages"][0]["quoted"] == {
            "quoted": "Is Ana free in March?",
            "by": "bruno",
        }
        assert threads[0]["subject"] == f"Question {thread} from bruno"
    async with connect(club.url, club.tokens.steward_principal.token) as ana_token:
        threads = (await call(ana_token, "inbox")).structured_content["threads"]
        assert threads[0]["with_member"] == "bruno" and threads[0]["role"] == "answerer"
    async with connect(club.url, club.tokens.applicant.token) as carla:
        assert (await call(carla, "inbox")).structured_content["threads"] == []


def member_session(http: httpx2.Client, club) -> dict:
    """Plain-HTTP headers of a handshake-era session opened with the member's agent token."""
    from tests.http.test_fuzz import initialize_message, rpc_headers

    opened = http.post(
        club.url, json=initialize_message(), headers=rpc_headers(club.tokens.member.token)
    )
    assert opened.status_code == 200
    session = opened.headers.get("mcp-session-id")  # none when sessions are stateless (PostgreSQL)
    headers = rpc_headers(club.tokens.member.token, session)
    headers["Mcp-Protocol-Version"] = "2025-11-25"
    if session:
        http.post(
            club.url,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=headers,
        )
    return headers


def test_a_repeated_listing_is_the_same_and_params_to_judge_still_reach_the_sdk(club):
    """tools/list answers a tool set it listed before from the SDK's own earlier answer; anything the
    SDK must judge (a cursor of the wrong type) still gets the SDK's refusal, cached or not."""
    with httpx2.Client(timeout=30) as http:
        headers = member_session(http, club)

        def listing(request_id: int, params: dict | None = None) -> dict:
            message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}
            if params is not None:
                message["params"] = params
            return http.post(club.url, json=message, headers=headers).json()

        first, second, third = listing(1), listing(2), listing(3, {"_meta": {"progressToken": 7}})
        assert first["result"] == second["result"] == third["result"]
        assert [tool["name"] for tool in first["result"]["tools"]] == MEMBER
        assert second["id"] == 2 and third["id"] == 3
        refused = listing(4, {"cursor": 5})
        assert refused["error"]["code"] == -32602 and "result" not in refused


async def test_a_pure_tools_repeated_answer_is_its_first_wire_form_and_every_call_is_still_judged_and_audited(
    club, monkeypatch
):
    """A pure tool's remembered answer goes out as the wire form the SDK shaped the first time
    (server/http/endpoint.py `_KeptAnswers`), in both protocol eras; every call is still resolved,
    judged and audited, a change to the caller makes a new answer, and params the SDK must judge
    still get its refusal."""
    from mcp_types import methods

    shaped: list[str] = []
    sdk_shapes = methods.serialize_server_result

    def counting(method, version, result, **kwargs):
        if (
            method == "tools/call" and threading.current_thread() is club.live.thread
        ):  # the server's, not the client's
            shaped.append(version)
        return sdk_shapes(method, version, result, **kwargs)

    monkeypatch.setattr(methods, "serialize_server_result", counting)

    def audited() -> int:
        db = club.db()
        return db.execute("SELECT COUNT(*) FROM audit WHERE tool = 'whoami'").fetchone()[0]

    before = audited()
    with httpx2.Client(timeout=30) as http:
        headers = member_session(http, club)

        def calling(request_id: int, params: dict) -> dict:
            message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
            return http.post(club.url, json=message, headers=headers).json()

        answers = [calling(n, {"name": "whoami", "arguments": {}}) for n in (1, 2, 3)]
        assert [answer["id"] for answer in answers] == [1, 2, 3]
        assert answers[0]["result"] == answers[1]["result"] == answers[2]["result"]
        assert answers[0]["result"]["structuredContent"]["lane"] == "member"
        assert shaped == ["2025-11-25"], "the SDK shapes the first answer only"
        club.settled()
        assert audited() == before + 3, "every call is audited, kept answer or not"

        for params in ({"name": "whoami", "arguments": [1]}, {"name": 5}, {"arguments": {}}):
            refused = calling(9, params)
            assert refused["error"]["code"] == -32602 and "result" not in refused, refused
        unknown = calling(10, {"name": "no_such_tool", "arguments": {}})
        assert unknown["error"]["code"] == -32602 and "Unknown tool" in unknown["error"]["message"]
        for request_id in (
            12,
            13,
        ):  # an answer that is not the remembered one is shaped afresh every time
            wrong = calling(request_id, {"name": "whoami", "arguments": {"lane": "steward"}})
            assert wrong["result"]["isError"]
            assert "Invalid arguments for whoami" in wrong["result"]["content"][0]["text"]
        assert len(shaped) == 3
        assert (
            calling(14, {"name": "whoami", "arguments": {}})["result"] == answers[0]["result"]
            and len(shaped) == 3
        )

        db = club.db()
        club_ops.set_status(db, "bruno", "applicant")  # moves the store's revision: a new caller
        changed = calling(11, {"name": "whoami", "arguments": {}})
        assert changed["result"]["structuredContent"]["lane"] == "applicant"
        assert changed["result"] != answers[0]["result"] and len(shaped) == 4
        club_ops.set_status(db, "bruno", "member")

    async with connect(club.url, club.tokens.member.token, mode="auto") as modern:
        assert modern.protocol_version == "2026-07-28"
        first, second = (await call(modern, "whoami")), (await call(modern, "whoami"))
        assert first.structured_content == second.structured_content
        assert first.structured_content["lane"] == "member"
    assert shaped[4:] == ["2026-07-28"], "shaped once for the 2026-07-28 era too"
    club.settled()
    assert audited() == before + 9


def test_a_plain_call_is_one_every_protocol_versions_validation_parses_to_the_same_name_and_arguments():
    """The kept-answers middleware reads a tools/call's name and arguments straight from params that
    hold only those two (`plain_call`), without the SDK's two validations: for every params object
    it takes so, in every handshake-era protocol version, both the version's surface and the
    handler's params model must accept it and parse the same two values. Anything else (a `_meta`, a
    `task`, a name that is not a string, any 2026-07-28 call) is validated the SDK's way, and the SDK
    refuses what fails (tested above)."""
    import mcp_types as types
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from mcp.server.lowlevel import Server
    from mcp_types import methods
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    from server.http.endpoint import plain_call

    async def handler(ctx, params):
        return types.CallToolResult(content=[])

    params_type = (
        Server("probe", on_call_tool=handler).get_request_handler("tools/call").params_type
    )
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
        ),
        max_leaves=6,
    )
    params = (
        st.fixed_dictionaries(
            {},
            optional={
                "name": st.text(max_size=8) | json_values,
                "arguments": st.dictionaries(st.text(max_size=5), json_values, max_size=3)
                | json_values,
                "_meta": st.dictionaries(
                    st.sampled_from(["progressToken", "x"]), json_values, max_size=2
                )
                | json_values,
                "task": st.fixed_dictionaries({}, optional={"ttl": st.integers()}) | json_values,
            },
        )
        | json_values
    )
    plain = st.fixed_dictionaries(
        {"name": st.text(max_size=8)},
        optional={
            "arguments": st.none() | st.dictionaries(st.text(max_size=5), json_values, max_size=3)
        },
    )
    taken: list[bool] = []

    @settings(max_examples=400, deadline=None, derandomize=True)
    @given(plain | params)
    def same_values(raw):
        read = plain_call(raw)
        taken.append(read is not None)
        if read is None:
            return
        for version in HANDSHAKE_PROTOCOL_VERSIONS:
            methods.validate_client_request("tools/call", version, raw)
            parsed = params_type.model_validate(raw, by_name=False)
            assert (parsed.name, parsed.arguments) == read == (raw["name"], raw.get("arguments"))

    same_values()
    assert 30 < sum(taken) < len(taken), "the strategy reaches plain calls and others"
    assert plain_call({"name": "whoami", "arguments": {}, "_meta": {"progressToken": None}}) is None
    assert plain_call({"name": "whoami"}) == ("whoami", None)
    with pytest.raises(ValueError):  # why the 2026-07-28 era is never taken plainly
        methods.validate_client_request(
            "tools/call", "2026-07-28", {"name": "whoami", "arguments": {}}
        )


def test_the_sdks_message_span_runs_only_when_a_tracer_provider_is_set(club, tmp_path):
    """Without a tracer provider the SDK's OpenTelemetry middleware would record nothing, so the server
    leaves it out; with one set before the server is built, every message gets its span."""
    import subprocess
    import sys
    from pathlib import Path

    from server.http.endpoint import build_mcp_server, tracing_configured
    from server.transport.sdk import OpenTelemetryMiddleware

    parley = club.live.parley

    def spans(tracing=None) -> int:
        server = build_mcp_server(parley.chokepoint, parley.live, tracing)
        return sum(isinstance(layer, OpenTelemetryMiddleware) for layer in server.middleware)

    assert not tracing_configured()
    assert (spans(), spans(tracing=False), spans(tracing=True)) == (0, 0, 1)

    # A provider is process-wide, so the traced server runs in a process of its own.
    script = """
import asyncio, sys
from pathlib import Path
from opentelemetry import trace

names = []

class Recording(trace.NoOpTracer):
    def start_as_current_span(self, name, *args, **kwargs):
        names.append(name)
        return super().start_as_current_span(name, *args, **kwargs)

class Provider(trace.NoOpTracerProvider):
    def get_tracer(self, *args, **kwargs):
        return Recording()

trace.set_tracer_provider(Provider())
from tests.conftest import connect, running_club

async def main(url, token):
    async with connect(url, token) as agent:
        await agent.call_tool("whoami", {})
        await agent.call_tool("whoami", {})

with running_club(Path(sys.argv[1])) as club:
    asyncio.run(main(club.url, club.tokens.member.token))
print(names.count("tools/call whoami"))
"""
    root = Path(__file__).resolve().parents[2]
    (tmp_path / "traced").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "traced")],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-1] == "2", done.stdout

"""Fuzzing the whole surface (issue 13): zero 5xx, zero internal errors, bounded to a few minutes.

One real server (uvicorn, SQLite in tmp, the demo club) serves the whole module. Three parts:
every visible tool's inputSchema through the SDK's own client in each lane (hypothesis and
hypothesis-jsonschema, valid and invalid arguments); JSON-RPC garbage and hostile headers over raw
HTTP, with and without credentials; every OAuth and console form with hostile fields.

Each part gathers every problem it meets before it fails, so one run lists all of them; each
problem names the request, the answer and the server's traceback when it logged one.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import time
import traceback
from collections.abc import Iterator
from typing import Any

import anyio.from_thread
import httpx2
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from mcp.shared.exceptions import MCPError

from server.http import request_log
from tests.conftest import Club, connect, manifest_copy, running_club
from tests.console_helpers import csrf_of
from tests.fuzz_helpers import (
    ACCEPT,
    CONTROL,
    ESCAPES,
    MB,
    describe,
    dump_difference,
    from_schema,
    invalid_arguments,
    is_rpc_error,
    nested_dict,
    nested_list,
    rpc_messages,
    store_dump,
    validator,
)
from tests.oauth_helpers import REDIRECT_URI, authorize_query, oauth_access_token, pkce

LEGACY_VERSION = "2025-11-25"
INTERNAL_ERROR = -32603

# Example counts: the file runs in a few minutes on two shared cores.
VALID_EXAMPLES = 12
INVALID_EXAMPLES = 20
FORM_EXAMPLES = 12

FUZZ = settings(
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: every example is a round trip
    suppress_health_check=list(HealthCheck),
    print_blob=False,
)


def short(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} chars)"


# --- the server and what it logs -------------------------------------------------------------


class LogTap(logging.Handler):
    """Keeps what the server's own loggers and uvicorn say, tracebacks included."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def mark(self) -> int:
        return len(self.records)

    def errors_since(self, mark: int) -> str:
        out = []
        for record in self.records[mark:]:
            if record.levelno >= logging.ERROR:
                text = f"{record.name}: {record.getMessage()[:500]}"
                if record.exc_info:
                    text += "\n" + "".join(traceback.format_exception(*record.exc_info))[-3000:]
                out.append(text)
        return "\n".join(out)

    def text(self, since: int = 0) -> str:
        return "\n".join(f"{r.name}: {r.getMessage()}" for r in self.records[since:])


TAPPED = ("uvicorn.error", "uvicorn.access", "parley")


@pytest.fixture(scope="module")
def tap() -> Iterator[LogTap]:
    """Attached by fuzz_club once uvicorn has configured logging (its dictConfig drops earlier handlers)."""
    yield LogTap()


def roomy_limits(text: str) -> str:
    """The default manifest, with rate limits high enough that fuzzing never meets a 429."""
    return re.sub(
        r"(guest|token)_requests_per_minute: *\d+", r"\1_requests_per_minute: 1000000", text
    )


@pytest.fixture(scope="module")
def fuzz_club(tmp_path_factory, tap) -> Iterator[Club]:
    folder = tmp_path_factory.mktemp("fuzz")
    manifest = manifest_copy(folder, roomy_limits)
    with running_club(folder, manifest=manifest) as club:
        # the harness starts uvicorn at log level warning: listen to the access log and the
        # server's info lines too, so that a credential in a URL would show if it were logged.
        # The access log is filtered the way `parley serve --access-log` filters it.
        request_log.install()
        saved = {name: logging.getLogger(name).level for name in TAPPED}
        for name in TAPPED:
            logging.getLogger(name).addHandler(tap)
            logging.getLogger(name).setLevel(logging.INFO)
        try:
            yield club
        finally:
            for name in TAPPED:
                logging.getLogger(name).removeHandler(tap)
                logging.getLogger(name).setLevel(saved[name])


@pytest.fixture(scope="module")
def portal() -> Iterator[anyio.from_thread.BlockingPortal]:
    with anyio.from_thread.start_blocking_portal() as running:
        yield running


@pytest.fixture(scope="module")
def oauth_token(fuzz_club, portal) -> str:
    """bruno's agent's OAuth access token, from the real code flow through the real pages."""
    answer = portal.call(
        oauth_access_token,
        fuzz_club.live.base,
        fuzz_club.url,
        "bruno",
        fuzz_club.tokens.passwords["bruno"],
    )
    return answer["access_token"]


# --- part 1: every tool's inputSchema through the SDK's client, in each lane ---------------------


class LaneClient:
    """The SDK's client for one lane, living in the portal's event loop; reconnects after a failure."""

    def __init__(self, portal, url: str, token: str | None, mode: str):
        self.portal, self.url, self.token, self.mode = portal, url, token, mode
        self.stack = contextlib.ExitStack()
        self.client = None
        self.open()

    def open(self) -> None:
        self.stack = contextlib.ExitStack()
        self.client = self.stack.enter_context(
            self.portal.wrap_async_context_manager(connect(self.url, self.token, mode=self.mode))
        )

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.stack.close()

    def reopen(self) -> None:
        self.close()
        self.open()

    def tools(self) -> dict[str, dict]:
        listed = self.portal.call(self.client.list_tools)
        return {tool.name: tool.input_schema for tool in listed.tools}

    def call(self, name: str, arguments: Any):
        return self.portal.call(self.client.call_tool, name, arguments)


LANES = {
    # lane: (token attribute on DemoTokens, protocol era); both eras are covered across the lanes
    "guest": (None, "legacy"),
    "applicant": ("applicant", "auto"),
    "member": ("member", "legacy"),
    "principal": (
        "steward_principal",
        "auto",
    ),  # ana's own token: the only lane that sees amend_mandate
}

# amend_mandate may narrow the lane's own scopes: it goes last so every other tool is fuzzed first
LAST = ("amend_mandate",)


def texts_of(result) -> str:
    return "\n".join(getattr(part, "text", "") for part in (result.content or []))


class ToolFuzzer:
    def __init__(self, club: Club, lane: LaneClient, tap: LogTap, lane_name: str):
        self.club, self.lane, self.tap, self.lane_name = club, lane, tap, lane_name
        self.problems: dict[str, list[str]] = {}

    def attempt(self, name: str, arguments: Any, invalid: bool) -> tuple[str, str] | None:
        """One call; the problem it shows as (kind, detail), or None."""
        mark = self.tap.mark()
        before = store_dump(self.club.settings.db_path) if invalid else None
        where = f"[{self.lane_name}] tools/call {name} arguments={short(arguments)}"
        try:
            result = self.lane.call(name, arguments)
        except MCPError as exc:
            code = exc.error.code if getattr(exc, "error", None) is not None else None
            message = str(exc)
            if code == INTERNAL_ERROR or "internal" in message.lower():
                return (
                    "a JSON-RPC internal error",
                    f"{where} -> {code} {message[:300]!r}\n{self.tap.errors_since(mark)}",
                )
            if len(message) > 2000:
                return (
                    "a JSON-RPC error that echoes the input",
                    f"{where} -> {code}, {len(message)} characters",
                )
            if invalid and code != -32602:
                return (
                    "an invalid input answered without a validation error",
                    f"{where} -> {code} {message[:300]!r}",
                )
        except Exception as exc:  # a transport failure: an HTTP 5xx, a dropped connection
            problem = (
                f"{where} -> {type(exc).__name__}: {str(exc)[:500]}\n{self.tap.errors_since(mark)}"
            )
            with contextlib.suppress(Exception):
                self.lane.reopen()
            return f"a transport failure ({type(exc).__name__})", problem
        else:
            text = texts_of(result)
            if "internal error" in text.lower():
                return (
                    "an Internal error result",
                    f"{where} -> {text[:300]!r}\n{self.tap.errors_since(mark)}",
                )
            if invalid:
                if (
                    not result.is_error
                    or not text.startswith(f"Invalid arguments for {name}")
                    or "Nothing was changed" not in text
                ):
                    return (
                        "an input its inputSchema forbids, not refused as invalid",
                        f"{where} -> is_error={result.is_error} {text[:300]!r}",
                    )
                if len(text) > 4000 or any(ch in text for ch in CONTROL if ch != "\n"):
                    return (
                        "a validation error that echoes the caller's input (unbounded or with control characters)",
                        f"{where} -> {len(text)} characters: {text[:160]!r}",
                    )
        logged = self.tap.errors_since(mark)
        if logged:
            return "an error in the server log", f"{where} ->\n{logged}"
        if before is not None:
            after = store_dump(self.club.settings.db_path)
            if after != before:
                return (
                    "a refused call that changed the store",
                    f"{where}: {dump_difference(before, after)}",
                )
        return None

    def fuzz(self, name: str, schema: dict) -> None:
        check = validator(schema)
        valid = from_schema(schema)

        def run(arguments: dict, invalid: bool) -> None:
            is_invalid = invalid and not check.is_valid(arguments)
            problem = self.attempt(name, arguments, is_invalid)
            if problem is not None:
                self.problems.setdefault(problem[0], []).append(problem[1])

        @settings(FUZZ, max_examples=VALID_EXAMPLES)
        @given(arguments=valid)
        def valid_arguments(arguments):
            run(arguments, invalid=False)

        @settings(FUZZ, max_examples=INVALID_EXAMPLES)
        @given(arguments=invalid_arguments(schema, valid))
        def broken_arguments(arguments):
            run(arguments, invalid=True)

        valid_arguments()
        broken_arguments()
        # the values the issue names, each in every field of the tool
        for field in list((schema.get("properties") or {}).keys())[:6] or ["unexpected"]:
            for hostile in (
                2**63,
                "12345678901234567890",
                nested_list(150),
                nested_dict(150),
                CONTROL + ESCAPES,
                "x" * MB,
                "7",
                True,
            ):
                run({field: hostile}, invalid=True)

    def report(self) -> str:
        parts = []
        for kind, details in self.problems.items():
            parts.append(f"* {kind}: {len(details)} call(s), e.g.\n  " + "\n  ".join(details[:3]))
        return "\n".join(parts)


@pytest.mark.parametrize("lane_name", list(LANES))
def test_every_tool_input_through_the_client(fuzz_club, portal, tap, lane_name):
    attribute, mode = LANES[lane_name]
    token = getattr(fuzz_club.tokens, attribute).token if attribute else None
    lane = LaneClient(portal, fuzz_club.url, token, mode)
    started = time.monotonic()
    try:
        tools = lane.tools()
        assert tools, f"the {lane_name} lane lists no tools"
        fuzzer = ToolFuzzer(fuzz_club, lane, tap, lane_name)
        for name in sorted(tools, key=lambda n: (n in LAST, n)):
            fuzzer.fuzz(name, tools[name])
        if fuzzer.problems:
            pytest.fail(f"problems in the {lane_name} lane:\n{fuzzer.report()}", pytrace=False)
    finally:
        lane.close()
        logging.getLogger("tests.fuzz").info(
            "%s lane fuzzed in %.1fs", lane_name, time.monotonic() - started
        )


# --- part 2: JSON-RPC garbage and hostile headers over raw HTTP -----------------------------------


def initialize_message(request_id: Any = 1) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "0"},
        },
    }


def rpc_headers(token: str | None = None, session: str | None = None) -> dict:
    headers = {"Accept": ACCEPT, "Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if session:
        headers["Mcp-Session-Id"] = session
        headers["Mcp-Protocol-Version"] = LEGACY_VERSION
    return headers


def open_session(http: httpx2.Client, url: str, token: str | None) -> str:
    opened = http.post(url, json=initialize_message(), headers=rpc_headers(token))
    assert opened.status_code == 200, describe(opened)
    session = opened.headers["mcp-session-id"]
    done = http.post(
        url,
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        headers=rpc_headers(token, session),
    )
    assert done.status_code in (200, 202), describe(done)
    return session


def close_session(http: httpx2.Client, url: str, token: str | None, session: str) -> None:
    with contextlib.suppress(Exception):
        http.delete(url, headers=rpc_headers(token, session))


def call_tool(name: str, arguments: Any = None, request_id: Any = 7) -> dict:
    params: dict = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def body_of(value: Any) -> bytes:
    return value if isinstance(value, bytes) else json.dumps(value).encode()


HUGE = 5 * MB  # above the gate's own 4 MB bound on an MCP message
GARBAGE_BODIES: list[tuple[str, Any]] = [
    ("empty body", b""),
    ("invalid JSON", b"{not json"),
    ("truncated JSON", b'{"jsonrpc": "2.0", "id": 1, "method": "pi'),
    ("invalid UTF-8", b"\xff\xfe\xfd"),
    ("NaN literal", b'{"jsonrpc": "2.0", "id": NaN, "method": "ping"}'),
    ("bare null", b"null"),
    ("bare number", b"12345678901234567890"),
    ("bare string", b'"ping"'),
    ("empty object", b"{}"),
    ("deeply nested list", b"[" * 1000 + b"]" * 1000),
    ("deeply nested object", b'{"a":' * 1000 + b"1" + b"}" * 1000),
    ("very deeply nested list", b"[" * 100_000 + b"]" * 100_000),
    (
        "nested params",
        b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"a":'
        + b"[" * 5000
        + b"]" * 5000
        + b"}}",
    ),
    ("a few MB body", {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x" * HUGE}}),
    (
        "duplicate keys",
        b'{"jsonrpc": "2.0", "id": 1, "id": 2, "method": "ping", "method": "tools/list"}',
    ),
    ("jsonrpc 1.0", {"jsonrpc": "1.0", "id": 1, "method": "ping"}),
    ("jsonrpc number", {"jsonrpc": 2, "id": 1, "method": "ping"}),
    ("jsonrpc missing", {"id": 1, "method": "ping"}),
    ("id object", {"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}),
    ("id list", {"jsonrpc": "2.0", "id": [1], "method": "ping"}),
    ("id float", {"jsonrpc": "2.0", "id": 1.5, "method": "ping"}),
    ("id bool", {"jsonrpc": "2.0", "id": True, "method": "ping"}),
    ("id null", {"jsonrpc": "2.0", "id": None, "method": "ping"}),
    ("id 2**64", {"jsonrpc": "2.0", "id": 2**64, "method": "ping"}),
    ("id 1 MB string", {"jsonrpc": "2.0", "id": "i" * MB, "method": "ping"}),
    ("method number", {"jsonrpc": "2.0", "id": 1, "method": 5}),
    ("method null", {"jsonrpc": "2.0", "id": 1, "method": None}),
    ("method list", {"jsonrpc": "2.0", "id": 1, "method": ["ping"]}),
    ("method empty", {"jsonrpc": "2.0", "id": 1, "method": ""}),
    ("params list", {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1, 2]}),
    ("params string", {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": "x"}),
    ("params number", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": 2**63}),
    (
        "batch of two",
        [
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        ],
    ),
    ("batch of numbers", [1, 2, 3]),
    ("empty batch", []),
    ("batch of 1000", [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(1000)]),
    ("unknown method", {"jsonrpc": "2.0", "id": 1, "method": "no/such/method"}),
    ("unknown method, 1 MB", {"jsonrpc": "2.0", "id": 1, "method": "m" * MB}),
    ("rpc.discover", {"jsonrpc": "2.0", "id": 1, "method": "rpc.discover"}),
    ("a result with no request", {"jsonrpc": "2.0", "id": 99, "result": {}}),
    (
        "an error with no request",
        {"jsonrpc": "2.0", "id": 99, "error": {"code": 1, "message": "x"}},
    ),
    ("tools/call without params", {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}),
    ("tools/call name number", call_tool(12345678901234567890)),  # type: ignore[arg-type]
    ("tools/call name null", call_tool(None)),  # type: ignore[arg-type]
    ("tools/call arguments list", call_tool("whoami", [1, 2])),
    ("tools/call arguments string", call_tool("whoami", "x")),
    ("tools/call arguments number", call_tool("whoami", 2**63)),
    (
        "tools/call arguments 5000 deep",
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"apply","arguments":{"handle":'
        + b"[" * 5000
        + b"]" * 5000
        + b"}}}",
    ),
    ("tools/call arguments 300 deep", call_tool("apply", {"handle": nested_list(300)})),
    (
        "resources/read 1 MB uri",
        {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "u" * MB}},
    ),
    (
        "resources/read bad uri",
        {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": ESCAPES}},
    ),
    (
        "resources/subscribe",
        {"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": 5}},
    ),
    (
        "prompts/get",
        {"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": "x" * 100_000}},
    ),
    ("initialize again", initialize_message(3)),
    (
        "initialize, bad version",
        {
            **initialize_message(),
            "params": {"protocolVersion": 5, "capabilities": [], "clientInfo": None},
        },
    ),
    (
        "cancel unknown request",
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2**70}},
    ),
]

UNKNOWN_TOOL_NAMES = [
    "t" * MB,
    "evil\x1b[31m\r\nInjected: yes\x00\x07" * 10,
    "line\nbreak",
    "\u202eloot.exe",
    "../../etc/passwd",
]


# Odd but well-formed: these may succeed; they must only never be a 5xx or a dropped connection.
WELL_FORMED = {
    "duplicate keys",
    "id float",
    "id null",
    "id 2**64",
    "id 1 MB string",
    "a result with no request",
    "an error with no request",
    "initialize again",
    "cancel unknown request",
}


class Verdicts:
    """Every response checked, every problem kept with the request, the answer and the server log."""

    def __init__(self, tap: LogTap):
        self.tap = tap
        self.problems: list[str] = []

    def problem(self, label: str, response: httpx2.Response | None, why: str, mark: int) -> None:
        shown = describe(response) if response is not None else "no response"
        log = self.tap.errors_since(mark)
        self.problems.append(
            f"* {label}: {why}\n  {shown}" + (f"\n  server log:\n{log}" if log else "")
        )

    def rpc(
        self, label: str, send, notification: bool = False, garbage: bool = True
    ) -> httpx2.Response | None:
        """Never a 5xx, never a dropped connection; for garbage, a 4xx or only JSON-RPC errors."""
        mark = self.tap.mark()
        try:
            response = send()
        except Exception as exc:
            self.problem(label, None, f"{type(exc).__name__}: {str(exc)[:300]}", mark)
            return None
        status = response.status_code
        if status >= 500:
            self.problem(label, response, f"HTTP {status}", mark)
        elif 200 <= status < 300 and garbage:
            messages = rpc_messages(response)
            if status == 202 and not messages and notification:
                pass
            elif not messages or not all(is_rpc_error(m) for m in messages):
                self.problem(label, response, "a 2xx that is not a JSON-RPC error", mark)
            elif any(m["error"].get("code") == INTERNAL_ERROR for m in messages):
                self.problem(label, response, "a JSON-RPC internal error", mark)
        elif status >= 300 and not 400 <= status < 500:
            self.problem(
                label, response, f"HTTP {status}: neither a 4xx nor a JSON-RPC error", mark
            )
        if self.tap.errors_since(mark) and not any(label in p for p in self.problems[-1:]):
            self.problem(label, response, "the server logged an error", mark)
        return response

    def exactly(self, label: str, response: httpx2.Response | None, status: int, mark: int) -> None:
        if response is not None and response.status_code != status:
            self.problem(label, response, f"must be HTTP {status}", mark)

    def verdict(self) -> None:
        # pytrace=False: a plain report (formatting a traceback after deep recursion has crashed pytest itself)
        if self.problems:
            pytest.fail(
                f"{len(self.problems)} problem(s):\n" + "\n".join(self.problems), pytrace=False
            )


def still_serving(club: Club, http: httpx2.Client, token: str | None) -> None:
    health = http.get(club.live.base + "/healthz")
    assert health.status_code == 200, describe(health)
    session = open_session(http, club.url, token)
    listed = http.post(
        club.url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers=rpc_headers(token, session),
    )
    assert listed.status_code == 200 and "result" in rpc_messages(listed)[0], describe(listed)
    close_session(http, club.url, token, session)


CREDENTIALS = ["guest", "agent", "oauth"]


def credential(club: Club, oauth_token: str, kind: str) -> str | None:
    return {"guest": None, "agent": club.tokens.member.token, "oauth": oauth_token}[kind]


@pytest.mark.parametrize("kind", CREDENTIALS)
def test_jsonrpc_garbage_over_raw_http(fuzz_club, oauth_token, tap, kind):
    token = credential(fuzz_club, oauth_token, kind)
    verdicts = Verdicts(tap)
    with httpx2.Client(timeout=60) as http:
        session = open_session(http, fuzz_club.url, token)
        try:
            for label, body in GARBAGE_BODIES:
                notification = isinstance(body, dict) and "id" not in body
                for where, headers in (
                    ("in a session", rpc_headers(token, session)),
                    ("without a session", rpc_headers(token)),
                ):
                    verdicts.rpc(
                        f"[{kind}] {label} {where}",
                        lambda body=body, headers=headers: http.post(
                            fuzz_club.url, content=body_of(body), headers=headers
                        ),
                        notification=notification,
                        garbage=label not in WELL_FORMED,
                    )
            for name in UNKNOWN_TOOL_NAMES:
                label = f"[{kind}] tools/call of an unknown tool named {short(name, 60)}"
                mark = tap.mark()
                response = verdicts.rpc(
                    label,
                    lambda name=name: http.post(
                        fuzz_club.url, json=call_tool(name), headers=rpc_headers(token, session)
                    ),
                )
                if response is None or response.status_code != 200:
                    continue
                messages = rpc_messages(response)
                error = (
                    messages[0].get("error", {})
                    if messages and isinstance(messages[0], dict)
                    else {}
                )
                message = str(error.get("message", ""))
                if (
                    error.get("code") != -32602
                    or len(response.text) > 2000
                    or any(ch in message for ch in CONTROL)
                ):
                    verdicts.problem(
                        label,
                        response,
                        "the unknown-tool error must be -32602, bounded, with no "
                        "control characters",
                        mark,
                    )
            still_serving(fuzz_club, http, token)
        finally:
            close_session(http, fuzz_club.url, token, session)
    verdicts.verdict()


def test_hostile_headers(fuzz_club, oauth_token, tap):
    member, applicant = fuzz_club.tokens.member.token, fuzz_club.tokens.applicant.token
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    init = json.dumps(initialize_message()).encode()
    verdicts = Verdicts(tap)
    with httpx2.Client(timeout=60) as http:

        def post(headers, body=init, url=fuzz_club.url):
            return lambda: http.post(url, content=body, headers=headers)

        base = [("Accept", ACCEPT), ("Content-Type", "application/json")]
        # two Authorization headers: 400, whichever they are
        for label, values in [
            ("the same agent token twice", [member, member]),
            ("two agent tokens", [member, applicant]),
            ("an agent token and an empty one", [member, ""]),
            ("an OAuth token and an agent token", [oauth_token, member]),
        ]:
            mark = tap.mark()
            headers = base + [("Authorization", f"Bearer {v}" if v else "") for v in values]
            response = verdicts.rpc(f"two Authorization headers: {label}", post(headers))
            verdicts.exactly(f"two Authorization headers: {label}", response, 400, mark)
        # odd single Authorization headers: never a 5xx
        for label, value in [
            ("empty", ""),
            ("Bearer alone", "Bearer"),
            ("Bearer and two spaces", "Bearer  x"),
            ("Basic", "Basic YWxhZGRpbjpvcGVuc2VzYW1l"),
            ("lowercase bearer", f"bearer {member}"),
            ("60 KB token", "Bearer " + "a" * 60_000),
            ("a JWT-looking garbage", "Bearer a.b.c"),
            ("three dots", "Bearer ...."),
            ("non-ASCII", "Bearer tok_é✓".encode()),
        ]:
            verdicts.rpc(
                f"Authorization: {label}", post(base + [("Authorization", value)]), garbage=False
            )
        # a credential in the query string: 400, and no log line ever shows it
        mark = tap.mark()
        for label, secret in [("agent token", member), ("OAuth token", oauth_token)]:
            for query in (f"?access_token={secret}", f"?guest=no&access_token={secret}"):
                for headers in (base, base + [("Authorization", f"Bearer {member}")]):
                    label_q = f"{label} in the query string {query[:22]}… ({len(headers) - 2} Authorization header)"
                    response = verdicts.rpc(label_q, post(headers, url=fuzz_club.url + query))
                    verdicts.exactly(label_q, response, 400, mark)
        logged = tap.text(mark)
        for secret in (member, oauth_token):
            if secret in logged:
                line = next(line for line in logged.splitlines() if secret in line)
                verdicts.problems.append(
                    f"* a credential sent in the query string is in the server log: {line[:300]}"
                )
        # wrong Content-Type, wrong Accept
        for label, headers in [
            ("Content-Type text/plain", [("Accept", ACCEPT), ("Content-Type", "text/plain")]),
            (
                "Content-Type form",
                [("Accept", ACCEPT), ("Content-Type", "application/x-www-form-urlencoded")],
            ),
            (
                "Content-Type multipart",
                [("Accept", ACCEPT), ("Content-Type", "multipart/form-data; boundary=x")],
            ),
            ("no Content-Type", [("Accept", ACCEPT)]),
            ("Content-Type garbage", [("Accept", ACCEPT), ("Content-Type", ';;;="')]),
            ("Accept text/html", [("Accept", "text/html"), ("Content-Type", "application/json")]),
            ("Accept empty", [("Accept", ""), ("Content-Type", "application/json")]),
            (
                "Accept json only",
                [("Accept", "application/json"), ("Content-Type", "application/json")],
            ),
            ("Accept garbage", [("Accept", "*/*;q=abc, ,,"), ("Content-Type", "application/json")]),
        ]:
            for who, auth in (
                ("guest", []),
                ("agent", [("Authorization", f"Bearer {member}")]),
                ("oauth", [("Authorization", f"Bearer {oauth_token}")]),
            ):
                verdicts.rpc(f"[{who}] {label}", post(headers + auth, body=init), garbage=False)
                verdicts.rpc(f"[{who}] {label}, garbage body", post(headers + auth, body=b"\x00{["))
        # other methods on /mcp
        for method in ("GET", "PUT", "PATCH", "DELETE", "OPTIONS"):
            verdicts.rpc(
                f"{method} /mcp without a session",
                lambda method=method: http.request(
                    method, fuzz_club.url, headers={"Accept": ACCEPT}
                ),
            )
        # session ids: unknown, hostile, and one credential's session used with another
        for label, value in [
            ("unknown", "0" * 32),
            ("empty", ""),
            ("8 KB", "s" * 8000),
            ("non-ASCII", "sé".encode()),
        ]:
            verdicts.rpc(
                f"Mcp-Session-Id {label}",
                post(
                    base + [("Mcp-Session-Id", value), ("Authorization", f"Bearer {member}")],
                    body=ping,
                ),
            )
        pairs = [
            ("bruno's agent token", member, "carla's agent token", applicant),
            ("carla's agent token", applicant, "bruno's agent token", member),
            (
                "bruno's agent token",
                member,
                "ana's own token",
                fuzz_club.tokens.steward_principal.token,
            ),
            ("bruno's OAuth token", oauth_token, "carla's agent token", applicant),
            ("carla's agent token", applicant, "bruno's OAuth token", oauth_token),
        ]
        for opener, first, user, second in pairs:
            session = open_session(http, fuzz_club.url, first)
            for method, body in (
                ("ping", ping),
                (
                    "tools/list",
                    json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).encode(),
                ),
                ("tools/call", json.dumps(call_tool("whoami", {})).encode()),
            ):
                label = f"a session opened with {opener}, {method} with {user}"
                mark = tap.mark()
                response = verdicts.rpc(label, post(rpc_headers(second, session), body=body))
                verdicts.exactly(label, response, 404, mark)
            close_session(http, fuzz_club.url, first, session)
        still_serving(fuzz_club, http, member)
    verdicts.verdict()


# --- part 3: every OAuth and console form ----------------------------------------------------------

FORM_VALUES = [
    "",
    "9223372036854775808",
    "-1",
    "0",
    "1e309",
    "NaN",
    "\x00",
    CONTROL,
    ESCAPES,
    "é" * 2000,
    "a" * 70_000,
    "%ZZ",
    "[]",
    "{}",
    "null",
    "true",
    "tok_" + "x" * 5000,
    "../../etc/passwd",
    "http://evil.example/cb",
    "javascript:alert(1)",
]
form_values = st.sampled_from(FORM_VALUES) | st.text(max_size=30)

PATH_IDS = [
    "9223372036854775808",
    "0",
    "-1",
    "1" * 1000,
    "%00",
    "abc",
    "tok_" + "x" * 3000,
    "%C3%A9",
    "..%2F..%2Fconsole",
    "1.5",
    "1e3",
    "%0d%0aSet-Cookie:x=1",
    "tok_",
    "1",
]


def signed_in(base: str, handle: str, password: str) -> tuple[httpx2.Client, str]:
    http = httpx2.Client(base_url=base, follow_redirects=False, timeout=60)
    page = http.get("/signin")
    response = http.post(
        "/signin",
        data={
            "csrf": csrf_of(page.text),
            "next": "/console",
            "handle": handle,
            "password": password,
        },
    )
    assert response.status_code == 303, describe(response)
    return http, csrf_of(http.get("/console").text)


class FormFuzz:
    def __init__(self, tap: LogTap):
        self.verdicts = Verdicts(tap)
        self.tap = tap

    def send(self, label: str, send) -> httpx2.Response | None:
        """Forms: never a 5xx, never a dropped connection, never a traceback in the server log."""
        mark = self.tap.mark()
        try:
            response = send()
        except Exception as exc:
            self.verdicts.problem(label, None, f"{type(exc).__name__}: {str(exc)[:300]}", mark)
            return None
        if response.status_code >= 500:
            self.verdicts.problem(label, response, f"HTTP {response.status_code}", mark)
        elif self.tap.errors_since(mark):
            self.verdicts.problem(label, response, "the server logged an error", mark)
        return response

    def sweep(
        self,
        label: str,
        fields: list[str],
        post,
        fixed: dict | None = None,
        examples: int = FORM_EXAMPLES,
    ) -> None:
        """Each field missing, each field hostile, repeated fields, then hypothesis-chosen mixtures."""
        fixed = fixed or {}
        self.send(f"{label} with no fields", lambda: post({**fixed}))
        for field in fields:
            for value in FORM_VALUES:
                data = {**{f: "1" for f in fields}, **fixed, field: value}
                self.send(f"{label} {field}={short(value, 40)}", lambda data=data: post(data))
            data = {**fixed, field: ["1"] * 500}
            self.send(f"{label} {field} repeated 500 times", lambda data=data: post(data))

        @settings(FUZZ, max_examples=examples)
        @given(
            data=st.dictionaries(
                st.sampled_from(fields + ["extra", ""]),
                form_values | st.lists(form_values, max_size=3),
                max_size=len(fields) + 1,
            )
        )
        def mixtures(data):
            self.send(f"{label} {short(data, 200)}", lambda: post({**fixed, **data}))

        mixtures()


def test_console_forms(fuzz_club, tap):
    fuzz = FormFuzz(tap)
    http, csrf = signed_in(fuzz_club.live.base, "ana", fuzz_club.tokens.passwords["ana"])
    try:

        def poster(path: str, with_csrf: bool = True):
            return lambda data: http.post(
                path, data={**({"csrf": csrf} if with_csrf else {}), **data}
            )

        routes = [
            ("/console/queue/{id}", ["action", "text"]),
            ("/console/mandate", ["days", "topics", "reveal", "quotable", "scope", "confirm"]),
            ("/console/agents", ["name"]),
            ("/console/tokens", ["agent", "scope", "label", "expires"]),
            ("/console/tokens/{id}/revoke", ["confirm"]),
            ("/console/grants/{id}/revoke", ["confirm"]),
            ("/console/applicants/{id}/admit", []),
            ("/console/applicants/{id}/decline", ["reason", "confirm"]),
            ("/console/applicants/{id}/reconsider", []),
            ("/console/members/{id}/suspend", ["confirm"]),
            ("/console/members/{id}/reinstate", []),
            ("/console/settings/reset", ["confirm"]),
            ("/console/application", ["statement"]),
        ]
        for path, fields in routes:
            targets = (
                [path.replace("{id}", value) for value in PATH_IDS] if "{id}" in path else [path]
            )
            for target in targets:
                label = f"POST {short(target, 80)}"
                fuzz.send(
                    f"{label} without CSRF",
                    lambda target=target: http.post(target, data={"x": "1"}),
                )
                fuzz.send(
                    f"{label} with a non-ASCII CSRF",
                    lambda target=target: http.post(target, data={"csrf": "é"}),
                )
                fuzz.send(
                    f"{label} JSON body",
                    lambda target=target: http.post(target, json={"csrf": csrf, "days": 2**63}),
                )
                fuzz.send(
                    f"{label} multipart",
                    lambda target=target: http.post(
                        target, data={"csrf": csrf}, files={"f": ("a.txt", b"\x00" * 1000)}
                    ),
                )
                fuzz.send(
                    f"{label} 1 MB form",
                    lambda target=target: http.post(
                        target, data={"csrf": csrf, "text": "x" * MB, "name": "y" * MB}
                    ),
                )
                if (
                    fields
                    and target == targets[0]
                    or target.endswith("9223372036854775808")
                    or target == path
                ):
                    fuzz.sweep(
                        label,
                        fields or ["x"],
                        poster(target),
                        examples=FORM_EXAMPLES // 2 if "{id}" in path else FORM_EXAMPLES,
                    )
        fuzz.send("POST /signout garbage", lambda: http.post("/signout", data={"csrf": CONTROL}))
    finally:
        http.close()
    fuzz.verdicts.verdict()


def test_signin_form(fuzz_club, tap):
    fuzz = FormFuzz(tap)
    with httpx2.Client(base_url=fuzz_club.live.base, follow_redirects=False, timeout=60) as http:
        csrf = csrf_of(http.get("/signin").text)
        for query in (
            "?next=" + "x" * 8000,
            "?next=%00%0d%0a",
            "?next=//evil.example",
            "?next=" + ESCAPES.encode().hex(),
        ):
            fuzz.send(
                f"GET /signin{short(query, 40)}", lambda query=query: http.get("/signin" + query)
            )
        fuzz.send(
            "POST /signin without CSRF",
            lambda: http.post("/signin", data={"handle": "ana", "password": "x"}),
        )
        fuzz.send(
            "POST /signin with a non-ASCII CSRF",
            lambda: http.post("/signin", data={"csrf": "é", "handle": "ana"}),
        )
        fuzz.send(
            "POST /signin JSON", lambda: http.post("/signin", json={"csrf": csrf, "handle": 1})
        )
        fuzz.send(
            "POST /signin 1 MB",
            lambda: http.post(
                "/signin", data={"csrf": csrf, "handle": "x" * MB, "password": "y" * MB}
            ),
        )
        # a valid CSRF spends the sign-in budget (20 a minute per address): a few hostile attempts only
        for data in (
            {"handle": "ana"},
            {"password": "x"},
            {"handle": CONTROL, "password": ESCAPES},
            {"handle": "a" * 70_000, "password": "b" * 70_000, "next": "x" * 70_000},
            {"handle": ["ana", "bruno"], "password": ["x", "y"]},
            {"handle": "ana", "password": "\x00"},
        ):
            fuzz.send(
                f"POST /signin {short(data, 80)}",
                lambda data=data: http.post("/signin", data={"csrf": csrf, **data}),
            )
    fuzz.verdicts.verdict()


def test_oauth_forms(fuzz_club, tap, portal):
    fuzz = FormFuzz(tap)
    base = fuzz_club.live.base
    with httpx2.Client(base_url=base, follow_redirects=False, timeout=60) as http:
        # /oauth/register: JSON bodies
        registered = http.post(
            "/oauth/register",
            json={
                "client_name": "fuzz-forms",
                "redirect_uris": [REDIRECT_URI],
                "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"],
            },
        )
        assert registered.status_code == 201, describe(registered)
        client_id = registered.json()["client_id"]
        bodies: list[Any] = [
            {"redirect_uris": [1, 2], "token_endpoint_auth_method": "none"},
            {"redirect_uris": nested_list(500), "token_endpoint_auth_method": "none"},
            {"redirect_uris": {"a": nested_dict(500)}},
            {"redirect_uris": [REDIRECT_URI], "grant_types": "authorization_code"},
            {"redirect_uris": [REDIRECT_URI], "grant_types": [1, None, {}]},
            {"redirect_uris": [REDIRECT_URI], "response_types": 5},
            {"redirect_uris": [REDIRECT_URI], "scope": ["a", "b"]},
            {"redirect_uris": [REDIRECT_URI], "client_name": "x" * 60_000},
            {"redirect_uris": [REDIRECT_URI], "client_name": CONTROL},
            {"redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": 2**63},
            {"redirect_uris": [REDIRECT_URI], "jwks": {"keys": [1]}, "jwks_uri": 5},
            {
                "redirect_uris": [REDIRECT_URI],
                "client_uri": ["x"],
                "logo_uri": {},
                "contacts": "a@b",
            },
            {"redirect_uris": ["javascript:alert(1)", "http://[::1", "", "x" * 10_000]},
            {"redirect_uris": [REDIRECT_URI] * 5000},
            {"redirect_uris": None},
            {"redirect_uris": "http://127.0.0.1:9/cb"},
            {},
            [],
            [1],
            "x",
            2**63,
            None,
        ]
        for body in bodies:
            fuzz.send(
                f"POST /oauth/register {short(body, 120)}",
                lambda body=body: http.post("/oauth/register", json=body),
            )
        for raw in (
            b"",
            b"{",
            b"[" * 1000 + b"]" * 1000,
            b'{"a":' * 1000 + b"1" + b"}" * 1000,
            b"\xff\xfe",
            b'{"redirect_uris": NaN}',
            b"x" * (2 * MB),
        ):
            fuzz.send(
                f"POST /oauth/register raw {short(raw, 60)}",
                lambda raw=raw: http.post(
                    "/oauth/register", content=raw, headers={"Content-Type": "application/json"}
                ),
            )

        @settings(FUZZ, max_examples=FORM_EXAMPLES * 2)
        @given(
            body=st.dictionaries(
                st.sampled_from(
                    [
                        "redirect_uris",
                        "grant_types",
                        "response_types",
                        "scope",
                        "client_name",
                        "token_endpoint_auth_method",
                        "client_uri",
                        "jwks",
                    ]
                ),
                form_values | st.lists(form_values, max_size=3) | st.integers(),
                max_size=6,
            )
        )
        def register_mixtures(body):
            fuzz.send(
                f"POST /oauth/register {short(body, 160)}",
                lambda: http.post("/oauth/register", json=body),
            )

        register_mixtures()

        # /oauth/token and /oauth/revoke: forms
        token_fields = [
            "grant_type",
            "code",
            "redirect_uri",
            "client_id",
            "client_secret",
            "code_verifier",
            "refresh_token",
            "scope",
            "resource",
        ]
        fuzz.sweep(
            "POST /oauth/token",
            token_fields,
            lambda data: http.post("/oauth/token", data=data),
            fixed={"grant_type": "authorization_code", "client_id": client_id},
        )
        fuzz.sweep(
            "POST /oauth/token (refresh)",
            ["refresh_token", "scope", "client_id"],
            lambda data: http.post("/oauth/token", data=data),
            fixed={"grant_type": "refresh_token"},
        )
        for label, auth in [
            ("Basic not base64", "Basic %%%"),
            ("Basic without a colon", "Basic YWJj"),
            ("Basic of 8 KB", "Basic " + "QUJD" * 2000),
            ("Basic with NUL", "Basic AA=="),
            ("Bearer", "Bearer x"),
            ("Basic of a unknown client", "Basic Zm9vOmJhcg=="),
        ]:
            for path in ("/oauth/token", "/oauth/revoke"):
                fuzz.send(
                    f"POST {path} Authorization: {label}",
                    lambda path=path, auth=auth: http.post(
                        path,
                        data={"grant_type": "authorization_code", "code": "x", "token": "x"},
                        headers={"Authorization": auth},
                    ),
                )
        for path in ("/oauth/token", "/oauth/revoke"):
            fuzz.send(
                f"POST {path} JSON body",
                lambda path=path: http.post(path, json={"grant_type": ["x"]}),
            )
            fuzz.send(
                f"POST {path} 1 MB body", lambda path=path: http.post(path, data={"code": "x" * MB})
            )
            fuzz.send(
                f"POST {path} invalid UTF-8",
                lambda path=path: http.post(
                    path,
                    content=b"grant_type=\xff\xfe&code=%FF",
                    headers={"Content-Type": "application/x-www-form-urlencoded"},
                ),
            )
        fuzz.sweep(
            "POST /oauth/revoke",
            ["token", "token_type_hint", "client_id", "client_secret"],
            lambda data: http.post("/oauth/revoke", data=data),
            fixed={"client_id": client_id},
        )

        # /oauth/authorize GET, signed out and signed in
        verifier, challenge = pkce()
        good = authorize_query(client_id, challenge, fuzz_club.url, state="s")
        authorize_fields = list(good)
        signed, csrf = signed_in(base, "bruno", fuzz_club.tokens.passwords["bruno"])
        try:
            for who, client in (("signed out", http), ("signed in", signed)):

                def get(params, client=client):
                    values = {
                        k: (v if len(str(v)) <= 8000 else str(v)[:8000]) for k, v in params.items()
                    }
                    return client.get("/oauth/authorize", params=values)

                fuzz.sweep(f"GET /oauth/authorize ({who})", authorize_fields, get, fixed=good)
            # /oauth/authorize POST: the consent form
            consent_fields = ["query", "agent", "scope", "decision"]
            from urllib.parse import urlencode

            fuzz.sweep(
                "POST /oauth/authorize",
                consent_fields,
                lambda data: signed.post("/oauth/authorize", data={"csrf": csrf, **data}),
                fixed={"query": urlencode(good), "decision": "approve"},
            )
            fuzz.sweep(
                "POST /oauth/authorize (hostile query)",
                consent_fields,
                lambda data: signed.post("/oauth/authorize", data={"csrf": csrf, **data}),
                fixed={
                    "query": "client_id=" + "x" * 10_000 + "&redirect_uri=%00&response_type=code",
                    "decision": "approve",
                },
            )
            fuzz.send(
                "POST /oauth/authorize without CSRF",
                lambda: signed.post("/oauth/authorize", data={"query": "x"}),
            )
            fuzz.send(
                "POST /oauth/authorize with a non-ASCII CSRF",
                lambda: signed.post("/oauth/authorize", data={"csrf": "é", "query": "x"}),
            )
        finally:
            signed.close()
    fuzz.verdicts.verdict()

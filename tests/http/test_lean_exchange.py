"""The lean exchange (server/http/lean.py) answers as the SDK's transport answers.

One real server (uvicorn, SQLite, the demo club); each request is sent twice on it, once as it is
served (the lean way for a plain request) and once with the gate handing every request to the SDK's
way, and the two answers must be the same: status, body and the headers a client reads. A pass-through
in front of the SDK's way counts what reaches it, so each case also says which way served it: a
plain request must be served lean (else the comparison would prove nothing), anything unusual must
reach the SDK, which answers it in its own words.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from server.http.gate import Gate
from server.http.lean import LeanExchange
from server.transport import sdk
from tests.conftest import Club, manifest_copy, running_club
from tests.grounding_helpers import Model, model_endpoint

LEGACY = "2025-11-25"
ACCEPT = "application/json, text/event-stream"


def roomy_limits(text: str) -> str:
    return re.sub(
        r"(guest|token)_requests_per_minute: *\d+", r"\1_requests_per_minute: 1000000", text
    )


class Counting:
    """The SDK's way, passed through, counting the requests that reach it."""

    def __init__(self, app: ASGIApp):
        self.app = app
        self.count = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.count += 1
        await self.app(scope, receive, send)


class Ways:
    """Both ways of one server: as served, and with the gate sending every request the SDK's way."""

    def __init__(self, club: Club):
        route = next(r for r in club.live.parley.app.routes if getattr(r, "path", "") == "/mcp")
        assert isinstance(route, Route)
        gate = route.app
        assert isinstance(gate, Gate), gate
        lean = gate.app
        assert isinstance(lean, LeanExchange), lean
        self.club, self.gate, self.lean = club, gate, lean
        self.sdk = Counting(lean.sdk_way)
        lean.sdk_way = self.sdk
        self.http = httpx2.Client(timeout=30)

    def close(self) -> None:
        self.lean.sdk_way = self.sdk.app
        self.http.close()

    @contextlib.contextmanager
    def sdk_only(self) -> Iterator[None]:
        self.gate.app = self.sdk
        try:
            yield
        finally:
            self.gate.app = self.lean

    def headers(self, token: str | None, session: str | None = None, **more: str) -> dict[str, str]:
        headers = {
            "accept": ACCEPT,
            "content-type": "application/json",
            "mcp-protocol-version": LEGACY,
        }
        if token:
            headers["authorization"] = f"Bearer {token}"
        if session:
            headers["mcp-session-id"] = session
        headers.update(more)
        return headers

    def open_session(self, token: str | None) -> str:
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "lean-test", "version": "1"},
            },
        }
        answer = self.http.post(self.club.url, json=init, headers=self.headers(token))
        assert answer.status_code == 200, answer.text
        session = answer.headers["mcp-session-id"]
        done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        sent = self.http.post(self.club.url, json=done, headers=self.headers(token, session))
        assert sent.status_code == 202, sent.text
        return session

    def send(self, headers: Any, body: bytes, method: str = "POST") -> tuple[dict[str, Any], int]:
        """One request; its answer as a client reads it, and how many reached the SDK's way."""
        before = self.sdk.count
        answer = self.http.request(method, self.club.url, headers=headers, content=body)
        return read(answer), self.sdk.count - before

    def both(self, headers: Any, body: bytes) -> tuple[dict[str, Any], int, dict[str, Any]]:
        """(the answer as served, how many reached the SDK's way, the SDK's own answer)."""
        served, reached = self.send(headers, body)
        with self.sdk_only():
            sdk, _ = self.send(headers, body)
        return served, reached, sdk


def read(answer: httpx2.Response) -> dict[str, Any]:
    try:
        body: Any = answer.json()
    except ValueError:
        body = answer.text
    kept = ("content-type", "content-length", "mcp-session-id", "allow", "parley-lane")
    return {
        "status": answer.status_code,
        "body": body,
        "headers": {name: answer.headers.get(name) for name in kept},
    }


@pytest.fixture(scope="module")
def ways(tmp_path_factory) -> Iterator[Ways]:
    folder = tmp_path_factory.mktemp("lean")
    with running_club(folder, manifest=manifest_copy(folder, roomy_limits)) as club:
        ways = Ways(club)
        try:
            yield ways
        finally:
            ways.close()


def rpc(method: str, params: Any = None, ident: Any = 7) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


WHOAMI = rpc("tools/call", {"name": "whoami", "arguments": {}})
INITIALIZE = rpc(
    "initialize",
    {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}},
)

# (case, header changes (None: remove), body, served lean)
CASES: list[tuple[str, dict[str, str | None], bytes, bool]] = [
    ("whoami", {}, WHOAMI, True),
    ("tools/list", {}, rpc("tools/list", {}), True),
    ("tools/list without params", {}, rpc("tools/list"), True),
    ("ping", {}, rpc("ping"), True),
    ("a string id", {}, rpc("ping", ident="abc"), True),
    ("resources/list", {}, rpc("resources/list", {}), True),
    ("an unknown tool", {}, rpc("tools/call", {"name": "nope", "arguments": {}}), True),
    ("an unknown method", {}, rpc("nope/nothing", {}), True),
    ("params of the wrong type", {}, rpc("tools/call", {"name": 5}), True),
    (
        "arguments that fail the tool's model",
        {},
        rpc("tools/call", {"name": "whoami", "arguments": {"x": 1}}),
        True,
    ),
    ("another handshake-era version header", {"mcp-protocol-version": "2025-06-18"}, WHOAMI, True),
    ("no version header", {"mcp-protocol-version": None}, WHOAMI, True),
    ("Accept */*", {"accept": "*/*"}, WHOAMI, True),
    ("Accept application/*", {"accept": "application/*"}, WHOAMI, True),
    ("Accept JSON only", {"accept": "application/json"}, WHOAMI, True),
    (
        "Content-Type with a charset",
        {"content-type": "application/json; charset=utf-8"},
        WHOAMI,
        True,
    ),
    ("an allowed Origin", {"origin": "http://localhost:9999"}, WHOAMI, True),
    (
        "the initialize handshake again",
        {},
        INITIALIZE,
        False,
    ),
    ("a 2026-07-28 version header", {"mcp-protocol-version": "2026-07-28"}, WHOAMI, False),
    ("an unknown version header", {"mcp-protocol-version": "1999-01-01"}, WHOAMI, False),
    ("Accept SSE only", {"accept": "text/event-stream"}, WHOAMI, False),
    ("Accept neither", {"accept": "text/html"}, WHOAMI, False),
    ("Content-Type text/plain", {"content-type": "text/plain"}, WHOAMI, False),
    ("Content-Type application/json-seq", {"content-type": "application/json-seq"}, WHOAMI, False),
    ("a Host not allowed", {"host": "evil.example:80"}, WHOAMI, False),
    ("an Origin not allowed", {"origin": "http://evil.example"}, WHOAMI, False),
    ("an unknown session", {"mcp-session-id": "0123456789abcdef"}, WHOAMI, False),
    ("a session id with a space", {"mcp-session-id": "not a session"}, WHOAMI, False),
    (
        "a notification",
        {},
        json.dumps({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}).encode(),
        False,
    ),
    (
        "a request's method as a notification",
        {},
        json.dumps(
            {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "whoami"}}
        ).encode(),
        False,
    ),
    (
        "a posted response",
        {},
        json.dumps({"jsonrpc": "2.0", "id": 99, "result": {}}).encode(),
        False,
    ),
    ("a batch", {}, b"[" + WHOAMI + b"]", False),
    ("a request whose params are a list", {}, rpc("tools/list", [1]), False),
]


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_each_request_is_answered_as_the_sdk_answers_it(ways: Ways, case) -> None:
    _, changes, body, lean = case
    token = ways.club.tokens.member.token
    session = ways.open_session(token)
    headers = ways.headers(token, session)
    for name, value in changes.items():
        if value is None:
            headers.pop(name, None)
        else:
            headers[name] = value
    served, reached, sdk = ways.both(headers, body)
    assert served == sdk
    assert reached == (0 if lean else 1), "served lean" if reached == 0 else "went the SDK's way"


def test_duplicated_headers_are_read_as_the_sdk_reads_them(ways: Ways) -> None:
    """The first of two session or version headers counts (the SDK's reading), whichever comes first."""
    token = ways.club.tokens.member.token
    session = ways.open_session(token)
    base = [(k, v) for k, v in ways.headers(token).items() if k != "mcp-protocol-version"]
    cases = [
        ([("mcp-session-id", session), ("mcp-session-id", "f" * 32)], True),
        ([("mcp-session-id", "f" * 32), ("mcp-session-id", session)], False),
        (
            [
                ("mcp-session-id", session),
                ("mcp-protocol-version", LEGACY),
                ("mcp-protocol-version", "2099-01-01"),
            ],
            True,
        ),
        (
            [
                ("mcp-session-id", session),
                ("mcp-protocol-version", "2099-01-01"),
                ("mcp-protocol-version", LEGACY),
            ],
            False,
        ),
    ]
    for extra, lean in cases:
        served, reached, sdk = ways.both(base + extra, WHOAMI)
        assert served == sdk, extra
        assert reached == (0 if lean else 1), extra


def test_a_guest_and_a_session_that_ended_answer_as_the_sdk_answers(ways: Ways) -> None:
    guest = ways.open_session(None)
    served, reached, sdk = ways.both(ways.headers(None, guest), WHOAMI)
    assert served == sdk and reached == 0 and served["headers"]["parley-lane"] == "guest"
    token = ways.club.tokens.member.token
    answers = []
    for way in (contextlib.nullcontext(), ways.sdk_only()):
        session = ways.open_session(token)
        ended = ways.http.delete(ways.club.url, headers=ways.headers(token, session))
        assert ended.status_code == 200, ended.text
        with way:
            answers.append(ways.send(ways.headers(token, session), WHOAMI)[0])
    assert answers[0] == answers[1] and answers[0]["status"] == 404


def test_a_lean_request_holds_its_session_open_and_restarts_its_idle_countdown(ways: Ways) -> None:
    """As the transport counts a request: in flight while served, the countdown restarted after."""
    token = ways.club.tokens.member.token
    session = ways.open_session(token)
    transport = sdk.transport_of(ways.lean.manager, session)
    timeout = None if transport is None else sdk.idle_timeout(transport)
    assert transport is not None and transport.idle_scope is not None and timeout is not None
    time.sleep(0.3)  # the opening requests' own countdowns have started by now
    started = time.monotonic()  # the clock of asyncio's loop, the idle scope's
    served, reached = ways.send(ways.headers(token, session), WHOAMI)
    assert served["status"] == 200 and reached == 0
    assert transport.idle_scope.deadline >= started + timeout
    assert sdk.requests_in_flight(transport) == 0


@pytest.fixture(scope="module")
def slow_ways(tmp_path_factory) -> Iterator[tuple[Ways, Model]]:
    """A server whose answering model waits until released: an ask stays in flight."""
    model = Model(lambda system, question: '{"escalate": "slow"}')
    folder = tmp_path_factory.mktemp("lean-slow")
    env = {"PARLEY_ANSWERER_MODEL": "slow"}
    with (
        model_endpoint(model) as url,
        running_club(
            folder,
            manifest=manifest_copy(folder, roomy_limits),
            env={**env, "PARLEY_ANSWERER_URL": url},
        ) as club,
    ):
        ways = Ways(club)
        try:
            yield ways, model
        finally:
            model.release.set()
            ways.close()


def _in_flight_ask(ways: Ways, model: Model, act) -> dict[str, Any]:
    """An ask held at the model, then `act(session, ask_id)`; the ask's answer."""
    token = ways.club.tokens.member.token
    session = ways.open_session(token)
    ask = rpc(
        "tools/call",
        {"name": "ask", "arguments": {"member": "ana", "question": "Is she around?"}},
        ident=41,
    )
    # requests the model has received (a count that only grows): `held` falls only when the previous
    # ask's request, released, leaves the model, which may be after this ask has arrived
    arrived = len(model.sent)
    model.release.clear()
    answer: dict[str, Any] = {}

    def asking() -> None:
        with httpx2.Client(timeout=60) as http:
            answer.update(
                read(http.post(ways.club.url, headers=ways.headers(token, session), content=ask))
            )
            if answer["headers"]["mcp-session-id"] == session:  # each way has a session of its own
                answer["headers"]["mcp-session-id"] = "the session"

    thread = threading.Thread(target=asking)
    thread.start()
    try:
        deadline = time.monotonic() + 60  # a deadline, not a timing: the suite runs two at a time
        while len(model.sent) <= arrived and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(model.sent) > arrived, (
            f"the ask never reached the model: {answer or 'no answer yet'}"
        )
        act(session, token)
        thread.join(30)
        assert not thread.is_alive(), "the ask was never answered"
    finally:
        model.release.set()
        thread.join(30)
    return answer


def test_a_request_the_client_cancels_is_answered_as_the_sdk_answers_it(slow_ways) -> None:
    ways, model = slow_ways
    cancel = json.dumps(
        {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 41, "reason": "changed my mind"},
        }
    ).encode()

    def cancelled(session: str, token: str) -> None:
        sent = ways.http.post(ways.club.url, headers=ways.headers(token, session), content=cancel)
        assert sent.status_code == 202

    served = _in_flight_ask(ways, model, cancelled)
    with ways.sdk_only():
        sdk = _in_flight_ask(ways, model, cancelled)
    assert served == sdk
    assert served["body"]["error"] == {"code": -32800, "message": "Request cancelled"}


def test_a_request_whose_session_ends_under_it_is_answered_as_the_sdk_answers_it(slow_ways) -> None:
    ways, model = slow_ways

    def ended(session: str, token: str) -> None:
        done = ways.http.delete(ways.club.url, headers=ways.headers(token, session))
        assert done.status_code == 200

    served = _in_flight_ask(ways, model, ended)
    with ways.sdk_only():
        sdk = _in_flight_ask(ways, model, ended)
    assert served == sdk
    assert served["status"] == 500
    assert served["body"]["error"]["message"] == "Session terminated before the request completed"


@pytest.fixture(scope="module")
def stateless_ways(tmp_path_factory) -> Iterator[Ways]:
    """A server in stateless mode (as several processes on PostgreSQL run): no session at all."""
    folder = tmp_path_factory.mktemp("lean-stateless")
    manifest = manifest_copy(folder, roomy_limits)
    with running_club(folder, manifest=manifest, env={"PARLEY_SESSIONS": "stateless"}) as club:
        ways = Ways(club)
        try:
            yield ways
        finally:
            ways.close()


STATELESS_CASES: list[tuple[str, dict[str, str | None], bytes, bool]] = [
    ("whoami", {}, WHOAMI, True),
    (
        "a session header, which stateless serving ignores",
        {"mcp-session-id": "f" * 32},
        WHOAMI,
        True,
    ),
    ("no version header", {"mcp-protocol-version": None}, WHOAMI, True),
    ("an unknown method", {}, rpc("nope/nothing", {}), True),
    (
        "initialize",
        {},
        INITIALIZE,
        False,
    ),
    ("Accept SSE only", {"accept": "text/event-stream"}, WHOAMI, False),
    (
        "a notification",
        {},
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode(),
        False,
    ),
    ("a 2026-07-28 version header", {"mcp-protocol-version": "2026-07-28"}, WHOAMI, False),
]


@pytest.mark.parametrize("case", STATELESS_CASES, ids=[case[0] for case in STATELESS_CASES])
def test_stateless_requests_are_answered_as_the_sdk_answers_them(
    stateless_ways: Ways, case
) -> None:
    _, changes, body, lean = case
    headers = stateless_ways.headers(stateless_ways.club.tokens.member.token)
    for name, value in changes.items():
        if value is None:
            headers.pop(name, None)
        else:
            headers[name] = value
    served, reached, sdk = stateless_ways.both(headers, body)
    assert served == sdk
    assert reached == (0 if lean else 1), "served lean" if reached == 0 else "went the SDK's way"


def test_a_lean_request_yields_to_the_loop_once_its_body_is_read(ways: Ways) -> None:
    """Fairness: between reading a request and serving it, the loop gets a turn (a callback
    scheduled right after the read has run when serving starts), so requests read in the same
    turn are all read before any is served."""
    lean = ways.lean
    seen: list[bool] = []
    take, serve = lean._take, lean._serve

    async def taking(scope: Scope, receive: Receive) -> Any:
        taken = await take(scope, receive)
        turned = [False]
        asyncio.get_running_loop().call_soon(turned.__setitem__, 0, True)
        lean._turned = turned  # type: ignore[attr-defined]
        return taken

    async def serving(exchange: Any, send: Send) -> None:
        seen.append(lean._turned[0])  # type: ignore[attr-defined]
        await serve(exchange, send)

    token = ways.club.tokens.member.token
    session = ways.open_session(token)
    lean._take, lean._serve = taking, serving  # type: ignore[method-assign]
    try:
        served, reached = ways.send(ways.headers(token, session), WHOAMI)
    finally:
        del lean._take, lean._serve
    assert served["status"] == 200 and reached == 0
    assert seen == [True]


def test_a_stateless_request_unwinds_what_a_handler_left_on_its_connection(
    stateless_ways: Ways,
) -> None:
    """A stateless request's connection is unwound only when something was left on it (an empty
    stack is skipped): cleanup a handler leaves still runs, once, after the call."""
    ran: list[str] = []
    server = stateless_ways.lean.server

    async def leaves_cleanup(ctx: Any, call_next: Any) -> Any:
        ctx.session._connection.exit_stack.callback(ran.append, ctx.method)
        return await call_next(ctx)

    headers = stateless_ways.headers(stateless_ways.club.tokens.member.token)
    served, reached = stateless_ways.send(headers, WHOAMI)
    assert served["status"] == 200 and reached == 0 and ran == []
    server.middleware.insert(0, leaves_cleanup)  # outermost: Parley's own layer answers the call
    try:
        served, reached = stateless_ways.send(headers, WHOAMI)
    finally:
        server.middleware.remove(leaves_cleanup)
    assert served["status"] == 200 and reached == 0, served
    assert ran == ["tools/call"]

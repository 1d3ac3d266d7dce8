"""The answering pool: real worker processes, real files, loopback only.

A worker cannot read the server's files, a killed or hung worker escalates its call and is
replaced, slow model calls run side by side while the event loop stays free."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import stat
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from server.answering import Note, ScopedRequest, Selection, Terms, sandbox
from server.answering.pool import AnswererConfig, AnswererPool

ANA = Terms(principal="ana", topics=("availability",), quotable=True)
NOTES = [Note(id="7", topic="availability", text="Ana is taking on new work from February.")]
CHOSEN = Selection(notes=("7",))
ASK = ScopedRequest(question="Is Ana available for new work?", asker="x")


class _Model(BaseHTTPRequestHandler):
    """An OpenAI-compatible stand-in: answers, sleeps first, or trickles its body forever."""

    mode = "ok"
    delay = 0.0
    seen: list = []

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        type(self).seen.append({"auth": self.headers.get("authorization"), "body": body})
        if type(self).mode == "trickle":  # never slow enough for a read timeout, never finished
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", "100000")
            self.end_headers()
            try:
                for _ in range(100):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.2)
            except OSError:
                pass
            return
        time.sleep(type(self).delay)
        data = json.dumps({"choices": [{"message": {"content": '{"notes": ["7"]}'}}]}).encode()
        try:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass  # the worker that asked was killed meanwhile

    def log_message(self, *args):
        pass


@pytest.fixture
def model():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Model)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Model.mode, _Model.delay, _Model.seen = "ok", 0.0, []
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture
def pools():
    made: list[AnswererPool] = []

    def make(config: AnswererConfig | None = None, **kwargs) -> AnswererPool:
        made.append(AnswererPool(config, **kwargs))
        return made[-1]

    yield make
    for pool in made:
        pool.close()


async def test_a_worker_cannot_read_the_store_or_the_keys(tmp_path, pools, monkeypatch):
    monkeypatch.setenv("PARLEY_DATABASE_URL", "postgresql://parley:hunter2@db/parley")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-for-workers")
    store = tmp_path / "club.db"
    store.write_bytes(b"SQLite format 3\x00")
    store.chmod(0o600)
    keys = tmp_path / "keys"
    keys.mkdir(mode=0o700)
    (keys / "signing.pem").write_text("-----BEGIN PRIVATE KEY-----")
    (keys / "signing.pem").chmod(0o600)
    assert store.read_bytes() and os.listdir(keys)  # the server itself can

    pool = pools(allow_probe=True)
    answer = await pool.answer(ASK, ANA, NOTES)
    assert answer == CHOSEN
    report = pool.isolation()
    if not report["landlock"] and report["uid"] != sandbox.NOBODY:
        pytest.skip(
            "no Landlock and not root here: a worker can read what the server's user can (logged)"
        )
    seen = await asyncio.to_thread(
        pool.probe, [str(store), str(keys / "signing.pem")], [str(keys), str(tmp_path)]
    )
    assert seen["open"] == {str(store): "EACCES", str(keys / "signing.pem"): "EACCES"}
    assert seen["listdir"] == {str(keys): "EACCES", str(tmp_path): "EACCES"}
    assert not any(
        name.startswith("PARLEY_") or "KEY" in name or "TOKEN" in name for name in seen["env"]
    )
    assert seen["fds"] == [
        0,
        1,
        2,
        3,
    ]  # stdin, stdout (to stderr), stderr, the reply pipe: nothing inherited


async def test_landlock_closes_even_world_readable_files_and_tcp(pools):
    if not sandbox.landlock_abi():
        pytest.skip("this kernel offers no Landlock")
    public = "/etc/passwd"  # 0644 in 0755 folders: only Landlock can close it to a worker
    assert stat.S_IMODE(os.stat(public).st_mode) & 0o004
    listener = __import__("socket").create_server(("127.0.0.1", 0))
    try:
        pool = pools(allow_probe=True)
        seen = await asyncio.to_thread(pool.probe, [public], ["/etc"], [listener.getsockname()[1]])
    finally:
        listener.close()
    assert seen["open"] == {public: "EACCES"} and seen["listdir"] == {"/etc": "EACCES"}
    if sandbox.landlock_abi() >= 4:  # the deterministic answerer may connect nowhere
        assert list(seen["connect"].values()) == ["EACCES"]
    assert "Landlock ABI" in pool.describe()


async def test_the_model_is_called_from_the_worker_with_the_key_handed_over(model, pools):
    pool = pools(AnswererConfig(url=model, model="m", api_key="k-123", timeout=5))
    answer = await pool.answer(ASK, ANA, NOTES)
    assert answer == CHOSEN
    assert _Model.seen[-1]["auth"] == "Bearer k-123" and "tools" not in _Model.seen[-1]["body"]
    assert pool.isolation()["landlock"] is None or pool.isolation()["landlock"]["tcp_connect"] in (
        [int(model.rsplit(":", 1)[1].split("/")[0])],
        "unrestricted",
    )


def test_the_key_is_read_from_the_named_variable_by_the_server():
    config = AnswererConfig.from_settings(
        "https://llm.example/v1", "m", "MY_KEY", environ={"MY_KEY": "k-9"}
    )
    assert config.api_key == "k-9" and "k-9" not in repr(config) and config.ports() == (443,)
    assert AnswererConfig.from_settings(None, None, None, environ={}).ports() == ()
    env = sandbox.scrubbed_env(
        {
            "PARLEY_KEYS": "/k",
            "OPENAI_API_KEY": "s",
            "LANG": "C.UTF-8",
            "HTTPS_PROXY": "http://u:p@proxy:3128",
            "NO_PROXY": "localhost",
        }
    )
    assert env == {"LANG": "C.UTF-8", "NO_PROXY": "localhost"}


async def test_a_worker_killed_mid_call_escalates_that_call_and_the_next_succeeds(model, pools):
    pool = pools(AnswererConfig(url=model, model="m", timeout=10), size=1)
    assert (await pool.answer(ASK, ANA, NOTES)).escalate is None  # started
    _Model.delay = 3.0
    call = asyncio.create_task(pool.answer(ASK, ANA, NOTES))
    while len(_Model.seen) < 2:
        await asyncio.sleep(0.02)
    victim = pool.pids()[0]
    os.kill(victim, signal.SIGKILL)
    answer = await asyncio.wait_for(call, 5)
    assert answer == Selection(escalate="outside_mandate")
    _Model.delay = 0.0
    again = await pool.answer(ASK, ANA, NOTES)
    assert again == CHOSEN
    assert pool.pids() and victim not in pool.pids()


async def test_a_model_slower_than_its_timeout_escalates_and_the_pool_recovers(model, pools):
    pool = pools(AnswererConfig(url=model, model="m", timeout=0.5), size=1, margin=1.0)
    # warm first: the bounds below tell a timeout that fired (0.5 s) from a model waited out (3 s),
    # and a worker's start-up at load 10 on 2 cores took most of the first bound by itself
    assert (await pool.answer(ASK, ANA, NOTES)).escalate is None
    _Model.delay = 3.0  # the worker's own timeout fires: it escalates by itself
    started = time.monotonic()
    assert (await pool.answer(ASK, ANA, NOTES)).escalate == "outside_mandate"
    assert time.monotonic() - started < 2.5
    _Model.mode = (
        "trickle"  # a byte every 0.2 s: no read timeout ever fires, the pool's deadline does
    )
    first = pool.pids()[0]
    started = time.monotonic()
    assert (await pool.answer(ASK, ANA, NOTES)).escalate == "outside_mandate"
    assert time.monotonic() - started < 4.0
    assert first not in pool.pids()  # the hung worker was killed and replaced
    _Model.mode, _Model.delay = "ok", 0.0
    assert (await pool.answer(ASK, ANA, NOTES)).escalate is None


async def test_slow_calls_run_side_by_side_and_the_loop_stays_free(model, pools):
    pool = pools(AnswererConfig(url=model, model="m", timeout=10), size=2)
    pool.start()
    await asyncio.gather(pool.answer(ASK, ANA, NOTES), pool.answer(ASK, ANA, NOTES))  # both warm
    _Model.delay = 1.5
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker():
        last = time.monotonic()
        while not done.is_set():
            await asyncio.sleep(0.01)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    tick = asyncio.create_task(ticker())
    started = time.monotonic()
    answers = await asyncio.gather(*(pool.answer(ASK, ANA, NOTES) for _ in range(2)))
    both = time.monotonic() - started
    done.set()
    await tick
    assert all(a.escalate is None for a in answers)
    assert both < 2.8, both  # side by side, not one after the other (3 s)
    assert len(gaps) > 50 and max(gaps) < 0.5, max(gaps)  # the loop kept turning meanwhile
    started = time.monotonic()  # a third caller waits its turn
    await asyncio.gather(*(pool.answer(ASK, ANA, NOTES) for _ in range(3)))
    assert time.monotonic() - started >= 2.9


async def test_a_closed_pool_escalates(pools):
    pool = pools()
    pool.close()
    assert (await pool.answer(ASK, ANA, NOTES)).escalate == "outside_mandate"


async def test_a_call_cancelled_while_the_loop_awaits_its_worker_retires_that_worker(model, pools):
    """A started, idle worker's call is awaited on the event loop; cancelled midway, its late reply must
    answer nobody else's question, so the worker is killed and the next call gets a fresh one."""
    pool = pools(AnswererConfig(url=model, model="m", timeout=10), size=1)
    assert await pool.answer(ASK, ANA, NOTES) == CHOSEN  # started and idle
    first = pool.pids()[0]
    _Model.delay = 1.0
    call = asyncio.create_task(pool.answer(ASK, ANA, NOTES))
    while len(_Model.seen) < 2:
        await asyncio.sleep(0.02)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    _Model.delay = 0.0
    assert await pool.answer(ASK, ANA, NOTES) == CHOSEN
    assert pool.pids() and first not in pool.pids()


async def test_a_request_larger_than_the_pipe_holds_is_answered(pools):
    """The loop writes a request only when the pipe can take it whole; a larger one (many long notes)
    is written by an executor thread, and answered all the same."""
    pool = pools(size=1)
    assert (await pool.answer(ASK, ANA, NOTES)).escalate is None  # started and idle
    long = [
        Note(id=str(100 + n), topic="archive", text="Lorem ipsum dolor. " * 160) for n in range(30)
    ]
    assert len(json.dumps([note.model_dump() for note in long])) > 65536
    answer = await pool.answer(ASK, ANA, [*long, *NOTES])
    assert answer.escalate is None and answer.refused is None and "7" in answer.notes


async def test_an_idle_worker_that_hangs_midway_misses_its_deadline_escalates_and_is_replaced(
    model, pools
):
    """The deadline of a call the event loop awaits itself: a model that trickles forever."""
    pool = pools(AnswererConfig(url=model, model="m", timeout=0.5), size=1, margin=1.0)
    assert await pool.answer(ASK, ANA, NOTES) == CHOSEN  # started and idle
    first = pool.pids()[0]
    _Model.mode = "trickle"
    assert (await pool.answer(ASK, ANA, NOTES)).escalate == "outside_mandate"
    _Model.mode = "ok"
    assert await pool.answer(ASK, ANA, NOTES) == CHOSEN
    assert pool.pids() and first not in pool.pids()


async def test_a_confined_worker_matches_by_meaning_as_the_server_does(pools, monkeypatch):
    """The sentence encoder reads its weights before the worker confines itself: a question the
    words alone are not sure of (only where their best note is the encoder's nearest: "tongues" and
    the note on the languages she speaks) is answered in the worker too."""
    from server.answering import deterministic, matching
    from tests.answering.answer_rate import load

    corpus = load()
    notes = [
        Note(id=note_id, topic=topic, text=text) for note_id, topic, text in corpus.notes["ana"]
    ]
    asked = ScopedRequest(question="What tongues does Ana get by in?", asker="x")
    terms = Terms(principal="ana", topics=tuple(note.topic for note in notes), quotable=True)
    with monkeypatch.context() as words_only:
        # every cosine the same: the encoder places no note above another, the words alone decide
        words_only.setattr(matching.meaning, "similarities", lambda q, ns: [0.5] * len(ns))
        assert deterministic.answer(asked, terms, notes).notes == ()
    assert deterministic.answer(asked, terms, notes) == Selection(notes=("a03",))
    assert await pools().answer(asked, terms, notes) == Selection(notes=("a03",))


async def test_the_server_starts_its_answering_workers_before_any_ask(club):
    import httpx2

    async with httpx2.AsyncClient(timeout=30) as http:
        metrics = (await http.get(f"{club.live.base}/metrics")).text
    alive = next(
        float(line.split()[-1])
        for line in metrics.splitlines()
        if line.startswith("parley_answering_workers_alive")
    )
    assert alive == club.settings.answerer_workers

"""What the grounded-answers tests share: an OpenAI-compatible stand-in on loopback that replies as
it is told, and the check that a text an asker reads is made only of the member's approved notes."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from server.answering.grounding import TEXT, inline
from tests.http_stub import reply


class Model:
    """A chat-completions endpoint whose reply is `answer(system, question)`; it records what it was sent."""

    def __init__(self, answer: Callable[[str, str], str]):
        self.answer = answer
        self.sent: list[dict] = []
        self.release = threading.Event()
        self.release.set()  # clear it to hold every request until it is set again
        self.held = 0


@contextmanager
def model_endpoint(model: Model) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            model.sent.append(body)
            model.held += 1
            model.release.wait(60)
            model.held -= 1
            content = model.answer(body["messages"][0]["content"], body["messages"][1]["content"])
            try:
                reply(
                    self, 200, {"choices": [{"message": {"role": "assistant", "content": content}}]}
                )
            except OSError:
                pass  # the worker that asked gave up meanwhile

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        model.release.set()
        server.shutdown()


def note_ids(system: str) -> list[str]:
    """The note ids an answerer was handed, from the model's system prompt."""
    return re.findall(r"^(\d+): \[", system, flags=re.MULTILINE)


def fixed_sentences(who: str) -> set[str]:
    """Every sentence Parley itself may say to an asker for `who` (escalations and refusals)."""
    return {
        template.format(who=who)
        for language in TEXT.values()
        for key, template in language.items()
        if key not in ("quoted", "unquoted", "note")
    }


def assert_grounded(
    findings: str | None, who: str, approved: dict[str, tuple[str, str]]
) -> tuple[str, ...]:
    """`findings` is one of Parley's fixed sentences, or its framing around approved notes quoted whole
    (`approved`: id → (text, date)); returns the ids quoted. Anything else fails."""
    if findings is None or findings in fixed_sentences(who):
        return ()
    for language in TEXT.values():
        for frame in ("quoted", "unquoted"):
            head = language[frame].format(who=who, body="")
            if not findings.startswith(head):
                continue
            body = findings[len(head) :]
            ids = re.findall(r"\u201d \((?:note|nota) (\d+), \d{4}-\d{2}-\d{2}\)", body)
            assert ids and all(i in approved for i in ids), (
                f"quotes a note that is not approved: {findings!r}"
            )
            rebuilt = " ".join(
                language["note"].format(text=inline(approved[i][0]), id=i, date=approved[i][1])
                for i in ids
            )
            assert body == rebuilt, f"text beside the approved notes: {findings!r}"
            return tuple(ids)
    raise AssertionError(f"not Parley's words nor approved notes: {findings!r}")

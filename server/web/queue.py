"""The console's Queue page: questions the member's answering agent did not settle, and deciding them.

Beside each candidate note, "This note answers it": the asker gets that note as any grounded answer
and the question becomes an example of the note (listed on the Notes page, removable). Or the member
answers in their own words, which they may save as an approved note, declines, or widens the mandate.
Every decision is the member's own, in this console session (`asking.queue`, the code path
`parley queue` takes too); the reason a question is here is worded when the page is drawn.
"""

from __future__ import annotations

from dataclasses import asdict
from functools import cached_property

import anyio
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.asking.errors import AskError
from server.asking.queue import Decider, Decision, Queue
from server.errors import NotFound, ParleyError
from server.identity.credentials import digest
from server.identity.principals import Principal
from server.store import sessions as session_rows
from server.web.frame import Frame, bounded_id, path_id

DECIDED = ("answered", "declined", "widened")
KINDS = {
    "question": "Asked",
    "answer": "Your agent answered",
    "decline": "Your agent told them",
    "decision": "You decided",
}
VERBS = {
    "answer": "Your answer",
    "note": "Your note",
    "decline": "Your decline",
    "widen": "Your agent's answer",
}


class QueuePages(Frame):
    @cached_property
    def queue(self) -> Queue:
        return Queue(self.escalations)

    def _numbers(self, me: Principal) -> dict[int, int]:
        """Each of a member's questions numbered from 1 in the order they arrived: their own count, not
        the club's row ids (a member's first question is question 1)."""
        ids = sorted(
            item.id for status in ("open", *DECIDED) for item in self.queue.listed(me.id, status)
        )
        return {escalation_id: number for number, escalation_id in enumerate(ids, start=1)}

    def _open_items(
        self, me: Principal, numbers: dict[int, int] | None = None
    ) -> list[dict[str, object]]:
        numbers = numbers if numbers is not None else self._numbers(me)
        return [
            {
                **asdict(waiting.row),
                "thread": self.queue.thread(waiting.row.thread_id),
                "number": numbers.get(waiting.row.id),
                "why": waiting.why,
                "can_widen": waiting.row.reason != "commitment",
                "attached": waiting.candidates,
            }
            for waiting in self.queue.waiting(me.id, me.handle)
        ]

    def _decided(
        self, me: Principal, numbers: dict[int, int] | None = None
    ) -> list[dict[str, object]]:
        numbers = numbers if numbers is not None else self._numbers(me)
        decided = [item for status in DECIDED for item in self.queue.listed(me.id, status)]
        decided.sort(key=lambda item: item.decided_at or "", reverse=True)
        return [{**asdict(item), "number": numbers.get(item.id)} for item in decided]

    def _queue_page(
        self,
        request: Request,
        me: Principal,
        status_code: int = 200,
        error: str | None = None,
        kept: dict[str, object] | None = None,
    ) -> Response:
        numbers = self._numbers(me)
        return self._page(
            request,
            me,
            "console_queue.html",
            status_code=status_code,
            items=self._open_items(me, numbers),
            decided=self._decided(me, numbers)[:20],
            error=error,
            kept=kept or {},
            kinds=KINDS,
        )

    async def queue_page(self, request: Request) -> Response:
        me = self._signed_in(request)
        if isinstance(me, Response):
            return me
        return self._queue_page(request, me)

    def _decider(self, request: Request) -> Decider:
        """This console session, by its row: what the decision records as who made it."""
        secret = request.session.get("sid")
        session_id = (
            session_rows.live_id(self.db, digest(secret)) if isinstance(secret, str) else None
        )
        if session_id is None:
            raise AskError("sign in again to decide")
        return Decider("console", session_id)

    async def decide(self, request: Request) -> Response:
        begun = await self._signed_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        action, text = str(form.get("action", ""))[:16], str(form.get("text", ""))
        save = form.get("save") == "yes"
        topic = str(form.get("topic", ""))[:200]
        note_id = bounded_id(form.get("note_id"))
        kept = {"action": action, "text": text, "save": save, "topic": topic}
        try:
            escalation_id = path_id(request, "escalation_id")
            kept["id"] = escalation_id
            if len(text) > 4000:
                raise ParleyError("Keep it under 4000 characters.")
            if action == "note" and note_id is None:
                raise ParleyError("Choose the note that answers it.")
            decision = Decision.of(
                action, text, note_id, topic if action == "answer" and save else None
            )
            # a widen re-asks the answering agent, which may be a slow model: off the event loop
            await anyio.to_thread.run_sync(
                self.queue.decide, me.id, escalation_id, decision, self._decider(request)
            )
        except NotFound:
            return self._not_found(request)
        except ParleyError as exc:
            return self._queue_page(
                request,
                me,
                exc.status if 400 <= exc.status < 500 else 400,
                error=str(exc)[:1].upper() + str(exc)[1:],
                kept=kept,
            )
        number = self._numbers(me).get(escalation_id, escalation_id)
        taught = (
            " Your agent keeps the question as an example of that note (see Notes)."
            if action == "note" or (action == "answer" and save)
            else ""
        )
        return self._done(
            request,
            f"Question {number} decided. {VERBS.get(action, 'It')} is in the asker's inbox.{taught}",
            "/console/queue",
        )

    def queue_routes(self) -> list[Route]:
        return [
            Route("/console/queue", self.queue_page, methods=["GET"]),
            Route("/console/queue/{escalation_id}", self.decide, methods=["POST"]),
        ]

"""The principal console: home, the decision queue and the mandate; `Console.routes()` also serves
agents and tokens (`web.agents`) and settings, activity and applicants (`web.club`).

Server-rendered, usable without JavaScript, Post/Redirect/Get after every change. Every page and
form acts for the signed-in principal only: ids in URLs and forms are looked up together with that
principal, so another principal's escalation, token or agent answers 404, exactly like one that does
not exist.
"""

from __future__ import annotations

import json
from datetime import timedelta

import anyio
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.access import default_scopes, lane_of
from server.errors import NotFound, ParleyError
from server.identity import mandates
from server.store import agents as agent_rows
from server.store import console as console_rows
from server.store import records
from server.web.agents import AgentPages
from server.web.club import ClubPages
from server.web.frame import Frame, path_id
from server.web.notes import NotePages

REASONS = {
    "commitment": "It asks for a commitment — your agent informs, it never agrees, books, buys or promises.",
    "mandate": "Your mandate does not cover this topic, so your agent did not answer it.",
}
DECIDED = ("answered", "declined", "widened")
KINDS = {"question": "Asked", "answer": "Your agent answered", "decline": "Your agent told them",
         "decision": "You decided"}


class Console(Frame):
    # --- home --------------------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        me, _, stop = await self._begin(request)
        if stop is not None:
            return stop
        status = mandates.current(self.db, self.key, me.id)
        seen = console_rows.last_activity(self.db, me.handle)
        agents = [{**agent, "last_seen": seen.get(agent["name"])} for agent in agent_rows.of_principal(self.db, me.id)]
        return self._page(request, me, "console_home.html", mandate=status, open_items=self._open_items(me)[:3],
                          decided=self._decided(me)[:3], agents=agents, missing=self.missing_member_scopes(me),
                          application=console_rows.application_decision(self.db, me.id))

    # --- queue -------------------------------------------------------------------------------

    def _open_items(self, me) -> list[dict]:
        return [{**item, "thread": self.escalations.thread(item["thread_id"]),
                 "why": REASONS.get(item["reason"], REASONS["mandate"]), "can_widen": item["reason"] != "commitment",
                 "attached": self._attached(me, item.get("notes"))}
                for item in self.escalations.queue(me.id)]

    def _attached(self, me, ids: str | None) -> list[dict]:
        """The member's notes an escalated question came with (the ones it would have quoted)."""
        found = (records.note_of(self.db, me.id, int(i)) for i in json.loads(ids or "[]") if str(i).isdigit())
        return [note for note in found if note is not None]

    def _decided(self, me) -> list[dict]:
        decided = [item for status in DECIDED for item in self.escalations.queue(me.id, status)]
        decided.sort(key=lambda item: item["decided_at"] or "", reverse=True)
        return decided

    def _queue_page(self, request: Request, me, status_code: int = 200, error: str | None = None,
                    kept: dict | None = None) -> Response:
        return self._page(request, me, "console_queue.html", status_code=status_code, items=self._open_items(me),
                          decided=self._decided(me)[:20], error=error, kept=kept or {}, kinds=KINDS)

    async def queue(self, request: Request) -> Response:
        me, _, stop = await self._begin(request)
        if stop is not None:
            return stop
        return self._queue_page(request, me)

    async def decide(self, request: Request) -> Response:
        me, form, stop = await self._begin(request, form=True)
        if stop is not None:
            return stop
        action, text = str(form.get("action", ""))[:16], str(form.get("text", ""))
        try:
            escalation_id = path_id(request, "escalation_id")
            if len(text) > 4000:
                raise ParleyError("Keep it under 4000 characters.")
            # a widen re-asks the answering agent, which may be a slow model: off the event loop
            await anyio.to_thread.run_sync(self.escalations.decide, me.id, escalation_id, action, text)
        except NotFound:
            return self._not_found(request)
        except ParleyError as exc:
            kept = {"id": escalation_id, "action": action, "text": text}
            return self._queue_page(request, me, exc.status if 400 <= exc.status < 500 else 400,
                                    error=str(exc)[:1].upper() + str(exc)[1:], kept=kept)
        verb = {"answer": "Your answer", "decline": "Your decline", "widen": "Your agent's answer"}.get(action, "It")
        return self._done(request, f"Question {escalation_id} decided. {verb} is in the asker's inbox.",
                          "/console/queue")

    # --- mandate -----------------------------------------------------------------------------

    async def mandate(self, request: Request) -> Response:
        me, _, stop = await self._begin(request)
        if stop is not None:
            return stop
        return self._mandate_page(request, me, None)

    def _mandate_page(self, request: Request, me, error: str | None, status_code: int = 200,
                      form=None) -> Response:
        status = mandates.current(self.db, self.key, me.id)
        offered = sorted(default_scopes(self.manifest, lane_of(me.status)))
        return self._page(request, me, "console_mandate.html", status_code=status_code, mandate=status,
                          offered=offered, error=error, missing=self.missing_member_scopes(me), form=form,
                          descriptions={n: d.description for n, d in self.manifest.scopes.items()})

    async def sign(self, request: Request) -> Response:
        me, form, stop = await self._begin(request, form=True)
        if stop is not None:
            return stop
        text = str(form.get("days", "365")).strip()
        days = int(text) if text.isdigit() and len(text) < 5 else 0
        if not 1 <= days <= 730:
            return self._mandate_page(request, me, "A mandate is valid for 1 to 730 days: give a whole number.",
                                      400, form)
        topics = [t.strip() for t in str(form.get("topics", "")).split(",") if t.strip()]
        if any(len(t) > 80 for t in topics) or len(topics) > 50:
            return self._mandate_page(request, me, "At most 50 topics of at most 80 characters.", 400, form)
        try:
            body = mandates.sign_mandate(
                self.db, self.key, principal_id=me.id, topics=topics, reveal=form.getlist("reveal"),
                quotable=form.get("quotable") == "yes", scopes=form.getlist("scope"),
                known_scopes=frozenset(self.manifest.scopes), agent_scopes=self.manifest.agent_scopes,
                valid_for=timedelta(days=days),
            )
        except ParleyError as exc:
            return self._mandate_page(request, me, str(exc), 400, form)
        return self._done(request, f"Signed mandate version {body.version}. It holds for every token from its "
                                   "next request.", "/console/mandate")

    async def member_scopes(self, request: Request) -> Response:
        """Re-sign the mandate with every scope the member lane allows, keeping topics, reveal,
        quotability and (when it has not run out) the expiry."""
        me, form, stop = await self._begin(request, form=True)
        if stop is not None:
            return stop
        missing = self.missing_member_scopes(me)
        back = "/console/mandate" if form.get("back") == "mandate" else "/console"
        if not missing:
            return self._done(request, "Your mandate already grants every member scope.", back)
        status = mandates.current(self.db, self.key, me.id)
        scopes = sorted(set(status.scopes) | set(missing))
        try:
            body = mandates.amend(self.db, self.key, principal_id=me.id, scopes=scopes,
                                  known_scopes=frozenset(self.manifest.scopes), agent_scopes=self.manifest.agent_scopes,
                                  valid_for=None if status.valid else timedelta(days=365))
        except ParleyError as exc:
            return self._mandate_page(request, me, str(exc), exc.status if exc.status < 500 else 400)
        return self._done(request, f"Signed mandate version {body.version} with the member scopes "
                                   f"({', '.join(missing)} added). Your agents get them on their next request.", back)

    def routes(self) -> list[Route]:
        agents = AgentPages(self.pages, self.escalations, self.manifest, self.key, self.rule_sentence)
        club = ClubPages(self.pages, self.escalations, self.manifest, self.key, self.rule_sentence)
        notes = NotePages(self.pages, self.escalations, self.manifest, self.key, self.rule_sentence)
        return [
            Route("/console", self.home, methods=["GET"]),
            Route("/console/queue", self.queue, methods=["GET"]),
            Route("/console/queue/{escalation_id}", self.decide, methods=["POST"]),
            Route("/console/mandate", self.mandate, methods=["GET"]),
            Route("/console/mandate", self.sign, methods=["POST"]),
            Route("/console/mandate/member-scopes", self.member_scopes, methods=["POST"]),
            *agents.routes(),
            *notes.routes(),
            *club.routes(),
        ]

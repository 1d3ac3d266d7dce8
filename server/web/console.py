"""The principal console: the decision queue, the mandate, agents and tokens, and (stewards) applicants.

Server-rendered, usable without JavaScript. Every page and form acts for the signed-in principal
only: ids in URLs and forms are looked up together with that principal, so another principal's
escalation, token or agent answers 404, exactly like one that does not exist.
"""

from __future__ import annotations

from datetime import timedelta

import anyio
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from server.access import default_scopes, lane_of
from server.asking import Escalations
from server.errors import NotFound, ParleyError
from server.identity import mandates, principals, tokens
from server.manifest.schema import Manifest
from server.store import agents as agent_rows
from server.store import oauth as oauth_rows
from server.store import principals as principal_rows
from server.store import records
from server.store import tokens as token_rows
from server.store.database import now
from server.web.pages import Pages

MAX_ID = 2**53


def path_id(request: Request, name: str) -> int:
    """An id from the URL, bounded: anything else is a page that does not exist."""
    text = request.path_params[name]
    if not text.isdigit() or len(text) > 16 or not 1 <= int(text) <= MAX_ID:
        raise NotFound("there is nothing here for you")
    return int(text)


class Console:
    def __init__(self, pages: Pages, escalations: Escalations, manifest: Manifest, key):
        self.pages = pages
        self.db = pages.db
        self.escalations = escalations
        self.manifest = manifest
        self.key = key

    # --- helpers -----------------------------------------------------------------------------

    def _me(self, request: Request):
        principal_id = self.pages.principal_id(request)
        if principal_id is None:
            return None
        return principals.get_principal(self.db, principal_id)

    def _signin(self, request: Request) -> Response:
        return RedirectResponse(f"/signin?next={request.url.path}", status_code=303)

    def _page(self, request: Request, me, template: str, status_code: int = 200, **context) -> Response:
        flash = request.session.pop("flash", None)
        open_count = self.escalations.open_count(me.id)
        return self.pages.render(request, template, status_code=status_code, me=me, csrf=self.pages.csrf(request),
                                 flash=flash, open_count=open_count, **context)

    def _done(self, request: Request, message: str, to: str) -> Response:
        request.session["flash"] = message
        return RedirectResponse(to, status_code=303)

    async def _form(self, request: Request):
        form = await request.form()
        if not self.pages.csrf_ok(request, form):
            return None
        return form

    async def _begin(self, request: Request, form: bool = False):
        """(principal, form, None) to go on, or (None, None, response) to stop: signed out, or a bad form."""
        me = self._me(request)
        if me is None:
            return None, None, self._signin(request)
        if not form:
            return me, None, None
        data = await self._form(request)
        if data is None:
            return me, None, self._refused(request)
        return me, data, None

    def _open_items(self, me) -> list[dict]:
        return [{**item, "thread": self.escalations.thread(item["thread_id"])} for item in self.escalations.queue(me.id)]

    def _refused(self, request: Request) -> Response:
        return self.pages.error(request, "Refused", "The form expired or came from another site; reload and retry.", 403)

    def _not_found(self, request: Request) -> Response:
        return self.pages.error(request, "Not found", "There is nothing here for you.", 404)

    # --- pages -------------------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        me, _, stop = await self._begin(request)
        if stop is not None:
            return stop
        mandate = mandates.current(self.db, self.key, me.id)
        return self._page(request, me, "console_home.html", mandate=mandate)

    async def queue(self, request: Request) -> Response:
        me, _, stop = await self._begin(request)
        if stop is not None:
            return stop
        items = self._open_items(me)
        decided = []
        for status in ("answered", "declined", "widened"):
            decided += self.escalations.queue(me.id, status)
        decided.sort(key=lambda item: item["decided_at"] or "", reverse=True)
        return self._page(request, me, "console_queue.html", items=items, decided=decided[:20], error=None)

    async def decide(self, request: Request) -> Response:
        me, form, stop = await self._begin(request, form=True)
        if stop is not None:
            return stop
        try:
            escalation_id = path_id(request, "escalation_id")
            # a widen re-asks the answering agent, which may be a slow model: off the event loop
            await anyio.to_thread.run_sync(self.escalations.decide, me.id, escalation_id,
                                           str(form.get("action", "")), str(form.get("text", "")))
        except NotFound:
            return self._not_found(request)
        except ParleyError as exc:
            items = self._open_items(me)
            return self._page(request, me, "console_queue.html", status_code=400, items=items, decided=[],
                              error=str(exc))
        return self._done(request, f"Decision on question {escalation_id} delivered to the asker's inbox.",
                          "/console/queue")

    async def mandate(self, request: Request) -> Response:
        me, _, stop = await self._begin(request)
        if stop is not None:
            return stop
        return self._mandate_page(request, me, None)

    def _mandate_page(self, request: Request, me, error: str | None, status_code: int = 200) -> Response:
        status = mandates.current(self.db, self.key, me.id)
        offered = sorted(default_scopes(self.manifest, lane_of(me.status)))
        return self._page(request, me, "console_mandate.html", status_code=status_code, mandate=status,
                          offered=offered, error=error,
                          descriptions={n: d.description for n, d in self.manifest.scopes.items()})

    async def sign(self, request: Request) -> Response:
        me, form, stop = await self._begin(request, form=True)
        if stop is not None:
            return stop
        try:
            days = int(str(form.get("days", "365")))
        except ValueError:
            return self._mandate_page(request, me, "Days must be a whole number.", 400)
        if not 1 <= days <= 730:
            return self._mandate_page(request, me, "A mandate is valid for 1 to 730 days.", 400)
        topics = [t.strip() for t in str(form.get("topics", "")).split(",") if t.strip()]
        if any(len(t) > 80 for t in topics) or len(topics) > 50:
            return self._mandate_page(request, me, "At most 50 topics of at most 80 characters.", 400)
        try:
            body = mandates.sign_mandate(
                self.db, self.key, principal_id=me.id, topics=topics, reveal=form.getlist("reveal"),
                quotable=form.get("quotable") == "yes", scopes=form.getlist("scope"),
                known_scopes=frozenset(self.manifest.scopes), agent_scopes=self.manifest.agent_scopes,
                valid_for=timedelta(days=days),
            )
        except ParleyError as exc:
            return self._mandate_page(request, me, str(exc), 400)
        return self._done(request, f"Signed mandate version {body.version}. It holds for every token from its "
                                   "next request.", "/console/mandate")

    async def agents(self, request: Request) -> Response:
        me, _, stop = await self._begin(request)
        if stop is not None:
            return stop
        return self._agents_page(request, me, None)

    def _agents_page(self, request: Request, me, error: str | None, status_code: int = 200, minted=None) -> Response:
        agents = agent_rows.of_principal(self.db, me.id)
        rows = token_rows.of_principal(self.db, me.id)
        for row in rows:
            row["scopes"] = ", ".join(row["scopes"])
        grants = oauth_rows.grants_of(self.db, me.id)
        return self._page(request, me, "console_agents.html", status_code=status_code, agents=agents, tokens=rows,
                          grants=grants, error=error, minted=minted, scopes=sorted(self.manifest.agent_scopes))

    async def add_agent(self, request: Request) -> Response:
        me, form, stop = await self._begin(request, form=True)
        if stop is not None:
            return stop
        try:
            principals.add_agent(self.db, me.handle, str(form.get("name", "")).strip())
        except ParleyError as exc:
            return self._agents_page(request, me, str(exc), 400)
        return self._done(request, "Agent added.", "/console/agents")

    async def mint(self, request: Request) -> Response:
        me, form, stop = await self._begin(request, form=True)
        if stop is not None:
            return stop
        chosen = str(form.get("agent", ""))
        row = next((a for a in agent_rows.of_principal(self.db, me.id, active_only=True) if str(a["id"]) == chosen),
                   None)
        if row is None:
            return self._agents_page(request, me, "Choose one of your active agents.", 400)
        scopes = set(form.getlist("scope"))
        if not scopes or not scopes <= self.manifest.agent_scopes:
            return self._agents_page(request, me, "Tick at least one scope an agent may hold.", 400)
        minted = tokens.mint(self.db, principal_id=me.id, agent_id=row["id"], scopes=scopes)
        # shown this once, in this response only: never stored, never flashed through the session
        return self._agents_page(request, me, None, minted=minted)

    async def revoke_token(self, request: Request) -> Response:
        me, form, stop = await self._begin(request, form=True)
        if stop is not None:
            return stop
        public_id = request.path_params["public_id"]
        if not public_id.startswith("tok_") or tokens.revoke(self.db, public_id, principal_id=me.id) is None:
            return self._not_found(request)
        return self._done(request, f"Token {public_id} revoked: it is refused from its next request.", "/console/agents")

    async def revoke_grant(self, request: Request) -> Response:
        me, form, stop = await self._begin(request, form=True)
        if stop is not None:
            return stop
        family = request.path_params["family"]
        if not oauth_rows.revoke_grant(self.db, family, "revoked in the console", now(), principal_id=me.id):
            return self._not_found(request)
        return self._done(request, "OAuth grant revoked.", "/console/agents")

    async def applicants(self, request: Request) -> Response:
        me, _, stop = await self._begin(request)
        if stop is not None:
            return stop
        if not me.steward:
            return self._not_found(request)
        people = principal_rows.applicants(self.db)
        for person in people:
            person["statements"] = records.statements_of(self.db, person["id"])
            person["evidence"] = records.evidence_of(self.db, person["id"])
        return self._page(request, me, "console_applicants.html", people=people)

    async def admit(self, request: Request) -> Response:
        me, form, stop = await self._begin(request, form=True)
        if stop is not None:
            return stop
        if not me.steward:
            return self._not_found(request)
        handle = request.path_params["handle"]
        try:
            applicant = principals.find_principal(self.db, handle)
        except principals.ClubError:
            return self._not_found(request)
        if applicant.status != "applicant":
            return self._not_found(request)
        principals.set_status(self.db, handle, "member")
        return self._done(request, f"{handle} is now a member; their tokens reach the member lane from their next "
                                   "request.", "/console/applicants")

    def routes(self) -> list[Route]:
        return [
            Route("/console", self.home, methods=["GET"]),
            Route("/console/queue", self.queue, methods=["GET"]),
            Route("/console/queue/{escalation_id}", self.decide, methods=["POST"]),
            Route("/console/mandate", self.mandate, methods=["GET"]),
            Route("/console/mandate", self.sign, methods=["POST"]),
            Route("/console/agents", self.agents, methods=["GET"]),
            Route("/console/agents", self.add_agent, methods=["POST"]),
            Route("/console/tokens", self.mint, methods=["POST"]),
            Route("/console/tokens/{public_id}/revoke", self.revoke_token, methods=["POST"]),
            Route("/console/grants/{family}/revoke", self.revoke_grant, methods=["POST"]),
            Route("/console/applicants", self.applicants, methods=["GET"]),
            Route("/console/applicants/{handle}/admit", self.admit, methods=["POST"]),
        ]



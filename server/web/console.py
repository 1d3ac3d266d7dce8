"""The principal console: home and the mandate, on the decision queue's pages (`web.queue`);
`Console.routes()` also serves agents and tokens (`web.agents`) and settings, activity and applicants
(`web.club`).

Server-rendered, usable without JavaScript, Post/Redirect/Get after every change. Every page and
form acts for the signed-in principal only: ids in URLs and forms are looked up together with that
principal, so another principal's escalation, token or agent answers 404, exactly like one that does
not exist.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import timedelta

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.access import default_scopes, lane_of
from server.errors import ParleyError
from server.identity import mandates
from server.identity.principals import Principal
from server.store import agents as agent_rows
from server.store import console as console_rows
from server.store import records
from server.store import week as week_rows
from server.store.database import now, parse_time
from server.store.principals import PrincipalStatus
from server.web import mandate_review
from server.web.agents import AgentPages
from server.web.club import ClubPages
from server.web.connect import connection
from server.web.members import MemberPages
from server.web.note_examples import ExamplePages
from server.web.notes import NotePages
from server.web.queue import QueuePages
from server.web.week import picture

STATEMENT_LIMIT = 2000


class Console(QueuePages):
    # --- home --------------------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        me = self._signed_in(request)
        if isinstance(me, Response):
            return me
        return self._home_page(request, me)

    def _home_page(
        self,
        request: Request,
        me: Principal,
        status_code: int = 200,
        errors: dict[str, str] | None = None,
        form: FormData | None = None,
    ) -> Response:
        status = mandates.current(self.db, self.key, me.id)
        seen = console_rows.last_activity(self.db, me.handle)
        agents = [
            {**asdict(agent), "last_seen": seen.get(agent.name)}
            for agent in agent_rows.of_principal(self.db, me.id)
        ]
        open_items = self._open_items(me)
        return self._page(
            request,
            me,
            "console_home.html",
            status_code=status_code,
            errors=errors or {},
            first_error=next(iter(errors or {}), None),
            form=form,
            mandate=status,
            open_items=open_items[:3],
            decided=self._decided(me)[:3],
            agents=agents,
            missing=self.missing_member_scopes(me),
            application=console_rows.application_decision(self.db, me.id),
            connect=connection(request, self.public_url),
            week=picture(self.db, me, open_items, self.say_rule),
            standing=week_rows.standing(self.db) if me.steward else None,
            has_token=any(
                not t.revoked_at and (not t.expires_at or t.expires_at > now())
                for t in console_rows.tokens_of(self.db, me.id)
            ),
        )

    async def apply_again(self, request: Request) -> Response:
        """A declined applicant sends a new application saying what changed; it waits for a steward."""
        begun = await self._signed_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        latest = console_rows.application_decision(self.db, me.id)
        if me.status != PrincipalStatus.APPLICANT or latest is None or latest.status != "declined":
            return self._done(request, "You have no declined application to follow up.", "/console")
        statement = str(form.get("statement", "")).strip()
        if not statement or len(statement) > STATEMENT_LIMIT:
            return self._home_page(
                request,
                me,
                400,
                {
                    "statement": f"Say what changed, in 1 to {STATEMENT_LIMIT} characters; nothing was sent."
                },
                form,
            )
        records.add_application(self.db, me.id, statement, now())
        return self._done(
            request,
            "Your new application is with the stewards. You will see their decision here.",
            "/console",
        )

    # --- mandate -----------------------------------------------------------------------------

    async def mandate(self, request: Request) -> Response:
        me = self._signed_in(request)
        if isinstance(me, Response):
            return me
        return self._mandate_page(request, me, None)

    def _mandate_page(
        self,
        request: Request,
        me: Principal,
        error: str | None,
        status_code: int = 200,
        form: FormData | None = None,
        field: str | None = None,
    ) -> Response:
        status = mandates.current(self.db, self.key, me.id)
        offered = sorted(default_scopes(self.manifest, lane_of(me.status)))
        return self._page(
            request,
            me,
            "console_mandate.html",
            status_code=status_code,
            mandate=status,
            offered=offered,
            error=None if field else error,
            errors={field: error} if field else {},
            first_error=field,
            missing=self.missing_member_scopes(me),
            form=form,
            descriptions={n: d.description for n, d in self.manifest.scopes.items()},
        )

    async def sign(self, request: Request) -> Response:
        """Sign a new version: first a summary of what it changes (no JavaScript needed), then, confirmed,
        the signature. Without a number of days the current expiry is kept."""
        begun = await self._signed_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        status = mandates.current(self.db, self.key, me.id)
        text = str(form.get("days", "")).strip()
        days: int | None = int(text) if text.isdigit() and len(text) < 5 else 0
        if text == "" and status.valid:
            days = None  # keep the expiry
        elif days is None or not 1 <= days <= 730:
            return self._mandate_page(
                request,
                me,
                "A mandate is valid for 1 to 730 days: give a whole number"
                f"{', or leave it empty to keep the current expiry' if status.valid else ''}.",
                400,
                form,
                field="days",
            )
        topics = [t.strip() for t in str(form.get("topics", "")).split(",") if t.strip()]
        if any(len(t) > 80 for t in topics) or len(topics) > 50:
            return self._mandate_page(
                request,
                me,
                "At most 50 topics of at most 80 characters.",
                400,
                form,
                field="topics",
            )
        reveal = [str(v) for v in form.getlist("reveal")]
        scopes = [str(v) for v in form.getlist("scope")]
        quotable = form.get("quotable") == "yes"
        expires_at = mandate_review.new_expiry(status.body, status.valid, days)
        if not self.confirmed(form):
            lines = mandate_review.changes(
                status.body,
                status.valid,
                topics,
                reveal,
                quotable,
                scopes,
                expires_at,
                {n: d.description for n, d in self.manifest.scopes.items()},
            )
            fields = [
                ("topics", [", ".join(topics)]),
                ("reveal", reveal),
                ("scope", scopes),
                ("quotable", ["yes"] if quotable else []),
                ("days", [text]),
            ]
            return self._confirm(
                request,
                me,
                title="Sign this new version of your mandate?",
                lines=["What changes:"],
                items=lines,
                action="/console/mandate",
                button="Sign the new version",
                back="/console/mandate",
                fields=fields,
                danger=False,
            )
        try:
            body = mandates.sign_mandate(
                self.db,
                self.key,
                principal_id=me.id,
                topics=topics,
                reveal=reveal,
                quotable=quotable,
                scopes=scopes,
                known_scopes=frozenset(self.manifest.scopes),
                agent_scopes=self.manifest.agent_scopes,
                expires_at=parse_time(expires_at),
            )
        except ParleyError as exc:
            return self._mandate_page(request, me, str(exc)[:1].upper() + str(exc)[1:], 400, form)
        return self._done(
            request,
            f"Signed mandate version {body.version}. It holds for every token from its "
            "next request.",
            "/console/mandate",
        )

    async def member_scopes(self, request: Request) -> Response:
        """Re-sign the mandate with every scope the member lane allows, keeping topics, reveal,
        quotability and (when it has not run out) the expiry."""
        begun = await self._signed_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        missing = self.missing_member_scopes(me)
        back = "/console/mandate" if form.get("back") == "mandate" else "/console"
        if not missing:
            return self._done(
                request, "Your mandate already lets your agents do everything members can.", back
            )
        status = mandates.current(self.db, self.key, me.id)
        scopes = sorted(set(status.scopes) | set(missing))
        try:
            body = mandates.amend(
                self.db,
                self.key,
                principal_id=me.id,
                scopes=scopes,
                known_scopes=frozenset(self.manifest.scopes),
                agent_scopes=self.manifest.agent_scopes,
                valid_for=None if status.valid else timedelta(days=365),
            )
        except ParleyError as exc:
            return self._mandate_page(
                request, me, str(exc), exc.status if exc.status < 500 else 400
            )
        return self._done(
            request,
            f"Signed mandate version {body.version}: your agents can now do everything members can "
            f"({', '.join(missing)} added) from their next request.",
            back,
        )

    def routes(self) -> list[Route]:
        shared = (
            self.pages,
            self.escalations,
            self.manifest,
            self.key,
            self.rule_sentence,
            self.public_url,
        )
        agents, club, members = AgentPages(*shared), ClubPages(*shared), MemberPages(*shared)
        notes, taught = NotePages(*shared), ExamplePages(*shared)
        return [
            Route("/console", self.home, methods=["GET"]),
            Route("/console/application", self.apply_again, methods=["POST"]),
            *self.queue_routes(),
            Route("/console/mandate", self.mandate, methods=["GET"]),
            Route("/console/mandate", self.sign, methods=["POST"]),
            Route("/console/mandate/member-scopes", self.member_scopes, methods=["POST"]),
            *agents.routes(),
            *notes.routes(),
            *taught.routes(),
            *club.routes(),
            *members.routes(),
        ]

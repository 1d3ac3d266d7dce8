"""Console: Settings (the router's language and what it does with a twice-unread turn, per member
and, for stewards, the club's defaults; the password) and, for stewards, Applicants (admit, or
decline with a reason the applicant reads)."""

from __future__ import annotations

from dataclasses import asdict

import anyio
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.errors import ParleyError
from server.identity import principals
from server.identity.passwords import check_password
from server.identity.principals import Principal
from server.store import console as console_rows
from server.store import principals as principal_rows
from server.store import records
from server.store import settings as setting_rows
from server.store.database import now
from server.store.principals import PrincipalStatus
from server.web.frame import Frame

ON_UNREAD = {
    "refuse": "Say it did not understand, and do nothing.",
    "model": "Let your agent decide what to do; whatever it then asks of the club is still checked.",
    "ask": "Ask you first whether your agent may decide.",
    "answer": "Answer from your notes, without doing anything.",
}
# The question the choices above answer, on the page and in its confirmation.
NOT_UNDERSTOOD = (
    "When your agent still does not understand a message after asking you to say it again"
)
REASON_LIMIT = 1000


class ClubPages(Frame):
    # --- settings ----------------------------------------------------------------------------

    def _settings_page(
        self,
        request: Request,
        me: Principal,
        error: str | None = None,
        status_code: int = 200,
        errors: dict[str, str] | None = None,
    ) -> Response:
        own = setting_rows.router_settings(self.db, me.id)
        club = setting_rows.router_settings(self.db, setting_rows.CLUB)
        return self._page(
            request,
            me,
            "console_settings.html",
            status_code=status_code,
            own=own,
            club=club,
            on_unread=ON_UNREAD,
            not_understood=NOT_UNDERSTOOD,
            error=error,
            chosen=console_rows.has_own_router_settings(self.db, me.id),
            errors=errors or {},
            first_error=next(iter(errors or {}), None),
        )

    async def settings(self, request: Request) -> Response:
        me = self._signed_in(request)
        if isinstance(me, Response):
            return me
        return self._settings_page(request, me)

    def _router_choice(self, form: FormData) -> tuple[str, str] | None:
        language, on_unread = str(form.get("language", "")), str(form.get("on_unread", ""))
        if language not in ("en", "pt-BR") or on_unread not in ON_UNREAD:
            return None
        return language, on_unread

    async def save_settings(self, request: Request) -> Response:
        return await self._save_router(request, club=False)

    async def save_club_settings(self, request: Request) -> Response:
        return await self._save_router(request, club=True)

    async def _save_router(self, request: Request, club: bool) -> Response:
        """A member's own router settings, or (a steward only) the club's defaults."""
        begun = await self._signed_form(request, steward=club)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        choice = self._router_choice(form)
        if choice is None:
            return self._settings_page(
                request, me, "Choose a language and what to do with an unread turn.", 400
            )
        setting_rows.set_router_settings(self.db, setting_rows.CLUB if club else me.id, *choice)
        done = (
            "The club's defaults are saved: they hold for every member who set none."
            if club
            else "Settings saved: your agents' next conversations start with them."
        )
        return self._done(request, done, "/console/settings")

    async def reset_settings(self, request: Request) -> Response:
        """Back to the club's defaults: the member's own choice is forgotten, after a confirmation."""
        begun = await self._signed_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        if not console_rows.has_own_router_settings(self.db, me.id):
            return self._done(
                request, "You already follow the club's defaults.", "/console/settings"
            )
        if not self.confirmed(form):
            club = setting_rows.router_settings(self.db, setting_rows.CLUB)
            language = {"en": "English", "pt-BR": "Português (Brasil)"}.get(
                club["language"], club["language"]
            )
            return self._confirm(
                request,
                me,
                title="Go back to the club's defaults?",
                lines=[
                    "Your own choice is forgotten. From their next conversation your agents expect"
                    f" you to write in {language}.",
                    f"{NOT_UNDERSTOOD}: {ON_UNREAD[club['on_unread']]}",
                    "When a steward changes the club's defaults, yours follow.",
                ],
                action="/console/settings/reset",
                button="Use the club's defaults",
                back="/console/settings",
                danger=False,
            )
        setting_rows.clear_router_settings(self.db, me.id)
        return self._done(request, "You follow the club's defaults again.", "/console/settings")

    async def password(self, request: Request) -> Response:
        """Change the password: every session ends, this browser's included, then it signs in afresh."""
        begun = await self._signed_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        refused = await self.pages.guessing_refused(request, me.handle)
        if refused is not None:
            return refused
        record = principal_rows.sign_in_record(self.db, me.handle)
        current, new, again = (
            str(form.get(name, ""))[:1024] for name in ("current", "new", "again")
        )
        if record is None or not await anyio.to_thread.run_sync(check_password, current, record[2]):
            return self._settings_page(
                request,
                me,
                None,
                400,
                {"current": "Your current password is not right; nothing changed."},
            )
        if new != again:
            return self._settings_page(
                request, me, None, 400, {"again": "The two new passwords differ; nothing changed."}
            )
        try:
            # scrypt, then the write: in a worker thread. It ends every console session of this principal.
            await anyio.to_thread.run_sync(principals.set_password, self.db, me.handle, new)
        except ParleyError as exc:
            return self._settings_page(
                request, me, None, 400, {"new": str(exc)[:1].upper() + str(exc)[1:] + "."}
            )
        self.pages.start_session(request, me.id)
        return self._done(
            request,
            "Password changed. Every other browser signed in as you was signed out.",
            "/console/settings",
        )

    # --- applicants (stewards) ---------------------------------------------------------------

    async def applicants(self, request: Request) -> Response:
        me = self._signed_in(request, steward=True)
        if isinstance(me, Response):
            return me
        return self._applicants_page(request, me)

    def _applicants_page(
        self,
        request: Request,
        me: Principal,
        status_code: int = 200,
        error: str | None = None,
        kept: dict[str, str] | None = None,
    ) -> Response:
        people = [
            {
                **asdict(person),
                "statements": [s for s in records.statements_of(self.db, person.id) if s],
                "evidence": records.evidence_of(self.db, person.id),
            }
            for person in console_rows.applications(self.db)
        ]
        return self._page(
            request,
            me,
            "console_applicants.html",
            status_code=status_code,
            error=error,
            kept=kept or {},
            waiting=[p for p in people if p["status"] != "declined"],
            declined=[p for p in people if p["status"] == "declined"],
        )

    async def admit(self, request: Request) -> Response:
        begun = await self._on_person(request, PrincipalStatus.APPLICANT)
        if isinstance(begun, Response):
            return begun
        me, form, person = begun
        principals.set_status(self.db, person.handle, PrincipalStatus.MEMBER)
        console_rows.decide_application(self.db, person.id, "admitted", "Admitted.", now())
        return self._done(
            request,
            f"{person.name} (@{person.handle}) is now a member; their tokens reach the member "
            "lane from their next request.",
            "/console/applicants",
        )

    async def decline(self, request: Request) -> Response:
        begun = await self._on_person(request, PrincipalStatus.APPLICANT)
        if isinstance(begun, Response):
            return begun
        me, form, person = begun
        reason = str(form.get("reason", "")).strip()
        if not reason or len(reason) > REASON_LIMIT:
            return self._applicants_page(
                request,
                me,
                400,
                f"Give the applicant a reason (1 to {REASON_LIMIT} characters); nothing changed.",
                {"handle": person.handle, "reason": reason[: REASON_LIMIT * 2]},
            )
        if not self.confirmed(form):
            return self._confirm(
                request,
                me,
                title=f"Decline {person.name} (@{person.handle})?",
                lines=[
                    f"{person.name} reads your reason on their console Home, and their agent in its inbox: “{reason}”",
                    "They stay an applicant and can apply again. If you change your mind, the Declined list lets you "
                    "reconsider.",
                ],
                action=f"/console/applicants/{person.handle}/decline",
                button=f"Decline {person.handle}",
                back="/console/applicants",
                fields=[("reason", [reason])],
            )
        stamp = now()
        if console_rows.decide_application(self.db, person.id, "declined", reason, stamp) == 0:
            records.add_application(
                self.db, person.id, "", stamp
            )  # no open application: record the decision
            console_rows.decide_application(self.db, person.id, "declined", reason, stamp)
        return self._done(
            request,
            f"{person.name}'s application is declined; their agent reads your reason in its inbox.",
            "/console/applicants",
        )

    def routes(self) -> list[Route]:
        return [
            Route("/console/settings", self.settings, methods=["GET"]),
            Route("/console/settings", self.save_settings, methods=["POST"]),
            Route("/console/settings/club", self.save_club_settings, methods=["POST"]),
            Route("/console/settings/reset", self.reset_settings, methods=["POST"]),
            Route("/console/password", self.password, methods=["POST"]),
            Route("/console/applicants", self.applicants, methods=["GET"]),
            Route("/console/applicants/{handle}/admit", self.admit, methods=["POST"]),
            Route("/console/applicants/{handle}/decline", self.decline, methods=["POST"]),
        ]

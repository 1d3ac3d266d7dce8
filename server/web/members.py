"""Console, for stewards: the members list with search, and suspending or reinstating someone (after a
confirmation that says what it does), and taking back a decline (the application waits again)."""

from __future__ import annotations

from dataclasses import asdict

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.identity import principals
from server.store import console as console_rows
from server.store import principals as principal_rows
from server.store.principals import ListedPrincipal, PrincipalStatus
from server.web.frame import Frame

SHOWN = 200
STATUS_WORDS = {
    PrincipalStatus.MEMBER: "member",
    PrincipalStatus.APPLICANT: "applying",
    PrincipalStatus.SUSPENDED: "suspended",
}


def standing_since(person: ListedPrincipal) -> tuple[str, str]:
    """What the date beside a person says: when they joined, once admitted; else when they applied."""
    if person.admitted_at:
        return "joined", person.admitted_at
    return "applied", person.created_at


class MemberPages(Frame):
    async def members(self, request: Request) -> Response:
        me = self._signed_in(request, steward=True)
        if isinstance(me, Response):
            return me
        query = " ".join(request.query_params.get("q", "").split())[:80]
        status = request.query_params.get("status", "")
        status = status if status in STATUS_WORDS else ""
        everyone = principal_rows.listing(self.db)
        words = query.lower().split()
        found = [
            p
            for p in everyone
            if (not status or p.status == status)
            and all(w in f"{p.handle} {p.name}".lower() for w in words)
        ]
        return self._page(
            request,
            me,
            "console_members.html",
            people=[{**asdict(p), "since": standing_since(p)} for p in found[:SHOWN]],
            total=len(found),
            query=query,
            status=status,
            statuses=STATUS_WORDS,
            shown=SHOWN,
        )

    async def suspend(self, request: Request) -> Response:
        begun = await self._on_person(request)
        if isinstance(begun, Response):
            return begun
        me, form, person = begun
        if person.id == me.id or person.status == PrincipalStatus.SUSPENDED:
            return self._done(
                request,
                f"{person.name} cannot be suspended from here: "
                f"{'that is you' if person.id == me.id else 'already suspended'}.",
                "/console/members",
            )
        if not self.confirmed(form):
            return self._confirm(
                request,
                me,
                title=f"Suspend {person.name} (@{person.handle})?",
                lines=[
                    f"{person.name} is signed out of the console at once and cannot sign in. Every agent acting for "
                    "them is refused from its next request, and no one can ask their agent questions.",
                    "You can reinstate them later from the members list; their tokens and mandate are kept.",
                ],
                action=f"/console/members/{person.handle}/suspend",
                button=f"Suspend {person.name}",
                back="/console/members",
            )
        principals.set_status(self.db, person.handle, PrincipalStatus.SUSPENDED)
        return self._done(
            request, f"{person.name} (@{person.handle}) is suspended.", "/console/members"
        )

    async def reinstate(self, request: Request) -> Response:
        begun = await self._on_person(request)
        if isinstance(begun, Response):
            return begun
        me, form, person = begun
        if person.status != PrincipalStatus.SUSPENDED:
            return self._done(request, f"{person.name} is not suspended.", "/console/members")
        back = PrincipalStatus.MEMBER if person.admitted_at else PrincipalStatus.APPLICANT
        principals.set_status(self.db, person.handle, back)
        return self._done(
            request,
            f"{person.name} (@{person.handle}) is back as {STATUS_WORDS[back]}.",
            "/console/members",
        )

    async def reconsider(self, request: Request) -> Response:
        """Undo a decline: the applicant's newest application waits for a decision again."""
        begun = await self._on_person(request)
        if isinstance(begun, Response):
            return begun
        me, form, person = begun
        if (
            person.status != PrincipalStatus.APPLICANT
            or console_rows.reopen_application(self.db, person.id) == 0
        ):
            return self._not_found(request)
        return self._done(
            request,
            f"{person.name}'s application waits for a decision again.",
            "/console/applicants",
        )

    def routes(self) -> list[Route]:
        return [
            Route("/console/members", self.members, methods=["GET"]),
            Route("/console/members/{handle}/suspend", self.suspend, methods=["POST"]),
            Route("/console/members/{handle}/reinstate", self.reinstate, methods=["POST"]),
            Route("/console/applicants/{handle}/reconsider", self.reconsider, methods=["POST"]),
        ]

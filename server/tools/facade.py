"""What a tool may use of the club, built for one call from its caller: never the database or a key.

`Reads` reads the caller's own principal's records (whose id comes from the caller, never from an
argument) and the member directory; `Writes` writes only the caller's own records, and signs with the
mandate key by offering the operation (amend, apply), not the key. A tool that does not write is
given a context without `Writes` (`server/tools/registry.py`), so mypy refuses a write there.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from server.access import Caller, Lane, default_scopes
from server.asking import Asked, Escalations, briefing
from server.asking.briefing import Visibility
from server.errors import ParleyError
from server.identity import mandates, principals, tokens
from server.identity.mandates import MandateStatus
from server.identity.principals import Principal
from server.identity.tokens import MintedToken
from server.keys.mandate import SigningKey
from server.manifest.schema import Manifest
from server.store import asking, records, settings
from server.store import principals as principal_rows

# the records a tool reads, named here so that no tool imports the store
from server.store.asking import ListedThread as ListedThread
from server.store.asking import Message as Message
from server.store.console import Application, application_decision
from server.store.database import Database, now, write
from server.store.principals import FoundMember, PrincipalStatus
from server.store.records import BriefingNote as BriefingNote
from server.store.records import Evidence as Evidence

APPLICANT_MANDATE_DAYS = 180


class ToolError(ParleyError):
    """A refusal the calling agent can act on; the message says what to do next."""


@dataclass(frozen=True)
class Club:
    """What the server lends its tools' facades; a tool itself never holds it."""

    db: Database
    key: SigningKey
    manifest: Manifest
    asking: Escalations | None = None  # asking members, filing decisions


@dataclass(frozen=True)
class Applied:
    """A new applicant, made by `Writes.apply`: its principal, application and one agent token."""

    principal: Principal
    application_id: int
    token: MintedToken


def acting_for(caller: Caller) -> int:
    """The principal a call acts for. A tool that needs one is never visible to a guest; if one were
    reached without a principal anyway, it refuses rather than act for nobody."""
    if caller.principal_id is None:
        raise ToolError("this tool acts for a principal: connect with a credential")
    return caller.principal_id


class _Confined:
    __slots__ = ("_caller", "_club")

    def __init__(self, club: Club, caller: Caller):
        self._club = club
        self._caller = caller

    @property
    def _me(self) -> int:
        return acting_for(self._caller)


class Reads(_Confined):
    """The caller's own records, and the member directory (admitted members only)."""

    __slots__ = ()

    def profile(self) -> Principal:
        return principals.get_principal(self._club.db, self._me)

    def mandate(self) -> MandateStatus:
        """The caller's principal's current mandate, its signature checked."""
        return mandates.current(self._club.db, self._club.key, self._me)

    def notes(self) -> list[BriefingNote]:
        """The briefing's notes, every status."""
        return briefing.notes(self._club.db, self._me)

    def evidence(self) -> list[Evidence]:
        return records.evidence_of(self._club.db, self._me)

    def application(self) -> Application | None:
        """The newest application and how a steward decided it, if there is one."""
        return application_decision(self._club.db, self._me)

    def threads(self, limit: int) -> list[tuple[ListedThread, list[Message]]]:
        """The threads the caller's principal asked or was asked in, newest first, each with its
        messages: a thread's messages are read only through a thread of the caller's."""
        db = self._club.db
        return [
            (thread, asking.messages(db, thread.id))
            for thread in asking.threads_of(db, self._me, limit)
        ]

    def router_settings(self) -> dict[str, str]:
        """The principal's own router settings, else the club's (a caller without a principal: the club's)."""
        return settings.router_settings(self._club.db, self._caller.principal_id)

    def search_members(self, words: list[str], limit: int) -> list[FoundMember]:
        return principal_rows.search_members(self._club.db, words, limit)

    def member(self, handle: str) -> tuple[Principal, MandateStatus] | None:
        """An admitted member by handle, with their mandate, its signature checked (what their
        answering agent may treat); None for anyone else (an applicant, or no one)."""
        try:
            found = principals.find_principal(self._club.db, handle)
        except principals.ClubError:
            return None
        if found.status != PrincipalStatus.MEMBER:
            return None
        return found, mandates.current(self._club.db, self._club.key, found.id)

    def member_handles(self) -> list[str]:
        """Handles of admitted members, for the router's known values."""
        return principal_rows.member_handles(self._club.db)


class Writes(_Confined):
    """Changes to the caller's own records; a new principal only for a caller who is none."""

    __slots__ = ()

    def write_note(
        self, topic: str, text: str, visibility: Visibility, note_id: int | None
    ) -> BriefingNote:
        """A note for the caller's answering agent, pending its principal's approval when an agent wrote it."""
        return briefing.write_note(
            self._club.db,
            self._me,
            topic,
            text,
            visibility,
            agent=self._caller.agent or principals.OWN_TOKEN,
            note_id=note_id,
        )

    def add_evidence(self, kind: str, title: str, detail: str, url: str | None) -> Evidence:
        """Log evidence now; the stored item, as `Reads.evidence` lists it."""
        stamp = now()
        item_id = records.add_evidence(self._club.db, self._me, kind, title, detail, url, stamp)
        return Evidence(
            id=item_id, kind=kind, title=title, detail=detail, url=url, created_at=stamp
        )

    def add_refund(self, order_id: str, amount: float, expedite: bool, reason: str) -> int:
        return records.add_refund(
            self._club.db,
            principal_id=self._me,
            agent=self._caller.agent,
            order_id=order_id,
            amount=amount,
            expedite=expedite,
            reason=reason,
            stamp=now(),
        )

    def amend_mandate(
        self,
        *,
        topics: list[str] | None,
        reveal: list[str] | None,
        quotable: bool | None,
        scopes: list[str] | None,
        valid_for: timedelta | None,
    ) -> None:
        """Re-sign the caller's principal's mandate with what changes; within the club's scopes."""
        manifest = self._club.manifest
        mandates.amend(
            self._club.db,
            self._club.key,
            principal_id=self._me,
            known_scopes=frozenset(manifest.scopes),
            agent_scopes=manifest.agent_scopes,
            topics=topics,
            reveal=reveal,
            quotable=quotable,
            scopes=scopes,
            valid_for=valid_for,
        )

    def apply(self, handle: str, name: str, statement: str) -> Applied:
        """A new applicant, in one write: principal, application, an agent, the club's standard
        applicant mandate (the applicant lane's default scopes, signed: applying is the applicant's
        approval of it) and the agent's token. Only a caller without a credential applies: one who
        has one already acts for a principal."""
        caller = self._caller
        if caller.verified:
            raise ToolError(
                f"this connection already acts for {caller.principal} ({caller.principal_status}); "
                "apply from a connection without a credential"
            )
        db, manifest = self._club.db, self._club.manifest
        scopes = sorted(default_scopes(manifest, Lane.APPLICANT))
        with write(db):
            principal = principals.add_principal(db, handle, name, status=PrincipalStatus.APPLICANT)
            application_id = records.add_application(db, principal.id, statement, now())
            agent_id = principals.add_agent(db, principal.handle)
            mandates.sign_mandate(
                db,
                self._club.key,
                principal_id=principal.id,
                topics=[],
                reveal=["public"],
                quotable=False,
                scopes=scopes,
                known_scopes=frozenset(manifest.scopes),
                agent_scopes=manifest.agent_scopes,
                valid_for=timedelta(days=APPLICANT_MANDATE_DAYS),
            )
            minted = tokens.mint(
                db, principal_id=principal.id, agent_id=agent_id, scopes=manifest.agent_scopes
            )
        return Applied(principal, application_id, minted)

    async def ask(
        self,
        member: str,
        question: str,
        language: str,
        thread_id: int | None,
        idempotency_key: str | None,
    ) -> Asked:
        """Ask a member's answering agent as the caller's principal, through the caller's agent."""
        if self._club.asking is None:
            raise ToolError("asking members is not available on this server")
        caller = self._caller
        return await self._club.asking.ask(
            asker_id=self._me,
            asker_agent=caller.agent,
            asker_is_member=caller.lane == Lane.MEMBER,
            member=member,
            question=question,
            language=language,
            thread_id=thread_id,
            idempotency_key=idempotency_key,
            revision=caller.identity.revision if caller.identity is not None else None,
        )

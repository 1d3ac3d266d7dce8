"""What every console page shares: who is signed in, bounded ids, CSRF-checked forms, the page frame
(navigation, flash message, queue count) and Post/Redirect/Get."""

from __future__ import annotations

from collections.abc import Callable
from typing import NotRequired, Protocol, TypedDict, Unpack

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from server.access import Lane, default_scopes
from server.asking import Escalations, briefing, queue
from server.errors import NotFound
from server.identity import mandates, principals
from server.identity.principals import Principal
from server.keys.mandate import SigningKey
from server.manifest.schema import Manifest
from server.store.principals import PrincipalStatus
from server.web.pages import Pages

MAX_ID = 2**53
LANGUAGES = {"en": "English", "pt-BR": "Português (Brasil)"}

# (entry persona or None, tool, rule name) → the rule's sentence ("amount is at most 500"), or None
RuleSentence = Callable[[str | None, str, str], str | None]


def bounded_id(text: object) -> int | None:
    """A small positive integer, or None: ids in URLs and forms are nothing else."""
    if (
        not isinstance(text, str)
        or not text.isdigit()
        or len(text) > 16
        or not 1 <= int(text) <= MAX_ID
    ):
        return None
    return int(text)


def path_id(request: Request, name: str) -> int:
    """An id from the URL, bounded: anything else is a page that does not exist."""
    found = bounded_id(request.path_params[name])
    if found is None:
        raise NotFound("there is nothing here for you")
    return found


class Confirmation(TypedDict):
    """What an "are you sure?" page says: its question, what will happen, the form it posts again
    (with any fields to carry), its button, and the way back that changes nothing."""

    title: str
    lines: list[str]
    action: str
    button: str
    back: str
    fields: NotRequired[list[tuple[str, list[str]]] | None]
    danger: NotRequired[bool]  # a destructive action (the default): its button is marked so
    items: NotRequired[list[str] | None]


# Pages of what a member's agent does for others (it is asked questions, it quotes notes): an applicant
# is answered with what their page would be for, and what to do meanwhile.
MEMBERS_ONLY = {"console_queue.html": "Queue", "console_notes.html": "Notes"}


class RuleMention(Protocol):
    """What names a rule an audited call met: the binding's agent, the tool and the rule's name (an
    audited call, or a count of refusals by rule)."""

    @property
    def binding_agent(self) -> str | None: ...

    @property
    def tool(self) -> str: ...

    @property
    def rule(self) -> str | None: ...


class Frame:
    def __init__(
        self,
        pages: Pages,
        escalations: Escalations,
        manifest: Manifest,
        key: SigningKey,
        rule_sentence: RuleSentence | None = None,
        public_url: str | None = None,
    ):
        self.pages = pages
        self.db = pages.db
        self.escalations = escalations
        self.manifest = manifest
        self.key = key
        self.rule_sentence = rule_sentence
        self.public_url = (
            public_url  # PARLEY_PUBLIC_URL when set: what members paste into their clients
        )

    def _me(self, request: Request) -> Principal | None:
        principal_id = self.pages.principal_id(request)
        if principal_id is None:
            return None
        return principals.get_principal(self.db, principal_id)

    def _signin(self, request: Request) -> Response:
        return RedirectResponse(f"/signin?next={request.url.path}", status_code=303)

    def _page(
        self,
        request: Request,
        me: Principal,
        template: str,
        status_code: int = 200,
        **context: object,
    ) -> Response:
        if me.status != PrincipalStatus.MEMBER and template in MEMBERS_ONLY:
            # an applicant's agent cannot write notes nor be asked: the page says so and what comes next
            template, context = "console_members_only.html", {"page_name": MEMBERS_ONLY[template]}
        flash = request.session.pop("flash", None)
        open_count = queue.open_count(self.db, me.id)
        return self.pages.render(
            request,
            template,
            status_code=status_code,
            me=me,
            csrf=self.pages.csrf(request),
            flash=flash,
            open_count=open_count,
            notes_waiting=briefing.pending_count(self.db, me.id),
            languages=LANGUAGES,
            # what each scope lets an agent do, in the member's words: pages show these, not scope names
            scope_words={name: scope.description for name, scope in self.manifest.scopes.items()},
            section=template.removeprefix("console_").removesuffix(".html"),
            **context,
        )

    def _done(self, request: Request, message: str, to: str) -> Response:
        """Post/Redirect/Get: the message travels in the session to the page redirected to."""
        request.session["flash"] = message
        return RedirectResponse(to, status_code=303)

    def _signed_in(self, request: Request, steward: bool = False) -> Principal | Response:
        """The principal signed in, to go on, or the response that stops here: signed out, or a
        steward's page asked for by someone who is not one (404, as if it did not exist)."""
        me = self._me(request)
        if me is None:
            return self._signin(request)
        if steward and not me.steward:
            return self._not_found(request)
        return me

    async def _signed_form(
        self, request: Request, steward: bool = False
    ) -> tuple[Principal, FormData] | Response:
        """As `_signed_in`, with the form posted, which must carry this session's CSRF token."""
        me = self._signed_in(request, steward)
        if isinstance(me, Response):
            return me
        data = await request.form()
        if not self.pages.csrf_ok(request, data):
            return self._refused(request)
        return me, data

    async def _on_person(
        self, request: Request, status: str | None = None
    ) -> tuple[Principal, FormData, Principal] | Response:
        """A steward's form about the person the URL names by handle (of this status, when given):
        the steward, the form and the person, or the response that stops here (404: nobody)."""
        begun = await self._signed_form(request, steward=True)
        if isinstance(begun, Response):
            return begun
        try:
            person = principals.find_principal(self.db, request.path_params["handle"][:40])
        except principals.ClubError:
            return self._not_found(request)
        if status is not None and person.status != status:
            return self._not_found(request)
        return (*begun, person)

    def _confirm(
        self,
        request: Request,
        me: Principal,
        **confirm: Unpack[Confirmation],
    ) -> Response:
        """The "are you sure?" step of a destructive form, without JavaScript: the same form again with
        `confirm=yes`, saying what will happen, and a way back that changes nothing."""
        return self._page(
            request,
            me,
            "console_confirm.html",
            title=confirm["title"],
            lines=confirm["lines"],
            action=confirm["action"],
            button=confirm["button"],
            back=confirm["back"],
            fields=confirm.get("fields") or [],
            danger=confirm.get("danger", True),
            items=confirm.get("items") or [],
        )

    @staticmethod
    def confirmed(form: FormData) -> bool:
        return form.get("confirm") == "yes"

    def _refused(self, request: Request) -> Response:
        return self.pages.error(
            request, "Refused", "The form expired or came from another site; reload and retry.", 403
        )

    def _not_found(self, request: Request) -> Response:
        return self.pages.error(request, "Not found", "There is nothing here for you.", 404)

    def say_rule(self, call: RuleMention, rule: str | None = None) -> str | None:
        """An audited call's rule as the sentence it reads as today ("amount is at most 500"): the
        rule that refused it, or `rule`, another met on its way; None when the rule book cannot say
        (the page then shows the rule's name). The audit keeps only the name."""
        name = rule or call.rule
        if self.rule_sentence is None or not name:
            return None
        try:
            return self.rule_sentence(call.binding_agent or None, call.tool, name)
        except Exception:  # a rule book that cannot say: show the rule's name alone
            return None

    def missing_member_scopes(self, me: Principal) -> list[str]:
        """Scopes the member lane allows that the member's mandate leaves out (a mandate signed as an
        applicant, or one narrowed since): empty for applicants."""
        if me.status != PrincipalStatus.MEMBER:
            return []
        status = mandates.current(self.db, self.key, me.id)
        return sorted(default_scopes(self.manifest, Lane.MEMBER) - status.scopes)

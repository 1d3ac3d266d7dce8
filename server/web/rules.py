"""Console: Rules, for stewards. The bindings (agent · parley · tool) as a graph, a tool's panel with its
rules in force and in draft, the rule editor (builder or CEL), publishing with a summary, and the
warning every steward's Home shows while a stored rule no longer compiles (its tool refuses every call).

Every change goes through the very `RuleBook` the chokepoint applies and `parley rules` uses: one
code path for draft, publish and remove. Members who are not stewards get 403 and see no link.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

import anyio
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.asking import Escalations
from server.chokepoint.context_sources import IDENTITY
from server.chokepoint.rulebook import RuleBook
from server.chokepoint.rules import OPERATORS, Rule, RuleError
from server.chokepoint.stored_rules import BrokenRule
from server.errors import NotFound
from server.identity.principals import Principal
from server.keys.mandate import SigningKey
from server.manifest.schema import Manifest
from server.web.frame import Frame, bounded_id, path_id
from server.web.pages import Pages
from server.web.rule_cards import binding_panels, publish_summary
from server.web.rule_form import Editor, EditorState
from server.web.rule_graph import Graph, ToolFacts, layout


class Overview(TypedDict):
    """The graph of bindings and what it is drawn from, for the Rules page."""

    graph: Graph
    draft_count: int
    facts: list[ToolFacts]


class StoredRule(TypedDict):
    """A rule of the store not removed (published or drafted), by its store id."""

    id: int
    name: str
    state: str
    tool: str


class RulePages(Frame):
    def __init__(
        self,
        pages: Pages,
        escalations: Escalations,
        manifest: Manifest,
        key: SigningKey,
        rulebook: RuleBook,
    ):
        super().__init__(pages, escalations, manifest, key)
        self.rulebook = rulebook
        # Home (and any page that includes `_rules_broken.html`) asks for the rules holding tools back
        pages.templates.env.globals["broken_rules"] = self.broken_rules

    def broken_rules(self) -> list[BrokenRule]:
        """Published rules that no longer compile, read afresh (the store may have changed)."""
        self.rulebook.refresh()
        return self.rulebook.broken()

    def _steward(self, request: Request) -> Principal | Response:
        """As `_signed_in`, but a member who is not a steward is told so (403), not shown a page
        that is missing."""
        me = self._signed_in(request)
        if isinstance(me, Principal) and not me.steward:
            return self.pages.error(
                request, "Stewards only", "Only the club's stewards see and change its rules.", 403
            )
        return me

    async def _steward_form(self, request: Request) -> tuple[Principal, FormData] | Response:
        """As `_signed_form`, for a steward (see `_steward`)."""
        me = self._steward(request)
        if isinstance(me, Response):
            return me
        return await self._signed_form(request)

    # --- the graph and a tool's panel ----------------------------------------------------------

    def _bindings(self, tool: str) -> list[str]:
        return [name for name, agent in self.manifest.agents.items() if tool in agent.tools]

    def _sources_read(self, rules: list[Rule]) -> set[str]:
        provider = self.rulebook.sources.provider
        return {
            provider[path]
            for rule in rules
            for path in rule.attributes
            if path in provider and provider[path] != IDENTITY
        }

    def _overview(self, selected: str | None) -> Overview:
        self.rulebook.refresh()
        drafts, removals = self.rulebook.drafts(), self.rulebook.removals()
        facts = []
        for tool in self.manifest.tools:
            agents = self._bindings(tool)
            in_force = [rule for agent in agents for rule in self.rulebook.rules_for(agent, tool)]
            drafted = [
                compiled for row, compiled in drafts if row.tool == tool and row.agent in agents
            ]
            read = self._sources_read(
                in_force + [rule for c in drafted if isinstance(c, list) for rule in c]
            )
            leaving = sum(1 for row in removals if row.tool == tool and row.agent in agents)
            facts.append(
                ToolFacts(
                    tool,
                    bool(agents),
                    len(in_force),
                    len(drafted),
                    leaving,
                    sum(len(self.rulebook.broken(agent, tool)) for agent in agents),
                    tuple(sorted(read)),
                )
            )
        sources = sorted(name for name in self.manifest.context_sources)
        return Overview(
            graph=layout(list(self.manifest.agents), facts, sources, selected),
            draft_count=len(drafts) + len(removals),
            facts=facts,
        )

    async def index(self, request: Request) -> Response:
        me = self._steward(request)
        if isinstance(me, Response):
            return me
        tool = request.query_params.get("tool")
        if tool is not None and tool not in self.manifest.tools:
            return self._not_found(request)
        overview = self._overview(tool)
        return self._page(
            request,
            me,
            "rules.html",
            tool=tool,
            panel=binding_panels(self.rulebook, self._bindings(tool), tool) if tool else None,
            description=self._description(tool) if tool else "",
            **overview,
        )

    def _description(self, tool: str) -> str:
        from server import tools

        spec = tools.load_all().get(tool)
        return spec.description.split("\n\n")[0] if spec else ""

    # --- the editor ------------------------------------------------------------------------------

    def _binding_of(self, source: Mapping[str, object]) -> tuple[str, str] | None:
        agent, tool = str(source.get("agent", ""))[:80], str(source.get("tool", ""))[:80]
        if tool not in self.manifest.tools or agent not in self._bindings(tool):
            return None
        return agent, tool

    def _editor_page(
        self,
        request: Request,
        me: Principal,
        editor: Editor,
        state: EditorState,
        status_code: int = 200,
        fragment: bool = False,
    ) -> Response:
        context = {
            "state": state,
            "editor": editor,
            "operators": OPERATORS,
            "binding": f"{state.agent} · parley · {state.tool}",
        }
        if fragment:  # the script swaps the form's content for the server's, keeping one renderer
            return self.pages.render(
                request,
                "_rule_form.html",
                status_code=status_code,
                csrf=self.pages.csrf(request),
                **context,
            )
        return self._page(request, me, "rules_editor.html", status_code=status_code, **context)

    async def new(self, request: Request) -> Response:
        me = self._steward(request)
        if isinstance(me, Response):
            return me
        binding = self._binding_of(request.query_params)
        if binding is None:
            return self._not_found(request)
        editor = Editor(self.rulebook, *binding)
        state = editor.fresh()
        await anyio.to_thread.run_sync(
            editor.check, state
        )  # compiling never runs on the event loop
        state.errors.clear()  # a fresh form is not wrong yet
        editor.not_wrong_yet(state)
        return self._editor_page(request, me, editor, state)

    async def edit(self, request: Request) -> Response:
        begun = await self._steward_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        binding = self._binding_of(form)
        if binding is None:
            return self._not_found(request)
        editor = Editor(self.rulebook, *binding)
        state, action = editor.read(form)
        editor.apply(state, action)
        decl = await anyio.to_thread.run_sync(
            editor.check, state
        )  # Preview too: off the event loop
        if action != "draft":
            editor.not_wrong_yet(state)
        fragment = request.headers.get("x-parley-fragment") == "1"
        if action == "preview":
            return JSONResponse(
                {
                    "reads_as": state.reads_as,
                    "errors": state.errors,
                    "rows": [row.error for row in state.rows],
                },
                headers={"Cache-Control": "no-store"},
            )
        if action != "draft":
            if action not in ("cel", "discard_cel"):
                state.errors.pop("name", None)  # only adding to the draft asks for the name
            return self._editor_page(request, me, editor, state, fragment=fragment)
        if decl is None:
            state.focus = (
                "name"
                if "name" in state.errors
                else (
                    "cel"
                    if "cel" in state.errors
                    else next(
                        (f"value_{i}" for i, row in enumerate(state.rows) if row.error),
                        "conditions",
                    )
                )
            )
            return self._editor_page(request, me, editor, state, 400, fragment=fragment)
        try:
            await anyio.to_thread.run_sync(self.rulebook.draft, decl)
        except RuleError as exc:  # the store changed under the form: say it where the rule is
            state.errors["cel" if state.mode == "cel" else "rows"] = str(exc)
            return self._editor_page(request, me, editor, state, 400, fragment=fragment)
        return self._done(
            request,
            f"“{decl.name}” is in the draft of {state.agent} · parley · {state.tool}. It holds "
            "no call back until you publish.",
            f"/console/rules?tool={state.tool}#panel",
        )

    # --- publish and remove ----------------------------------------------------------------------

    async def review(self, request: Request) -> Response:
        me = self._steward(request)
        if isinstance(me, Response):
            return me
        return self._page(
            request, me, "rules_publish.html", summary=publish_summary(self.rulebook), error=None
        )

    async def publish(self, request: Request) -> Response:
        begun = await self._steward_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        ids = [
            found for value in form.getlist("id")[:200] if (found := bounded_id(value)) is not None
        ]
        gone = [
            found
            for value in form.getlist("remove")[:200]
            if (found := bounded_id(value)) is not None
        ]
        if not ids and not gone:
            return self._done(request, "Nothing to publish: the draft is empty.", "/console/rules")
        try:
            published = await anyio.to_thread.run_sync(
                lambda: self.rulebook.publish(ids=ids, removals=gone)
            )
        except RuleError as exc:
            return self._page(
                request,
                me,
                "rules_publish.html",
                status_code=409,
                summary=publish_summary(self.rulebook),
                error=str(exc)[:1].upper() + str(exc)[1:] + ".",
            )
        said = [
            f"{len(published)} rule{'s' if len(published) != 1 else ''} in force"
            if published
            else "",
            f"{len(gone)} removed" if gone else "",
        ]
        return self._done(
            request,
            f"Published: {' and '.join(s for s in said if s)}, from the next call.",
            "/console/rules",
        )

    async def remove(self, request: Request) -> Response:
        begun = await self._steward_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        try:
            rule_id = path_id(request, "rule_id")
            rows = {row["id"]: row for row in self._live_rows()}
            if rule_id not in rows:
                return self._not_found(request)
            # a rule in force stays so until the next publish, which can put its replacement in force with no gap
            await anyio.to_thread.run_sync(lambda: self.rulebook.remove(rule_id, at_publish=True))
        except (NotFound, RuleError):  # a bad id, or one removed in between: nothing here
            return self._not_found(request)
        row = rows[rule_id]
        said = (
            f"The removal of “{row['name']}” is in the draft: it stays in force until you publish."
            if row["state"] == "published"
            else f"Removed the draft “{row['name']}”."
        )
        return self._done(request, said, f"/console/rules?tool={row['tool']}#panel")

    async def keep(self, request: Request) -> Response:
        begun = await self._steward_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        try:
            rule_id = path_id(request, "rule_id")
            rows = {row["id"]: row for row in self._live_rows()}
            if rule_id not in rows:
                return self._not_found(request)
            await anyio.to_thread.run_sync(self.rulebook.keep, rule_id)
        except (NotFound, RuleError):
            return self._not_found(request)
        row = rows[rule_id]
        return self._done(
            request,
            f"“{row['name']}” stays in force: its removal is out of the draft.",
            f"/console/rules?tool={row['tool']}#panel",
        )

    def _live_rows(self) -> list[StoredRule]:
        return [
            StoredRule(
                id=int(row["id"].removeprefix("store:")),
                name=row["name"],
                state=row["state"],
                tool=row["binding"].rsplit(" · ", 1)[-1],
            )
            for row in self.rulebook.listing()
            if row["id"].startswith("store:")
        ]

    def routes(self) -> list[Route]:
        return [
            Route("/console/rules", self.index, methods=["GET"]),
            Route("/console/rules/new", self.new, methods=["GET"]),
            Route("/console/rules/new", self.edit, methods=["POST"]),
            Route("/console/rules/publish", self.review, methods=["GET"]),
            Route("/console/rules/publish", self.publish, methods=["POST"]),
            Route("/console/rules/{rule_id}/remove", self.remove, methods=["POST"]),
            Route("/console/rules/{rule_id}/keep", self.keep, methods=["POST"]),
        ]

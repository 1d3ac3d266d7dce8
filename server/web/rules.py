"""Console: Rules, for stewards. The bindings (agent · parley · tool) as a graph, a tool's panel with its
rules in force and in draft, the rule editor (builder or CEL), publishing, and the warning every
steward's Home shows while a stored rule no longer compiles (its tool refuses every call).

Every change goes through the very `RuleBook` the chokepoint applies and `parley rules` uses: one
code path for draft, publish and remove.
"""

from __future__ import annotations

from starlette.routing import Route

from server.asking import Escalations
from server.chokepoint.rulebook import BrokenRule, RuleBook
from server.manifest.schema import Manifest
from server.web.frame import Frame
from server.web.pages import Pages


class RulePages(Frame):
    def __init__(self, pages: Pages, escalations: Escalations, manifest: Manifest, key, rulebook: RuleBook):
        super().__init__(pages, escalations, manifest, key)
        self.rulebook = rulebook
        # Home (and any page that includes `_rules_broken.html`) asks for the rules holding tools back
        pages.templates.env.globals["broken_rules"] = self.broken_rules

    def broken_rules(self) -> list[BrokenRule]:
        """Published rules that no longer compile, read afresh (the store may have changed)."""
        self.rulebook.refresh()
        return self.rulebook.broken()

    def routes(self) -> list[Route]:
        return []

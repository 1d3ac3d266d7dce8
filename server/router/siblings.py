"""Siblings: tools of one catalogue that share the thing a turn names, told apart by what
distinguishes them rather than by the words they share.

Two tools about recipes (get_recipe, list_recipes) both match "recipes"; what tells them apart is
their verb (the turn's "list" is list_recipes' own action) and what they return: one item (a name
that writes its thing singular: get_recipe, detail_project) or a list (a list or search action, or a
name that writes its thing plural: list_recipes, adriel_projects). The turn says which it wants by
its verb and by its number: "the recipe for lemon tart" is one, "recipes of Thai cuisine", "all
recipes", "a list of recipes" are many. Where neither decides, the plan offers the choice.
"""

from __future__ import annotations

from typing import Literal

from server.router.catalogue import CatalogueTool
from server.router.names import singular, split_words
from server.router.tokens import Token

Number = Literal["one", "many"]
_MANY_ACTIONS = frozenset({"list", "search"})
# Words before a thing that say the turn wants every one of them, or a list of them
_MANY_WORDS = frozenset({"all", "every", "each", "list", "todos", "todas", "lista"})
_ONE_WORDS = frozenset({"the", "this", "that", "a", "an", "its", "one", "o", "um", "uma"})


def _plural(word: str) -> bool:
    return word.endswith("s") and singular(word) != word


def returns(tool: CatalogueTool) -> Number | None:
    """What the tool returns, read from its name: many (a list or search action, or its thing
    written plural), one (its thing written singular), or None where the name does not say."""
    if not tool.nouns:
        return None
    head = tool.nouns[0]
    # the name's own words, not its namespace's ("recipes" of recipes.get_recipe names no number)
    written = [w for w in split_words(tool.name.rsplit(".", 1)[-1]) if singular(w) == head]
    if tool.action in _MANY_ACTIONS or any(_plural(w) for w in written):
        return "many"
    return "one" if written else None


def wanted(tokens: list[Token], head: str) -> Number | None:
    """How many of the thing the turn asks for, where it names it: many when it writes it plural
    or after "all", "every", "a list of"; one when it writes it singular; None where it says both."""
    said: set[Number] = set()
    for i, token in enumerate(tokens):
        if token.kind != "word" or singular(token.norm) != head:
            continue
        before = {t.norm for t in tokens[max(0, i - 3) : i]}
        if _plural(token.norm) or before & _MANY_WORDS:
            said.add("many")
        else:
            said.add("one")
    return next(iter(said)) if len(said) == 1 else None


def told_apart(
    chosen: list[CatalogueTool],
    siblings: list[CatalogueTool],
    tokens: list[Token],
    action: str | None,
) -> list[CatalogueTool]:
    """Among tools sharing the chosen one's thing, the one the turn's verb or number picks: the tool of
    the turn's own action where one is; else the one that returns as many as the turn asks for. The
    tools chosen as they were where neither decides."""
    if not chosen or not chosen[0].nouns:
        return chosen
    head = chosen[0].nouns[0]
    family = [t for t in siblings if t.nouns and t.nouns[0] == head]
    if len(family) < 2:
        return chosen
    pool = chosen if len(chosen) > 1 else family
    # the turn's own verb, where it is more than a read ("show", "get" read anything; "list" lists)
    own = [t for t in pool if action not in (None, "get") and t.action == action]
    if len(chosen) > 1 and len(own) == 1:
        return own
    number = wanted(tokens, head)
    if number is None:
        return chosen
    fits = [t for t in pool if returns(t) == number]
    if len(fits) == 1 and all(returns(t) is not None for t in pool):
        return fits
    return chosen

"""The state a Binder holds, declared once for the type checker: the binding passes live in mixins
(phrases.py, rows.py, kinds.py) that read this state and call one another's helpers through `self`.

Only annotations and, under TYPE_CHECKING, signatures: nothing here exists at run time beyond an
empty base class. Binder (binding.py) sets every attribute in its __init__ and defines the helpers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Literal, TypeAlias, TypeGuard, TypeVar

if TYPE_CHECKING:
    from server.router.catalogue import CatalogueTool, Param
    from server.router.reader import Reading
    from server.router.tokens import Token

# What one parameter's pass claims from the turn: a token, or a run of tokens
Claim = TypeVar("Claim")
# The vocabulary's adjectives and adverbs a turn names: (the word, (what it means, same sense or opposite))
Senses: TypeAlias = "list[tuple[Token, tuple[str, bool]]]"


class BindingState:
    """What every binding pass may read: one tool, one clause's tokens, and the values put so far."""

    tool: CatalogueTool
    tokens: list[Token]
    reading: Reading
    language: str
    things: list[tuple[Token, str]]
    used: set[int]
    known: dict[str, tuple[str, ...]]
    function: frozenset[str]
    arguments: dict[str, str]
    sources: dict[str, str]
    unsure: set[str]
    placed: list[str]
    by_index: dict[int, Token]
    first_word: int
    _phrases: dict[int, list[Token] | None]
    openers: list[Token]
    norms: set[str]
    kinds: set[str]
    _free: tuple[int, list[Param]] | None
    nouns: dict[int, str]
    unplaced: list[str]  # values the turn states that no parameter could take (accounting.py)

    if TYPE_CHECKING:
        # defined by Binder (binding.py)
        def noun(self, token: Token) -> str: ...

        def put(self, param: Param, value: str, source: str = "turn", *tokens: Token) -> None: ...

        def settle(
            self,
            params: list[Param],
            claimed: dict[str, list[Claim]],
            bind: Callable[[Param, Claim], None],
        ) -> None: ...

        def free(self, kind: str | None = None) -> list[Param]: ...

        # defined by LabelBinding (labels.py)
        def _content(self, token: Token | None) -> TypeGuard[Token]: ...

        def left_label(self, token: Token) -> list[str]: ...

        def right_label(self, token: Token) -> list[str]: ...

        @staticmethod
        def _overlap(label: list[str], words: Iterable[str]) -> int: ...

        def _best(
            self, label: list[str], params: list[Param], describe: bool = False
        ) -> Param | None | Literal[False]: ...

        def _number(self, param: Param, token: Token) -> None: ...

        # phrase: NameRuns (name_runs.py); _string: PhraseBinding (phrases.py); used by the row passes
        def phrase(self, start: int) -> list[Token] | None: ...

        def _string(self, param: Param, run: list[Token]) -> None: ...

        # defined by CertaintyBinding (certainty.py), used by the whole-turn pass
        def _date_part(self, token: Token) -> bool: ...

        def _in_name(self, token: Token) -> bool: ...

        def _capital(self, token: Token | None) -> TypeGuard[Token]: ...

        # defined by RowBinding (rows.py), used by the phrase passes
        def city_and_region(self, params: list[Param], run: list[Token]) -> list[str]: ...

"""The roles a turn's words fill, apart from its verb: where it sends something (destination), when
(time), and the thing it is about with the phrase that qualifies it. Read by reader.read into the
turn's form.
"""

from __future__ import annotations

from server.router import lexicon as lx
from server.router.tokens import Token

_AT = frozenset({"at", "as", "às"})  # a time of day follows: "at 9"


def destination_of(tokens: list[Token], language: str) -> list[Token]:
    """Where the turn sends something: addresses, and what follows "to" that reads as a name."""
    destination = [t for t in tokens if t.kind in ("email", "url")]
    preps = lx.DESTINATION_PREPS[language]
    last = len(tokens) - 1
    for k in [k for k, t in enumerate(tokens) if t.norm in preps and k < last]:
        nxt = tokens[k + 1]
        if nxt.kind in ("email", "url", "handle") or (
            nxt.kind == "word" and nxt.text[:1].isupper()
        ):
            if all(nxt is not d for d in destination):
                destination.append(nxt)
    return destination


def times_of(tokens: list[Token], language: str) -> list[Token]:
    """Words of time ("tomorrow"), then the numbers a time of day follows "at" with."""
    time_words = lx.TIME_WORDS[language]
    times = [t for t in tokens if t.kind == "word" and t.norm in time_words]
    last = len(tokens) - 1
    for k in [k for k, t in enumerate(tokens) if t.norm in _AT and k < last]:
        if tokens[k + 1].kind in ("number", "decimal"):
            times.append(tokens[k + 1])
    return times


def thing_of(
    tokens: list[Token],
    verb_span: set[int],
    start: int,
    operators: list[str],
    destination: list[Token],
    language: str,
) -> dict[str, str]:
    """The thing and its qualifier: the first content word from `start` (after the first verb),
    or anywhere, that is no verb (`verb_span`); then the prepositional phrase that qualifies it."""
    function = lx.FUNCTION_WORDS[language]
    time_words = lx.TIME_WORDS[language]
    if operators:
        function = function | {
            w for phrase in lx.COMPUTE_OPERATORS[language] for w in phrase.split()
        }

    def is_content(t: Token) -> bool:
        return (
            t.kind in ("word", "handle")
            and t.norm not in function
            and t.index not in verb_span
            and t.norm not in time_words
        )

    content = [t for t in tokens[start:] if is_content(t)] or [t for t in tokens if is_content(t)]
    if not content:
        return {}
    head = content[0]
    thing = [head]
    if head.index + 1 < len(tokens) and tokens[head.index + 1].kind == "number":
        thing.append(tokens[head.index + 1])
    roles = {"thing": " ".join(t.text for t in thing)}
    qualifier = _qualifier(tokens, head, function, destination, verb_span, language)
    if qualifier is not None:
        roles["qualifier"] = " ".join(t.text for t in qualifier)
    return roles


def _qualifier(
    tokens: list[Token],
    head: Token,
    function: frozenset[str] | set[str],
    destination: list[Token],
    verb_span: set[int],
    language: str,
) -> list[Token] | None:
    """The first qualifying phrase after the thing ("of order 4411"), up to a destination, a
    verb or punctuation; None where no qualifying preposition follows the thing."""
    qualifier_preps = lx.QUALIFIER_PREPS[language]
    preps = lx.DESTINATION_PREPS[language]
    for i in range(head.index + 1, len(tokens) - 1):
        if (
            tokens[i].norm in qualifier_preps
            and tokens[i + 1].kind == "word"
            and tokens[i + 1].norm not in function
        ):
            tail = []
            for t in tokens[i:]:
                if t.norm in preps or t in destination or t.kind == "punct" or t.index in verb_span:
                    break
                if t.kind in ("word", "number", "handle"):
                    tail.append(t)
            return tail
    return None

"""The verb of a clause: the action it names, in which tense, where it stands among the tokens,
and its dictionary form to name it back ("apagar" for "apague"). Read by reader.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.router import lexicon as lx
from server.router.tokens import Token, fold

# The grammar's verb tables by language: every form → (action, tense)
_TABLES = {"en": lx.EN_VERBS, "pt-BR": lx.PT_VERBS}


@dataclass
class Verb:
    action: str
    surface: str
    tense: str
    index: int
    length: int = 1


def _verb_index(table: dict[str, dict[str, str]]) -> dict[str, tuple[str, str]]:
    index: dict[str, tuple[str, str]] = {}
    for action, forms in sorted(table.items()):
        for form, tense in forms.items():
            index.setdefault(form, (action, tense))
    return index


_VERBS = {language: _verb_index(table) for language, table in _TABLES.items()}
# The first words of two-word verbs (look up, hand off): only these are tried as a pair
_PAIR_FIRSTS = {
    language: frozenset(form.split(" ")[0] for form in verbs if " " in form)
    for language, verbs in _VERBS.items()
}


def find_verb(tokens: list[Token], language: str, start: int = 0) -> Verb | None:
    """The clause's main verb: the first verb form, preferring one right after a modal or auxiliary."""
    verbs = _VERBS[language]
    pair_firsts = _PAIR_FIRSTS[language]
    words = [t.norm if t.kind == "word" else None for t in tokens]
    function = lx.FUNCTION_WORDS[language]
    first_content = next(
        (
            i
            for i in range(start, len(words))
            if words[i] and words[i] not in function and words[i] not in ("please", "por", "favor")
        ),
        None,
    )
    for i in range(start, len(words)):
        word = words[i]
        if word is None:
            continue
        # two-word verbs first (look up, hand off, look for)
        if word in pair_firsts and i + 1 < len(words) and words[i + 1]:
            pair = f"{word} {words[i + 1]}"
            if pair in verbs:
                action, tense = verbs[pair]
                return Verb(action, f"{tokens[i].text} {tokens[i + 1].text}", tense, i, 2)
        if word not in verbs:
            continue
        if i > start and (
            words[i - 1] in lx.DETERMINERS[language]
            or (
                i - 1 > start
                and words[i - 2] in lx.DETERMINERS[language]
                and words[i - 1] not in verbs
            )
        ):
            continue  # "any answers", "any new answers": a noun after a determiner
        if i > start and words[i - 1] in lx.NOUN_PREPOSITIONS[language] and i != first_content:
            continue  # "dividend per share": a noun after a preposition
        if language == "pt-BR" and word in lx.PT_NOT_VERBS:
            previous = words[i - 1] if i > 0 else None
            after_aux = previous in (
                "foi",
                "foram",
                "vai",
                "vou",
                "pode",
                "poderia",
                "consegue",
                "me",
                "voce",
                "ja",
                "nao",
                "quero",
                "queria",
                "tinha",
                "sido",
            )
            if not (i == first_content or after_aux):
                continue
        if language == "en" and word in function and i != first_content:
            continue
        if (
            word in lx.PARTICIPIAL_PREPOSITIONS[language]
            and i != first_content
            and (i == 0 or words[i - 1] not in lx.PAST_AUXILIARIES[language] | lx.BE[language])
        ):
            continue
        action, tense = verbs[word]
        return Verb(action, tokens[i].text, tense, i)
    return None


def lemma_of(verb: Verb, language: str) -> str:
    """The verb's dictionary form, to name it back to the person: "apagar" for "apague", "delete"."""
    surface = fold(verb.surface)
    if language == "en":
        forms = lx.EN_VERBS[verb.action]
        present = [f for f, tense in forms.items() if tense == "present" and " " not in f]
        return (
            min(present, key=lambda f: (not surface.startswith(f[:3]), len(f)))
            if present
            else surface
        )
    forms = lx.PT_VERBS[verb.action]
    infinitives = [f for f in forms if f.endswith(("ar", "er", "ir"))]

    def shared(form: str) -> int:
        n = 0
        while n < min(len(form), len(surface)) and form[n] == surface[n]:
            n += 1
        return n

    return max(sorted(infinitives), key=shared) if infinitives else surface

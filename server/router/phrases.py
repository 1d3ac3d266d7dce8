"""Binding the turn's phrases: proper names and codes after the words of their parameter or the
preposition its name implies (in, from, to), quoted text, handles and names, and free text.
A mixin of binding.Binder: it reads the same tokens and records into the same arguments."""

from __future__ import annotations

import json

from server.router.catalogue import TEXT_NAMES, Param
from server.router.formats import fits
from server.router.name_runs import (
    OPENERS,
    PARTICIPLES,
    NameRuns,
)
from server.router.names import singular
from server.router.reader import Token
from server.router.tokens import joined

# Parameters that take a few words of free text; the others (question, message …) take a sentence.
SHORT_TEXT = frozenset({"query", "topic", "kind", "subject", "keyword", "keywords"})
LOCATION_WORDS = frozenset({"location", "city", "place", "country", "region", "state", "town", "area", "venue",
                            "county", "district", "province", "neighborhood", "neighbourhood", "cidade", "local",
                            "pais", "lugar", "regiao", "estado", "bairro", "municipio", "distrito", "provincia"})
ORIGIN_WORDS = frozenset({"origin", "from", "start", "source", "departure", "begin", "base", "origem", "partida"})
TARGET_WORDS = frozenset({"destination", "to", "end", "target", "arrival", "destino", "chegada"})
# Who made a thing, after "by" / "por": "tracks by Nina Vale", "a novel by Machado de Assis"
MAKER_WORDS = frozenset({"artist", "author", "director", "creator", "composer", "writer", "band", "singer",
                         "performer", "maker", "manufacturer", "publisher", "developer", "studio", "artista",
                         "autor", "diretor", "criador", "compositor", "escritor", "banda", "cantor", "fabricante"})
PREPOSITIONS = {
    "en": {"in": "location", "at": "location", "near": "location", "around": "location",
           "from": "origin", "to": "target", "by": "maker"},
    "pt-BR": {"em": "location", "no": "location", "na": "location", "perto": "location",
              "de": "origin", "desde": "origin", "para": "target", "ate": "target", "por": "maker"},
}
KINDS = frozenset({"type", "kind", "category", "tipo", "categoria"})  # a parameter that takes a kind of thing
CODE_HINTS = frozenset({"code", "symbol", "abbreviation", "iso", "ticker", "codigo", "sigla"})
WH_WORDS = frozenset({"what", "how", "why", "when", "where", "who", "which", "whether", "if", "que", "como", "quando",
                      "onde", "quem", "qual", "quais", "porque", "se"})
_ROLE_WORDS = LOCATION_WORDS | ORIGIN_WORDS | TARGET_WORDS | MAKER_WORDS
_PLACE_KINDS = frozenset({"text", "name", "destination", "time"})
_QUOTE_ORDER = {"title": 0, "question": 1, "message": 2, "text": 3, "statement": 4, "query": 5}


class PhraseBinding(NameRuns):
    """Phrase passes of the Binder (see binding.py)."""

    def _tool_word(self, token: Token) -> bool:
        """A word of the tool's own name: "Amazon stock" is a name, then the thing the tool is about."""
        return singular(token.norm) in self.tool.own

    def runs_left(self) -> list[list[Token]]:
        """The proper names, codes and quotes of the turn no parameter took, each whole, in order."""
        runs, inside = [], -1
        for token in self.openers:
            if token.index <= inside or token.index in self.used:
                continue
            run = self.phrase(token.index)
            before = self.by_index.get(token.index - 1)
            if before is not None and before.kind in ("number", "decimal") and token.kind == "word":
                continue  # "80 BPM": the unit of a number, not a name
            if run and token.kind in ("word", "quoted") and not any(t.index in self.used for t in run) \
                    and not self._gloss(run):
                runs.append(run)
                inside = run[-1].index
        return runs

    def lone_name(self) -> None:
        """One name left for one parameter that must have a name: "the stock price of Amazon" —
        as a number alone goes to the one numeric parameter. Never where another could take it."""
        for p in self.free():  # (a loop, not any(): no generator for the common case, none)
            if p.required and p.type == "string" and p.kind in ("text", "name"):
                break
        else:
            return
        own = self.tool.param_words
        runs = [run for run in self.runs_left()  # "the Population Density": the tool's own words, capitalised
                if not all(self._tool_word(t) or singular(t.norm) in own for t in run if t.kind == "word")]
        params = [p for p in self.free() if p.type == "string" and p.kind in ("text", "name")
                  and not (p.known or p.listed or p.enum)]
        required = [p for p in params if p.required and not set(p.words) & KINDS]  # a name is no room type
        if len(runs) != 1 or len(required) != 1 or required[0].name in self.unsure:
            return
        params = required  # one name, one parameter that must have one: the optional ones wait to be asked
        run = runs[0]
        if any(t.kind == "word" and not run[0].index - 3 < t.index <= run[-1].index and not self._tool_word(t)
               and singular(t.norm) in params[0].words for t in self.tokens):
            return  # "a deluxe room at the Marriott hotel": the parameter's word labels another value
        before, after = self.by_index.get(run[0].index - 1), self.by_index.get(run[-1].index + 1)
        if before is not None and PREPOSITIONS[self.language].get(before.norm, "maker") != "maker":
            return  # "from GameSpot", "in Paris": a place of a role no parameter here takes
        if self._content(before) and before.index not in self.used and not self._best([self.noun(before)], params) \
                and before.norm not in OPENERS[self.language] and not before.norm.endswith(PARTICIPLES[self.language]):
            return  # "case XYZ": a name another noun labels is that noun's ("starring X", "against X" are not nouns)
        if after is not None and after.kind in ("number", "decimal", "ordinal"):
            return  # "Windows 10": the name may go on
        capitals = [t for t in self.tokens if t.kind == "word" and t.text[:1].isupper() and t.index != self.first_word
                    and t.index not in self.used and not self._tool_word(t) and singular(t.norm) not in own
                    and not (t.index - 1 in self.by_index and self.by_index[t.index - 1].text == t.text)]
        if any(t not in run for t in capitals):
            return  # another capitalised word that is not a whole name ("San Diego next …") may be the value
        self._string(params[0], run)

    def named_list(self) -> None:
        """"stock prices of Microsoft and Google", "entre João e Ana": names joined by and/or/commas, for
        the one list parameter that must have one; the list in the order written."""
        lists = [p for p in self.free("array") if p.items == "string" and not p.enum]
        if not lists:
            return
        runs = []
        for run in self.runs_left():  # "Vale, Itaú and Ambev": in a list, a comma parts names
            while any(t.norm == "," for t in run):
                comma = next(i for i, t in enumerate(run) if t.norm == ",")
                runs.append(run[:comma])
                run = run[comma + 1:]
            runs.append(run)
        if runs:
            # "with stops at Santa Barbara and Monterey": the list its own word names, required or not
            i = runs[0][0].index - 1
            while i in self.by_index and self.by_index[i].norm in ("at", "in", "of", ":", "em", "de", "the", "o", "a"):
                i -= 1
            named = self._best([self.noun(self.by_index[i])], lists) if self._content(self.by_index.get(i)) else None
            lists = [named] if isinstance(named, Param) else [p for p in lists if p.required]
        if len(lists) != 1 or len(runs) < 2:
            return
        for a, b in zip(runs, runs[1:], strict=False):
            between = [self.by_index[i] for i in range(a[-1].index + 1, b[0].index)]
            if not between and b[0].index == a[-1].index + 2:
                continue  # the comma that parted them
            if not between or not all(t.norm in ("and", "or", ",", "e", "ou", "the", "o", "a", "os", "as")
                                      for t in between):
                return
        values = [joined(run) for run in runs]
        self.put(lists[0], json.dumps(values, ensure_ascii=False), "turn", *[t for run in runs for t in run])

    def names_left(self) -> bool:
        """Whether a proper name or a code of the turn is still unbound."""
        return any(t.index not in self.used and (run := self.phrase(t.index)) and t.kind == "word"
                   and not self._gloss(run) for t in self.openers)

    def _gloss(self, run: list[Token]) -> bool:
        """Whether a name spells out the abbreviation beside it, or is the abbreviation of the words
        beside it: "Body Mass Index (BMI)", "SNP (Single Nucleotide Polymorphism)". A gloss is no value."""
        words = [t for t in run if t.kind == "word"]
        initials = "".join(t.norm[0] for t in words if t.norm)
        if len(words) > 2 and (initials[:-1] == words[-1].norm or initials[1:] == words[0].norm):
            return True  # "Body Mass Index (BMI)" read as one run of capitals
        for near in (self.by_index.get(run[0].index - 1), self.by_index.get(run[-1].index + 1)):
            if near is None or near.kind != "word":
                continue
            if len(near.norm) >= 2 and initials[:len(near.norm)] == near.norm and len(initials) <= len(near.norm) + 1:
                return True  # the run may take in one more capitalised word: "(Single Nucleotide Polymorphism) ID"
            if len(words) == 1 and near.text[:1].isupper():
                step = 1 if near.index > run[-1].index else -1
                spelled, i = [], near.index
                while i in self.by_index and self.by_index[i].kind == "word" and self.by_index[i].text[:1].isupper():
                    spelled.append(self.by_index[i])
                    i += step
                spelled = spelled if step == 1 else spelled[::-1]
                spelled_initials = "".join(t.norm[0] for t in spelled if t.kind == "word")
                if len(words[0].norm) >= 2 and spelled_initials[:len(words[0].norm)] == words[0].norm \
                        and len(spelled_initials) <= len(words[0].norm) + 1:
                    return True
        return False

    def _string(self, param: Param, run: list[Token]) -> None:
        hints = set(param.words) | param.described
        if hints & CODE_HINTS and (len(run) > 1 or not run[0].text.replace("-", "").isalnum()
                                   or not run[0].text.isupper()):
            self.unsure.add(param.name)  # a code is asked for where the turn gives a name
            return
        if any(t.index in self.used for t in run):
            return
        value = joined(run)
        if value.endswith(("'s", "’s")) and len(value) > 2:
            value = value[:-2]  # "The Weeknd's concert": the name, not its possessive
        if "state" in param.described and "city" in hints and "," not in value:
            self.unsure.add(param.name)  # "the city and state": a city alone is not the whole value
            return
        self.put(param, value, "turn", *run)

    def places(self) -> None:
        self.placed = self._places()

    def _places(self) -> list[str]:
        """Phrases after the prepositions a parameter's name implies: in X, from X, to X."""
        roles = PREPOSITIONS[self.language]
        placed: list[str] = []
        if not any(p.type == "string" and p.kind in _PLACE_KINDS and not _ROLE_WORDS.isdisjoint(p.words)
                   for p in self.free()):
            return placed  # no parameter is named for a place, a start or an end
        found: dict[str, list[list[Token]]] = {}
        for token in [t for t in self.tokens if t.norm in roles and t.kind == "word"]:
            role = roles[token.norm]
            if role:
                run = self.phrase(token.index + 1)
                if run and not all(t.index in self.used for t in run):  # "in Celsius" a unit took is no place
                    found.setdefault(role, []).append(run)
        words = {"location": LOCATION_WORDS, "origin": ORIGIN_WORDS, "target": TARGET_WORDS, "maker": MAKER_WORDS}
        for role, runs in sorted(found.items()):
            # a start or an end named by a place is a place ("from London to Leeds" for start and end)
            kinds = ("text", "name", "destination") + (("time",) if role != "location" else ())
            params = [p for p in self.free() if p.type == "string" and p.kind in kinds and set(p.words) & words[role]]
            if len(params) == 1 and len(runs) == 1:
                self._string(params[0], runs[0])
                placed.append(params[0].name)
            elif len(runs) == 1 and role == "location" and (pair := self.city_and_region(params, runs[0])):
                placed += pair
            elif params:
                self.unsure.update(p.name for p in params)
        return placed

    def labelled(self) -> None:
        """A value right after the words of its parameter's name: "SNP ID rs6034464", "company Apple",
        "reference sequence 'AGTC'"; the parameter named most fully takes it, a tie is asked about."""
        params = [p for p in self.free() if p.type == "string" and p.kind in ("text", "name", "identifier")]
        if not params:
            return  # no label can name a parameter: nothing is claimed or doubted
        claimed: dict[str, list[list[Token]]] = {}
        for token in self.openers:
            if token.index in self.used:
                continue
            run = self.phrase(token.index)
            if not run:
                # "in Los Angeles court": a name, then the word of the parameter it is the value of
                run = self._phrase(token.index, open_end=True) if token.kind == "word" else None
                if run and all(t.norm in self.function for t in run):
                    continue  # "The nickname will be …": a sentence's first word, capitalised, is no name
                after = self.by_index.get(run[-1].index + 1) if run else None
                best = self._best([self.noun(after)], params) if self._content(after) \
                    and not self._tool_word(after) else None  # "C scale" where scale is the tool's own thing
                if isinstance(best, Param) and run:  # a label after the name: run is not empty
                    claimed.setdefault(best.name, []).append(run)
                continue
            i = token.index - 1
            while i in self.by_index and self.by_index[i].norm in ("named", "called", "chamado", "chamada", "is",
                                                                  "e", "of", "de", "as", "como"):
                i -= 1
            label: list[str] = []
            while self._content(self.by_index.get(i)) and len(label) < 3:
                label.insert(0, self.noun(self.by_index[i]))
                i -= 1
            best = self._best(label, params)
            if best is False:
                self.unsure.update(p.name for p in params if self._overlap(label, set(p.words)))
            elif best is not None:
                claimed.setdefault(best.name, []).append(run)
        self.settle(params, claimed, self._string)

    def quoted(self) -> None:  # quoted texts to the parameters that take text by name (title, message …)
        if "quoted" not in self.kinds:
            return
        quotes = [t for t in self.tokens if t.kind == "quoted" and t.index not in self.used]
        # a quote is a text or a name (not a known handle); a parameter whose description asks a format
        # ('MM/DD/YYYY') takes no quote written otherwise
        text_params = sorted((p for p in [*self.free("text"), *self.free("name")]
                              if not (p.known or p.name in self.known)
                              and (not p.formats or all(fits(q.text, p.formats) for q in quotes))),
                             key=lambda p: (_QUOTE_ORDER.get(p.name, 9), not p.required, p.name))
        if not len(quotes) == len(text_params) == 1:  # beyond one quote for one parameter, order is no guide
            text_params = [p for p in text_params if p.name in _QUOTE_ORDER or p.name in TEXT_NAMES]
        for param, token in zip(text_params, quotes, strict=False):
            self.put(param, token.text, "turn", token)

    def names(self) -> None:
        for param in self.free("name"):
            if param.name in self.known or param.known:
                continue
            handle = next((t for t in self.tokens if t.kind == "handle" and t.index not in self.used), None)
            if handle is not None:
                self.put(param, handle.text.lstrip("@"), "turn", handle)
                continue
            for token, noun in self.things:
                nxt = self.by_index.get(token.index + 1)
                if noun in (param.name, "member") and nxt is not None and nxt.kind == "word" \
                        and nxt.norm not in self.function and nxt.index not in self.used:
                    self.put(param, nxt.text, "turn", nxt)
                    break

    def free_text(self, after: int) -> None:
        """What is left of the turn, for one parameter that takes free text (query, question …)."""
        takers = sorted((p for p in self.free("text") if p.name in TEXT_NAMES), key=lambda p: (not p.required, p.name))
        words = self.remainder(after) if takers else []
        if not words:
            return
        whole = all(b.index - a.index == 1 for a, b in zip(words, words[1:], strict=False))
        if not whole or (takers[0].name in SHORT_TEXT and len(words) > 4):
            # "latest [news] on Bitcoin [in US]": words with holes, or a sentence for a keyword
            self.unsure.add(takers[0].name)
            return
        self.put(takers[0], " ".join(t.text for t in words), "turn", *words)

    def remainder(self, after: int) -> list[Token]:
        """The words left once the verb, the tool's nouns and the bound values are taken, from the
        first content word after the verb on (a wh-word opens a question and stays)."""
        function = self.function | {"please", "por", "favor", "for", "sobre", "about"}
        nouns, name_words = self.tool.nouns, self.tool.name_words
        mapped = {token.index for token, noun in self.things if noun in nouns or noun in name_words}
        words = [t for t in self.tokens if t.kind in ("word", "number", "decimal", "handle")
                 and t.index not in self.used
                 and t.index not in mapped and t.index > after]
        while words and words[0].norm in function and words[0].norm not in WH_WORDS \
                and not (len(words) > 1 and f"{words[0].norm} {words[1].norm}" == "o que"):
            words.pop(0)
        while words and words[-1].norm in function:
            words.pop()
        return words

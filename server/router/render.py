"""The sentences a plan shows a person, in the language the router was asked to read."""

from __future__ import annotations

from server.router.catalogue import Catalogue, CatalogueTool

_TEXT = {
    "en": {
        "or": "or",
        "and": "and",
        "resolved": "Ready: {tool}{args}.",
        "incomplete": "I can {tool}, but I need {missing}.",
        "unplaced": 'I can {tool}, but it takes nothing for "{left}". Which tool should take it?',
        "unsure": "Nothing here does that with what you said. If you mean to {tool}, say {missing}.",
        "unsure_among": "Nothing here does that with what you said. If you mean to {tools}, say which, and {missing}.",
        "ambiguous": "Which do you mean: {choices}?",
        "unmet_action": 'I can {verbs} "{thing}", but nothing here can {verb} that.',
        "unmet_action_noverb": 'I can {verbs} "{thing}", but not what you wanted done with it.',
        "unmet_object": 'I can {tools}, but nothing here deals with "{thing}".',
        "unread": "I didn't recognise anything in that. I can {tools}. Can you say which tool or which item you want?",
        "refuse": "I still can't read that, and I won't guess.",
        "model": "I'll hand this turn to your model.",
        "ask": "I can't read this; may I hand it to the model?",
        "answer": "I'll answer this from the documents.",
        "declined_destination": "I won't do that: it would send data to {where}, and no tool takes it there.",
        "declined_compute": "I won't do that: it is a calculation that would write.",
        "past_unmet": "Nothing here can tell whether that was done.",
        "negated": "Understood: I won't {tool}.",
        "howto": "To {tool}, I need {missing}.",
        "howto_ready": "To {tool}, ask me and I'll do it.",
        "meaning": "I don't define words; your documents can.",
    },
    "pt-BR": {
        "or": "ou",
        "and": "e",
        "resolved": "Pronto: {tool}{args}.",
        "incomplete": "Posso {tool}, mas preciso de {missing}.",
        "unplaced": 'Posso {tool}, mas não tenho onde pôr "{left}". Qual ferramenta deve receber isso?',
        "unsure": "Nada aqui faz isso com o que você disse. Se quer {tool}, diga {missing}.",
        "unsure_among": "Nada aqui faz isso com o que você disse. Se quer {tools}, diga qual, e {missing}.",
        "ambiguous": "Qual você quer dizer: {choices}?",
        "unmet_action": 'Posso {verbs} "{thing}", mas nada aqui consegue {verb} isso.',
        "unmet_action_noverb": 'Posso {verbs} "{thing}", mas não o que você pediu.',
        "unmet_object": 'Posso {tools}, mas nada aqui trata de "{thing}".',
        "unread": "Não reconheci nada nisso. Posso {tools}. Pode dizer qual ferramenta ou qual item você quer?",
        "refuse": "Ainda não consegui ler isso, e não vou adivinhar.",
        "model": "Vou passar este turno ao seu modelo.",
        "ask": "Não consigo ler isso; posso passar ao modelo?",
        "answer": "Vou responder isso a partir dos documentos.",
        "declined_destination": "Não vou fazer isso: levaria dados para {where}, e nenhuma ferramenta os leva para lá.",
        "declined_compute": "Não vou fazer isso: é um cálculo que escreveria.",
        "past_unmet": "Nada aqui consegue dizer se isso foi feito.",
        "negated": "Entendido: não vou {tool}.",
        "howto": "Para {tool}, preciso de {missing}.",
        "howto_ready": "Para {tool}, é só pedir.",
        "meaning": "Não defino palavras; os seus documentos podem.",
    },
}


class Renderer:
    def __init__(self, language: str, catalogue: Catalogue):
        self.text = _TEXT[language]
        self.catalogue = catalogue

    def _join(self, items: list[str], word: str = "or") -> str:
        items = list(items)
        if len(items) <= 1:
            return "".join(items)
        return ", ".join(items[:-1]) + f" {self.text[word]} " + items[-1]

    def resolved(self, tool: CatalogueTool, arguments: dict[str, str]) -> str:
        args = ", ".join(f"{k} {v}" for k, v in arguments.items())
        return self.text["resolved"].format(tool=tool.display, args=f" ({args})" if args else "")

    def incomplete(self, tool: CatalogueTool, missing: list[str]) -> str:
        return self.text["incomplete"].format(tool=tool.display, missing=self._join(missing, "and"))

    def unplaced(self, tool: CatalogueTool, left: list[str]) -> str:
        """A value the turn states that the tool has no parameter for: named, never dropped."""
        return self.text["unplaced"].format(tool=tool.display, left=" ".join(left))

    def unsure(self, tool: CatalogueTool, missing: list[str]) -> str:
        return self.text["unsure"].format(tool=tool.display, missing=self._join(missing, "and"))

    def unsure_among(self, tools: list[CatalogueTool]) -> str:
        """Several tools the turn names only the kind of: which one, and what each needs."""
        needed = dict.fromkeys(p.name for t in tools for p in t.params if p.required)
        return self.text["unsure_among"].format(
            tools=self._join(sorted(t.display for t in tools)),
            missing=self._join(list(needed), "and"),
        )

    def ambiguous(self, tools: list[CatalogueTool]) -> str:
        return self.text["ambiguous"].format(choices=self._join(sorted(t.display for t in tools)))

    def unmet_action(self, actors: list[CatalogueTool], thing: str, verb: str | None) -> str:
        verbs = sorted({t.name.split("_")[0] for t in actors})
        key = "unmet_action" if verb else "unmet_action_noverb"
        return self.text[key].format(verbs=self._join(verbs), thing=thing, verb=verb)

    def unmet_object(self, doers: list[CatalogueTool], thing: str) -> str:
        return self.text["unmet_object"].format(
            tools=self._join(sorted(t.display for t in doers)), thing=thing
        )

    def unread(self) -> str:
        return self.text["unread"].format(
            tools=self._join([t.display for t in self.catalogue.tools])
        )

    def refuse(self) -> str:
        return self.text["refuse"]

    def handoff(self, setting: str) -> str:
        return self.text[setting]

    def declined_destination(self, where: str) -> str:
        return self.text["declined_destination"].format(where=where)

    def declined_compute(self) -> str:
        return self.text["declined_compute"]

    def negated(self, tool: CatalogueTool) -> str:
        return self.text["negated"].format(tool=tool.display)

    def howto(self, tool: CatalogueTool, missing: list[str]) -> str:
        if not missing:
            return self.text["howto_ready"].format(tool=tool.display)
        return self.text["howto"].format(tool=tool.display, missing=self._join(missing, "and"))

    def meaning(self) -> str:
        return self.text["meaning"]

    def past_unmet(self) -> str:
        return self.text["past_unmet"]

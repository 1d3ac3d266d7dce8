"""The grammar words of each language the router reads: verbs with their tenses, and function words.

This is grammar, not vocabulary: it does not change with a club's tools. What users call the
tools' nouns lives in the vocabulary files under manifests/vocabulary/. Portuguese entries are
stored without accents; turns are folded the same way before lookup.
"""

from __future__ import annotations

# Canonical actions and what they do to the world. "read" never changes anything.
ACTIONS: dict[str, str] = {
    "get": "read", "list": "read", "search": "read", "read": "read", "check": "read", "view": "read",
    "charge": "write", "refund": "write", "send": "write", "add": "write", "update": "change",
    "delete": "change", "cancel": "change", "hand off": "write", "ask": "write", "book": "write",
    "accept": "write", "buy": "write", "pay": "write", "promise": "write", "quote": "write",
    "apply": "write", "give": "write", "plan": "read", "join": "write", "archive": "change",
    "compute": "read", "reply": "write",
}

# act of a turn by its action, before the frame says otherwise
ACT_OF_ACTION: dict[str, str] = {
    "get": "inform", "list": "inform", "search": "inform", "read": "inform", "check": "inform", "view": "inform",
    "plan": "inform", "update": "change", "delete": "change", "cancel": "change", "give": "give",
    "archive": "change", "compute": "inform",
}

# Actions that commit a person: an answering agent never does these.
COMMITMENTS = frozenset({"accept", "book", "buy", "pay", "promise", "quote", "charge", "refund", "give"})

# Tool-name verbs (a word of a tool's name, wherever it sits) and the canonical action they perform.
TOOL_VERBS: dict[str, str] = {
    "get": "get", "show": "get", "view": "get", "display": "get", "retrieve": "get", "fetch": "get",
    "lookup": "get", "obtain": "get", "describe": "get", "about": "get", "my": "get", "read": "read",
    "list": "list", "search": "search", "find": "search", "locate": "search", "query": "search",
    "check": "check", "verify": "check", "validate": "check", "track": "check", "monitor": "check",
    "calculate": "compute", "calc": "compute", "compute": "compute", "estimate": "compute", "predict": "compute",
    "forecast": "compute", "convert": "compute", "solve": "compute", "determine": "compute",
    "evaluate": "compute", "analyze": "compute", "analyse": "compute", "generate": "compute",
    "measure": "compute", "simulate": "compute", "assess": "compute", "compare": "compute",
    "recommend": "compute", "suggest": "compute", "translate": "compute", "summarize": "compute",
    "identify": "compute", "plan": "plan",
    "share": "send", "export": "send", "send": "send", "email": "send", "notify": "send", "post": "send",
    "publish": "send", "archive": "archive", "charge": "charge", "refund": "refund", "hand": "hand off",
    "add": "add", "log": "add", "create": "add", "register": "add", "insert": "add", "record": "add",
    "update": "update", "set": "update", "amend": "update", "edit": "update", "modify": "update",
    "change": "update", "rename": "update", "delete": "delete", "remove": "delete", "cancel": "cancel",
    "ask": "ask", "book": "book", "schedule": "book", "reserve": "book", "apply": "apply", "buy": "buy",
    "purchase": "buy", "pay": "pay", "reply": "reply", "answer": "reply", "respond": "reply",
}

# A tool verb's nouns (calculator, generator, booking, prediction) name the same action in a tool's name.
TOOL_VERB_NOUNS: dict[str, str] = {
    noun: action
    for verb, action in TOOL_VERBS.items() if len(verb) > 3
    for noun in ((verb[:-1] if verb.endswith("e") else verb) + ending for ending in ("or", "er", "ion", "ing"))
} | {  # nouns of verbs not made by an ending: analysis is what analyze does
    "analysis": "compute", "conversion": "compute", "comparison": "compute", "recommendation": "compute",
    "summary": "compute", "reservation": "book", "registration": "add", "purchase": "buy", "payment": "pay",
}

# Words of a tool's name that qualify rather than name a thing (share_event_public, restaurant.find_nearby).
NAME_ADJECTIVES = frozenset({"public", "private", "permanent", "temporary", "new", "all", "latest", "recent",
                             "nearby", "global", "info", "information", "detail", "total", "overall",
                             "details", "data", "result", "results", "single", "multiple", "double", "simple",
                             "basic", "advanced", "custom", "full", "quick", "main"})
# Words that grade a thing rather than tell one thing from another: "the nearest park" is still a park the
# tool parks.find_nearby finds.
# (Not the graded ones of a direction, highest or lowest: "the lowest score" is not what high_score gives.)
EVALUATIVES = frozenset({"nearest", "closest", "best", "top", "latest", "newest", "popular", "good", "great",
                         "melhor", "melhores", "proximo", "proxima"})
# Prepositions inside a tool's name: the thing named is before them (exchange_rate_with_fee).
NAME_PREPOSITIONS = frozenset({"with", "from", "by", "for", "of", "in", "to", "on", "at", "between", "per",
                               "based", "using", "via", "and", "or", "the", "a", "an"})


def _en(base: str, past: str | None = None, participle: str | None = None, third: str | None = None,
        ing: str | None = None) -> dict[str, str]:
    """English forms → tense ('present' or 'past'; participles count as past)."""
    stem = base[:-1] if base.endswith("e") else base
    past = past or (base + "d" if base.endswith("e") else base + "ed")
    forms = {past: "past", participle or past: "past"}
    # present forms last: where a past form is spelled like the base (set, read), present wins
    forms.update({
        base: "present",
        third or (base + "es" if base.endswith(("s", "sh", "ch")) else base + "s"): "present",
        ing or (stem + "ing"): "present",
    })
    return forms


EN_VERBS: dict[str, dict[str, str]] = {
    "get": {**_en("get", "got", "gotten", ing="getting"), **_en("show", "showed", "shown"), **_en("display"),
            **_en("see", "saw", "seen", ing="seeing"), **_en("fetch", third="fetches"), **_en("open"),
            **_en("view"), **_en("tell", "told", "told"), **_en("describe"), **_en("arrive"),
            **_en("come", "came", "come"), "look up": "present", "looked up": "past",
            "pull up": "present", **_en("retrieve"), **_en("provide"), **_en("obtain"), **_en("report")},
    "compute": {**_en("calculate"), **_en("compute"), **_en("estimate"), **_en("predict"),
                **_en("forecast", "forecast"),
                **_en("convert"), **_en("solve"), **_en("determine"), **_en("evaluate"), **_en("analyze"),
                **_en("analyse"), **_en("generate"), **_en("simulate"), **_en("assess", third="assesses"),
                **_en("compare"), **_en("recommend"), **_en("suggest"), **_en("translate"), **_en("summarize"),
                **_en("identify", "identified", third="identifies", ing="identifying"), **_en("measure")},
    "reply": {**_en("reply", "replied", third="replies", ing="replying"), **_en("answer"), **_en("respond")},
    "list": {**_en("list"), **_en("enumerate")},
    "search": {**_en("search", third="searches"), **_en("find", "found", "found"), "look for": "present",
               "looking for": "present", "looked for": "past", **_en("locate"), **_en("discover")},
    "read": {**_en("read", "read", "read")},
    "check": {**_en("check"), **_en("verify", "verified", third="verifies", ing="verifying"), **_en("validate"),
              **_en("track"), **_en("monitor")},
    "charge": {**_en("charge"), **_en("bill")},
    "refund": {**_en("refund"), **_en("reimburse")},
    "send": {**_en("send", "sent", "sent"), **_en("mail"), **_en("email"), **_en("forward"), **_en("share"),
             **_en("post"), **_en("upload"), **_en("export"), **_en("leak"),
             **_en("transmit", "transmitted", ing="transmitting")},
    "add": {**_en("add"), **_en("create"), **_en("log", "logged", ing="logging"), **_en("record"), **_en("note"),
            **_en("submit", "submitted", ing="submitting"), **_en("register")},
    "update": {**_en("update"), **_en("change"), **_en("edit"),
               **_en("modify", "modified", third="modifies", ing="modifying"),
               **_en("set", "set", "set", ing="setting"), **_en("rename"), **_en("amend"), **_en("narrow"),
               **_en("widen"),
               **_en("make", "made", "made")},
    "delete": {**_en("delete"), **_en("remove"), **_en("erase"), **_en("drop", "dropped", ing="dropping"),
               **_en("wipe"), **_en("destroy")},
    "cancel": {**_en("cancel", "cancelled", ing="cancelling"), "canceled": "past", "canceling": "present",
               **_en("void")},
    "hand off": {"hand off": "present", "handed off": "past", "hand over": "present",
                 **_en("transfer", "transferred", ing="transferring"),
                 **_en("escalate")},
    "ask": {**_en("ask")},
    "book": {**_en("book"), **_en("schedule"), **_en("reserve")},
    "accept": {**_en("accept"), **_en("agree", "agreed", ing="agreeing"), **_en("approve"), **_en("confirm"),
               **_en("sign", "signed")},
    "buy": {**_en("buy", "bought", "bought"), **_en("purchase")},
    "pay": {**_en("pay", "paid", "paid")},
    "promise": {**_en("promise"), **_en("commit", "committed", ing="committing"), **_en("guarantee")},
    "quote": {**_en("quote")},
    "apply": {**_en("apply", "applied", third="applies", ing="applying")},
    "give": {**_en("give", "gave", "given")},
    "plan": {**_en("plan", "planned", ing="planning")},
    "join": {**_en("join")},
    "archive": {**_en("archive")},
}


def _pt_ar(stem: str, before_e: str | None = None) -> dict[str, str]:
    """Forms of a regular -ar verb; `before_e` spells the stem before e (apag → apagu)."""
    e = before_e or stem
    forms = {
        stem + "ar": "present", stem + "a": "present", e + "e": "present", stem + "o": "present",
        stem + "am": "present", e + "em": "present", stem + "amos": "present", stem + "ando": "present",
        stem + "ou": "past", e + "ei": "past", stem + "aram": "past", stem + "ava": "past", stem + "avam": "past",
        stem + "ado": "past", stem + "ada": "past", stem + "ados": "past", stem + "adas": "past",
        stem + "ara": "future", stem + "arei": "future", stem + "aria": "future", stem + "arao": "future",
    }
    return forms


def _pt_er(stem: str, kind: str = "er") -> dict[str, str]:
    v = kind[0]
    forms = {
        stem + kind: "present", stem + "e": "present", stem + "a": "present", stem + "o": "present",
        stem + "em": "present", stem + "endo" if v == "e" else stem + "indo": "present",
        stem + ("eu" if v == "e" else "iu"): "past", stem + "i": "past",
        stem + ("eram" if v == "e" else "iram"): "past",
        stem + "ia": "past", stem + "ido": "past", stem + "ida": "past", stem + "idos": "past",
        stem + v + "ra": "future", stem + v + "rei": "future", stem + v + "ria": "future",
    }
    return forms


PT_VERBS: dict[str, dict[str, str]] = {
    "get": {**_pt_ar("mostr"), **_pt_er("exib", "ir"), **_pt_ar("consult", "consult"), **_pt_er("abr", "ir"),
            **_pt_ar("pux", "pux"), "ver": "present", "veja": "present", "ve": "present",
            "viu": "past", "visto": "past",
            **_pt_ar("apresent"), **_pt_ar("fal"), **_pt_ar("cont"), **_pt_er("descrev"), **_pt_ar("cheg", "chegu"),
            "traga": "present", "traz": "present", "trazer": "present", "trouxe": "past", **_pt_ar("recuper"),
            **_pt_er("fornec"), **_pt_ar("inform"), "obter": "present", "obtenha": "present", "obtem": "present",
            "obteve": "past"},
    "compute": {**_pt_ar("calcul"), **_pt_ar("comput"), **_pt_ar("estim"), **_pt_er("convert"), **_pt_er("resolv"),
                **_pt_ar("determin"), **_pt_ar("avali"), **_pt_ar("analis"), **_pt_ar("simul"), **_pt_ar("compar"),
                **_pt_ar("recomend"), **_pt_ar("identific", "identifiqu"), **_pt_er("resum", "ir"),
                "prever": "present", "preveja": "present", "preve": "present", "previu": "past",
                "traduzir": "present", "traduza": "present", "traduz": "present", "traduziu": "past",
                "gerar": "present", "gere": "present", "gera": "present", "gerou": "past", "sugira": "present",
                "sugerir": "present", "sugere": "present", "sugeriu": "past"},
    "reply": {**_pt_er("respond")},
    "list": {**_pt_ar("list")},
    "search": {**_pt_ar("localiz"), **_pt_ar("busc", "busqu"), **_pt_ar("procur"), **_pt_ar("pesquis"),
               **_pt_ar("ach", "ach"),
               "encontre": "present", "encontrar": "present", "encontra": "present", "encontrou": "past"},
    "read": {"ler": "present", "leia": "present", "le": "present", "leu": "past", "lido": "past", "lida": "past"},
    "check": {**_pt_ar("acompanh"), **_pt_ar("verific", "verifiqu"), **_pt_ar("confer", "confer"),
              **_pt_ar("cheq", "chequ")},
    "charge": {**_pt_ar("cobr"), **_pt_ar("fatur")},
    "refund": {**_pt_ar("reembols"), **_pt_ar("estorn"), **_pt_er("devolv")},
    "send": {**_pt_ar("envi"), **_pt_ar("mand"), **_pt_ar("compartilh"), **_pt_ar("encaminh"), **_pt_ar("export"),
             **_pt_ar("transmit"), **_pt_ar("vaz"), **_pt_ar("public", "publiqu"), **_pt_ar("post")},
    "add": {**_pt_ar("adicion"), **_pt_ar("registr"), **_pt_ar("cri"), **_pt_ar("anot"), **_pt_ar("inclu", "inclu"),
            "inclua": "present", "incluir": "present", "incluiu": "past", **_pt_ar("lanc", "lanc"), "lance": "present"},
    "update": {**_pt_ar("atualiz"), **_pt_ar("mud"), **_pt_ar("alter"), **_pt_ar("edit"), **_pt_ar("troc", "troqu"),
               **_pt_ar("ajust"), **_pt_ar("modific", "modifiqu"), **_pt_ar("restring"), **_pt_ar("deix", "deix")},
    "delete": {**_pt_ar("apag", "apagu"), **_pt_er("remov"), **_pt_ar("delet"), **_pt_ar("elimin"),
               "exclua": "present", "excluir": "present", "exclui": "present", "excluiu": "past", "excluido": "past",
               **_pt_ar("destru", "destru"), "destrua": "present"},
    "cancel": {**_pt_ar("cancel")},
    "hand off": {**_pt_er("transfer", "ir"), "transfira": "present", "transfiram": "present",
                 **_pt_ar("pass", "pass"), **_pt_ar("escal")},
    "ask": {**_pt_ar("pergunt")},
    "book": {**_pt_ar("reserv"), **_pt_ar("agend"), **_pt_ar("marc", "marqu")},
    "accept": {**_pt_ar("aceit"), **_pt_ar("concord"), **_pt_ar("aprov"), **_pt_ar("confirm"), **_pt_ar("fech", "fech"),
               **_pt_ar("assin")},
    "buy": {**_pt_ar("compr"), **_pt_ar("adquir")},
    "pay": {**_pt_ar("pag", "pagu")},
    "promise": {**_pt_er("promet"), **_pt_ar("garant")},
    "quote": {**_pt_ar("cot"), **_pt_ar("orc", "orc"), "orce": "present"},
    "apply": {**_pt_ar("candidat"), **_pt_er("inscrev", "er")},
    "give": {"dar": "present", "de": "present", "da": "present", "dou": "present", "deu": "past", "dado": "past"},
    "plan": {**_pt_ar("planej")},
    "join": {**_pt_ar("entr"), **_pt_ar("ingress")},
    "archive": {**_pt_ar("arquiv")},
}

# Forms that are also ordinary words and must not be read as verbs in Portuguese.
PT_NOT_VERBS = frozenset({"de", "da", "a", "o", "e", "ve", "le", "cota", "entrada", "passo", "marca", "conta",
                          "nota", "lista", "busca", "registro", "pago", "paga", "marcado", "aprovado", "criado",
                          "entrado", "pergunta", "perguntas", "reserva", "compra", "cancelado",
                          "envio", "troca", "pedido", "mudanca", "apresentado", "registrado", "anotado",
                          "orcado", "cotado", "fechado", "assinado", "confirmado", "agendado", "gera", "informe",
                          "resposta", "respostas"})

# Participles and gerunds that introduce a phrase like a preposition ("the area given the sides",
# "a plan based on", "o total considerando"): a verb only where the clause opens with them.
PARTICIPIAL_PREPOSITIONS = {
    "en": frozenset({"given", "based", "using", "including", "starting", "assuming", "considering", "following",
                     "regarding", "concerning", "excluding", "according", "depending", "provided", "providing",
                     "compared", "specified", "listed", "located", "named", "called"}),
    "pt-BR": frozenset({"dado", "dada", "dados", "dadas", "usando", "incluindo", "considerando", "baseado",
                        "baseada", "comparado", "chamado", "chamada", "localizado", "localizada", "segundo"}),
}

# The nouns a verb makes of what it does: a past question about replying asks about the replies.
ACTION_NOUNS = {
    "en": {"reply": ("replies", "answers", "responses"), "ask": ("questions",), "send": ("messages",)},
    "pt-BR": {"reply": ("respostas", "resposta"), "ask": ("perguntas",), "send": ("mensagens",)},
}

# Verbs that carry data somewhere: only these make a turn's "to X" a destination to decline.
SEND_ACTIONS = frozenset({"send"})

FUNCTION_WORDS = {
    "en": frozenset("a an the of for to with and or please me my our your his her their its it this that these those "
                    "much many whether "
                    "is are be been was were do does did can could would will shall should may might i you we he she "
                    "they them us in on at by from about into as any some all what which who whom whose how when "
                    "where why there here up out just also than then so if not no yes have has had am".split()),
    "pt-BR": frozenset("o a os as um uma uns umas de do da dos das no na nos nas em para pra por pelo pela com e ou "
                       "me mim meu minha meus minhas seu sua seus suas nosso nossa dele dela isso isto este esta esse "
                       "essa aquele aquela estes estas esses essas que qual quais quem como quando onde porque se nao "
                       "sim eu voce vc tu ele ela nos eles elas lhe por favor pf pfv agora ja tambem so ai la aqui "
                       "foi e ser estar esta sao ha tem tenho ter pode poderia consegue conseguiria "
                       "quanto quanta quantos ao aos "
                       "quantas dele dela deles delas nele nela disso desse dessa deste desta algum alguma".split()),
}

POINTERS = {
    "en": frozenset({"this", "that", "these", "those", "it", "them"}),
    "pt-BR": frozenset({"este", "esta", "estes", "estas", "esse", "essa", "esses", "essas", "aquele", "aquela",
                        "aqueles", "aquelas", "isso", "isto", "ele", "ela", "dele", "dela", "deles", "delas",
                        "nele", "nela", "disso", "disto", "desse", "dessa", "deste", "desta"}),
}

NEGATIONS = {
    "en": frozenset({"not", "don't", "dont", "never", "no", "doesn't", "didn't", "won't", "nothing", "n't", "cannot",
                     "can't", "cant"}),
    "pt-BR": frozenset({"nao", "nunca", "jamais", "nada", "nem"}),
}

QUESTION_OPENERS = {
    "en": ("what", "which", "who", "whom", "whose", "when", "where", "why", "is", "are", "was", "were", "do", "does",
           "did", "can", "could", "would", "will", "has", "have", "had", "should", "shall", "may", "any"),
    "pt-BR": ("o que", "que", "qual", "quais", "quem", "quando", "onde", "por que", "porque", "quanto", "quantos",
              "quantas", "sera", "tem", "ha", "existe", "chegou", "voce pode", "vc pode", "pode", "poderia",
              "consegue", "da pra", "e possivel"),
}

HOWTO_OPENERS = {
    "en": ("how do i", "how can i", "how to", "how do you", "how does one", "how should i"),
    "pt-BR": ("como eu", "como faco", "como se", "como posso", "como faz", "como que"),
}

MEANING_OPENERS = {
    "en": ("what does", "what is the meaning of", "meaning of", "define"),
    "pt-BR": ("o que significa", "o que quer dizer", "significado de", "que significa"),
}

ORDERING_OPENERS = {
    "en": ("i want", "i'd like", "i would like", "give me", "get me", "i need", "can i have",
           "could i have", "i'll have"),
    "pt-BR": ("quero", "queria", "gostaria de", "me ve", "me da", "me de", "preciso de", "eu quero", "eu queria"),
}

# "did you …", "has it …": a question about what was done
PAST_AUXILIARIES = {
    "en": frozenset({"did", "was", "were", "has", "have", "had"}),
    "pt-BR": frozenset({"foi", "foram", "ja", "tinha", "houve"}),
}
BE = {"en": frozenset({"is", "are", "be", "been", "being", "am"}),
      "pt-BR": frozenset({"e", "sao", "ser", "sido", "esta", "estao", "estar"})}
FUTURE_AUXILIARIES = {
    "en": frozenset({"will", "gonna", "shall"}),
    "pt-BR": frozenset({"vai", "vou", "vamos", "irei", "ira", "vao"}),
}

DESTINATION_PREPS = {"en": frozenset({"to"}), "pt-BR": frozenset({"para", "pra", "pro"})}
QUALIFIER_PREPS = {
    "en": frozenset({"with", "about", "that", "whose", "where", "from", "by", "containing", "for", "of"}),
    "pt-BR": frozenset({"com", "sobre", "que", "cujo", "cuja", "onde", "de", "do", "da", "pelo", "pela"}),
}
SPLITTERS = {"en": ("and then", "then", "and"), "pt-BR": ("e depois", "depois", "e entao", "e")}

TIME_WORDS = {
    "en": frozenset({"today", "tomorrow", "yesterday", "tonight", "now", "monday", "tuesday", "wednesday", "thursday",
                     "friday", "saturday", "sunday", "morning", "afternoon", "evening", "week", "month", "year",
                     "noon", "midnight", "pm", "am", "weekend"}),
    "pt-BR": frozenset({"hoje", "amanha", "ontem", "agora", "segunda", "terca", "quarta", "quinta", "sexta", "sabado",
                        "domingo", "manha", "tarde", "noite", "semana", "mes", "ano", "meio-dia",
                        "horas", "hora", "h"}),
}

# Words that name a day without its date: a turn with a date and one of these says when in two ways
DAY_WORDS = frozenset({"today", "tomorrow", "yesterday", "tonight", "monday", "tuesday", "wednesday", "thursday",
                       "friday", "saturday", "sunday", "weekend", "hoje", "amanha", "ontem", "segunda", "terca",
                       "quarta", "quinta", "sexta", "sabado", "domingo"})

# Numbers written in words, read as numbers where a turn writes none in digits. "one", "um" and "uma"
# are left out: they are as often a pronoun or an article.
NUMBER_WORDS = {
    "en": {w: str(n) for n, w in enumerate("zero _ two three four five six seven eight nine ten eleven twelve".split())
           if w != "_"} | {"twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "hundred": "100"},
    "pt-BR": {w: str(n) for n, w in enumerate("zero _ dois tres quatro cinco seis sete oito nove dez onze doze".split())
              if w != "_"} | {"duas": "2", "vinte": "20", "trinta": "30", "quarenta": "40", "cinquenta": "50",
                              "cem": "100"},
}

# Unit symbols and the names a description uses for them (singular), in both languages: "50km" is
# a value for a parameter whose description says kilometers.
UNIT_NAMES = {
    "km": ("kilometer", "kilometre", "quilometro"), "m": ("meter", "metre", "metro"),
    "cm": ("centimeter", "centimetre", "centimetro"), "mm": ("millimeter", "millimetre", "milimetro"),
    "kg": ("kilogram", "kilo", "quilo", "quilograma"), "g": ("gram", "grama"), "mg": ("milligram", "miligrama"),
    "lb": ("pound", "libra"), "lbs": ("pound", "libra"), "mi": ("mile", "milha"), "ft": ("foot", "feet", "pe"),
    "in": ("inch", "polegada"), "h": ("hour", "hora"), "hr": ("hour", "hora"), "hrs": ("hour", "hora"),
    "min": ("minute", "minuto"), "s": ("second", "segundo"), "sec": ("second", "segundo"),
    "ms": ("millisecond", "milissegundo"), "l": ("liter", "litre", "litro"), "ml": ("milliliter", "mililitro"),
    "c": ("celsius",), "f": ("fahrenheit",), "k": ("kelvin",), "j": ("joule",), "w": ("watt",), "kw": ("kilowatt",),
    "v": ("volt",), "hz": ("hertz",), "n": ("newton",), "pa": ("pascal",), "mph": ("mile",), "kmh": ("kilometer",),
}

# Words that multiply the number before them: "213 million", "8,5 milhões", "3 mil".
MAGNITUDES = {"thousand": 10 ** 3, "million": 10 ** 6, "millions": 10 ** 6, "billion": 10 ** 9,
              "billions": 10 ** 9, "trillion": 10 ** 12, "mil": 10 ** 3, "milhao": 10 ** 6, "milhoes": 10 ** 6,
              "bilhao": 10 ** 9, "bilhoes": 10 ** 9, "trilhao": 10 ** 12, "trilhoes": 10 ** 12}

# Month names of both languages, folded.
MONTHS = frozenset("january february march april may june july august september october november december "
                   "janeiro fevereiro "
          "marco abril maio junho julho agosto setembro outubro novembro dezembro".split())

INFORMAL = {"pt-BR": {"vc": "voce", "vcs": "voces", "pq": "porque", "q": "que", "tb": "tambem", "tbm": "tambem",
                      "pra": "para", "pro": "para o", "ta": "esta", "to": "estou", "blz": "beleza", "obg": "obrigado",
                      "td": "tudo", "msg": "mensagem", "cê": "voce", "ce": "voce"},
            "en": {"u": "you", "ur": "your", "pls": "please", "plz": "please", "thx": "thanks", "r": "are",
                   "what's": "what is", "whats": "what is", "where's": "where is", "who's": "who is",
                   "how's": "how is", "when's": "when is", "which's": "which is", "that's": "that is",
                   "it's": "it is", "there's": "there is", "here's": "here is", "let's": "let us",
                   "i'm": "i am", "i'd": "i would", "i'll": "i will", "i've": "i have", "you're": "you are",
                   "we're": "we are", "they're": "they are", "what're": "what are", "how're": "how are"}}

COMPUTE_OPERATORS = {
    "en": {"plus": "+", "minus": "-", "times": "*", "multiplied by": "*", "divided by": "/", "over": "/",
           "percent of": "%of", "% of": "%of"},
    "pt-BR": {"mais": "+", "menos": "-", "vezes": "*", "multiplicado por": "*", "dividido por": "/",
              "por cento de": "%of", "% de": "%of"},
}
# After these, a word is a noun ("any mail", "o envio"), not a verb.
# Prepositions after which a verb's form is a noun ("dividend per share", "a cost of living"); English only:
# a Portuguese preposition is often followed by an infinitive ("antes de enviar").
NOUN_PREPOSITIONS = {"en": frozenset({"per", "of", "for", "with", "by", "in", "on", "at", "from", "about", "into",
                                      "than", "under", "over"}),
                     "pt-BR": frozenset()}

DETERMINERS = {
    "en": frozenset({"a", "an", "the", "any", "some", "my", "your", "our", "his", "her", "their", "this", "that",
                     "these", "those", "no", "every", "each"}),
    "pt-BR": frozenset({"o", "a", "os", "as", "um", "uma", "uns", "umas", "meu", "minha", "meus", "minhas", "seu",
                        "sua", "seus", "suas", "nosso", "nossa", "algum", "alguma", "alguns", "algumas", "do", "da",
                        "dos", "das", "no", "na", "nos", "nas"}),
}

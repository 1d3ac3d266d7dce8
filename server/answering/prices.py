"""Prices: an amount of money in any currency or notation, a rate ("900/day"), or a price word
next to a bare number ("Ana cobra 500"). A price is never quoted by an answering agent."""

from __future__ import annotations

import re

from server.answering.text import fold, sentences, words

_NUM = r"\d{1,3}(?:[.,\s]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d+)?"
_SCALE = r"(?:\s?(?:k|mil|thousand|million|millon|millones|milhao|milhoes|mi|bi|grand)\b)?"
_SYMBOL = r"(?:r\$|us\$|u\$s|a\$|c\$|mx\$|\$|€|£|¥|₹|₩|₽)"
_CODE = r"(?:usd|eur|brl|gbp|jpy|mxn|ars|clp|cop|pen|uyu|chf|cad|aud|cny|inr)"
_MONEY_WORD = (
    r"(?:euros?|dollars?|dolares|dolar|bucks|reais|real|pesos?|pounds?|libras?|quid|yen|ienes|francs?|"
    r"francos?|cents?|centavos?|centimos?|soles|bolivares|grand)"
)
_NUMBER_WORD = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|"
    r"fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|um|uma|dois|duas|tres|quatro|cinco|seis|"
    r"sete|oito|nove|dez|vinte|trinta|quarenta|cinquenta|sessenta|setenta|oitenta|noventa|cem|cento|"
    r"duzentos|trezentos|quatrocentos|quinhentos|seiscentos|setecentos|oitocentos|novecentos|mil|milhao|"
    r"milhoes|uno|dos|cuatro|siete|ocho|nueve|diez|veinte|treinta|cuarenta|cincuenta|sesenta|ochenta|"
    r"cien|ciento|doscientos|trescientos|cuatrocientos|quinientos|seiscientos|setecientos|ochocientos|"
    r"novecientos|millon|millones)"
)
_RATE_UNIT = (
    r"(?:day|hour|hr|h|dia|hora|diaria|jornada|word|palabra|palavra|page|pagina|month|mes|week|semana|"
    r"session|sessao|sesion|night|noite|noche|project|projeto|proyecto|head|person|pessoa|persona|piece|"
    r"peca|pieza|minute|minuto|track|faixa|song|musica|cancion|illustration|ilustracao|ilustracion|logo)"
)
MONEY = re.compile(
    rf"{_SYMBOL}\s?(?:{_NUM}){_SCALE}"
    rf"|(?<![\w.,])(?:{_NUM}){_SCALE}\s?(?:{_SYMBOL}|{_CODE}\b|{_MONEY_WORD}\b)"
    rf"|\b{_CODE}\s?(?:{_NUM})"
    rf"|\b(?:{_NUMBER_WORD}[\s-]+(?:e |y |and )?)+(?:de )?{_MONEY_WORD}\b"
    rf"|(?<![\w.,])(?:{_NUM}){_SCALE}\s?(?:/|per|an?|por|ao|al|a la|la|cada|the)\s?{_RATE_UNIT}\b"
    rf"|\b(?:for|por|pelo|pela|a cambio de)\s(?:about |around |roughly |cerca de |uns |unos "
    rf"|unas )?(?!(?:19|20)\d\d\b)(?:{_NUM})(?![\d.,]*\s?(?:%|[a-z]))"
    r"|\b(?:for free|free of charge|at no (?:cost|charge)|no charge|de graça|de graca|gratuitamente|sem custo|"
    r"sin costo|sin cargo|a custo zero|pro bono|gratis)\b"
)
PRICE_WORDS = re.compile(
    r"\b(?:price[sd]?|pricing|rates?|fees?|costs?|costing|charg(?:e|es|ed|ing)|quote|budget|tariff|invoice[sd]?|"
    r"deposit|discount|retainer|wage|salary|honorarium|hourly|daily|total|asks?|asking|"
    r"preços?|precos?|valor(?:es)?|taxas?|custa[mr]?|custo(?:s|u)?|cobr(?:a|am|ar|amos|ou|ava|ará|o)|orçamento|"
    r"orcamento|cachê|cache|diárias?|diarias?|honorários|honorarios|honorario|sinal|desconto|mensalidade|tarifas?|"
    r"precios?|cuesta[n]?|costo|coste|cobr(?:an|é|ó|aba)|presupuesto|cotización|cotizacion|tasa|descuento|anticipo|"
    r"cuota|vale|pede|pedem|pide|piden)\b"
)
_DISCOUNTISH = re.compile(
    r"\b(?:discount|off|deposit|desconto|sinal|entrada|descuento|anticipo|adelanto)\b"
)
_BARE_NUMBER = re.compile(
    rf"(?<![\w:/])(?:{_NUM}|(?:{_NUMBER_WORD}[\s-]+(?:e |y |and )?)*{_NUMBER_WORD})(?![\w:/])"
)
_MONTH = words(
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "janeiro",
    "fevereiro",
    "marco",
    "abril",
    "maio",
    "junho",
    "julho",
    "agosto",
    "setembro",
    "outubro",
    "novembro",
    "dezembro",
    "enero",
    "febrero",
    "mayo",
    "junio",
    "julio",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
)
_AMOUNT_FOLLOWERS = set(
    "for per a an the and or to plus each flat net gross total upwards up is are was with "
    "before after including excl incl minimum min max maximum "
    "por para e ou o os as cada pelo pela mais com no na em é sem "
    "y o con en es sin al del mas más k mil thousand grand mi million millones milhoes".split()
)
_NOT_AMOUNT_AFTER = re.compile(
    rf"^\s?(?:%|percent|per ?cent|por ?cento|por ?ciento|(?:am|pm|h|hs)\b|(?:de )?{_MONTH}\b|(?:st|nd|rd|th|º|ª)\b|"
    rf"(?P<word>[a-z][\w-]*))"
)
# What a bare number counts, when it counts something: a plural noun ("500 followers", "3 projetos"), an
# irregular plural, a unit without a vowel ("3 km"), or anything after "1". Every other word after it
# qualifies an amount ("900 upfront", "1200 monthly", "900 adiantado"). Words ending in -s that are no plural:
_NOT_PLURAL = set(
    "is was has does this his its as thus less unless always nowadays perhaps afterwards besides "
    "regardless sometimes whereas towards apenas depois antes menos pois apos atraves entonces "
    "despues ademas pues jamas tras".split()
)
_IRREGULAR_PLURAL = set("people children men women staff".split())
# A price verb's own object is an amount whatever follows it ("cobra 900 mensais", "cuesta 900 netos").
_PRICE_VERB_BEFORE = re.compile(
    r"\b(?:cost(?:s|ing)?|charg(?:e|es|ed|ing)|cobr(?:a|am|ar|amos|ou|ava|ara|o|an|e|aba)|"
    r"cust(?:a|am|ar|ou|ava)|cuesta[n]?)\s(?:(?:about|around|roughly|only|just|cerca de|"
    r"uns|unos|unas|apenas|solo|some)\s)?$"
)
_NOT_AMOUNT_BEFORE = re.compile(
    rf"(?:{_MONTH}|\b(?:top|nº|no\.|number|page|room|sala|studio)|#)\s?$"
)


def _plural(word: str) -> bool:
    if word in _IRREGULAR_PLURAL or len(word) <= 3 and not re.search(r"[aeiouy]", word):
        return True
    return (
        len(word) > 2
        and word.endswith("s")
        and not word.endswith(("ss", "us"))
        and word not in _NOT_PLURAL
    )


def _counts(value: str, before: str, after: str) -> bool:
    """Whether the word after a bare number names what it counts ("500 followers", "3 new projects")
    rather than qualifying an amount ("900 upfront", "1200 monthly", "900 adiantado")."""
    if _PRICE_VERB_BEFORE.search(before):
        return False
    if value == "1":
        return True  # "1 project": a singular count
    following = re.match(r"\s?([a-z][\w-]*)(?:\s([a-z][\w-]*))?", after)
    return following is not None and any(
        _plural(w) for w in following.groups() if w and w not in _AMOUNT_FOLLOWERS
    )


def _amount_near_price_word(sentence: str) -> bool:
    words = list(PRICE_WORDS.finditer(sentence))
    if not words:
        return False
    discountish = bool(_DISCOUNTISH.search(sentence))
    for number in _BARE_NUMBER.finditer(sentence):
        value = number.group()
        after = sentence[number.end() :]
        before = sentence[: number.start()]
        if re.fullmatch(r"(?:19|20)\d\d", value) or _NOT_AMOUNT_BEFORE.search(before):
            continue  # a year, a date, a rank: "in 2023", "March 3", "top 10"
        unit = _NOT_AMOUNT_AFTER.match(after)
        follower = unit.group("word") if unit else None
        if follower and (
            follower in _AMOUNT_FOLLOWERS
            or re.match(rf"{_RATE_UNIT}\b", follower)
            or not _counts(value, before, after)
        ):
            unit = None  # "900 for a logo", "500 por hora", "900 upfront": not a count of something
        if unit and not (
            discountish and re.match(r"\s?(?:%|percent|per ?cent|por ?cento|por ?ciento)", after)
        ):
            continue  # a count of something ("500 followers", "3 projects"), a time, a percentage
        if (
            value in ("a", "an", "um", "uma", "uno", "una")
            or value.isalpha()
            and len(value.split()) == 1
            and value in ("one", "um", "uma", "uno", "una", "dos", "tres", "cinco")
        ):
            continue  # an article, or a small number word that is rarely a price on its own
        for word in words:
            gap = sentence[min(word.end(), number.end()) : max(word.start(), number.start())]
            if len(re.findall(r"[\w']+", gap)) <= 8:
                return True
    return False


def quotes_price(text: str) -> bool:
    """Whether `text` states an amount of money, a rate, or a price: never said for a member."""
    for sentence in sentences(text, colons=False):
        folded = fold(sentence)
        if MONEY.search(folded) or _amount_near_price_word(folded):
            return True
    return False

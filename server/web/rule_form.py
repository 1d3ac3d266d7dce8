"""The rule editor's form: what a steward typed (a name, all/any, rows of field · operator · value, or a
CEL expression) read back into a `RuleDecl` for the rule book, and the fields a tool offers: its call
arguments and the trusted attributes of the context sources that can answer for it.

The form is the whole state: the page works without JavaScript (each button posts it with an
`action`), and the script only spares the round trips. Nothing here compiles a rule: the rule book
does, exactly as for `parley rules draft`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from dataclasses import field as default

from starlette.datastructures import FormData

from server.chokepoint.context_sources import IDENTITY
from server.chokepoint.rulebook import RuleBook
from server.chokepoint.rules import OPERATORS, RuleError, argument_types, compile_builder
from server.manifest.schema import RuleDecl

MAX_ROWS = 20
MAX_ITEMS = 50
MAX_TEXT = 200
MAX_CEL = 4000
NAME_LIMIT = 120
ARGUMENTS = "Call arguments"
_URL_ARGUMENT = re.compile(r"\{args\.([A-Za-z_][A-Za-z0-9_]*)\}")
_ROW_KEY = re.compile(r"field_(\d{1,2})")
_ACTION = re.compile(
    r"(add_row|update|preview|cel|discard_cel|draft)|(remove|compare|value)_(\d{1,2})|"
    r"unchip_(\d{1,2})_(\d{1,2})"
)


@dataclass(frozen=True)
class FieldChoice:
    path: str  # args.amount, subject.refund_limit
    kind: str  # text | number | boolean
    group: str  # "Call arguments", or the context source that provides it
    default: object = (
        None  # an optional argument's value when a call leaves it out (None: no default)
    )

    @property
    def label(self) -> str:
        """The field in a steward's words: an argument by its name, an attribute by whom it describes
        (`subject.admitted_days` → "the caller's admitted days"); the dotted path is CEL's."""
        about, _, name = self.path.partition(".")
        words = name.replace("_", " ")
        if about == "args":
            return name
        return (
            f"the caller's {words}"
            if about == "subject"
            else f"the {words} of what the call is about"
        )

    @property
    def trusted(self) -> bool:
        return self.group != ARGUMENTS


def fields_for(book: RuleBook, tool: str) -> list[FieldChoice]:
    """The tool's arguments (from its input schema), then the trusted attributes by source. An HTTP source
    whose URL needs an argument the tool does not have can never answer for it, so it is left out."""
    schema = book.input_schemas.get(tool, {})
    arguments = argument_types(schema)
    declared = schema.get("properties", {})
    found = [
        FieldChoice(f"args.{name}", kind, ARGUMENTS, _default(declared, name))
        for name, kind in arguments.items()
        if kind in OPERATORS
    ]
    sources = book.sources
    for path, kind in sorted(
        sources.types().items(), key=lambda item: (sources.provider[item[0]], item[0])
    ):
        name = sources.provider[path]
        if name != IDENTITY:
            url = sources.declarations[name].url or ""
            if any(needed not in arguments for needed in _URL_ARGUMENT.findall(url)):
                continue
        found.append(FieldChoice(path, kind, "the verified caller" if name == IDENTITY else name))
    return found


def _default(declared: object, name: str) -> object:
    """The argument's default in the tool's JSON schema, when a call may leave it out (None: none)."""
    found = declared.get(name, {}) if isinstance(declared, dict) else {}
    return found.get("default") if isinstance(found, dict) else None


@dataclass
class Row:
    field: str = ""
    op: str = ""
    value: str = ""  # typed, not yet a chip (for "is one of": what is left in the box)
    items: list[str] = default(default_factory=list)
    attribute: str = ""
    compare: bool = False
    error: str | None = None
    unfinished: bool = (
        False  # its error is only a value not given yet: said when drafting, not before
    )


@dataclass
class EditorState:
    agent: str
    tool: str
    name: str = ""
    match: str = "all"
    rows: list[Row] = default(default_factory=list)
    mode: str = "builder"  # builder | cel
    cel: str = ""
    errors: dict[str, str] = default(default_factory=dict)  # name | rows | cel
    cel_at: tuple[int, int] | None = None
    reads_as: str = ""
    focus: str = (
        ""  # the id the page should focus after a change (the first error, or the row acted on)
    )


def _bounded(value: object, limit: int = MAX_TEXT) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _split(text: str) -> list[str]:
    return [part.strip() for part in re.split(r"[,\n\t;]+", text) if part.strip()]


class Editor:
    """Reads a posted editor form, applies its action, and turns it into a rule."""

    def __init__(self, book: RuleBook, agent: str, tool: str):
        self.book = book
        self.agent = agent
        self.tool = tool
        self.fields = fields_for(book, tool)
        self.kinds = {choice.path: choice.kind for choice in self.fields}

    @property
    def groups(self) -> list[tuple[str, list[FieldChoice]]]:
        """The fields by where they come from, in order: call arguments, then each source's attributes."""
        found: dict[str, list[FieldChoice]] = {}
        for choice in self.fields:
            found.setdefault(
                choice.group if not choice.trusted else f"Trusted attributes — {choice.group}", []
            ).append(choice)
        return list(found.items())

    def attributes_of(self, kind: str, besides: str = "") -> list[FieldChoice]:
        return [
            choice
            for choice in self.fields
            if choice.trusted and choice.kind == kind and choice.path != besides
        ]

    def default_of(self, path: str) -> object:
        """What a condition on `path` reads when a call leaves that optional argument out."""
        return next((c.default for c in self.fields if c.path == path), None)

    def not_wrong_yet(self, state: EditorState) -> None:
        """Before the steward asks to draft, a value not given yet is no error: only what was typed is."""
        for row in state.rows:
            if row.unfinished:
                row.error, row.unfinished = None, False

    def fresh(self) -> EditorState:
        return EditorState(self.agent, self.tool, rows=[self._row(Row())])

    def _row(self, row: Row) -> Row:
        """A row made consistent: a known field, an operator of its type, a value only where one is taken."""
        if row.field not in self.kinds:
            row.field = self.fields[0].path if self.fields else ""
        kind = self.kinds.get(row.field, "text")
        operators = list(OPERATORS.get(kind, {}))
        if row.op not in operators:
            row.op = operators[0] if operators else ""
        if kind == "boolean":
            row.value, row.items, row.compare, row.attribute = "", [], False, ""
        if row.op == "is one of":
            row.items = (row.items + _split(row.value))[:MAX_ITEMS]
            row.value, row.compare = "", False
        elif row.items and not row.value:
            row.value = row.items[0]
        if row.op != "is one of":
            row.items = []
        candidates = [choice.path for choice in self.attributes_of(kind, besides=row.field)]
        if not candidates:
            row.compare = False
        if row.compare and row.attribute not in candidates:
            row.attribute = candidates[0]
        return row

    def read(self, form: FormData) -> tuple[EditorState, str]:
        """The state the form describes, and the action it asks for ("update" when none or unknown)."""
        state = EditorState(
            self.agent,
            self.tool,
            name=_bounded(form.get("name"), NAME_LIMIT * 2).strip(),
            match="any" if form.get("match") == "any" else "all",
            mode="cel" if form.get("mode") == "cel" else "builder",
            cel=_bounded(form.get("cel"), MAX_CEL * 2),
        )
        indexes = sorted(
            {int(m.group(1)) for key in form.keys() if (m := _ROW_KEY.fullmatch(key))}
        )[:MAX_ROWS]
        for index in indexes:
            state.rows.append(
                self._row(
                    Row(
                        field=_bounded(form.get(f"field_{index}")),
                        op=_bounded(form.get(f"op_{index}")),
                        value=_bounded(form.get(f"value_{index}"), MAX_TEXT * 20),
                        items=[
                            item
                            for item in (
                                _bounded(v) for v in form.getlist(f"list_{index}")[:MAX_ITEMS]
                            )
                            if item
                        ],
                        attribute=_bounded(form.get(f"attribute_{index}")),
                        compare=form.get(f"compare_{index}") == "1",
                    )
                )
            )
        action = _bounded(form.get("action"), 40)
        return state, action if _ACTION.fullmatch(action) else "update"

    def apply(self, state: EditorState, action: str) -> None:
        """A structural change the form asked for (add, remove, compare, use a value, a chip, CEL or back)."""
        match = _ACTION.fullmatch(action)
        verb, index = (
            (match.group(2), int(match.group(3))) if match and match.group(2) else (action, -1)
        )
        if match and match.group(4):
            index, item = int(match.group(4)), int(match.group(5))
            if index < len(state.rows) and item < len(state.rows[index].items):
                del state.rows[index].items[item]
                state.focus = f"value_{index}"
        elif verb == "add_row" and len(state.rows) < MAX_ROWS:
            state.rows.append(self._row(Row()))
            state.focus = f"field_{len(state.rows) - 1}"
        elif verb == "remove" and index < len(state.rows):
            del state.rows[index]
            state.focus = "add_row"
        elif verb in ("compare", "value") and index < len(state.rows):
            state.rows[index].compare = verb == "compare"
            self._row(state.rows[index])
            state.focus = f"attribute_{index}" if state.rows[index].compare else f"value_{index}"
        elif verb == "cel" and state.mode == "builder":
            decl = self._builder_decl(state)
            state.cel = (
                compile_builder(decl, self._types())[0]
                if decl is not None and not state.errors
                else ""
            )
            state.errors.pop("rows", None)
            state.mode, state.focus = "cel", "cel"
        elif verb == "discard_cel":
            state.mode, state.cel, state.focus = "builder", "", "field_0"

    def _types(self) -> dict[str, str]:
        return {choice.path: choice.kind for choice in self.fields}

    def _value(self, row: Row, text: str, kind: str) -> object:
        if kind == "number":
            try:
                number = float(text)
            except ValueError:
                raise RuleError(f"“{text}” is not a number") from None
            if number != number or number in (float("inf"), float("-inf")):
                raise RuleError(f"“{text}” is not a number")
            return int(number) if number.is_integer() and abs(number) < 2**53 else number
        return text

    def _builder_decl(self, state: EditorState) -> RuleDecl | None:
        """The builder's rule, or None with each row's problem marked on it."""
        conditions: list[dict[str, object]] = []
        for row in state.rows:
            kind = self.kinds.get(row.field, "text")
            condition: dict[str, object] = {"field": row.field, "op": row.op}
            try:
                if kind == "boolean":
                    pass
                elif row.compare:
                    condition["attribute"] = row.attribute
                elif row.op == "is one of":
                    if not row.items:
                        row.unfinished = True
                        raise RuleError("add at least one value to the list")
                    condition["value"] = [self._value(row, item, kind) for item in row.items]
                elif not row.value.strip():
                    row.unfinished = True
                    raise RuleError("give a value")
                else:
                    condition["value"] = self._value(row, row.value.strip(), kind)
            except RuleError as exc:
                row.error = str(exc)
                continue
            conditions.append(condition)
        if not state.rows:
            state.errors["rows"] = "Add at least one condition."
        if any(row.error for row in state.rows) or not state.rows:
            return None
        return RuleDecl.model_validate(
            {
                "name": state.name or "(unnamed)",
                "match": state.match,
                "binding": {"agent": self.agent, "tool": self.tool},
                "conditions": conditions,
            }
        )

    def check(self, state: EditorState) -> RuleDecl | None:
        """The rule to draft, compiled by the rule book (the very check `parley rules draft` makes), with
        `reads_as` set; None, with the errors marked where they belong, when it is not one yet."""
        if not state.name:
            state.errors["name"] = "Give the rule a name: denials and the audit name it."
        elif len(state.name) > NAME_LIMIT:
            state.errors["name"] = f"Keep the name under {NAME_LIMIT} characters."
        if state.mode == "cel":
            state.cel = (
                state.cel.strip()
            )  # as the rule book compiles it: lines and columns then agree
            if not state.cel:
                state.errors["cel"] = (
                    "Write a CEL expression that returns true when the call may go ahead."
                )
                return None
            if len(state.cel) > MAX_CEL:
                state.errors["cel"] = f"Keep the expression under {MAX_CEL} characters."
                return None
            decl: RuleDecl | None = RuleDecl.model_validate(
                {
                    "name": state.name or "(unnamed)",
                    "cel": state.cel,
                    "binding": {"agent": self.agent, "tool": self.tool},
                }
            )
        else:
            decl = self._builder_decl(state)
            state.reads_as = self._partial_sentence(state)
        if decl is None:
            return None
        try:
            (rule,) = self.book.compile(decl, "draft")
        except RuleError as exc:
            message = str(exc).removeprefix(f"rule '{decl.name}': ")
            state.errors["cel" if state.mode == "cel" else "rows"] = (
                message[:1].upper() + message[1:] + "."
            )
            state.cel_at = exc.at
            return None
        state.reads_as = rule.reads_as
        same = self._same_as(rule.reads_as)
        if same is not None:
            state.errors["cel" if state.mode == "cel" else "rows"] = same
            return None
        return None if "name" in state.errors else decl

    def _same_as(self, reads_as: str) -> str | None:
        """A rule on this binding that already says the same (drafted or in force), named; else None."""
        binding = f"{self.agent} · parley · {self.tool}"
        for other in self.book.listing():
            if other["binding"] == binding and other["reads_as"] == reads_as:
                where = "in the draft" if other["state"] == "draft" else "in force"
                return (
                    f"The same rule as “{other['name']}”, {where} already for "
                    f"{self.tool}: change a condition, or keep that one."
                )
        return None

    def _partial_sentence(self, state: EditorState) -> str:
        """Reads as, from the rows that are complete (the others are marked)."""
        complete = [row for row in state.rows if not row.error]
        sentences = []
        for row in complete:
            kind = self.kinds.get(row.field, "text")
            if kind == "boolean":
                shown = ""
            elif row.compare:
                shown = row.attribute
            elif row.op == "is one of":
                shown = "[" + ", ".join(row.items) + "]"
            else:
                shown = row.value.strip()
            sentences.append(f"{row.field.removeprefix('args.')} {row.op} {shown}".strip())
        return (" AND " if state.match == "all" else " OR ").join(sentences)

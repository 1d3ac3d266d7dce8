"""The tool registry: each tool is a typed function whose pydantic models are its schema.

A tool's docstring is its description for the calling agent. The manifest, not this registry,
says which scope a tool needs; the registry only knows what each tool does. A tool that can wait
on something slow (a model, another service) is either a coroutine that awaits it (holding no
thread while it waits: `ask`), or is marked `blocking` and runs in a worker thread.

A tool never holds the database or a key: it receives the context its flags allow, built for the call
from its caller (`PureContext`: no store; `ToolContext`: + `reads`; `WriteContext`: + `writes`, all
in `facade`), and the decorator, like mypy, refuses a tool that asks for a wider one.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Literal, Never, TypedDict, TypeVar, get_type_hints, overload

import mcp_types as types
from pydantic import AfterValidator, BaseModel, ConfigDict, field_validator
from pydantic_core import PydanticCustomError

from server.access import Caller
from server.errors import ParleyError
from server.manifest.schema import Manifest
from server.plaintext import control_character, folded
from server.router import Catalogue, Vocabulary
from server.tools.facade import Club, Reads, Writes, acting_for
from server.tools.facade import ToolError as ToolError  # where tools have always found it

# Ids are SQLite integers: every id argument is bounded so no value can overflow a query.
MAX_ID = 2**53


class Args(BaseModel):
    """Tool input: unknown fields are refused, text is trimmed, and control characters are refused in
    every field of every tool (nested lists and objects too), before any value reaches a rule or the store."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    @field_validator("*", mode="before")
    @classmethod
    def _plain_text(cls, value: object) -> object:
        found = control_character(value)
        if found is not None:
            raise PydanticCustomError(
                "control_character",
                "contains the control character {found}; send plain text",
                {"found": found},
            )
        return value


# A text argument the tool compares without regard to case, spacing or Unicode form (a topic, a search):
# folded by its type, once, so the rules on the call and the tool see the very same value.
FoldedText = Annotated[str, AfterValidator(folded)]


class Output(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NoArgs(Args):
    pass


class RuleSentence(TypedDict):
    """A rule on one of the caller's tools, as whoami shows it (the chokepoint's rule book)."""

    tool: str
    rule: str
    reads_as: str


def _no_catalogue(names: tuple[str, ...]) -> Catalogue:
    raise ParleyError("this context has no router catalogue: nothing can be planned here")


def _no_rules(caller: Caller) -> list[RuleSentence]:
    return []


@dataclass(frozen=True, kw_only=True)
class PureContext:
    """What a pure tool receives: its caller, the manifest and the rules in force. No store and no key,
    so its answer may be given again from memory for the same caller and revision."""

    manifest: Manifest
    caller: Caller
    explain_rules: Callable[[Caller], list[RuleSentence]] = (
        _no_rules  # the rules on the caller's tools
    )

    @property
    def principal_id(self) -> int:
        """The principal this call acts for (`facade.acting_for`)."""
        return acting_for(self.caller)


@dataclass(frozen=True, kw_only=True)
class ToolContext(PureContext):
    """What a tool that writes nothing receives: also `reads`, the caller's own records and the
    member directory, and the router's vocabularies and catalogues."""

    reads: Reads
    vocabularies: dict[str, Vocabulary] = field(
        default_factory=dict
    )  # language → the router's vocabulary
    catalogue_for: Callable[[tuple[str, ...]], Catalogue] = (
        _no_catalogue  # visible names → router Catalogue
    )


@dataclass(frozen=True, kw_only=True)
class WriteContext(ToolContext):
    """What a tool that writes receives: also `writes`, changes to the caller's own records only."""

    writes: Writes


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_model: type[Args]
    output_model: type[
        BaseModel
    ]  # an Output, or a model another layer owns (the router's TurnPlan)
    # called with the context `context` builds, the one its first parameter is annotated with, and an
    # instance of `input_model` (`tool` checks both at registration)
    handler: Callable[..., BaseModel] | Callable[..., Awaitable[BaseModel]]
    writes: bool
    blocking: bool
    # The answer depends only on the caller's resolved identity, the manifest and the rules in force
    # (no store read, no clock): the chokepoint may answer it again for the same identity and revision.
    pure: bool = False
    awaits: bool = False  # a coroutine: the chokepoint awaits it on the event loop

    def context(
        self,
        club: Club,
        caller: Caller,
        *,
        vocabularies: dict[str, Vocabulary] | None = None,
        catalogue_for: Callable[[tuple[str, ...]], Catalogue] = _no_catalogue,
        explain_rules: Callable[[Caller], list[RuleSentence]] = _no_rules,
    ) -> PureContext:
        """The context for one call, no wider than the tool's flags: a pure tool gets no store, a tool
        that writes nothing gets reads only; either way confined to `caller`."""
        if self.pure:
            return PureContext(manifest=club.manifest, caller=caller, explain_rules=explain_rules)
        reads, vocabularies = Reads(club, caller), vocabularies or {}
        if not self.writes:
            return ToolContext(
                manifest=club.manifest,
                caller=caller,
                explain_rules=explain_rules,
                reads=reads,
                vocabularies=vocabularies,
                catalogue_for=catalogue_for,
            )
        return WriteContext(
            manifest=club.manifest,
            caller=caller,
            explain_rules=explain_rules,
            reads=reads,
            writes=Writes(club, caller),
            vocabularies=vocabularies,
            catalogue_for=catalogue_for,
        )

    def input_schema(self) -> dict[str, object]:  # a JSON Schema document
        return self.input_model.model_json_schema()

    def output_schema(self) -> dict[str, object]:
        return self.output_model.model_json_schema()

    def definition(self) -> types.Tool:
        return types.Tool(
            name=self.name,
            description=self.description,
            input_schema=self.input_schema(),
            output_schema=self.output_schema(),
            annotations=types.ToolAnnotations(read_only_hint=not self.writes),
        )


REGISTRY: dict[str, ToolSpec] = {}


# what `tool` registers: `(ctx, args) -> Output`, or a coroutine function answering one, whose `ctx` is
# the context its flags allow: mypy refuses a write in a tool not marked `writes`, and a read of the
# store in a tool marked `pure`. Its `args` is any model (`Never`: every type is wider, so a handler
# taking any one `Args` fits); `tool` checks at registration that it is an `Args`.
PureHandler = TypeVar(
    "PureHandler",
    bound=Callable[[PureContext, Never], BaseModel]
    | Callable[[PureContext, Never], Awaitable[BaseModel]],
)
ReadHandler = TypeVar(
    "ReadHandler",
    bound=Callable[[ToolContext, Never], BaseModel]
    | Callable[[ToolContext, Never], Awaitable[BaseModel]],
)
WriteHandler = TypeVar(
    "WriteHandler",
    bound=Callable[[WriteContext, Never], BaseModel]
    | Callable[[WriteContext, Never], Awaitable[BaseModel]],
)
Handler = TypeVar("Handler", bound=Callable[..., BaseModel] | Callable[..., Awaitable[BaseModel]])


@overload
def tool(
    *, writes: Literal[True], blocking: bool = False
) -> Callable[[WriteHandler], WriteHandler]: ...
@overload
def tool(
    *, pure: Literal[True], blocking: bool = False
) -> Callable[[PureHandler], PureHandler]: ...
@overload
def tool(
    *, writes: Literal[False] = False, blocking: bool = False, pure: Literal[False] = False
) -> Callable[[ReadHandler], ReadHandler]: ...
def tool(
    *, writes: bool = False, blocking: bool = False, pure: bool = False
) -> Callable[[Handler], Handler]:
    """Register a function `(ctx, args) -> Output` as a tool named after the function. Its `ctx` is a
    `WriteContext` if it `writes`, a `PureContext` if it is `pure`, else a `ToolContext` (reads only)."""
    if writes and pure:
        raise TypeError("a tool that writes is not pure: its answer changes what others read")
    given = WriteContext if writes else PureContext if pure else ToolContext

    def register(func: Handler) -> Handler:
        hints = get_type_hints(func)
        params = list(inspect.signature(func).parameters)
        name = func.__name__
        if name in REGISTRY:
            raise RuntimeError(f"tool {name} registered twice")
        context = hints.get(params[0]) if len(params) == 2 else None
        input_model = hints.get(params[1]) if len(params) == 2 else None
        output_model = hints.get("return")
        description = inspect.cleandoc(func.__doc__ or "")
        # What every tool needs, refused at import with what to fix (tests/tools/test_tools_complete.py
        # checks the same of the registry, and what the registry cannot see: manifest and tests).
        if not (isinstance(input_model, type) and issubclass(input_model, Args)):
            raise TypeError(
                f"tool {name}: its signature must be (ctx: {given.__name__}, args: <an Args model>)"
            )
        if not (isinstance(context, type) and issubclass(given, context)):
            raise TypeError(
                f"tool {name}: its ctx must be a {given.__name__}, the context its flags allow "
                "(writes=True: WriteContext; pure=True: PureContext, no store; else ToolContext)"
            )
        if not (isinstance(output_model, type) and issubclass(output_model, BaseModel)):
            raise TypeError(
                f"tool {name}: its return annotation must be a pydantic model (an Output)"
            )
        if not description:
            raise TypeError(
                f"tool {name}: its docstring is its description for the calling agent; write one"
            )
        REGISTRY[name] = ToolSpec(
            name=name,
            description=description,
            input_model=input_model,
            output_model=output_model,
            handler=func,
            writes=writes,
            blocking=blocking,
            pure=pure,
            awaits=inspect.iscoroutinefunction(func),
        )
        return func

    return register

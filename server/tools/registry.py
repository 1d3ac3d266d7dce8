"""The tool registry: each tool is a typed function whose pydantic models are its schema.

A tool's docstring is its description for the calling agent. The manifest, not this registry,
says which scope a tool needs; the registry only knows what each tool does. A tool that can wait
on something slow (a model, another service) is either a coroutine that awaits it (holding no
thread while it waits: `ask`), or is marked `blocking` and runs in a worker thread.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypedDict, TypeVar, get_type_hints

import mcp_types as types
from pydantic import AfterValidator, BaseModel, ConfigDict, field_validator
from pydantic_core import PydanticCustomError

from server.access import Caller
from server.asking import Escalations
from server.errors import ParleyError
from server.keys.mandate import SigningKey
from server.manifest.schema import Manifest
from server.plaintext import control_character, folded
from server.router import Catalogue, Vocabulary
from server.store.database import Database

# Ids are SQLite integers: every id argument is bounded so no value can overflow a query.
MAX_ID = 2**53


class Args(BaseModel):
    """Tool input: unknown fields are refused, text is trimmed, and control characters are refused in
    every field of every tool (nested lists and objects too), before any value reaches a rule or the store."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    @field_validator("*", mode="before")
    @classmethod
    def _plain_text(cls, value: Any) -> Any:
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


class ToolError(ParleyError):
    """A refusal the calling agent can act on; the message says what to do next."""


class RuleSentence(TypedDict):
    """A rule on one of the caller's tools, as whoami shows it (the chokepoint's rule book)."""

    tool: str
    rule: str
    reads_as: str


def _no_catalogue(names: tuple[str, ...]) -> Catalogue:
    raise ParleyError("this context has no router catalogue: nothing can be planned here")


def _no_rules(caller: Caller) -> list[RuleSentence]:
    return []


@dataclass(frozen=True)
class ToolContext:
    db: Database
    key: SigningKey
    manifest: Manifest
    caller: Caller
    vocabularies: dict[str, Vocabulary] = field(
        default_factory=dict
    )  # language → the router's vocabulary
    catalogue_for: Callable[[tuple[str, ...]], Catalogue] = (
        _no_catalogue  # visible names → router Catalogue
    )
    asking: Escalations | None = None  # asking members, filing decisions
    explain_rules: Callable[[Caller], list[RuleSentence]] = (
        _no_rules  # the rules on the caller's tools
    )

    @property
    def principal_id(self) -> int:
        """The principal this call acts for. A tool that needs one is never visible to a guest; if one
        were reached without a principal anyway, it refuses rather than act for nobody."""
        if self.caller.principal_id is None:
            raise ToolError("this tool acts for a principal: connect with a credential")
        return self.caller.principal_id


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_model: type[Args]
    output_model: type[
        BaseModel
    ]  # an Output, or a model another layer owns (the router's TurnPlan)
    handler: (
        Callable[[ToolContext, Any], BaseModel] | Callable[[ToolContext, Any], Awaitable[BaseModel]]
    )
    writes: bool
    blocking: bool
    # The answer depends only on the caller's resolved identity, the manifest and the rules in force
    # (no store read, no clock): the chokepoint may answer it again for the same identity and revision.
    pure: bool = False
    awaits: bool = False  # a coroutine: the chokepoint awaits it on the event loop

    def input_schema(self) -> dict[str, Any]:
        return self.input_model.model_json_schema()

    def output_schema(self) -> dict[str, Any]:
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


# what `tool` registers: `(ctx, args) -> Output`, or a coroutine function answering one
Handler = TypeVar(
    "Handler",
    bound=Callable[[ToolContext, Any], BaseModel]
    | Callable[[ToolContext, Any], Awaitable[BaseModel]],
)


def tool(
    *, writes: bool = False, blocking: bool = False, pure: bool = False
) -> Callable[[Handler], Handler]:
    """Register a function `(ctx, args) -> Output` as a tool named after the function."""

    def register(func: Handler) -> Handler:
        hints = get_type_hints(func)
        params = list(inspect.signature(func).parameters)
        name = func.__name__
        if name in REGISTRY:
            raise RuntimeError(f"tool {name} registered twice")
        input_model = hints.get(params[1]) if len(params) == 2 else None
        output_model = hints.get("return")
        description = inspect.cleandoc(func.__doc__ or "")
        # What every tool needs, refused at import with what to fix (tests/tools/test_tools_complete.py
        # checks the same of the registry, and what the registry cannot see: manifest and tests).
        if not (isinstance(input_model, type) and issubclass(input_model, Args)):
            raise TypeError(
                f"tool {name}: its signature must be (ctx: ToolContext, args: <an Args model>)"
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

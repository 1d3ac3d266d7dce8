"""The MCP endpoint: the SDK's lowlevel server, with listing and calls routed through the chokepoint.

The caller was resolved by the HTTP gate for this very request; handlers only read it. The
initialize (handshake era) and server/discover (2026-07-28) results carry per-caller
instructions naming the lane, why, and how to leave it.
"""

from __future__ import annotations

import logging
from typing import cast
from urllib.parse import urlsplit

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import methods
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from opentelemetry import trace
from pydantic import BaseModel

from server import __version__
from server.access import Caller, Lane
from server.chokepoint.chokepoint import Chokepoint
from server.http.live import LiveSessions, connection_of
from server.http.request_state import McpContext, caller_of, held_of
from server.http.resources import Resources
from server.manifest.schema import Manifest
from server.quoting import QUOTED_NOTICE
from server.transport.sdk import (
    OpenTelemetryMiddleware,  # the SDK's docs: drop it from `middleware` to opt out
    ResultShaper,
)

log = logging.getLogger("parley.mcp")


def instructions_for(caller: Caller, manifest: Manifest, public_url: str = "") -> str:
    """The chosen agent's instructions (links listed), then the lane: what it is, why, how to leave it."""
    lane = manifest.lanes[caller.lane]
    total = len(manifest.tools)
    chosen = manifest.agents.get(caller.entry_persona or "")
    persona = chosen.full_instructions(manifest.links, public_url) if chosen is not None else ""
    if caller.lane == Lane.GUEST:
        head = (
            f"{manifest.club.name}. You are in the GUEST lane because no credential was sent: "
            f"you see {len(caller.tools)} of {total} tools. {lane.how_to_leave}"
        )
        return "\n".join(
            part
            for part in (
                head,
                persona,
                lane.description,
                f"How to join: {manifest.club.how_to_join}",
            )
            if part
        )
    scopes = ", ".join(sorted(caller.scopes)) or "none"
    head = (
        f"{manifest.club.name}. You are in the {caller.lane.upper()} lane: {caller.why}.\n"
        f"You see {len(caller.tools)} of {total} tools; effective scopes: {scopes}."
    )
    tail = (
        f"{lane.description} {lane.how_to_leave}\n"
        "Call whoami whenever the tools you see are fewer than you expected.\n"
        f"{QUOTED_NOTICE}"
    )
    return "\n".join(part for part in (head, persona, tail) if part)


def _what_is_sent(capabilities: object) -> dict[str, object]:
    """Handshake-era capabilities that say what this server really sends: tools/list_changed and
    resources/list_changed when a caller's lane or scopes move, resources/updated for the inbox."""
    advertised = dict(capabilities) if isinstance(capabilities, dict) else {}
    advertised["tools"] = {**(advertised.get("tools") or {}), "listChanged": True}
    advertised["resources"] = {
        **(advertised.get("resources") or {}),
        "listChanged": True,
        "subscribe": True,
    }
    return advertised


class _PerCallerInstructions:
    """Rewrites initialize / server/discover so each connection learns its own lane."""

    def __init__(self, manifest: Manifest, live: LiveSessions, public_url: str = ""):
        self.manifest = manifest
        self.live = live
        self.public_url = (
            public_url  # where the club is served: a link written as a path is given on it
        )

    async def __call__(self, ctx: McpContext, call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if isinstance(result, dict):
            caller = caller_of(ctx)
            result = dict(result)
            result["instructions"] = instructions_for(caller, self.manifest, self.public_url)
            if ctx.method == "server/discover":
                result["ttlMs"] = 0
                result["cacheScope"] = "private"
            else:
                result["capabilities"] = _what_is_sent(result.get("capabilities"))
            if caller.lane == Lane.GUEST:
                log.warning(
                    "connection in GUEST lane (no credential sent): %d of %d tools; "
                    "send 'Authorization: Bearer <token>' to leave it",
                    len(caller.tools),
                    len(self.manifest.tools),
                )
        return result


def _past_initialize(ctx: McpContext) -> bool:
    """Whether this message's connection finished its handshake: before that, only the SDK judges."""
    connection = connection_of(ctx)
    return connection is not None and connection.initialize_accepted


class _ListingCache:
    """`tools/list` for a tool set the server has listed before answers the SDK's own wire result
    for it again, instead of building, validating and dumping the same result per request.

    The first listing of each (protocol version, tool set) runs the whole SDK path and its output
    is kept (bounded); any request the SDK would have to judge (params beyond `_meta`, a connection
    not yet initialized) takes the SDK path. The caller is still resolved and its session tracked
    on every request, so nothing about who sees what is cached here."""

    def __init__(self, live: LiveSessions, limit: int = 512):
        self.live = live
        self.limit = limit
        self._wire: dict[tuple[str, tuple[str, ...]], dict[str, object]] = {}

    async def __call__(self, ctx: McpContext, call_next: CallNext) -> HandlerResult:
        if ctx.params and set(ctx.params) - {"_meta"}:
            return await call_next(ctx)
        if not _past_initialize(ctx):
            return await call_next(ctx)
        caller = caller_of(ctx)
        key = (ctx.protocol_version, caller.tools)
        wire: HandlerResult = self._wire.get(key)
        if wire is None:
            wire = await call_next(ctx)  # the handler tracks the session itself
            if isinstance(wire, dict):
                if len(self._wire) >= self.limit:
                    self._wire.clear()
                self._wire[key] = (
                    wire  # read-only from here: the runner copies it, the encoder only reads
                )
            return wire
        await self.live.seen(ctx, caller)
        return wire


async def _answer_call(
    chokepoint: Chokepoint,
    live: LiveSessions,
    ctx: McpContext,
    caller: Caller,
    name: str,
    arguments: dict[str, object] | None,
) -> types.CallToolResult:
    """A tools/call: the caller's session noted as seen, then the chokepoint's whole step (its audit
    row kept in the hold of the request that carried it)."""
    await live.seen(ctx, caller)
    return await chokepoint.call(caller, name, arguments, held_of(ctx))


_PLAIN_PARAMS = frozenset({"name", "arguments"})


def plain_call(params: object) -> tuple[str, dict[str, object] | None] | None:
    """The name and arguments of a handshake-era tools/call whose params hold nothing else, in the
    types every such version's surface and the handler's params model accept as they are; None for
    any other params, which are validated the SDK's way (as is every 2026-07-28 call: its params
    carry a `_meta`)."""
    if type(params) is not dict or not params.keys() <= _PLAIN_PARAMS:
        return None
    name, arguments = params.get("name"), params.get("arguments")
    if type(name) is not str or not (arguments is None or type(arguments) is dict):
        return None
    return name, arguments


class _KeptAnswers:
    """`tools/call`: the chokepoint judges, runs and audits every call here; when its answer is a
    pure tool's remembered one that the SDK has shaped before (at this protocol version), that wire
    form is answered again instead of the SDK validating and dumping the same result anew.

    Only a call the SDK itself would take is taken here: its params pass the SDK's own validation
    (the version's surface, then the handler's params model), or are plainly a name and arguments,
    on a connection past initialize; anything else goes the SDK's way, which refuses it as ever. A
    new answer is shaped here as the SDK's kernel shapes a handler's (`ResultShaper`), so a call
    taken here runs and is audited once, and never reaches the handler."""

    def __init__(
        self,
        chokepoint: Chokepoint,
        live: LiveSessions,
        params_type: type[BaseModel],
        shaper: ResultShaper,
    ):
        self.chokepoint = chokepoint
        self.live = live
        self.params_type = params_type
        self.shaper = shaper

    def _name_and_arguments(self, ctx: McpContext) -> tuple[str, dict[str, object] | None] | None:
        plain = plain_call(ctx.params)
        if plain is not None and ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
            return plain
        try:
            methods.validate_client_request("tools/call", ctx.protocol_version, ctx.params)
            params = cast(
                types.CallToolRequestParams,
                self.params_type.model_validate(
                    {} if ctx.params is None else ctx.params, by_name=False
                ),
            )
        except (KeyError, ValueError):  # pydantic's ValidationError is a ValueError
            return None
        return params.name, params.arguments

    async def __call__(self, ctx: McpContext, call_next: CallNext) -> HandlerResult:
        if ctx.request is None:
            return await call_next(ctx)
        if not _past_initialize(ctx):
            return await call_next(ctx)
        called = self._name_and_arguments(ctx)
        if called is None:
            return await call_next(ctx)  # the SDK refuses it with its own error
        name, arguments = called
        caller = caller_of(ctx)
        result = await _answer_call(self.chokepoint, self.live, ctx, caller, name, arguments)
        wire = self.chokepoint.shaped(caller, name, result, ctx.protocol_version)
        if wire is not None:
            return wire  # read-only from here, as the listing cache's: the runner copies it
        shaped = self.shaper.shape(ctx.method, ctx.protocol_version, result)
        self.chokepoint.keep_shape(caller, name, result, ctx.protocol_version, shaped)
        return shaped


class _ByMethod:
    """Parley's one layer in the SDK's middleware chain: a message goes straight to the step for its
    method, and any other on down the chain, so no message passes through steps that are not its."""

    def __init__(self, steps: dict[str, ServerMiddleware[dict[str, object]]]):
        self.steps = steps

    async def __call__(self, ctx: McpContext, call_next: CallNext) -> HandlerResult:
        # every step answers a request; a request's method sent as a notification (no id) is not one,
        # and goes on to the SDK, which drops it quietly (nothing to answer, no caller resolved for it)
        step = self.steps.get(ctx.method) if ctx.request_id is not None else None
        if step is None:
            return await call_next(ctx)
        return await step(ctx, call_next)


def tracing_configured() -> bool:
    """Whether an OpenTelemetry tracer provider was set (by `opentelemetry-instrument`, by
    OTEL_PYTHON_TRACER_PROVIDER, or by code before the server is built)."""
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def build_mcp_server(
    chokepoint: Chokepoint, live: LiveSessions, tracing: bool | None = None, public_url: str = ""
) -> Server:
    """The SDK's server with Parley's handlers and middleware. The SDK's own middleware opens an
    OpenTelemetry span for every message; without a tracer provider that span records nothing, yet
    builds its attributes and enters its context all the same, so it runs only when `tracing` (by
    default: when a provider is set as the server is built)."""
    manifest = chokepoint.manifest

    async def list_tools(
        ctx: McpContext, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        caller = caller_of(ctx)
        await live.seen(ctx, caller)
        return types.ListToolsResult(
            tools=chokepoint.listing(caller), ttl_ms=0, cache_scope="private"
        )

    async def call_tool(
        ctx: McpContext, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        # a call _KeptAnswers did not take (one the SDK judges first)
        return await _answer_call(
            chokepoint, live, ctx, caller_of(ctx), params.name, params.arguments
        )

    resources = Resources(chokepoint, live)
    server = Server(
        "parley",
        version=__version__,
        title=manifest.club.name,
        instructions=manifest.club.description,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=resources.listing,
        on_read_resource=resources.read,
        on_list_resource_templates=resources.templates,
        on_subscribe_resource=resources.subscribe,
        on_unsubscribe_resource=resources.unsubscribe,
        on_subscriptions_listen=live.listen,
    )
    if not (tracing_configured() if tracing is None else tracing):
        server.middleware[:] = [
            m for m in server.middleware if not isinstance(m, OpenTelemetryMiddleware)
        ]
    calls = server.get_request_handler("tools/call")
    if calls is None:  # registered above: only an SDK that changed how handlers are kept gets here
        raise RuntimeError("the SDK kept no tools/call handler")
    instructions = _PerCallerInstructions(manifest, live, public_url)
    server.middleware.append(
        _ByMethod(
            {
                "initialize": instructions,
                "server/discover": instructions,
                "tools/list": _ListingCache(live),
                "tools/call": _KeptAnswers(
                    chokepoint, live, calls.params_type, ResultShaper(server)
                ),
            }
        )
    )
    return server


def session_manager(
    server: Server, public_url: str, max_sessions: int = 10_000, stateless: bool = False
) -> StreamableHTTPSessionManager:
    """Streamable HTTP with DNS-rebinding protection for loopback and the public host.

    Stateful on one process (handshake-era sessions get pushed notifications on their standalone
    stream); stateless when several processes share the store, since any of them may take any
    request: handshake-era clients then see a change on their next request, and 2026-07-28
    `subscriptions/listen` streams still get every push."""
    public = urlsplit(public_url)
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*", f"{public.hostname}:*"]
    origins = [
        "http://127.0.0.1:*",
        "http://localhost:*",
        "http://[::1]:*",
        f"{public.scheme}://{public.hostname}:*",
    ]
    return StreamableHTTPSessionManager(
        app=server,
        # Plain calls answer application/json: no SSE stream and task group per request. Notifications
        # still flow on the handshake era's standalone GET stream and on 2026-07-28 listen streams.
        json_response=True,
        stateless=stateless,
        max_sessions=max_sessions,  # open handshake-era sessions at once (PARLEY_MAX_SESSIONS)
        security_settings=TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
        ),
    )

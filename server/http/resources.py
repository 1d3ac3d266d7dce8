"""The MCP resources a caller sees: the knowledge bases its chosen agent declares, and its inbox
(threads, answers and later decisions) where the caller may read it, read through the chokepoint
like any call. Anything else is "not found", never a hint that it exists.
"""

from __future__ import annotations

from pathlib import Path

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from server.access import Caller
from server.chokepoint.chokepoint import Chokepoint
from server.http.live import INBOX_URI, LiveSessions
from server.http.request_state import caller_of, held_of

KNOWLEDGE_PREFIX = "parley://knowledge/"


def _not_found(uri: str) -> MCPError:
    return MCPError(code=-32002, message=f"Resource not found: {uri}")


class Resources:
    """The endpoint's resource handlers (list, read, templates, subscribe, unsubscribe)."""

    def __init__(self, chokepoint: Chokepoint, live: LiveSessions):
        self.chokepoint = chokepoint
        self.manifest = chokepoint.manifest
        self.live = live

    @staticmethod
    def inbox_visible(caller: Caller) -> bool:
        return "inbox" in caller.tools

    def knowledge_of(self, caller: Caller) -> dict[str, str]:
        """uri → knowledge base name, for the knowledge the caller's chosen agent declares."""
        persona = self.manifest.agents.get(caller.entry_persona or "")
        return {
            f"{KNOWLEDGE_PREFIX}{name}": name for name in (persona.knowledge if persona else [])
        }

    async def listing(
        self, ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        caller = caller_of(ctx)
        knowledge = self.manifest.knowledge
        resources = [
            types.Resource(
                uri=uri,
                name=name,
                title=knowledge[name].title,
                mime_type="text/markdown",
                description=knowledge[name].description or knowledge[name].title,
            )
            for uri, name in self.knowledge_of(caller).items()
        ]
        if self.inbox_visible(caller):
            resources.append(
                types.Resource(
                    uri=INBOX_URI,
                    name="inbox",
                    mime_type="application/json",
                    description="Your threads: answers, declines and the decisions members made later. "
                    "Subscribe to hear when a decision arrives.",
                )
            )
        return types.ListResourcesResult(resources=resources, ttl_ms=0, cache_scope="private")

    async def read(
        self, ctx: ServerRequestContext, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        caller = caller_of(ctx)
        knowledge = self.knowledge_of(caller)
        if params.uri in knowledge:
            base = self.manifest.knowledge[knowledge[params.uri]]
            text = (Path(self.manifest.source_dir) / base.file).read_text(encoding="utf-8")
            return types.ReadResourceResult(
                contents=[
                    types.TextResourceContents(uri=params.uri, mime_type="text/markdown", text=text)
                ],
                ttl_ms=0,
                cache_scope="private",
            )
        if params.uri != INBOX_URI or not self.inbox_visible(caller):
            raise _not_found(params.uri)
        result = await self.chokepoint.call(caller, "inbox", {}, held_of(ctx))
        first = result.content[0] if result.content else None
        text = first.text if isinstance(first, types.TextContent) else "{}"
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(uri=INBOX_URI, mime_type="application/json", text=text)
            ],
            ttl_ms=0,
            cache_scope="private",
        )

    async def templates(
        self, ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        """No templated resources: every resource is listed by its own URI (an empty answer, not an error)."""
        return types.ListResourceTemplatesResult(resource_templates=[])

    async def subscribe(
        self, ctx: ServerRequestContext, params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        caller = caller_of(ctx)
        if params.uri != INBOX_URI or not self.inbox_visible(caller):
            raise _not_found(params.uri)
        self.live.subscribe(ctx, caller, params.uri, on=True)
        return types.EmptyResult()

    async def unsubscribe(
        self, ctx: ServerRequestContext, params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        self.live.subscribe(ctx, caller_of(ctx), params.uri, on=False)
        return types.EmptyResult()

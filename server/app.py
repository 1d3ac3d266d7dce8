"""The Starlette application: /mcp behind the gate, protected-resource metadata, and health."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import anyio
import sqlite_utils
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from server import tools
from server.chokepoint import Chokepoint
from server.config import Settings
from server.gate import Gate
from server.identity import Resolver
from server.mandates import SigningKey
from server.manifest import Manifest, load_manifest
from server.mcp_endpoint import build_mcp_server, caller_of, session_manager
from server.notify import LiveSessions
from server.ratelimit import RateLimiter
from server.store import open_db

log = logging.getLogger("parley.app")


@dataclass
class Parley:
    """Everything one running server holds, for the app and for tests that inspect it."""

    settings: Settings
    manifest: Manifest
    db: sqlite_utils.Database
    key: SigningKey
    resolver: Resolver
    chokepoint: Chokepoint
    live: LiveSessions
    app: Starlette


def resource_metadata(settings: Settings, manifest: Manifest) -> dict:
    """RFC 9728 protected-resource metadata for /mcp."""
    return {
        "resource": settings.mcp_url,
        "authorization_servers": [],
        "scopes_supported": sorted(manifest.scopes),
        "bearer_methods_supported": ["header"],
        "resource_name": manifest.club.name,
    }


def build(settings: Settings | None = None) -> Parley:
    settings = settings or Settings.from_env()
    manifest = load_manifest(settings.manifest_path)
    db = open_db(settings.db_path)
    key = SigningKey.load_or_create(settings.keys_dir)
    resolver = Resolver(db, key, manifest)
    chokepoint = Chokepoint(db, key, manifest, settings, tools.load_all())
    live = LiveSessions(resolver, caller_of)
    manager = session_manager(build_mcp_server(chokepoint, live), settings.public_url)
    metadata_url = f"{settings.public_url}/.well-known/oauth-protected-resource/mcp"
    gate = Gate(
        manager.handle_request,
        resolver,
        metadata_url,
        guest_limiter=RateLimiter(manifest.limits.guest_requests_per_minute),
        token_limiter=RateLimiter(manifest.limits.token_requests_per_minute),
    )
    metadata = resource_metadata(settings, manifest)

    async def protected_resource(request: Request) -> JSONResponse:
        return JSONResponse(metadata, headers={"cache-control": "public, max-age=300"})

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "mcp": settings.mcp_url})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run(), anyio.create_task_group() as group:
            group.start_soon(live.watch)
            log.info("Parley serving MCP at %s", settings.mcp_url)
            yield
            group.cancel_scope.cancel()

    app = Starlette(
        routes=[
            Route("/mcp", endpoint=gate),
            Route("/.well-known/oauth-protected-resource", protected_resource),
            Route("/.well-known/oauth-protected-resource/mcp", protected_resource),
            Route("/healthz", health),
        ],
        lifespan=lifespan,
    )
    return Parley(settings, manifest, db, key, resolver, chokepoint, live, app)


def create_app() -> Starlette:
    """Factory for `uvicorn --factory server.app:create_app`."""
    return build().app

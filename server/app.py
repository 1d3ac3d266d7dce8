"""The Starlette application: /mcp behind the gate, protected-resource metadata, and health."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse
from starlette.routing import Mount, Route

from server.access import Access
from server.answering.pool import AnswererConfig, AnswererPool
from server.asking import Escalations
from server.errors import ConfigError
from server.chokepoint.chokepoint import Chokepoint
from server.http.endpoint import build_mcp_server, session_manager
from server.http.gate import Gate, caller_of
from server.http.live import LiveSessions
from server.http.ratelimit import RateLimiter
from server.identity.mandates import SigningKey
from server.identity.resolver import Resolver
from server.manifest.loading import load_manifest
from server.manifest.schema import Manifest
from server.oauth.authorization import OAuthStore, ParleyAuthorizationServer, canonical_resource
from server.oauth.keys import KeyRing
from server.oauth.pages import AuthorizationPages, server_metadata
from server.oauth.verify import AccessTokenVerifier, FileSource, RingSource, UrlSource
from server.router import vocabulary
from server.router.reader import LANGUAGES
from server.settings import Settings
from server.store.database import Database, open_db, revision
from server.web.console import Console
from server.web.pages import Pages, session_middleware

log = logging.getLogger("parley.app")


@dataclass
class Parley:
    """Everything one running server holds, for the app and for tests that inspect it."""

    settings: Settings
    manifest: Manifest
    db: Database
    key: SigningKey
    access: Access
    chokepoint: Chokepoint
    live: LiveSessions
    app: Starlette
    escalations: Escalations | None = None


def resource_metadata(settings: Settings, manifest: Manifest) -> dict:
    """RFC 9728 protected-resource metadata for /mcp."""
    return {
        "resource": settings.mcp_url,
        "authorization_servers": [settings.issuer],
        "scopes_supported": sorted(manifest.agent_scopes),
        "bearer_methods_supported": ["header"],
        "resource_name": manifest.club.name,
    }


def answerer_pool(settings: Settings) -> AnswererPool:
    """Answering agents run in a pool of sandboxed worker processes (deterministic, or model-backed
    when configured); workers start on first use and are replaced when they fail."""
    return AnswererPool(AnswererConfig.from_settings(settings.answerer_url, settings.answerer_model,
                                                     settings.answerer_key_env), size=settings.answerer_workers)


def _notifier(live: LiveSessions):
    """Decisions are made in request handlers or their worker threads: schedule the notification on
    the server's event loop. Made outside the server (the CLI), sessions see it on their next read."""
    pending: set = set()

    def schedule(principal_id: int) -> None:
        task = asyncio.get_running_loop().create_task(live.inbox_changed(principal_id))
        pending.add(task)
        task.add_done_callback(pending.discard)

    def deliver(principal_id: int) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            try:
                anyio.from_thread.run_sync(schedule, principal_id)  # a worker thread of this server
            except RuntimeError:
                return  # no server here: the CLI
            return
        schedule(principal_id)

    return deliver


def build(settings: Settings | None = None) -> Parley:
    settings = settings or Settings.from_env()
    manifest = load_manifest(settings.manifest_path)
    db = open_db(settings.db_path, create=False)
    key = SigningKey.load_or_create(settings.keys_dir)
    resource = canonical_resource(settings.mcp_url)
    ring: KeyRing | None = None
    if settings.embedded_issuer:
        ring = KeyRing(settings.keys_dir)
        verifier = AccessTokenVerifier(settings.issuer, resource, RingSource(ring), algorithms=("ES256",))
    else:
        source: UrlSource | FileSource
        if settings.oauth_jwks_url:
            source = UrlSource(settings.oauth_jwks_url)
        elif settings.oauth_jwks_file is not None:
            source = FileSource(settings.oauth_jwks_file)
        else:
            raise ConfigError("an external issuer needs PARLEY_OAUTH_JWKS_URL or PARLEY_OAUTH_JWKS_FILE")
        verifier = AccessTokenVerifier(settings.issuer, resource, source, algorithms=settings.oauth_algorithms)
    resolver = Resolver(db, key, frozenset(manifest.scopes), verifier, embedded_issuer=settings.embedded_issuer)
    access = Access(manifest, resolver)
    vocabularies = {language: vocabulary.load(language) for language in LANGUAGES}
    live = LiveSessions(access, lambda: revision(db), caller_of)
    pool = answerer_pool(settings)
    escalations = Escalations(db, key, manifest, pool.answer_sync, on_delivery=_notifier(live))
    chokepoint = Chokepoint(db, key, manifest, vocabularies, escalations)
    manager = session_manager(build_mcp_server(chokepoint, live), settings.public_url, settings.max_sessions)
    metadata_url = f"{settings.public_url}/.well-known/oauth-protected-resource/mcp"
    gate = Gate(
        manager.handle_request,
        access,
        metadata_url,
        manifest,
        guest_limiter=RateLimiter(manifest.limits.guest_requests_per_minute),
        token_limiter=RateLimiter(manifest.limits.token_requests_per_minute),
    )
    metadata = resource_metadata(settings, manifest)
    pages = Pages(db, manifest.club.name)
    def rule_sentence(persona: str | None, tool: str, name: str) -> str | None:
        """The sentence a rule reads as, for the console's Activity page (the audit keeps only its name)."""
        return next((r.reads_as for r in chokepoint.rulebook.rules_for(persona, tool) if r.name == name), None)

    browser_routes = list(pages.routes()) + Console(pages, escalations, manifest, key,
                                                    rule_sentence=rule_sentence).routes()
    if ring is not None:
        authorization = ParleyAuthorizationServer(
            OAuthStore(db, ring, settings.issuer), server_metadata(settings.issuer, manifest)
        )
        browser_routes += AuthorizationPages(authorization, pages, manifest, key, settings.mcp_url).routes()

    async def protected_resource(request: Request) -> JSONResponse:
        return JSONResponse(metadata, headers={"cache-control": "public, max-age=300"})

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "mcp": settings.mcp_url})

    async def root(request: Request) -> RedirectResponse:
        return RedirectResponse("/console", status_code=303)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run(), anyio.create_task_group() as group:
            group.start_soon(live.watch)
            log.info("Parley serving MCP at %s", settings.mcp_url)
            try:
                yield
            finally:
                group.cancel_scope.cancel()
                pool.close()

    app = Starlette(
        routes=[
            Route("/mcp", endpoint=gate),
            Route("/.well-known/oauth-protected-resource", protected_resource),
            Route("/.well-known/oauth-protected-resource/mcp", protected_resource),
            Route("/healthz", health),
            Route("/", root),
            Mount("", app=Starlette(
                routes=browser_routes, middleware=[session_middleware(settings.keys_dir, settings.public_url)]
            )),
        ],
        lifespan=lifespan,
    )
    return Parley(settings, manifest, db, key, access, chokepoint, live, app, escalations)


def create_app() -> Starlette:
    """Factory for `uvicorn --factory server.app:create_app`."""
    return build().app

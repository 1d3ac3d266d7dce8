"""The Starlette application: /mcp behind the gate, protected-resource metadata, and health."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TypeVar

import anyio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route

from server.access import Access
from server.answering.config import AnswererConfig
from server.answering.pool import AnswererPool
from server.asking import Escalations
from server.asking.escalations import AskLimits
from server.chokepoint.chokepoint import Chokepoint
from server.cluster.feed import ChangeFeed
from server.cluster.keyfolder import check_cluster, manifest_digest
from server.errors import ConfigError
from server.heap import kept
from server.http.edge import PlainText
from server.http.endpoint import build_mcp_server, session_manager
from server.http.front import FrontDoor
from server.http.gate import Gate
from server.http.health import Health
from server.http.in_thread import InThread
from server.http.lean import LeanExchange
from server.http.live import LiveSessions
from server.http.ratelimit import budget
from server.http.request_state import caller_of
from server.http.session_quota import SessionQuota, SessionShares
from server.identity.resolver import Resolver
from server.keys.console import session_secret
from server.keys.mandate import SigningKey
from server.keys.oauth import KeyRing
from server.manifest.loading import load_manifest
from server.manifest.schema import Manifest
from server.metrics import (
    NOTIFICATION_LAG,
    announce_series,
    count_statements,
    exposition,
    process_exited,
)
from server.oauth.authorization import OAuthStore, ParleyAuthorizationServer, canonical_resource
from server.oauth.pages import AuthorizationPages, server_metadata
from server.oauth.verify import AccessTokenVerifier, FileSource, RingSource, UrlSource
from server.router import vocabulary
from server.router.reader import LANGUAGES
from server.settings import Settings
from server.store.database import Database, StoreUnavailable
from server.store.migrations import require_current, schema_version
from server.store.opening import open_db, shared_store
from server.store.postgres import PostgresDatabase
from server.transport import sdk
from server.web.activity import ActivityPages
from server.web.console import Console
from server.web.pages import Pages, session_middleware
from server.web.rules import RulePages
from server.web.sealed import Sealer

log = logging.getLogger("parley.app")
Built = TypeVar("Built")


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


def resource_metadata(settings: Settings, manifest: Manifest) -> dict[str, object]:
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
    when configured); workers start with the server and are replaced when they fail."""
    return AnswererPool(
        AnswererConfig.from_settings(
            settings.answerer_url, settings.answerer_model, settings.answerer_key_env
        ),
        size=settings.answerer_workers,
    )


def _notifier(live: LiveSessions) -> Callable[[int], None]:
    """Decisions are made in request handlers or their worker threads: schedule the notification on
    the server's event loop. Made outside the server (the CLI), sessions see it on their next read."""
    pending: set[asyncio.Task[int]] = set()

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


def change_feed(db: PostgresDatabase, live: LiveSessions) -> ChangeFeed:
    """The feed's thread hands each announcement to the event loop that serves the sessions."""
    loop = asyncio.get_running_loop()

    def on_revision() -> None:
        loop.call_soon_threadsafe(live.nudge)

    def on_inbox(principal_id: int | None) -> None:
        asyncio.run_coroutine_threadsafe(live.inbox_changed(principal_id), loop)

    def on_lag(channel: str, seconds: float) -> None:
        NOTIFICATION_LAG.labels(channel).observe(seconds)

    return ChangeFeed(db, on_revision, on_inbox, on_lag)


async def store_unavailable_page(request: Request, exc: Exception) -> Response:
    """A console or authorization page while the store is down: 503 saying so, never a 500."""
    return Response(
        f"Parley cannot reach its store right now ({exc}).",
        status_code=503,
        media_type="text/plain; charset=utf-8",
        headers={"retry-after": "1", "cache-control": "no-store"},
    )


def build(settings: Settings | None = None) -> Parley:
    settings = settings or Settings.from_env()
    manifest = load_manifest(settings.manifest_path)
    db = open_db(settings.store, create=False, pool_size=settings.db_pool)
    try:
        return _assemble(settings, manifest, db)
    except BaseException:
        db.close()  # a build that fails (a store gone mid-way) leaves no pool behind
        raise


def _assemble(settings: Settings, manifest: Manifest, db: Database) -> Parley:
    shared = settings.shared_store
    db.count_round_trips(
        count_statements
    )  # its round trips, by what they were made for, on /metrics
    if shared:
        # Beside other processes: the schema `parley db migrate` made, and the keys and manifest it recorded.
        require_current(db)
        check_cluster(db, settings.keys_dir, settings.manifest_path)
    key = SigningKey.load_or_create(settings.keys_dir, create=not shared)
    resource = canonical_resource(settings.mcp_url)
    ring: KeyRing | None = None
    if settings.embedded_issuer:
        ring = KeyRing(settings.keys_dir, db=db, create=not shared)
        verifier = AccessTokenVerifier(
            settings.issuer, resource, RingSource(ring), algorithms=("ES256",)
        )
    else:
        source: UrlSource | FileSource
        if settings.oauth_jwks_url:
            source = UrlSource(settings.oauth_jwks_url)
        elif settings.oauth_jwks_file is not None:
            source = FileSource(settings.oauth_jwks_file)
        else:
            raise ConfigError(
                "an external issuer needs PARLEY_OAUTH_JWKS_URL or PARLEY_OAUTH_JWKS_FILE"
            )
        verifier = AccessTokenVerifier(
            settings.issuer, resource, source, algorithms=settings.oauth_algorithms
        )
    resolver = Resolver(
        db, key, frozenset(manifest.scopes), verifier, embedded_issuer=settings.embedded_issuer
    )
    access = Access(manifest, resolver)
    vocabularies = {language: vocabulary.load(language) for language in LANGUAGES}
    live = LiveSessions(access, db.revision, caller_of)
    pool = answerer_pool(settings)
    # On PostgreSQL every process hears of a decision through the change feed, this one included.
    escalations = Escalations(
        db,
        key,
        manifest,
        pool.answer_sync,
        on_delivery=None if shared else _notifier(live),
        answer_async=pool.answer,
        limits=AskLimits(total=8 * settings.answerer_workers),
    )
    chokepoint = Chokepoint(db, key, manifest, vocabularies, escalations)
    # Several processes: no session pinned to one (each request is resolved again wherever it lands).
    manager = session_manager(
        build_mcp_server(chokepoint, live, public_url=settings.public_url),
        settings.public_url,
        settings.max_sessions,
        stateless=settings.stateless,
    )
    metadata_url = f"{settings.public_url}/.well-known/oauth-protected-resource/mcp"
    # Shares of the session table per lane, address and principal; which sessions the SDK still holds
    # is read from its manager (it publishes no way to know that a session ended: server.transport).
    quota = SessionQuota(settings.max_sessions, lambda session: sdk.holds(manager, session))
    # A plain JSON-answered request goes the lean way (server.http.lean), anything else the SDK's.
    sdk_way = (
        manager.handle_request
        if settings.stateless
        else SessionShares(manager.handle_request, quota)
    )
    gate = Gate(
        LeanExchange(manager, sdk_way),
        access,
        metadata_url,
        manifest,
        guest_limiter=budget(db, manifest.limits.guest_requests_per_minute, "guest"),
        token_limiter=budget(db, manifest.limits.token_requests_per_minute, "token"),
        audit=chokepoint.audit,
        offload=shared,
    )
    metadata = resource_metadata(settings, manifest)
    announce_series(list(manifest.lanes), list(manifest.tools))
    pages = Pages(
        db,
        manifest.club.name,
        Sealer(session_secret(settings.keys_dir, create=not shared)),
        resolver=resolver,
    )

    def rule_sentence(persona: str | None, tool: str, name: str) -> str | None:
        """The sentence a rule reads as, for the console's Activity page (the audit keeps only its name)."""
        return next(
            (r.reads_as for r in chokepoint.rulebook.rules_for(persona, tool) if r.name == name),
            None,
        )

    browser_routes = (
        list(pages.routes())
        + Console(
            pages,
            escalations,
            manifest,
            key,
            rule_sentence=rule_sentence,
            public_url=settings.public_url if settings.public_url_given else None,
        ).routes()
    )
    browser_routes += RulePages(pages, escalations, manifest, key, chokepoint.rulebook).routes()
    browser_routes += ActivityPages(
        pages, escalations, manifest, key, rule_sentence=rule_sentence
    ).routes()
    if ring is not None:
        authorization = ParleyAuthorizationServer(
            OAuthStore(db, ring, settings.issuer), server_metadata(settings.issuer, manifest)
        )
        browser_routes += AuthorizationPages(
            authorization, pages, manifest, key, settings.mcp_url
        ).routes()

    async def protected_resource(request: Request) -> JSONResponse:
        return JSONResponse(metadata, headers={"cache-control": "public, max-age=300"})

    health = Health(
        db,
        pool,
        {
            "mcp": settings.mcp_url,
            "backend": db.backend,
            "schema_version": schema_version(db),
            "manifest_digest": manifest_digest(settings.manifest_path),
        },
    )

    async def metrics(request: Request) -> Response:
        health.sample()
        body, content_type = await anyio.to_thread.run_sync(exposition)
        return Response(body, media_type=content_type)

    async def root(request: Request) -> RedirectResponse:
        return RedirectResponse("/console", status_code=303)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        shared = shared_store(db)
        feed = None if shared is None else change_feed(shared, live)
        # The workers' processes start now and get ready in the background, not in the first ask's
        # time; the first call in a slot reads its ready line (waiting for readiness in a thread of
        # our own raced the asks for the slots and failed a worker under load).
        pool.start()
        async with manager.run(), anyio.create_task_group() as group:
            group.start_soon(live.watch)
            group.start_soon(chokepoint.audit.run_writer)
            group.start_soon(health.keep_sampling)
            if feed is not None:
                feed.start()
                health.listening = feed.connected.is_set
            log.info(
                "Parley application started in process %d (store: %s)",
                os.getpid(),
                settings.store_name,
            )
            try:
                yield
            finally:
                group.cancel_scope.cancel()
                if feed is not None:
                    with anyio.CancelScope(shield=True):  # the group above is cancelled already
                        await anyio.to_thread.run_sync(feed.stop)
                pool.close()
                process_exited()

    browser = Starlette(
        routes=browser_routes,
        middleware=[session_middleware(settings.keys_dir, settings.public_url, create=not shared)],
        exception_handlers={StoreUnavailable: store_unavailable_page},
    )
    app = Starlette(
        routes=[
            Route("/mcp", endpoint=gate),
            Route("/.well-known/oauth-protected-resource", protected_resource),
            Route("/.well-known/oauth-protected-resource/mcp", protected_resource),
            Route("/livez", health.live),
            Route("/readyz", health.ready),
            Route("/healthz", health.ready),
            Route("/metrics", metrics),
            Route("/", root),
            Mount("", app=PlainText(browser if not shared else InThread(browser))),
        ],
        # /mcp straight to the gate (server.http.front); the route above stays for everything that lists routes
        middleware=[Middleware(FrontDoor, path="/mcp", to=gate)],
        lifespan=lifespan,
    )
    return Parley(settings, manifest, db, key, access, chokepoint, live, app, escalations)


def create_app() -> Starlette:
    """Factory for `uvicorn --factory server.app:create_app` (`parley serve`): the app, with a heap
    keeper beside it while it serves (`server.heap`)."""
    if (
        not logging.getLogger().handlers
    ):  # a worker spawned by `parley serve --workers N` logs as its parent
        logging.basicConfig(
            level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
        )
    app = _when_the_store_answers(build).app
    app.router.lifespan_context = kept(app.router.lifespan_context)
    return app


def _when_the_store_answers(make: Callable[[], Built]) -> Built:
    """A worker that starts while its store is down waits for it, saying so once, instead of dying
    with a traceback to be restarted in a loop (uvicorn's supervisor pings it meanwhile from a
    thread of its own; it joins the others once the store answers)."""
    waited = False
    while True:
        try:
            built = make()
        except StoreUnavailable:
            if not waited:
                log.error("store unavailable while this worker starts: it waits for the store")
                waited = True
            time.sleep(1.0)
            continue
        if waited:
            log.warning("store reachable again: this worker starts")
        return built

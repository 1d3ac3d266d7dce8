"""Browser pages' common ground: signed session cookies, CSRF tokens, sign-in and sign-out.

Pages are server-rendered and work without JavaScript. A session holds only the principal's id
and a CSRF token; it is signed with a secret kept in the keys folder, never in the database.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from server.http.ratelimit import RateLimiter
from server.identity.passwords import check_password
from server.store import principals as principal_rows
from server.store.database import Database

TEMPLATES = Path(__file__).resolve().parent / "templates"
SESSION_SECRET_FILE = "session-secret"


def session_middleware(keys_dir: Path, public_url: str) -> Middleware:
    path = Path(keys_dir) / SESSION_SECRET_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(48))
    return Middleware(
        SessionMiddleware,
        secret_key=path.read_text().strip(),
        session_cookie="parley_session",
        max_age=8 * 3600,
        same_site="lax",
        https_only=public_url.startswith("https://"),
    )


def safe_next(target: str | None) -> str:
    """Only same-site relative paths: never an open redirect."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/console"
    parts = urlsplit(target)
    return parts.path + (f"?{parts.query}" if parts.query else "")


class Pages:
    def __init__(self, db: Database, club_name: str):
        self.db = db
        self.club_name = club_name
        self.templates = Jinja2Templates(directory=str(TEMPLATES))
        self.signin_limiter = RateLimiter(20)

    def csrf(self, request: Request) -> str:
        token = request.session.get("csrf")
        if not token:
            token = request.session["csrf"] = secrets.token_urlsafe(24)
        return token

    def csrf_ok(self, request: Request, form) -> bool:
        expected = request.session.get("csrf")
        sent = form.get("csrf")
        return isinstance(expected, str) and bool(expected) and isinstance(sent, str) and \
            secrets.compare_digest(expected, sent)

    def principal_id(self, request: Request) -> int | None:
        """The signed-in principal, re-checked on every request: suspended means signed out."""
        principal_id = request.session.get("principal_id")
        if not isinstance(principal_id, int):
            return None
        status = principal_rows.status_of(self.db, principal_id)
        if status is None or status == "suspended":
            request.session.clear()
            return None
        return principal_id

    def render(self, request: Request, name: str, status_code: int = 200, **context) -> Response:
        context.setdefault("club_name", self.club_name)
        response = self.templates.TemplateResponse(request, name, context, status_code=status_code)
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Content-Security-Policy"] = "default-src 'self'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    def error(self, request: Request, title: str, message: str, status_code: int = 400) -> Response:
        return self.render(request, "error.html", status_code=status_code, title=title, message=message)

    async def signin_page(self, request: Request) -> Response:
        return self.render(
            request, "signin.html", csrf=self.csrf(request), next=safe_next(request.query_params.get("next")),
            handle="", error=None,
        )

    async def signin(self, request: Request) -> Response:
        form = await request.form()
        target = safe_next(str(form.get("next") or ""))
        if not self.csrf_ok(request, form):
            return self.error(request, "Sign-in refused", "The form expired or came from another site; reload and try again.", 403)
        client = request.client.host if request.client else "unknown"
        if self.signin_limiter.take(f"signin:{client}") is not None:
            return self.error(request, "Too many attempts", "Too many sign-in attempts; wait a minute and retry.", 429)
        handle = str(form.get("handle", "")).strip()
        password = str(form.get("password", ""))
        row = principal_rows.sign_in_record(self.db, handle)
        ok = check_password(password, row[2] if row else None)
        if not ok or row is None or row[1] == "suspended":
            return self.render(
                request, "signin.html", status_code=401, csrf=self.csrf(request), next=target, handle=handle,
                error="Wrong handle or password, or the account cannot sign in.",
            )
        request.session.clear()  # a fresh session at sign-in: no fixation
        request.session["principal_id"] = row[0]
        self.csrf(request)
        return RedirectResponse(target, status_code=303)

    async def signout(self, request: Request) -> Response:
        form = await request.form()
        if self.csrf_ok(request, form):
            request.session.clear()
        return RedirectResponse("/signin", status_code=303)

    def routes(self) -> list[Route]:
        return [
            Route("/signin", self.signin_page, methods=["GET"]),
            Route("/signin", self.signin, methods=["POST"]),
            Route("/signout", self.signout, methods=["POST"]),
        ]

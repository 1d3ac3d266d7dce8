"""Browser pages' common ground: sessions kept server-side, CSRF tokens, sign-in and sign-out, the
console's own stylesheet and script, and human times.

Pages are server-rendered and work without JavaScript. The signed session cookie holds a random
session secret and a CSRF token; the store keeps only the secret's SHA-256 digest, so sign-out, a
password change or a suspension ends a session at once. The cookie is signed with a secret kept in
the keys folder, never in the database.
"""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import anyio
from markupsafe import Markup, escape
from starlette.datastructures import FormData
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from server.http.ratelimit import budget, retry_after_header
from server.identity.authenticate import ConsoleSession, authenticate
from server.identity.credentials import digest
from server.identity.passwords import check_password
from server.identity.resolver import Resolver
from server.keys.console import session_secret
from server.store import principals as principal_rows
from server.store import sessions
from server.store.database import Database, format_time
from server.web.sealed import Sealer

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = {
    "console.css": "text/css; charset=utf-8",
    "console.js": "text/javascript; charset=utf-8",
    "rules.css": "text/css; charset=utf-8",
    "rules.js": "text/javascript; charset=utf-8",
}
SESSION_HOURS = 8
CSP = (
    "default-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; "
    "base-uri 'none'; object-src 'none'"
)
_ORIGIN = re.compile(r"https?://[A-Za-z0-9.\-\[\]:]+")


def csp_sending_forms_to(origin: str) -> str:
    """The policy of a page whose form is answered with a redirect elsewhere (OAuth consent: to the
    client's redirect URI), which `form-action` must allow: that origin beside this site, nothing else."""
    allowed = origin if _ORIGIN.fullmatch(origin) else "https:"
    return CSP.replace("form-action 'self'", f"form-action 'self' {allowed}")


ACCOUNT_ATTEMPTS_PER_MINUTE = 10  # password attempts on one account, from every address together


def session_middleware(keys_dir: Path, public_url: str, create: bool = True) -> Middleware:
    return Middleware(
        SessionMiddleware,
        secret_key=session_secret(keys_dir, create),
        session_cookie="parley_session",
        max_age=SESSION_HOURS * 3600,
        same_site="lax",
        https_only=public_url.startswith("https://"),
    )


def safe_next(target: str | None) -> str:
    """Only a path on this site, else Home: never an open redirect. Browsers drop tabs and line breaks
    from a URL ("/\t/evil" becomes "//evil", another host), so a target holding any whitespace or control
    character is refused whole, and what is kept must parse as a bare path beginning with one slash."""
    if (
        not target
        or any(char.isspace() or not char.isprintable() for char in target)
        or "\\" in target
    ):
        return "/console"
    parts = urlsplit(target)
    if (
        parts.scheme
        or parts.netloc
        or not parts.path.startswith("/")
        or parts.path.startswith("//")
    ):
        return "/console"
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _moment(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def when(value: str | None, dated: bool = False) -> Markup:
    """An ISO time as readable text with its UTC offset, in a <time> a small script may localise."""
    moment = _moment(value)
    if moment is None:
        return Markup('<span class="muted">never</span>') if not value else Markup(escape(value))
    moment = moment.astimezone(UTC)
    text = f"{moment.day} {moment:%b %Y}" if dated else f"{moment.day} {moment:%b %Y, %H:%M} UTC"
    kind = "date" if dated else "datetime"
    return Markup(f'<time datetime="{escape(value)}" data-local="{kind}">{escape(text)}</time>')


def ago(value: str | None) -> str:
    """'3 minutes ago', 'yesterday', or the date: for last activity."""
    moment = _moment(value)
    if moment is None:
        return "never"
    seconds = (datetime.now(UTC) - moment).total_seconds()
    if seconds < 60:
        return "just now"
    for unit, size in (("minute", 60), ("hour", 3600), ("day", 86400)):
        count = int(seconds // size)
        if unit == "day" or count < (60 if unit == "minute" else 24):
            if unit == "day" and count >= 30:
                break
            return f"{count} {unit}{'s' if count != 1 else ''} ago"
    return f"on {moment.day} {moment:%b %Y}"


class Pages:
    def __init__(
        self, db: Database, club_name: str, sealer: Sealer | None = None, *, resolver: Resolver
    ):
        self.db = db
        self.resolver = resolver  # who a session's secret names: `authenticate`, as for a bearer
        self.club_name = club_name
        # seals one-time secrets for the cookie; a cluster's processes share the key (its session secret)
        self.sealer = sealer or Sealer(secrets.token_urlsafe(32))
        self.templates = Jinja2Templates(directory=str(TEMPLATES))
        self.templates.env.filters["when"] = when
        self.templates.env.filters["ago"] = ago
        self.signin_limiter = budget(
            db, 20, "signin"
        )  # attempts a minute per address, cluster-wide
        # and per account, whether it exists or not (so the answer tells nothing), from any address
        self.account_limiter = budget(db, ACCOUNT_ATTEMPTS_PER_MINUTE, "signin-account")

    async def guessing_refused(self, request: Request, handle: str) -> Response | None:
        """A 429 with Retry-After when this address or this account has used its password attempts
        (sign-in and the change-password form spend the same ones), else None."""
        client = request.client.host if request.client else "unknown"
        waits = [
            await anyio.to_thread.run_sync(self.signin_limiter.take, f"signin:{client}"),
            await anyio.to_thread.run_sync(
                self.account_limiter.take, f"account:{handle.casefold()}"
            ),
        ]
        wait = max((w for w in waits if w is not None), default=None)
        if wait is None:
            return None
        seconds = retry_after_header(wait)
        response = self.error(
            request,
            "Too many attempts",
            f"Too many password attempts; wait {seconds} seconds and retry.",
            429,
        )
        response.headers["Retry-After"] = seconds
        return response

    def csrf(self, request: Request) -> str:
        token = request.session.get("csrf")
        if not token:
            token = request.session["csrf"] = secrets.token_urlsafe(24)
        return token

    def csrf_ok(self, request: Request, form: FormData) -> bool:
        expected = request.session.get("csrf")
        sent = form.get("csrf")
        return (
            isinstance(expected, str)
            and bool(expected)
            and isinstance(sent, str)
            and secrets.compare_digest(expected.encode(), sent.encode())
        )  # bytes: any text, never a TypeError

    def principal_id(self, request: Request) -> int | None:
        """The signed-in principal, checked against the store on every request: a session that was
        ended (sign-out, password change, suspension) or expired is signed out."""
        secret = request.session.get("sid")
        if not isinstance(secret, str) or not secret:
            return None
        principal_id = authenticate(self.resolver, ConsoleSession(secret))
        if principal_id is None:
            request.session.clear()
        return principal_id

    def start_session(self, request: Request, principal_id: int) -> None:
        """A fresh session (no fixation): a new secret, its digest stored, a new CSRF token."""
        request.session.clear()
        secret = secrets.token_urlsafe(32)
        expires = format_time(datetime.now(UTC) + timedelta(hours=SESSION_HOURS))
        sessions.start(self.db, digest(secret), principal_id, expires)
        request.session["sid"] = secret
        self.csrf(request)

    def end_session(self, request: Request, reason: str) -> None:
        secret = request.session.get("sid")
        if isinstance(secret, str) and secret:
            sessions.end(self.db, digest(secret), reason)
        request.session.clear()

    def render(
        self, request: Request, name: str, status_code: int = 200, **context: object
    ) -> Response:
        """The template as a page with its security headers; `csp`, when given, replaces the policy
        (`csp_sending_forms_to`: the consent page alone)."""
        policy = context.pop("csp", CSP)
        context.setdefault("club_name", self.club_name)
        response = self.templates.TemplateResponse(request, name, context, status_code=status_code)
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Content-Security-Policy"] = policy if isinstance(policy, str) else CSP
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    def error(self, request: Request, title: str, message: str, status_code: int = 400) -> Response:
        return self.render(
            request, "error.html", status_code=status_code, title=title, message=message
        )

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return Response("not found", status_code=404, media_type="text/plain")
        return Response(
            (HERE / "static" / name).read_bytes(),
            media_type=STATIC[name],
            headers={"Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff"},
        )

    async def signin_page(self, request: Request) -> Response:
        if self.principal_id(request) is not None:
            return RedirectResponse(safe_next(request.query_params.get("next")), status_code=303)
        return self.render(
            request,
            "signin.html",
            csrf=self.csrf(request),
            next=safe_next(request.query_params.get("next")),
            handle="",
            error=None,
        )

    async def signin(self, request: Request) -> Response:
        form = await request.form()
        target = safe_next(str(form.get("next") or ""))
        if not self.csrf_ok(request, form):
            return self.error(
                request,
                "Sign-in refused",
                "The form expired or came from another site; reload and try again.",
                403,
            )
        handle = str(form.get("handle", "")).strip()[:64]
        refused = await self.guessing_refused(request, handle)
        if refused is not None:
            return refused
        password = str(form.get("password", ""))
        row = await anyio.to_thread.run_sync(principal_rows.sign_in_record, self.db, handle)
        # scrypt takes tens of milliseconds on purpose: never on the event loop
        ok = await anyio.to_thread.run_sync(check_password, password, row[2] if row else None)
        if not ok or row is None or row[1] == "suspended":
            return self.render(
                request,
                "signin.html",
                status_code=401,
                csrf=self.csrf(request),
                next=target,
                handle=handle,
                error="Wrong handle or password, or the account cannot sign in.",
            )
        self.start_session(request, row[0])
        return RedirectResponse(target, status_code=303)

    async def signout(self, request: Request) -> Response:
        """Sign-out ends the session whatever the form's CSRF token: whoever pressed it must not stay
        signed in because the page had aged. (A forged sign-out from another site cannot happen: the
        session cookie is SameSite, so a cross-site POST arrives without a session to end.)"""
        await request.form()
        self.end_session(request, "signed out")
        return RedirectResponse("/signin", status_code=303)

    def routes(self) -> list[Route]:
        return [
            Route("/signin", self.signin_page, methods=["GET"]),
            Route("/signin", self.signin, methods=["POST"]),
            Route("/signout", self.signout, methods=["POST"]),
            Route("/console/static/{name}", self.static, methods=["GET"]),
        ]

"""Every page carries its security headers, and the console's static files are served as what they are.
Found by the mutation run (scripts/mutate)."""

from __future__ import annotations

import httpx2
import pytest

from server.web.pages import CSP
from tests.console_helpers import ConsoleUser


def assert_page_headers(response: httpx2.Response) -> None:
    assert response.headers["content-security-policy"] == CSP
    assert "frame-ancestors 'none'" in CSP and "default-src 'self'" in CSP
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["referrer-policy"] == "no-referrer"


async def test_the_sign_in_page_and_the_console_carry_the_security_headers(club):
    async with httpx2.AsyncClient(
        base_url=club.live.base, follow_redirects=False, timeout=30
    ) as http:
        assert_page_headers(await http.get("/signin"))
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        page = await ana.get("/console")
        assert page.status_code == 200
        assert_page_headers(page)


async def test_console_forms_are_sent_to_this_site_only(club):
    """`form-action 'self'` on every console page (only the OAuth consent page, tested with the flow,
    may send its form on to a client)."""
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        for path in (
            "/console",
            "/console/agents",
            "/console/rules",
            "/console/settings",
            "/console/queue",
        ):
            page = await ana.get(path)
            policy = page.headers["content-security-policy"]
            assert "form-action 'self';" in policy and "http:" not in policy, path
    async with httpx2.AsyncClient(base_url=club.live.base, timeout=30) as http:
        assert (
            "form-action 'self';" in (await http.get("/signin")).headers["content-security-policy"]
        )


@pytest.mark.parametrize("token", ["", "forged", None])
async def test_sign_out_ends_the_session_whatever_its_csrf_token(club, token):
    """Whoever pressed Sign out is signed out, even from a page whose form had aged (a forged sign-out
    from another site arrives without the SameSite session cookie, so it has nothing to end)."""
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        assert (await ana.get("/console")).status_code == 200
        form = {} if token is None else {"csrf": token}
        out = await ana.http.post("/signout", data=form)
        assert out.status_code == 303 and out.headers["location"] == "/signin"
        after = await ana.get("/console")
        assert after.status_code == 303 and after.headers["location"].startswith("/signin")


async def test_static_files_are_served_as_what_they_are_and_nothing_else(club):
    async with httpx2.AsyncClient(
        base_url=club.live.base, follow_redirects=False, timeout=30
    ) as http:
        for name, kind in (
            ("console.css", "text/css; charset=utf-8"),
            ("console.js", "text/javascript; charset=utf-8"),
        ):
            served = await http.get(f"/console/static/{name}")
            assert served.status_code == 200 and served.content
            assert served.headers["content-type"] == kind
            assert served.headers["x-content-type-options"] == "nosniff"
            assert served.headers["cache-control"] == "public, max-age=3600"
        assert (await http.post("/console/static/console.css")).status_code == 405  # read-only
        missing = await http.get("/console/static/nothing.css")
        assert missing.status_code == 404
        assert (
            missing.headers["content-type"].startswith("text/plain") and missing.text == "not found"
        )
        for name in ("..%2Fpages.py", "%2E%2E%2Fpages.py", "pages.py"):
            outside = await http.get(f"/console/static/{name}")
            assert outside.status_code == 404 and "import" not in outside.text, name


# --- the session cookie and the secret that signs it ----------------------------------------------


def _cookie_of(keys_dir, public_url: str) -> str:
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route
    from starlette.testclient import TestClient

    from server.web.pages import session_middleware

    async def start(request):
        request.session["csrf"] = "x"
        return PlainTextResponse("ok")

    app = Starlette(
        routes=[Route("/", start)], middleware=[session_middleware(keys_dir, public_url)]
    )
    with TestClient(app, base_url=public_url) as client:
        return client.get("/").headers["set-cookie"]


def test_the_session_cookie_is_secure_behind_https_httponly_and_same_site(tmp_path):
    secure = _cookie_of(tmp_path / "keys", "https://club.example").lower()
    plain = _cookie_of(tmp_path / "keys", "http://127.0.0.1:8765").lower()
    for cookie in (secure, plain):
        assert cookie.startswith("parley_session=")
        assert "httponly" in cookie and "samesite=lax" in cookie and f"max-age={8 * 3600}" in cookie
    assert "; secure" in secure
    assert "secure" not in plain  # a browser would never send it back over plain http


def test_the_session_secret_is_made_once_in_a_new_folder_and_readable_by_its_owner_only(tmp_path):
    from server.keys.console import SESSION_SECRET_FILE, session_secret

    keys = tmp_path / "not" / "yet" / "keys"
    secret = session_secret(keys)
    path = keys / SESSION_SECRET_FILE
    assert len(secret) >= 64 and path.read_text().strip() == secret
    assert path.stat().st_mode & 0o777 == 0o600
    assert session_secret(keys) == secret and session_secret(keys, create=False) == secret


# --- human times on the console's pages -----------------------------------------------------------


def test_last_activity_reads_in_the_largest_whole_unit():
    from datetime import UTC, datetime, timedelta

    from server.web.pages import ago

    def back(**delta) -> str:
        return (datetime.now(UTC) - timedelta(**delta)).isoformat().replace("+00:00", "Z")

    assert ago(None) == ago("") == "never"
    assert ago(back(seconds=20)) == "just now"
    assert ago(back(seconds=65)) == "1 minute ago"
    assert ago(back(seconds=119)) == "1 minute ago"
    assert ago(back(seconds=122)) == "2 minutes ago"
    assert ago(back(minutes=59, seconds=30)) == "59 minutes ago"
    assert ago(back(minutes=61)) == "1 hour ago"
    assert ago(back(hours=5, minutes=10)) == "5 hours ago"
    assert ago(back(hours=25)) == "1 day ago"
    assert ago(back(days=29, hours=1)) == "29 days ago"
    old = datetime.now(UTC) - timedelta(days=45)
    assert ago(old.isoformat()) == f"on {old.day} {old:%b %Y}"


def test_a_time_that_is_missing_reads_never_and_an_unreadable_one_is_shown_as_it_is():
    from server.web.pages import when

    assert str(when(None)) == str(when("")) == '<span class="muted">never</span>'
    assert str(when("soon<b>")) == "soon&lt;b&gt;"
    assert str(when("2026-03-04T05:06:07.000000Z")) == (
        '<time datetime="2026-03-04T05:06:07.000000Z" data-local="datetime">4 Mar 2026, 05:06 UTC</time>'
    )
    assert str(when("2026-03-04T05:06:07.000000Z", dated=True)) == (
        '<time datetime="2026-03-04T05:06:07.000000Z" data-local="date">4 Mar 2026</time>'
    )


async def test_a_sign_in_form_without_a_handle_is_refused_and_shown_again_empty(club):
    from tests.console_helpers import csrf_of

    async with httpx2.AsyncClient(
        base_url=club.live.base, follow_redirects=False, timeout=30
    ) as http:
        csrf = csrf_of((await http.get("/signin")).text)
        refused = await http.post(
            "/signin", data={"csrf": csrf, "next": "/console", "password": "x"}
        )
        assert refused.status_code == 401
        assert 'name="handle" autocomplete="username" required value=""' in refused.text
        typed = await http.post(
            "/signin",
            data={"csrf": csrf, "next": "/console", "handle": " nobody ", "password": "x"},
        )
        assert typed.status_code == 401
        assert 'name="handle" autocomplete="username" required value="nobody"' in typed.text
        assert (await http.get("/console")).status_code == 303  # still signed out

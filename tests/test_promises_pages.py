"""Every page carries its security headers, and the console's static files are served as what they are.
Found by the mutation run (scripts/mutate)."""

from __future__ import annotations

import httpx2

from server.web.pages import CSP
from tests.console_helpers import ConsoleUser


def assert_page_headers(response: httpx2.Response) -> None:
    assert response.headers["content-security-policy"] == CSP
    assert "frame-ancestors 'none'" in CSP and "default-src 'self'" in CSP
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["referrer-policy"] == "no-referrer"


async def test_the_sign_in_page_and_the_console_carry_the_security_headers(club):
    async with httpx2.AsyncClient(base_url=club.live.base, follow_redirects=False, timeout=30) as http:
        assert_page_headers(await http.get("/signin"))
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        page = await ana.get("/console")
        assert page.status_code == 200
        assert_page_headers(page)


async def test_static_files_are_served_as_what_they_are_and_nothing_else(club):
    async with httpx2.AsyncClient(base_url=club.live.base, follow_redirects=False, timeout=30) as http:
        for name, kind in (("console.css", "text/css; charset=utf-8"), ("console.js", "text/javascript; charset=utf-8")):
            served = await http.get(f"/console/static/{name}")
            assert served.status_code == 200 and served.content
            assert served.headers["content-type"] == kind
            assert served.headers["x-content-type-options"] == "nosniff"
            assert served.headers["cache-control"] == "public, max-age=3600"
        assert (await http.post("/console/static/console.css")).status_code == 405  # read-only
        missing = await http.get("/console/static/nothing.css")
        assert missing.status_code == 404
        assert missing.headers["content-type"].startswith("text/plain") and missing.text == "not found"
        for name in ("..%2Fpages.py", "%2E%2E%2Fpages.py", "pages.py"):
            outside = await http.get(f"/console/static/{name}")
            assert outside.status_code == 404 and "import" not in outside.text, name

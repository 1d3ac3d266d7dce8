"""A principal at the console, over real HTTP: signs in, reads pages, posts forms with the CSRF token."""

from __future__ import annotations

import re
from html import unescape

import httpx2


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', html)
    assert match, "page has no CSRF token"
    return unescape(match.group(1))


class ConsoleUser:
    def __init__(self, base: str, handle: str, password: str):
        self.base = base
        self.handle = handle
        self.password = password
        self.http = httpx2.AsyncClient(base_url=base, follow_redirects=False, timeout=30)

    async def __aenter__(self) -> ConsoleUser:
        page = await self.http.get("/signin")
        response = await self.http.post(
            "/signin",
            data={
                "csrf": csrf_of(page.text),
                "next": "/console",
                "handle": self.handle,
                "password": self.password,
            },
        )
        assert response.status_code == 303, response.text
        return self

    async def __aexit__(self, *exc) -> None:
        await self.http.aclose()

    async def get(self, path: str) -> httpx2.Response:
        return await self.http.get(path)

    async def post(self, path: str, data: dict, page: str = "/console") -> httpx2.Response:
        """Post a form the way the page would: with this session's CSRF token."""
        html = (await self.http.get(page)).text
        return await self.http.post(path, data={"csrf": csrf_of(html), **data})

"""Headless Chromium (Debian's, installed by scripts/test) driven by Playwright against the live console."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from playwright.async_api import async_playwright, expect

# How long an `expect(...)` waits for the page to say what it should (it passes as soon as it does):
# on a 2-core machine running the suite in two processes, a form post that compiles a rule took over
# Playwright's default 5 s once. A bound on waiting, not a measure of speed.
expect.set_options(timeout=20_000)

CHROMIUM = os.environ.get("PARLEY_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
async def page():
    assert shutil.which(CHROMIUM) or os.path.exists(CHROMIUM), (
        f"{CHROMIUM} is missing: scripts/test installs it"
    )
    profile = tempfile.mkdtemp(prefix="parley-chromium-")
    async with async_playwright() as playwright:
        context = await playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=FLAGS
        )
        try:
            yield context.pages[0] if context.pages else await context.new_page()
        finally:
            await context.close()
    shutil.rmtree(profile, ignore_errors=True)


async def sign_in(page, base: str, handle: str, password: str) -> None:
    await page.goto(f"{base}/console")
    assert "/signin" in page.url
    await page.get_by_label("Handle").fill(handle)
    await page.get_by_label("Password").fill(password)
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url(f"{base}/console")


SHOTS = os.environ.get(
    "PARLEY_SCREENSHOTS"
)  # a folder to keep screenshots in, for a person to look at


async def looked_at(page, name: str) -> None:
    """Every console page a test visits: zero axe-core violations of any impact (serious and critical ones
    listed first), and a screenshot kept when PARLEY_SCREENSHOTS names a folder."""
    from axe_playwright_python.async_playwright import Axe

    # a page that a click is still loading is checked once it has loaded
    await page.wait_for_load_state()
    results = await Axe().run(page)
    serious = [
        f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert serious == [], f"{name}: {serious}"
    lesser = sorted(
        {
            f"{v['id']} ({v['impact']}) — {[n['target'] for n in v['nodes']][:3]}"
            for v in results.response["violations"]
            if v["impact"] not in ("serious", "critical")
        }
    )
    assert lesser == [], f"{name}: {lesser}"
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        await page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)

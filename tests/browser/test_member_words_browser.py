"""What the console tells people is true, in their words: walked in Chromium as a steward, a member and
an applicant would, at 1280 px (a laptop) where the steward's navigation must fit one line."""

from __future__ import annotations

import asyncio
import re

from playwright.async_api import Route, expect

from server.web.connect import INSPECTOR
from tests.browser.conftest import looked_at, sign_in
from tests.conftest import connect

WIDE = {"width": 1280, "height": 900}


async def one_line(page, selector: str) -> None:
    """Every item of `selector` sits on the first one's line: nothing wrapped to a second."""
    boxes = await page.locator(selector).evaluate_all(
        "items => items.map(item => [item.getBoundingClientRect().top,"
        " item.getBoundingClientRect().bottom])"
    )
    assert max(top for top, _ in boxes) < min(bottom for _, bottom in boxes), boxes


async def test_a_steward_sees_who_applied_and_who_acted_on_one_line_of_navigation(club, page):
    await page.set_viewport_size(WIDE)
    async with connect(club.url, club.tokens.steward_principal.token) as own:
        await own.call_tool("whoami", {})  # ana, through her own token
    await sign_in(page, club.live.base, "ana", club.tokens.passwords["ana"])
    await one_line(page, ".topbar .nav li, .topbar .who")
    await page.get_by_role("link", name="Members", exact=True).click()
    await expect(page.get_by_role("row", name=re.compile("Carla Mendes"))).to_contain_text(
        "applied", use_inner_text=True
    )
    await expect(page.get_by_role("row", name=re.compile("Bruno Costa"))).to_contain_text(
        "joined", use_inner_text=True
    )
    await looked_at(page, "members-since")
    await page.get_by_role("link", name="Activity", exact=True).click()
    await expect(page.locator("table")).to_contain_text("you (your own token)", use_inner_text=True)
    await one_line(page, ".topbar .nav li, .topbar .who")
    cut = await page.locator(".filters select").evaluate_all(
        """selects => selects.filter(select => {
             const shown = select.getBoundingClientRect().width;
             select.style.width = 'max-content';
             const needed = select.getBoundingClientRect().width;
             select.style.width = '';
             return shown + 1 < needed;
           }).map(select => select.id)"""
    )
    assert cut == []  # no filter shows less than its longest choice
    await looked_at(page, "activity-own-token")


async def test_an_applicant_walks_a_console_of_their_own(club, page):
    await sign_in(page, club.live.base, "carla", club.tokens.passwords["carla"])
    notice = page.get_by_role("region", name="Your application")
    await expect(notice).to_contain_text("What to do meanwhile", use_inner_text=True)
    nav = page.get_by_role("navigation", name="Console")
    await expect(nav).not_to_contain_text("Queue")
    await expect(nav).not_to_contain_text("Notes")
    await expect(page.locator("main")).not_to_contain_text("Your week")
    await looked_at(page, "applicant-home")
    await page.goto(f"{club.live.base}/console/notes")
    await expect(page.locator("main")).to_contain_text(
        "This page is for members", use_inner_text=True
    )
    await looked_at(page, "applicant-notes")
    await page.get_by_role("link", name="Settings", exact=True).click()
    await expect(page.get_by_role("group")).to_contain_text(
        "When your agent still does not understand", use_inner_text=True
    )
    await expect(page.locator("main")).to_contain_text(
        "Answer from your notes", use_inner_text=True
    )
    await looked_at(page, "applicant-settings")


async def test_home_snippets_say_what_they_need_to_run(club, page):
    await sign_in(page, club.live.base, "bruno", club.tokens.passwords["bruno"])
    await expect(page.locator("#snippet-inspector")).to_contain_text(INSPECTOR)
    await expect(page.locator("#snippet-inspector")).to_contain_text("node --version")
    await page.get_by_text("Python (official MCP SDK)", exact=True).click()
    await expect(page.locator("#snippet-python-sdk")).to_contain_text('pip install "mcp')
    await expect(page.locator("#snippet-python-sdk")).to_contain_text("refused:")
    await looked_at(page, "home-snippets")


async def test_the_rule_builder_speaks_after_input_names_a_duplicate_and_shows_a_default(
    club, page
):
    await sign_in(page, club.live.base, "ana", club.tokens.passwords["ana"])
    await page.goto(f"{club.live.base}/console/rules/new?agent=member&tool=inbox")
    await expect(page.locator("#rule-editor")).to_be_visible()
    await expect(page.locator(".field-error")).to_have_count(0)  # nothing typed, nothing wrong
    field = page.get_by_label("Field of condition 1")
    await expect(field.locator("option", has_text="limit")).to_contain_text("(default 20)")
    await field.select_option("args.limit")
    await expect(page.locator("#row_0-default")).to_contain_text(
        "a call that leaves it out is checked with its default, 20", use_inner_text=True
    )
    await expect(page.locator(".field-error")).to_have_count(0)
    await page.get_by_label("Operator of condition 1").select_option("is at most")
    await page.get_by_label("Value of condition 1").fill("5")
    await page.get_by_label("Name").fill("Short inboxes")
    # the editor has read the condition (its live "Reads as" says it) before it is added, as a member
    # sees it: a click while the form is being redrawn lands on the form it replaces
    await expect(page.locator("#reads-as")).to_contain_text("limit is at most 5")
    await page.get_by_role("button", name="Add to draft", exact=True).click()
    await expect(page.get_by_role("status")).to_contain_text("is in the draft", use_inner_text=True)
    await page.goto(f"{club.live.base}/console/rules/new?agent=member&tool=inbox")
    await page.get_by_label("Field of condition 1").select_option("args.limit")
    await page.get_by_label("Operator of condition 1").select_option("is at most")
    await page.get_by_label("Value of condition 1").fill("5")
    await page.get_by_label("Name").fill("Short inboxes again")
    await expect(page.locator("#reads-as")).to_contain_text("limit is at most 5")
    await page.get_by_role("button", name="Add to draft", exact=True).click()
    await expect(page.locator("#rows-error")).to_contain_text(
        "The same rule as “Short inboxes”, in the draft already", use_inner_text=True
    )
    await expect(page.locator("#rows-error")).not_to_contain_text("store:")  # no internal id
    await looked_at(page, "rule-editor-duplicate")


async def test_what_a_member_types_while_the_rule_editor_redraws_is_kept(club, page):
    """Choosing an operator redraws the form from the server; a value typed before that form arrives
    stays typed, is read, and the box typed in keeps the focus (the browser holds the server's real
    answer back until the typing is done)."""
    held, release = asyncio.Event(), asyncio.Event()

    async def hold_redraws(route: Route) -> None:
        if route.request.method != "POST" or "x-parley-fragment" not in route.request.headers:
            await route.continue_()
            return
        answer = await route.fetch()
        held.set()
        await release.wait()
        await route.fulfill(response=answer)

    await sign_in(page, club.live.base, "ana", club.tokens.passwords["ana"])
    await page.goto(f"{club.live.base}/console/rules/new?agent=member&tool=inbox")
    await page.get_by_label("Field of condition 1").select_option("args.limit")
    await expect(page.locator("#row_0-default")).to_be_visible()
    await page.route("**/console/rules/**", hold_redraws)
    await page.get_by_label("Operator of condition 1").select_option("is at most")
    await asyncio.wait_for(held.wait(), 20)  # the redraw is on its way, and held
    await page.get_by_label("Value of condition 1").fill("5")
    await page.get_by_label("Name").fill("Short inboxes")
    release.set()
    await expect(page.locator("#rule-editor")).not_to_have_attribute("aria-busy", "true")
    await expect(page.get_by_label("Value of condition 1")).to_have_value("5")
    await expect(page.get_by_label("Name")).to_have_value("Short inboxes")
    # the box typed in is still the one in use
    await expect(page.get_by_label("Name")).to_be_focused()
    await expect(page.locator("#reads-as")).to_contain_text("limit is at most 5")
    await expect(page.get_by_label("Operator of condition 1")).to_have_value("is at most")

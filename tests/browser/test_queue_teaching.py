"""A member teaches in a real browser: "This note answers it" on the Queue answers the asker, the Notes
page then lists the question under that note ("answers questions like …"), and Remove takes it away.
Every page checked by axe-core."""

from __future__ import annotations

from playwright.async_api import expect

from tests.browser.conftest import looked_at, sign_in
from tests.conftest import connect

FILM = "Which film project did Ana like most?"  # her design note is close; none answers it


async def test_this_note_answers_it_then_the_notes_page_lists_the_example_and_removes_it(
    club, page
):
    async with connect(club.url, club.tokens.member.token) as bruno:
        asked = (
            await bruno.call_tool("ask", {"member": "ana", "question": FILM})
        ).structured_content
        assert asked["escalation_id"] is not None
        await sign_in(page, club.live.base, "ana", club.tokens.passwords["ana"])
        await page.goto(f"{club.live.base}/console/queue")
        await looked_at(page, "queue-teach")
        question = page.get_by_role("region", name="Question 1")
        notes = question.get_by_role("group", name="Your notes on question 1")
        await expect(notes).to_contain_text("a single decision maker")
        await notes.get_by_role(
            "button", name="This note answers it: your note on design, for question 1"
        ).click()
        await page.wait_for_url(f"{club.live.base}/console/queue")
        await expect(page.get_by_role("status")).to_contain_text(
            "Your note is in the asker's inbox", use_inner_text=True
        )
        await expect(page.locator("main")).to_contain_text("Nothing waits for you.")
        threads = (await bruno.call_tool("inbox", {})).structured_content["threads"]
        thread = next(t for t in threads if t["thread_id"] == asked["thread_id"])
        assert "a single decision maker" in thread["messages"][-1]["body"]
        assert thread["messages"][-1]["kind"] == "decision"
    await page.get_by_role("link", name="Notes").first.click()
    examples = page.get_by_role("group", name="Questions you confirmed note on design answers")
    await expect(examples).to_contain_text(FILM, use_inner_text=True)
    await looked_at(page, "notes-examples")
    await examples.get_by_role("button", name="Remove").click()
    await page.wait_for_url(f"{club.live.base}/console/notes")
    await expect(page.get_by_role("status")).to_contain_text(
        "Removed the example", use_inner_text=True
    )
    await expect(page.locator("main")).not_to_contain_text(FILM)
    await looked_at(page, "notes-examples-removed")

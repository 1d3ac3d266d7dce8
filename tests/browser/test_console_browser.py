"""A principal walks the console in a real browser: sign in, decide, narrow the mandate, revoke a token."""

from __future__ import annotations

import os

import httpx2

from tests.browser.conftest import sign_in
from tests.conftest import connect, tool_names

SHOTS = os.environ.get("PARLEY_SCREENSHOTS")  # a folder to keep screenshots in, for a person to look at


async def test_sign_in_and_answer_an_escalation(club, page):
    async with connect(club.url, club.tokens.member.token) as bruno:
        asked = await bruno.call_tool("ask", {"member": "ana", "question": "Does Ana speak at conferences?"})
        escalation = asked.structured_content["escalation_id"]
        await sign_in(page, club.live.base, "ana", club.tokens.passwords["ana"])
        await page.get_by_role("link", name="Queue (1)").click()
        section = page.get_by_role("region", name=f"Question {escalation}")
        assert "Does Ana speak at conferences?" in await section.inner_text()
        await page.get_by_label(f"Your answer to question {escalation}").fill("Twice a year, mostly in Lisbon.")
        if SHOTS:
            await page.screenshot(path=os.path.join(SHOTS, "queue.png"), full_page=True)
        await page.get_by_role("button", name=f"Answer question {escalation}", exact=True).click()
        await page.wait_for_url(f"{club.live.base}/console/queue")
        assert "delivered to the asker's inbox" in await page.get_by_role("status").inner_text()
        assert "Nothing waits for you." in await page.content()
        threads = (await bruno.call_tool("inbox", {})).structured_content["threads"]
        assert threads[0]["messages"][-1]["body"] == "Twice a year, mostly in Lisbon."


async def test_narrow_the_mandate_and_the_agent_loses_a_tool_on_its_next_request(club, page):
    async with connect(club.url, club.tokens.member.token) as agent:
        assert "search_directory" in await tool_names(agent)
        await sign_in(page, club.live.base, "bruno", club.tokens.passwords["bruno"])
        await page.get_by_role("link", name="Mandate").click()
        await page.get_by_role("checkbox", name="directory:read").uncheck()
        await page.get_by_role("button", name="Sign mandate").click()
        await page.wait_for_url(f"{club.live.base}/console/mandate")
        assert "directory:read" not in await page.locator("#mandate-scopes").inner_text()
        if SHOTS:
            await page.screenshot(path=os.path.join(SHOTS, "mandate.png"), full_page=True)
        names = await tool_names(agent)  # the same open session, its very next request
        assert "search_directory" not in names and "view_member" not in names and "my_profile" in names


async def test_mint_then_revoke_a_token(club, page):
    await sign_in(page, club.live.base, "bruno", club.tokens.passwords["bruno"])
    await page.get_by_role("link", name="Agents and tokens").click()
    await page.get_by_role("button", name="Mint token").click()
    token = (await page.locator("#minted-token").inner_text()).strip()
    async with connect(club.url, token) as agent:
        assert "my_profile" in await tool_names(agent)
    public_id = (await page.get_by_role("region", name="New token").inner_text()).split("Token id ")[1].split(";")[0]
    await page.get_by_role("button", name=f"Revoke {public_id}").click()
    await page.wait_for_url(f"{club.live.base}/console/agents")
    assert f"Token {public_id} revoked" in await page.get_by_role("status").inner_text()
    if SHOTS:
        await page.screenshot(path=os.path.join(SHOTS, "agents.png"), full_page=True)
    async with httpx2.AsyncClient() as http:
        response = await http.post(club.url, headers={"Authorization": f"Bearer {token}",
                                                      "Accept": "application/json, text/event-stream"},
                                   json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert response.status_code == 401 and "revoked" in response.json()["error_description"]

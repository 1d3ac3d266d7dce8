"""The paths of issue #27 walked in real Chromium, as a new member and as a steward would: connect an agent
(copy a snippet, and a client using exactly that snippet reaches the member lane), mint with an error and find
the choices kept, revoke after a confirmation; admit, decline with a reason, the applicant's view and their
way on; the members list; settings back to the club's defaults. And every focus ring at >= 3:1."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import httpx2
from playwright.async_api import expect

from server.identity import principals
from server.store import records
from server.store.database import now
from tests.browser.conftest import looked_at, sign_in
from tests.conftest import connect, tool_names

MEMBER_ONLY = "search_directory"


async def test_a_new_member_connects_an_agent_then_mints_with_an_error_and_revokes_with_confirmation(
    club, page, tmp_path
):
    await page.context.grant_permissions(
        ["clipboard-read", "clipboard-write"], origin=club.live.base
    )
    await sign_in(page, club.live.base, "bruno", club.tokens.passwords["bruno"])
    connect_card = page.get_by_role("region", name="Connect your agent")
    assert club.url in await connect_card.inner_text()  # the address as this server is reached
    await page.get_by_role("link", name="Mint a token").click()
    await page.wait_for_url(f"{club.live.base}/console/agents#mint-h")
    # a mistake: every box unticked; the label and the lifetime typed must survive it
    await page.get_by_label("Label").fill("Desk agent")
    await page.get_by_label("Expires").select_option("365")
    boxes = page.locator("input[name=scope]")
    for index in range(await boxes.count()):
        await boxes.nth(index).uncheck()
    await page.get_by_role("button", name="Mint token").click()
    error = page.locator("#scope-error")
    assert "Tick at least one thing the token may do" in await error.inner_text()
    assert await page.locator("fieldset[aria-describedby=scope-error]").count() == 1
    assert await boxes.first.evaluate(
        "node => node === document.activeElement"
    )  # the first error has the focus
    assert await page.get_by_label("Label").input_value() == "Desk agent"
    assert await page.get_by_label("Expires").input_value() == "365"
    assert [await boxes.nth(i).is_checked() for i in range(await boxes.count())] == [
        False
    ] * await boxes.count()
    await looked_at(page, "agents-mint-error")
    for scope in ("club:read", "directory:read", "inbox:read"):
        await page.locator(f"input[name=scope][value='{scope}']").check()
    await page.get_by_role("button", name="Mint token").click()
    await page.wait_for_url(f"{club.live.base}/console/agents")
    token = (await page.locator("#minted-token").inner_text()).strip()
    await looked_at(page, "agents-minted-connect")
    await page.get_by_text("Python (official MCP SDK)", exact=True).click()
    await page.get_by_role("button", name="Copy for Python (official MCP SDK)").click()
    await page.get_by_role("button", name="Copied").wait_for()
    copied = await page.evaluate("navigator.clipboard.readText()")
    assert token in copied and club.url in copied
    program = tmp_path / "my_agent.py"  # exactly what the member pasted
    program.write_text(copied)
    result = subprocess.run(
        [sys.executable, str(program)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert MEMBER_ONLY in ast.literal_eval(result.stdout.strip())  # the member lane
    await page.reload()
    assert token not in await page.content()  # shown once, never again
    # revoke: first the question, then Cancel changes nothing, then the revoke itself
    await page.get_by_role("button", name="Revoke Desk agent").click()
    await expect(page.locator("h1")).to_contain_text("Revoke “Desk agent”?", use_inner_text=True)
    await expect(page.locator("main")).to_contain_text(
        "refused from its next request", use_inner_text=True
    )
    await looked_at(page, "revoke-confirm")
    await page.get_by_role("link", name="Cancel, keep things as they are").click()
    async with connect(club.url, token) as agent:
        assert MEMBER_ONLY in await tool_names(agent)
    await page.get_by_role("button", name="Revoke Desk agent").click()
    await page.get_by_role("button", name="Revoke “Desk agent”").click()
    await page.wait_for_url(f"{club.live.base}/console/agents")
    await expect(page.get_by_role("status")).to_contain_text(
        "Token “Desk agent” revoked", use_inner_text=True
    )


async def test_a_steward_admits_declines_and_the_declined_applicant_sees_why_and_applies_again(
    club, page
):
    db = club.db()
    dora = principals.add_principal(db, "dora", "Dora Lima")
    principals.set_password(db, "dora", "dora-has-a-long-password")
    records.add_application(db, dora.id, "I run a reading group.", now())
    await sign_in(page, club.live.base, "ana", club.tokens.passwords["ana"])
    club_card = await page.get_by_role("region", name="The club").inner_text()
    assert "2 waiting for a decision" in club_card and "Suspended" in club_card
    await looked_at(page, "home-steward")
    await page.get_by_role("link", name="2 waiting for a decision").click()
    await page.get_by_role("button", name="Admit dora").click()
    await page.wait_for_url(f"{club.live.base}/console/applicants")
    await expect(page.get_by_role("status")).to_contain_text(
        "Dora Lima (@dora) is now a member", use_inner_text=True
    )
    await page.get_by_text("Decline carla…").click()
    await page.get_by_label("Reason for declining carla").fill(
        "Come back with a project you shipped."
    )
    await page.get_by_role("button", name="Decline carla").click()
    await expect(page.locator("h1")).to_contain_text("Decline Carla Mendes (@carla)?")
    text = await page.locator("main").inner_text()
    assert (
        "Decline Carla Mendes (@carla)?" in text and "Come back with a project you shipped." in text
    )
    await looked_at(page, "decline-confirm")
    await page.get_by_role("button", name="Decline carla").click()
    await page.wait_for_url(f"{club.live.base}/console/applicants")
    await looked_at(page, "applicants-after")
    # the applicant's view: why, and how to apply again
    other = await page.context.browser.new_context() if page.context.browser else None
    carla = await other.new_page() if other else page
    await sign_in(carla, club.live.base, "carla", club.tokens.passwords["carla"])
    view = await carla.get_by_role("region", name="Your application").inner_text()
    assert "Come back with a project you shipped." in view and "You can apply again" in view
    await looked_at(carla, "home-declined-applicant")
    await carla.get_by_label("What changed since you applied").fill(
        "I shipped the club's calendar app."
    )
    await carla.get_by_role("button", name="Apply again").click()
    await carla.wait_for_url(f"{club.live.base}/console")
    assert (
        "Your new application is with the stewards"
        in await carla.get_by_role("status").inner_text()
    )
    assert (
        "is waiting for a steward"
        in await carla.get_by_role("region", name="Your application").inner_text()
    )
    await page.reload()
    await expect(page.get_by_role("region", name="Applicant carla")).to_contain_text(
        "Carla Mendes", use_inner_text=True
    )
    # the members list: search, suspend after a confirmation, reinstate
    await page.get_by_role("link", name="Members").click()
    await page.get_by_label("Name or handle").fill("bru")
    await page.get_by_role("button", name="Search").click()
    await page.wait_for_url(re.compile(r"/console/members\?.*bru"))
    listed = await page.locator("main table").inner_text()
    assert "Bruno" in listed and "Dora" not in listed
    await looked_at(page, "members-search")
    await page.get_by_role("button", name="Suspend bruno").click()
    await expect(page.locator("main")).to_contain_text(
        "signed out of the console at once", use_inner_text=True
    )
    await looked_at(page, "suspend-confirm")
    await page.get_by_role("button", name="Suspend Bruno").click()
    await page.wait_for_url(f"{club.live.base}/console/members")
    async with httpx2.AsyncClient() as http:  # his agent is refused from its next request
        refused = await http.post(
            club.url,
            headers={
                "Authorization": f"Bearer {club.tokens.member.token}",
                "Accept": "application/json, text/event-stream",
            },
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        )
    assert refused.status_code in (401, 403), refused.text
    await page.get_by_role("button", name="Reinstate bruno").click()
    await expect(page.get_by_role("status")).to_contain_text("back as member", use_inner_text=True)
    async with connect(club.url, club.tokens.member.token) as agent:
        assert MEMBER_ONLY in await tool_names(agent)
    if other:
        await other.close()


async def test_settings_go_back_to_the_clubs_defaults_after_a_confirmation(club, page):
    await sign_in(page, club.live.base, "bruno", club.tokens.passwords["bruno"])
    await page.get_by_role("link", name="Settings", exact=True).click()
    await page.get_by_label("The language you write to your agents in").first.select_option("pt-BR")
    await page.get_by_role("button", name="Save my settings").click()
    await page.wait_for_url(f"{club.live.base}/console/settings")
    await page.get_by_role("button", name="Go back to the club's defaults…").click()
    await expect(page.locator("main")).to_contain_text(
        "expect you to write in English", use_inner_text=True
    )
    await looked_at(page, "settings-reset-confirm")
    await page.get_by_role("button", name="Use the club's defaults").click()
    await page.wait_for_url(f"{club.live.base}/console/settings")
    await expect(page.get_by_role("status")).to_contain_text(
        "You follow the club's defaults again", use_inner_text=True
    )
    assert (
        await page.get_by_label("The language you write to your agents in").first.input_value()
        == "en"
    )
    await looked_at(page, "settings-defaults")


def _luminance(rgb: tuple[float, float, float]) -> float:
    def channel(value: float) -> float:
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def seen(colour: list[float], back: list[float]) -> tuple[float, float, float]:
    """A colour as it shows over its background: a translucent ring is blended first (the 1.47:1 ring was one)."""
    alpha = colour[3] if len(colour) == 4 else 1.0
    r, g, b = (alpha * c + (1 - alpha) * k for c, k in zip(colour[:3], back[:3], strict=True))
    return r, g, b


def contrast(one: tuple[float, float, float], two: tuple[float, float, float]) -> float:
    light, dark = sorted((_luminance(one), _luminance(two)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


RING = """() => {
  const node = document.activeElement;
  const style = getComputedStyle(node);
  const rgb = text => (text.match(/[\\d.]+/g) || []).slice(0, 4).map(Number);
  let behind = node.parentElement, back = [255, 255, 255, 1];
  while (behind) {
    const colour = rgb(getComputedStyle(behind).backgroundColor);
    if (colour.length === 4 ? colour[3] > 0 : colour.length === 3) { back = colour; break; }
    behind = behind.parentElement;
  }
  const label = (node.name || node.textContent || "").trim().slice(0, 30);
  return {what: node.tagName + (node.type ? "[" + node.type + "]" : "") + " " + label,
          style: style.outlineStyle, width: parseFloat(style.outlineWidth), ring: rgb(style.outlineColor),
          back: back, body: node === document.body};
}"""


async def test_every_focus_ring_has_at_least_3_to_1_contrast(club, page):
    """Tab through every control of the member's and the steward's pages, as a keyboard user does; each
    focused control draws a visible outline whose colour has >= 3:1 contrast with what is behind it."""
    async with connect(
        club.url, club.tokens.member.token
    ) as bruno:  # a question waits: the queue has its forms
        await bruno.call_tool(
            "ask", {"member": "ana", "question": "Does Ana speak at conferences?"}
        )
    await sign_in(page, club.live.base, "ana", club.tokens.passwords["ana"])
    checked = set()
    for path in (
        "/console",
        "/console/agents",
        "/console/mandate",
        "/console/settings",
        "/console/queue",
        "/console/applicants",
        "/console/members",
    ):
        await page.goto(f"{club.live.base}{path}")
        for _ in range(150):
            await page.keyboard.press("Tab")
            ring = await page.evaluate(RING)
            if ring["body"]:
                break
            key = (path, ring["what"])
            if key in checked:
                continue
            checked.add(key)
            assert ring["style"] != "none" and ring["width"] >= 2, f"{path}: {ring}"
            ratio = contrast(seen(ring["ring"], ring["back"]), tuple(ring["back"][:3]))
            assert ratio >= 3, (
                f"{path}: focus ring of {ring['what']} has {ratio:.2f}:1 contrast ({ring})"
            )
    kinds = {what.split(" ")[0] for _, what in checked}
    assert {
        "A",
        "BUTTON[submit]",
        "BUTTON[button]",
        "INPUT[checkbox]",
        "INPUT[radio]",
        "INPUT[text]",
        "INPUT[password]",
        "SELECT[select-one]",
        "TEXTAREA[textarea]",
    } <= kinds, kinds

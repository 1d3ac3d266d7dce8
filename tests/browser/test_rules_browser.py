"""A steward at the Rules page in real Chromium, as the specification draws it: every operator of every
type read back as a sentence, an is-one-of list typed, split by commas and pasted, a comparison with a
trusted attribute, a CEL edit refused at the field, back to the builder, draft, publish, the next call
refused with "Rule not met: …", and the inspector's path of that decision with no value of the call in
the page. Once with JavaScript, once without; axe on every page."""

from __future__ import annotations

import os
import re
import shutil
import tempfile

import pytest
from playwright.async_api import async_playwright, expect

from tests.browser.conftest import CHROMIUM, FLAGS, SHOTS, looked_at, sign_in
from tests.chokepoint.test_e2e_rules import desk  # noqa: F401 - the refund desk with its HR and orders APIs
from tests.conftest import connect

OPERATORS = {
    "text": ["is", "is not", "is one of", "starts with"],
    "number": ["is at most", "is less than", "is at least", "is more than", "is"],
    "boolean": ["is true", "is false"],
}
FIELDS = {
    "order_id": ("args.order_id", "text"),
    "amount": ("args.amount", "number"),
    "expedite": ("args.expedite", "boolean"),
}
# a call's values the pages must never show (the rule's own values may: they are the steward's)
AMOUNT, REASON = 150.75, "zx-reason-3197"


@pytest.fixture
async def page_without_js():
    """Chromium with JavaScript switched off: every page must work as plain forms."""
    profile = tempfile.mkdtemp(prefix="parley-chromium-")
    async with async_playwright() as playwright:
        context = await playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=FLAGS, java_script_enabled=False
        )
        try:
            yield context.pages[0] if context.pages else await context.new_page()
        finally:
            await context.close()
    shutil.rmtree(profile, ignore_errors=True)


async def settled(page) -> None:
    """The editor has swapped in the server's form (the script marks it busy meanwhile)."""
    await expect(page.locator("#rule-editor")).not_to_have_attribute("aria-busy", "true")


async def condition(
    page, n: int, field: str, op: str, value: str | None = None, live: bool = True
) -> None:
    """Set row n to field · operator · value, checking the operators offered are exactly its type's."""
    path, kind = FIELDS[field]
    chooser = page.get_by_label(f"Field of condition {n}")
    if await chooser.input_value() != path:
        await chooser.select_option(path)
        if live:
            await settled(page)
        else:
            await page.get_by_role("button", name="Update “Reads as”").click()
    operator = page.get_by_label(f"Operator of condition {n}")
    await expect(operator.locator("option")).to_have_text(OPERATORS[kind])
    if await operator.input_value() != op:
        await operator.select_option(op)
        if live:
            await settled(page)
        else:
            await page.get_by_role("button", name="Update “Reads as”").click()
    if value is not None:
        await page.get_by_label(f"Value of condition {n}").fill(value)


async def refund(url: str, token: str):
    async with connect(url, token) as agent:
        return await agent.call_tool(
            "refund_order", {"order_id": "4411", "amount": AMOUNT, "reason": REASON}
        )


async def investigate(page, base: str, rule: str, sentence: str, axe: bool = True) -> None:
    """Activity, club-wide, filtered to refusals by this rule; the inspector shows the path, no value."""
    await page.get_by_role("link", name="Activity", exact=True).click()
    await page.get_by_label("Whose calls").select_option("club")
    await page.get_by_label("Outcome").select_option("rule_denied")
    await page.get_by_role("button", name="Show").click()
    await page.wait_for_url(re.compile(r"outcome=rule_denied"))
    await expect(page.locator("table")).to_contain_text(
        f"Rule not met: {sentence}", use_inner_text=True
    )
    if axe:
        await looked_at(page, "activity-filtered")
    await page.get_by_role("link", name=re.compile("^Inspect")).first.click()
    await page.wait_for_url(re.compile(r"/console/activity/\d+$"))
    result = await page.get_by_role("region", name=re.compile("^Result")).inner_text()
    assert f"Rule not met: {sentence}" in result and f"(rule “{rule}”)" in result
    path = await page.get_by_role("region", name="The path of the decision").inner_text()
    for step in (
        f"{rule}: not met",
        "Refund up to the employee's limit: passed",
        "hr: reached",
        "orders: reached",
        "desk · parley · refund_order",
        "refunds:write",
        "signed and verified",
    ):
        assert step in path, step
    html = await page.content()
    for value in (str(AMOUNT), REASON, "analysts", 'refund_limit":'):
        assert value not in html, value
    if axe:
        await looked_at(page, "inspector")


async def test_a_steward_builds_publishes_and_investigates_a_rule_with_javascript(desk, page):  # noqa: F811
    base = desk.live.base
    await sign_in(page, base, "ana", desk.tokens.passwords["ana"])
    await page.get_by_role("link", name="Rules", exact=True).click()
    await looked_at(page, "rules")
    await page.get_by_role("link", name=re.compile(r"^refund_order")).click()
    await expect(page.locator("#panel")).to_contain_text("From the manifest", use_inner_text=True)
    await looked_at(page, "rules-panel")
    await page.get_by_role("link", name="Add rule to desk · parley · refund_order").click()
    await looked_at(page, "rule-editor")
    reads = page.locator("#reads-as")
    for field, kind in (("order_id", "text"), ("amount", "number"), ("expedite", "boolean")):
        for op in OPERATORS[kind]:
            value = {"text": "A-1", "number": "500"}.get(kind) if op != "is one of" else None
            await condition(page, 1, field, op, value)
            if op == "is one of":
                await page.get_by_label("Values", exact=True).fill("A-1")
                await page.get_by_label("Values", exact=True).press("Enter")
            shown = "[A-1]" if op == "is one of" else (value or "")
            await expect(reads).to_have_text(f"{field} {op} {shown}".strip())
    await condition(page, 1, "amount", "is at most", "100")
    await page.get_by_role("button", name="Add a condition").click()
    await settled(page)
    await condition(page, 2, "order_id", "is one of")
    values = page.get_by_label("Values", exact=True)
    await values.fill("4411")
    await values.press("Enter")  # Enter adds
    await values.type("5511,")  # so does a comma
    await values.evaluate(
        "(input, text) => { const data = new DataTransfer(); data.setData('text', text);"
        " input.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true})); }",
        "9001, 7007",
    )  # pasting a list adds each value
    await page.get_by_role("button", name="Remove 7007").click()
    await expect(reads).to_have_text(
        "amount is at most 100 AND order_id is one of [4411, 5511, 9001]"
    )
    await page.get_by_role("button", name="Add a condition").click()
    await settled(page)
    await condition(page, 3, "expedite", "is false")
    await page.get_by_role("button", name="Add a condition").click()
    await settled(page)
    await condition(page, 4, "amount", "is at most")
    await page.get_by_role("button", name="Compare with a trusted attribute").last.click()
    await settled(page)
    attribute = page.get_by_label("Trusted attribute condition 4 compares with")
    await expect(attribute.locator("option")).to_have_text(
        ["the caller's refund limit · number — hr"]
    )
    await expect(reads).to_have_text(
        "amount is at most 100 AND order_id is one of [4411, 5511, 9001] AND expedite "
        "is false AND amount is at most subject.refund_limit"
    )
    await looked_at(page, "rule-editor-compare")
    await page.get_by_role("button", name="Use a value").click()
    await settled(page)
    await expect(page.get_by_label("Value of condition 4")).to_be_visible()
    await page.get_by_role("button", name="Remove condition 4").click()
    await settled(page)
    sentence = (
        "amount is at most 100 AND order_id is one of [4411, 5511, 9001] AND expedite is false"
    )
    await expect(reads).to_have_text(sentence)
    await page.get_by_role(
        "button", name="Add to draft"
    ).click()  # no name yet: refused at the field
    await expect(page.locator("#name-error")).to_have_text(re.compile("Give the rule a name"))
    await expect(page.get_by_label("Name")).to_be_focused()
    await page.get_by_label("Name").fill("Refund up to 100")
    await page.get_by_role("button", name="Edit as CEL (advanced)").click()
    await settled(page)
    cel = page.get_by_label("CEL expression")
    assert "args.amount <= 100" in await cel.input_value()
    await cel.fill("args.amount + 1")
    await expect(page.locator("#cel-error")).to_contain_text(
        "must return a boolean, not int"
    )  # live
    await page.get_by_role("button", name="Add to draft").click()
    await expect(page.locator("#cel-error")).to_contain_text("must return a boolean, not int")
    await expect(cel).to_have_attribute("aria-invalid", "true")
    await page.get_by_label("CEL expression").fill("args.amount < 5 &&\n  subject.salary > 1")
    await page.get_by_role("button", name="Add to draft").click()
    await expect(page.locator("#cel-error")).to_contain_text(
        "Reads unknown attribute 'subject.salary'"
    )
    await expect(page.locator("pre.caret")).to_contain_text(
        "subject.salary > 1\n  ^ here", use_inner_text=True
    )
    await looked_at(page, "rule-editor-cel-error")
    await page.get_by_role("button", name="Discard CEL edits and use the builder").click()
    await expect(page.get_by_label("Field of condition 3")).to_be_visible()
    await expect(page.locator("#reads-as")).to_have_text(sentence)
    await page.get_by_role("button", name="Add to draft").click()
    await page.wait_for_url(re.compile(r"/console/rules\?tool=refund_order"))
    await expect(page.get_by_role("status")).to_contain_text(
        "“Refund up to 100” is in the draft", use_inner_text=True
    )
    card = page.locator(".rule-card", has_text="Refund up to 100")
    assert "New in draft" in await card.inner_text() and sentence in await card.inner_text()
    assert not (
        await refund(desk.url, desk.tokens.member.token)
    ).is_error  # a draft holds nothing back
    await looked_at(page, "rules-draft")
    await page.get_by_role("link", name="Review and publish").click()
    await expect(page.locator("main")).to_contain_text("Adds 1 rule; 3 will hold")
    summary = await page.locator("main").inner_text()
    assert "desk · parley · refund_order" in summary and "Adds 1 rule; 3 will hold" in summary
    await looked_at(page, "rules-publish")
    await page.get_by_role("button", name="Publish 1 rule").click()
    await page.wait_for_url(f"{base}/console/rules")
    refused = await refund(desk.url, desk.tokens.member.token)
    assert (
        refused.is_error
        and refused.content[0].text
        == f'Rule not met: {sentence} (rule "Refund up to 100"). The call was not made.'
    )
    await investigate(page, base, "Refund up to 100", sentence)


async def test_the_same_flow_without_javascript(desk, page_without_js):  # noqa: F811
    page = page_without_js
    page.set_default_timeout(8000)
    base = desk.live.base
    await sign_in(page, base, "ana", desk.tokens.passwords["ana"])
    await page.get_by_role("link", name="Rules", exact=True).click()
    await page.get_by_label("Tool", exact=True).select_option("refund_order")
    await page.get_by_role("button", name="Show its rules").click()
    await page.get_by_role("link", name="Add rule to desk · parley · refund_order").click()
    await page.get_by_label("Name").fill("Small and known orders")
    await condition(page, 1, "amount", "is less than", "120", live=False)
    await page.get_by_role("button", name="Update “Reads as”").click()
    await expect(page.locator("#reads-as")).to_have_text("amount is less than 120")
    await page.get_by_role("button", name="Add a condition").click()
    await condition(page, 2, "order_id", "is one of", live=False)
    await page.get_by_label("Values", exact=True).fill("4411, 5511, 7007")
    await page.get_by_label("Values", exact=True).press(
        "Enter"
    )  # the form's first button: Reads as, from the server
    await page.get_by_role("button", name="Remove 7007").click()
    await expect(page.locator("#reads-as")).to_have_text(
        "amount is less than 120 AND order_id is one of [4411, 5511]"
    )
    await page.get_by_role("button", name="Add a condition").click()
    await condition(page, 3, "amount", "is at most", live=False)
    await page.get_by_role("button", name="Compare with a trusted attribute").last.click()
    await page.get_by_role("button", name="Update “Reads as”").click()
    await expect(page.locator("#reads-as")).to_have_text(
        "amount is less than 120 AND order_id is one of [4411, 5511] "
        "AND amount is at most subject.refund_limit"
    )
    if SHOTS:  # axe needs scripts to run: it checks these pages in the test with JavaScript
        await page.screenshot(path=os.path.join(SHOTS, "rule-editor-nojs.png"), full_page=True)
    await page.get_by_role("button", name="Edit as CEL (advanced)").click()
    await page.get_by_label("CEL expression").fill('args.order_id + "x"')
    await page.get_by_role("button", name="Add to draft").click()
    await expect(page.locator("#cel-error")).to_contain_text("must return a boolean, not str")
    await page.get_by_role("button", name="Discard CEL edits and use the builder").click()
    await page.get_by_role("button", name="Add to draft").click()
    await page.wait_for_url(re.compile(r"/console/rules\?tool=refund_order"))
    await page.get_by_role("link", name="Review and publish").click()
    await page.get_by_role("button", name="Publish 1 rule").click()
    await page.wait_for_url(f"{base}/console/rules")
    sentence = "amount is less than 120 AND order_id is one of [4411, 5511] AND amount is at most subject.refund_limit"
    refused = await refund(desk.url, desk.tokens.member.token)
    assert refused.is_error and refused.content[0].text.startswith(f"Rule not met: {sentence}")
    await investigate(page, base, "Small and known orders", sentence, axe=False)


async def test_a_member_who_is_not_a_steward_gets_403_and_no_link(desk, page):  # noqa: F811
    await sign_in(page, desk.live.base, "bruno", desk.tokens.passwords["bruno"])
    assert await page.get_by_role("link", name="Rules", exact=True).count() == 0
    response = await page.goto(f"{desk.live.base}/console/rules")
    assert response is not None and response.status == 403
    await expect(page.locator("main")).to_contain_text(
        "Only the club's stewards", use_inner_text=True
    )
    await looked_at(page, "rules-forbidden")

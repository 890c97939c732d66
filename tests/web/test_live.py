"""Live pages in chromium against a real ``arena serve``: the standings and the queue change by
themselves as a bot joins and its matches are stored, with no reload; nothing is fetched again
while nothing changes, and a hidden tab does not poll until it is shown again."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from playwright.sync_api import Browser, Page, Request, Route, expect

from arena.web.accounts import Accounts
from arena.web.client import upload
from arena.web.competition import load_competition
from tests.registry.helpers import bot_folder
from tests.web.competitions import write_competition
from tests.web.servers import Serve

WAIT_MS = 120_000  # generous: a bot's build and gate, then its matches, on a loaded machine
HIDE = """hidden => {
    Object.defineProperty(document, "hidden", {configurable: true, get: () => hidden});
    document.dispatchEvent(new Event("visibilitychange"));
}"""


def _calls(page: Page, url: str) -> list[Request]:
    """Every request ``page`` makes for ``url`` from now on (kept up to date)."""
    seen: list[Request] = []
    page.on("request", lambda r: seen.append(r) if r.url == url else None)
    return seen


def _next_poll(page: Page, url: str) -> None:
    with page.expect_request(url + "/api/changes", timeout=WAIT_MS):
        pass


def _settled(page: Page, url: str, fetched: list[Request]) -> None:
    """Wait until the page shows what the server has: a whole poll interval with no fetch of
    itself. (The runner's last changes, its rerating and its ``idle``, may reach the server
    after the page's last poll on a loaded machine; polls run one after another, so by a poll
    the last one's fetch is done.)"""
    for _ in range(10):
        before = len(fetched)
        _next_poll(page, url)
        _next_poll(page, url)
        if len(fetched) == before:
            return
    raise AssertionError("the page kept fetching itself although nothing changed")


def test_standings_and_queue_update_while_open_and_rest_while_unchanged_or_hidden(
    tmp_path: Path, served: Serve, page: Page
) -> None:
    path = write_competition(tmp_path / "comp", house=2)  # 3 seats: waits for a third bot
    accounts = Accounts(load_competition(path).server.accounts)
    token = accounts.add_author("alice")
    accounts.close()
    _, url = served(path)

    page.goto(url + "/")
    expect(page.locator("#stored")).to_have_text("0")
    expect(page.locator("main")).to_contain_text("No bot plays yet")
    queue = page.context.new_page()
    queue.goto(url + "/queue")
    expect(queue.locator("#runner")).to_have_text("ladder: waiting for bots", timeout=WAIT_MS)
    page.evaluate("window.neverReloaded = true")
    queue.evaluate("window.neverReloaded = true")
    refetched = _calls(page, url + "/")

    upload(url, token, bot_folder(tmp_path / "alice"))
    # The ladder of three bots plays one duplicate set: the page sees its matches arrive.
    expect(page.locator("#standings tbody tr")).to_have_count(3, timeout=WAIT_MS)
    expect(page.locator("#standings")).to_contain_text("alice@1")
    expect(queue.locator("#runner")).to_contain_text("ladder: idle", timeout=WAIT_MS)
    with urllib.request.urlopen(url + "/api/standings", timeout=30) as answer:
        total = json.loads(answer.read())["stored"]
    assert total > 0
    expect(page.locator("#stored")).to_have_text(str(total), timeout=WAIT_MS)
    expect(page.locator("#live")).to_contain_text("live · updated ")
    assert page.evaluate("window.neverReloaded") and queue.evaluate("window.neverReloaded")
    assert refetched, "the standings were never fetched again"

    # Nothing changes now: the standings page polls but fetches itself no more; the queue
    # page, hidden, does not even poll, and polls again once shown.
    queue.evaluate(HIDE, True)
    hidden_polls = _calls(queue, url + "/api/changes")
    _settled(page, url, refetched)  # and a poll of the queue's sent as it was hidden counted
    fetched, polled = len(refetched), len(hidden_polls)
    _next_poll(page, url)
    _next_poll(page, url)  # two whole intervals
    assert len(refetched) == fetched
    assert len(hidden_polls) == polled
    with queue.expect_request(url + "/api/changes", timeout=WAIT_MS):
        queue.evaluate(HIDE, False)
    assert page.evaluate("window.neverReloaded") and queue.evaluate("window.neverReloaded")
    queue.close()


def test_a_failed_poll_is_retried_quietly_and_the_page_recovers(
    tmp_path: Path, browser: Browser, served: Serve
) -> None:
    _, url = served(write_competition(tmp_path / "comp", house=2))
    context = browser.new_context()  # its refused request is the point: not the page fixture
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    refused: list[str] = []

    def refuse_once(route: Route) -> None:  # as a restarting server does
        if refused:
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort("connectionrefused")

    page.route(url + "/api/changes", refuse_once)
    page.goto(url + "/queue")
    page.evaluate("window.neverReloaded = true")
    offline = page.locator("#offline")
    expect(offline).to_be_visible(timeout=WAIT_MS)
    expect(offline).to_have_text(" · the server does not answer, trying again")
    expect(offline).to_be_hidden(timeout=WAIT_MS)  # the next poll, later, was answered
    assert refused and dialogs == []
    assert page.evaluate("window.neverReloaded")
    context.close()

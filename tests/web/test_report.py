"""The HTML ladder report of a real small ladder, opened in a real browser (chromium).

The ladder has a bot that resigns with HTML and script as its words: the report must show them
as text and never run them. The report must open from the file system with no request leaving it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, Route

from tests.ladder.helpers import ROOT, arena, write_ladder

HOSTILE = ROOT / "tests" / "bots" / "faulty" / "html_resign.py"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("report")
    path = write_ladder(folder, bots=3, seats=2, rounds=2)
    with path.open("a") as f:
        f.write(f'[[bots]]\nname = "hostile"\ncommand = "python {HOSTILE}"\n')
    assert arena("ladder", "run", str(path), "--quiet").returncode == 0
    out = arena("ladder", "report", str(path), "--out", str(folder / "site"))
    assert out.returncode == 0, out.stderr
    index = Path(out.stdout.strip().removeprefix("report: "))
    table = json.loads(arena("ladder", "show", str(path), "-f", "json").stdout)
    return {"index": index, "table": table, "folder": folder}


def _offline(page: Page) -> list[str]:
    """Fail any request that is not a local file: the report must need no network."""
    leaked: list[str] = []

    def guard(route: Route) -> None:
        url = route.request.url
        if url.startswith("file://"):
            route.continue_()
        else:
            leaked.append(url)
            route.abort()

    page.route("**/*", guard)
    return leaked


def test_standings_list_every_bot_in_table_order(report: dict, page: Page) -> None:
    leaked = _offline(page)
    page.goto(report["index"].as_uri())
    rows = page.locator("#standings tbody tr")
    shown = [rows.nth(i).get_attribute("data-bot") for i in range(rows.count())]
    assert shown == [r["bot"] for r in report["table"]["bots"]]
    assert leaked == []
    page.screenshot(path=str(report["folder"] / "index.png"), full_page=True)


def test_plots_carry_every_data_point(report: dict, page: Page) -> None:
    page.goto(report["index"].as_uri())
    for row in report["table"]["bots"]:
        series = page.locator(f"#rating-history g[id='history-{row['bot']}'] use")
        assert series.count() == row["games"], row["bot"]
    bots = len(report["table"]["bots"])
    cells = page.locator("#head-to-head g[id^='h2h-']")
    assert cells.count() == bots * (bots - 1)  # every pair met in a round-robin of 2 seats
    assert page.locator("#seat-effects g[id^='seat-']").count() == 2


def test_bot_words_are_shown_as_text_never_run(report: dict, page: Page) -> None:
    page.goto(report["index"].as_uri())
    assert page.evaluate("window.pwned === undefined")
    faults = page.locator("#faults").inner_text()
    assert "hostile" in faults and "resigned" in faults
    titles = page.locator("#faults a[title]")
    assert "<script>" in titles.first.get_attribute("title")


def test_bot_pages_link_back_and_list_their_games(report: dict, page: Page) -> None:
    page.goto(report["index"].as_uri())
    page.click("#standings a:text-is('r1')")
    assert page.inner_text("#bot-name") == "r1"
    games = next(r["games"] for r in report["table"]["bots"] if r["bot"] == "r1")
    assert page.locator("main > .scroll:last-of-type tbody tr").count() == games
    assert page.locator("#opponents tbody tr").count() == 3
    page.click("header a.home")
    assert page.locator("#standings").count() == 1

"""The replay viewer of a real match of each game, opened in a real browser (chromium).

Each game is played by random bots through the real referee (short options), its replay is
written to a viewer page, and the page is driven like a person would: steps, jumps, seat
selector. What a seat's page holds is compared with what the engine sends that seat, decision
by decision; a bot's words that are HTML must stay text. Screenshots go under the test's
temporary folder and to /tmp/viewer-shots/ for people to look at.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from arena.games import load_game
from arena.match.bots import parse_bot
from arena.match.referee import play_match
from arena.match.replay import read
from arena.match.results import Limits
from arena.report.viewer import write_viewer
from tests.ladder.helpers import ROOT, arena, write_ladder

HOSTILE = ROOT / "tests" / "bots" / "faulty" / "html_resign.py"
PAYLOAD = '<img src=x onerror="window.pwned=1"><script>window.pwned=1</script>'
SHOTS = Path("/tmp/viewer-shots")
LIMITS = Limits(init_ms=10_000, move_ms=5_000, bank_ms=10_000)
SEAT = 1  # the seat whose own page is checked

GAMES = {
    "happy_mochi": (2, {"max_rounds": 1, "max_turns_per_round": 10}),
    "mottainai": (2, {}),
    "mai_star": (3, {}),
    "motora": (2, {"turn_limit": 2}),
}
# What each game's panel must draw (CSS selectors), as the issue lists them.
PARTS = {
    "happy_mochi": [".duo .pile-T .card", ".duo .pile-U .card", ".hand .card", ".reserve"],
    "mottainai": [".floor .card", ".task-slot", ".gallery", ".gift-shop", ".helpers", ".hand"],
    "mai_star": [".geisha", ".advertisers", ".guests", ".hand .card"],
    "motora": ["table.board td[data-position]", ".tribes tr[data-seat]", ".idols tr", ".dice"],
}


def _random_bot(i: int) -> Any:
    return parse_bot(f"python sample_bots/python/random_bot.py --seed {i}", ROOT)


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("replays")
    out = {}
    for game_id, (players, options) in GAMES.items():
        path = folder / f"{game_id}.json"
        bots = [_random_bot(i) for i in range(players)]
        result = play_match(
            load_game(game_id), bots, seed=5, options=options, limits=LIMITS, replay_path=path
        )
        assert [s.status for s in result.seats] == ["ok"] * players
        out[game_id] = path
    return out


@pytest.fixture(scope="module")
def pages(replays: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("viewers")
    return {
        game_id: {
            "full": write_viewer(path, folder / f"{game_id}.html"),
            "seat": write_viewer(path, folder / f"{game_id}-seat{SEAT}.html", seat=SEAT),
            "data": read(path),
        }
        for game_id, path in replays.items()
    }


def _expected(data: dict[str, Any], seat: int) -> tuple[list[dict], list[dict]]:
    """What the engine gives ``seat``: its view at every decision and at the end, and every
    event it was sent, re-simulated here independently of the viewer."""
    game = load_game(data["game"]["id"])
    state = game.new(len(data["players"]), data["seed"], data["game"]["options"])
    views = []
    for record in data["decisions"]:
        views.append(state.view(seat))
        state.act(record["seat"], record["choice"])
    views.append(state.view(seat))
    events, _ = state.events_since(seat, 0)
    return json.loads(json.dumps(views)), json.loads(json.dumps(events))


def _embedded(html: Path) -> dict[str, Any]:
    text = html.read_text()
    match = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', text)
    assert match is not None
    return json.loads(match.group(1))


def _shot(page: Page, tmp_path: Path, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    for folder in (tmp_path, SHOTS):
        page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("game_id", GAMES)
def test_steps_back_and_forth_and_jumps_to_a_decision(
    game_id: str, pages: dict, page: Page, tmp_path: Path
) -> None:
    data = pages[game_id]["data"]
    decisions = data["decisions"]
    page.goto(pages[game_id]["full"].as_uri())
    where = page.locator("#where")
    assert where.inner_text() == f"decision 1 of {len(decisions)}"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.click("#forward")
    assert where.inner_text() == f"decision 4 of {len(decisions)}"
    page.keyboard.press("ArrowLeft")
    page.click("#back")
    assert where.inner_text() == f"decision 2 of {len(decisions)}"
    # Jump to a decision a bot answered among several options.
    n = next(i for i, d in enumerate(decisions, 1) if d["by"] == "bot" and i > len(decisions) // 2)
    page.fill("#jump", str(n))
    page.click("#go")
    record = decisions[n - 1]
    assert page.locator("#decision h2").inner_text() == f"Decision {n} of {len(decisions)}"
    assert f"seat {record['seat']} " in page.locator("#decision .who").inner_text()
    assert record["kind"] in page.locator("#decision .who").inner_text()
    options = page.locator("#options li")
    assert options.count() > record["choice"]
    chosen = page.locator("#options li.chosen")
    assert chosen.count() == 1
    assert chosen.get_attribute("data-index") == str(record["choice"])
    assert "answered by the bot in" in page.locator("#spent").inner_text()
    for part in PARTS[game_id]:
        assert page.locator(part).count() > 0, part
    _shot(page, tmp_path, f"{game_id}-omniscient")
    page.select_option("#seat", str(SEAT))
    assert page.locator(".seat-panel").count() == 1
    for part in PARTS[game_id]:
        assert page.locator(part).count() > 0, part
    _shot(page, tmp_path, f"{game_id}-seat{SEAT}")
    page.click("#last")
    assert where.inner_text() == "end of the game"
    assert page.locator("#result tr[data-seat]").count() == len(data["players"])


@pytest.mark.parametrize("game_id", GAMES)
def test_a_seats_page_holds_exactly_what_the_engine_sent_it(
    game_id: str, pages: dict, page: Page
) -> None:
    data = pages[game_id]["data"]
    views, events = _expected(data, SEAT)
    embedded = _embedded(pages[game_id]["seat"])
    assert embedded["seats"] == [SEAT] and not embedded["omniscient"]
    for step in embedded["steps"]:
        assert set(step) <= {"decision", "views", "events"}  # no omniscient log, no position
        assert set(step.get("views", {})) <= {str(SEAT)}
        assert set(step.get("events", {})) <= {str(SEAT)}
        decision = step.get("decision")
        if decision and decision["seat"] != SEAT:
            assert decision == {"seat": decision["seat"]}
    sent = [e for step in embedded["steps"] for e in step.get("events", {}).get(str(SEAT), [])]
    assert sent == events
    page.goto(pages[game_id]["seat"].as_uri())
    shown = page.evaluate(
        f"[...Array(window.arenaViewer.steps).keys()].map(i => window.arenaViewer.view({SEAT}, i))"
    )
    assert shown == views


PANELS_JS = """seat => {
  const out = [];
  document.getElementById("seat").value = String(seat);
  document.getElementById("seat").dispatchEvent(new Event("change"));
  for (let i = 0; i < window.arenaViewer.steps; i++) {
    window.arenaViewer.show(i);
    out.push(document.querySelector(`.seat-panel[data-seat="${seat}"]`).outerHTML);
  }
  return out;
}"""


@pytest.mark.parametrize("game_id", GAMES)
def test_a_seats_panel_is_the_same_in_the_full_page_and_its_own(
    game_id: str, pages: dict, page: Page
) -> None:
    page.goto(pages[game_id]["seat"].as_uri())
    own = page.evaluate(PANELS_JS, SEAT)
    page.goto(pages[game_id]["full"].as_uri())
    assert page.evaluate(PANELS_JS, SEAT) == own


@pytest.mark.parametrize("game_id", GAMES)
def test_a_seats_panel_never_changes_with_cards_hidden_from_it(
    game_id: str, pages: dict, page: Page
) -> None:
    """Deal the cards seat 0 cannot see in two ways (Game.determinize): the two positions
    differ, seat 0's panel does not."""
    data = pages[game_id]["data"]
    game = load_game(data["game"]["id"])
    players = len(data["players"])
    views, _ = _expected(data, 0)
    decisions = data["decisions"]
    n = next(i for i, d in enumerate(decisions) if d["seat"] == 0 and i >= len(decisions) // 2)
    state = game.new(players, data["seed"], data["game"]["options"])
    for record in decisions[:n]:
        state.act(record["seat"], record["choice"])
    events, _ = state.events_since(0, 0)
    options = game.resolve_options(data["game"]["options"], players)
    dealt = [
        game.determinize(players, options, 0, views[n], events, random.Random(k)) for k in (1, 2)
    ]
    hidden = [{k: v for k, v in s.position().items() if k != "rng"} for s in dealt]
    assert hidden[0] != hidden[1], "both deals placed the hidden cards alike"
    page.goto(pages[game_id]["full"].as_uri())
    draw = """([view, seat]) => window.ArenaRenderers[window.arenaViewer.game]
        .panel(view, window.arenaViewer.data, seat).outerHTML"""
    panels = [page.evaluate(draw, [json.loads(json.dumps(s.view(0))), 0]) for s in dealt]
    assert panels == [page.evaluate(draw, [views[n], 0])] * 2


def test_html_in_a_bots_words_and_name_is_shown_never_run(page: Page, tmp_path: Path) -> None:
    hostile = parse_bot(f"python {HOSTILE}", ROOT)
    named = dataclasses.replace(_random_bot(1), name=PAYLOAD)
    path = tmp_path / "hostile.json"
    options = {**GAMES["happy_mochi"][1], "first_seat": 0}  # the hostile bot starts
    play_match(
        load_game("happy_mochi"),
        [hostile, named],
        seed=3,
        options=options,
        limits=LIMITS,
        replay_path=path,
    )
    viewer = write_viewer(path, tmp_path / "hostile.html")
    page.goto(viewer.as_uri())
    text = page.locator("body").inner_text()
    assert PAYLOAD in text  # the name, as text
    page.fill("#jump", "2")  # its second turn, where it resigned
    page.click("#go")
    incident = page.locator("#incidents .incident")
    assert incident.count() == 1
    assert "resigned" in incident.inner_text() and "<script>" in incident.inner_text()
    page.click("#last")
    assert "<script>" in page.locator("#result").inner_text()
    page.select_option("#seat", "0")
    assert page.evaluate("window.pwned === undefined")
    assert page.locator("img").count() == 0
    _shot(page, tmp_path, "happy_mochi-hostile")


def test_replay_view_writes_the_page_and_prints_its_path(replays: dict, tmp_path: Path) -> None:
    out = tmp_path / "seat.html"
    done = arena(
        "replay", "view", str(replays["motora"]), "--seat", "1", "--out", str(out), "--no-open"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"viewer: {out}"
    assert _embedded(out)["seats"] == [1]
    bad = arena("replay", "view", str(replays["motora"]), "--seat", "5", "--no-open")
    assert bad.returncode == 2
    assert bad.stderr.startswith("arena: error: ") and "--seat must be 0..1" in bad.stderr
    missing = arena("replay", "view", str(tmp_path / "nope.json"), "--no-open")
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_the_report_links_every_match_to_its_viewer(page: Page, tmp_path: Path) -> None:
    ladder = write_ladder(tmp_path, bots=2, seats=2, rounds=1, extra="replays = true")
    assert arena("ladder", "run", str(ladder), "--quiet").returncode == 0
    done = arena("ladder", "report", str(ladder), "--out", str(tmp_path / "site"))
    assert done.returncode == 0, done.stderr
    page.goto(Path(done.stdout.strip().removeprefix("report: ")).as_uri())
    links = page.locator("a[href^='replays/']")
    assert links.count() == 2  # both matches of the round, in the list of matches
    links.first.click()
    assert page.locator("#where").inner_text().startswith("decision 1 of ")
    assert page.locator("#seat option").first.inner_text() == "omniscient"


@pytest.mark.parametrize("game_id", GAMES)
def test_typing_the_last_decisions_number_shows_the_result(
    game_id: str, pages: dict, page: Page
) -> None:
    data = pages[game_id]["data"]
    n = len(data["decisions"])
    page.goto(pages[game_id]["full"].as_uri())
    page.fill("#jump", str(n))
    page.keyboard.press("Enter")
    assert page.locator("#where").inner_text() == f"decision {n} of {n}"
    assert page.locator("#result tr[data-seat]").count() == len(data["players"])
    page.fill("#jump", str(n - 1))
    page.click("#go")
    assert page.locator("#result").count() == 0  # not before the last answer


def test_an_address_fragment_opens_a_decision_and_follows_the_one_shown(
    pages: dict, page: Page
) -> None:
    viewer = pages["motora"]["full"].as_uri()
    n = len(pages["motora"]["data"]["decisions"])
    where = page.locator("#where")
    page.goto(viewer + "#d=5")
    assert where.inner_text() == f"decision 5 of {n}"
    page.click("#forward")
    assert page.evaluate("location.hash") == "#d=6"
    page.evaluate("location.hash = '#d=3'")
    page.wait_for_function("document.body.dataset.step === '2'")
    assert where.inner_text() == f"decision 3 of {n}"
    page.click("#last")
    assert page.evaluate("location.hash") == "#d=end"
    cases = {"#d=end": "end of the game", "#d=0": f"decision 1 of {n}",
             "#d=99999": "end of the game", "#d=x<b>": f"decision 1 of {n}"}  # fmt: skip
    for fragment, shown in cases.items():
        page.goto("about:blank")
        page.goto(viewer + fragment)
        assert where.inner_text() == shown, fragment


# Each seat's own hand in each game's omniscient table.
HANDS = {
    "happy_mochi": ".mochi-seat .hand",
    "mottainai": ".mottainai-seat .hand",
    "mai_star": ".maistar-seat .hand",
    "motora": ".motora > .hand",
}


@pytest.mark.parametrize("game_id", GAMES)
def test_the_omniscient_table_draws_each_seat_once_with_its_own_cards(
    game_id: str, pages: dict, page: Page
) -> None:
    data = pages[game_id]["data"]
    players = len(data["players"])
    page.goto(pages[game_id]["full"].as_uri())
    n = len(data["decisions"]) // 2
    page.fill("#jump", str(n))
    page.click("#go")
    assert page.locator(".seat-panel").count() == 0 and page.locator(".table-panel").count() == 1
    hands = page.locator(HANDS[game_id])
    assert hands.count() == players  # once each, not every seat inside every seat's panel
    assert page.locator(".hand .card.hidden").count() == 0  # every hand face up
    views, _ = _expected(data, 0)
    mine = views[n - 1].get("hand")
    if game_id in ("happy_mochi", "mai_star"):  # chips that carry their card id
        shown = hands.nth(0).locator(".card[data-card]")
        assert [shown.nth(i).get_attribute("data-card") for i in range(shown.count())] == [
            str(c) for c in mine
        ]
    _shot(page, pages[game_id]["full"].parent, f"{game_id}-omniscient-table")


def test_mai_star_chips_show_requirement_and_income(pages: dict, page: Page) -> None:
    data = pages["mai_star"]["data"]
    customers = {c["id"]: c for c in load_game("mai_star").public_data({})["customers"]}
    page.goto(pages["mai_star"]["full"].as_uri())
    page.fill("#jump", str(len(data["decisions"]) // 2))
    page.click("#go")
    chips = page.locator(".maistar .card[data-card]")
    assert chips.count() > 3
    for i in range(chips.count()):
        c = customers[chips.nth(i).get_attribute("data-card")]
        text = chips.nth(i).inner_text()
        assert text.startswith(c["name"] + " · ") and text.endswith(f" · income {c['income']}")
        if c["requirement_type"] == "none":
            assert " · never a guest · " in text
        else:
            assert f" · needs {c['requirement']} ({c['requirement_type']}) · " in text


TALKER = ROOT / "tests" / "bots" / "faulty" / "talker.py"


def test_a_bots_notes_are_shown_as_text_and_only_on_its_own_seats_page(
    page: Page, tmp_path: Path
) -> None:
    path = tmp_path / "talk.json"
    bots = [parse_bot(f"talker=python {TALKER}", ROOT), _random_bot(1)]
    options = {**GAMES["happy_mochi"][1], "first_seat": 0}
    play_match(load_game("happy_mochi"), bots, 6, options, LIMITS, replay_path=path)
    data = read(path)
    first = next(i for i, d in enumerate(data["decisions"], 1) if "info" in d)
    other = write_viewer(path, tmp_path / "seat1.html", seat=1)
    assert "note 1: holding" not in other.read_text()  # seat 0's words about its cards
    for viewer in (write_viewer(path, tmp_path / "full.html"),
                   write_viewer(path, tmp_path / "seat0.html", seat=0)):  # fmt: skip
        page.goto(f"{viewer.as_uri()}#d={first}")
        info = page.locator("#info").inner_text()
        assert info.startswith("its note: note 1: holding [")
        assert '<img src=x onerror="window.pwned=1"><script>' in info
        assert page.evaluate("window.pwned === undefined") and page.locator("img").count() == 0
    page.goto(f"{other.as_uri()}#d={first}")
    assert page.locator("#info").count() == 0

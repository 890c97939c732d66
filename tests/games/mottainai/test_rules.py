"""Scenario tests for the rule sections of RULES.md (3-11) and the general rulings of section 13."""

from __future__ import annotations

from arena.games.mottainai import GAME
from arena.games.mottainai.cards import sort_key

from .helpers import answer, end_now, names, no_task, options_of, seat, set_task, start

# ----- 3 Setup ---------------------------------------------------------------------------------


def test_setup_deal_sizes():
    """RULES 3: five cards, a face-down setup card, one floor card each; deck 40/33/80/73."""
    for players, deck in ((2, 40), (3, 33), (4, 80), (5, 73)):
        s = GAME.new(players, 5)
        assert len(s.deck) == deck
        for q, pl in enumerate(s.players):
            assert len(pl.hand) == 5
            # the first player's setup card is already on the floor (Morning step 3)
            assert (pl.task is not None and pl.task_down) == (q != s.current)
        deals = [e["event"] for e in s.event_log() if e["event"]["type"] == "floor_deal"]
        assert len(s.floor) == sum(len(d["cards"]) for d in deals) + 1


def test_first_player_is_alphabetical_floor_card():
    """RULES 3.6: the first floor card alphabetically picks the first player."""
    for seed in range(10):
        s = GAME.new(3, seed)
        first = next(e["event"] for e in s.event_log() if e["event"]["type"] == "floor_deal")
        keys = [sort_key(c) for c in first["cards"]]
        assert s.current == keys.index(min(keys))


def test_alphabetical_key_space_first():
    """E-SET-1: a space sorts before letters (Go Set before Gong)."""
    assert sort_key("Go Set") < sort_key("Gong")
    assert sort_key("Pin") < sort_key("Pinwheel")


def test_first_player_tie_redraws_with_two_decks():
    """E-SET-3: tied players turn another card each until one is strictly first."""
    for seed in range(400):
        s = GAME.new(4, seed)
        deals = [e["event"] for e in s.event_log() if e["event"]["type"] == "floor_deal"]
        if len(deals) > 1:
            assert len(deals[1]["seats"]) >= 2
            assert s.current in deals[-1]["seats"]
            assert len(s.floor) == 4 + sum(len(d["seats"]) for d in deals[1:]) + 1
            return
    raise AssertionError("no tie found in 400 seeds")


def test_setup_card_is_not_a_task_and_is_discarded_face_up():
    """E-SET-2, E-HID-4: a face-down setup card is skipped at Noon, then turned onto the floor."""
    s = start(
        {
            "seats": [
                {"hand": ["Bell"], "task": "Bowl", "task_face_down": True},
                {"hand": ["Crane"], "task": "Fan", "task_face_down": True},
            ]
        }
    )
    assert "task" not in s.view(0)["seats"][1] and s.view(0)["seats"][1]["task_face_down"]
    no_task(s)
    assert "Bowl" in names(s.floor)
    events = [e["event"]["type"] for e in s.event_log()]
    assert "task" not in events  # seat 1's setup card was not performed; own: lone prayer


# ----- 4 Turn structure ------------------------------------------------------------------------


def test_turns_are_numbered_one_after_another():
    """RULES 4: turns follow one another clockwise; the turn event numbers them in order."""
    s = start({"seats": [{"hand": ["Bell"]}, {"hand": ["Pin"]}, {"hand": ["Cup"]}]}, players=3)
    for _ in range(3):
        no_task(s)
    turns = [e["event"] for e in s.event_log() if e["event"]["type"] == "turn"]
    first = turns[0]["turn"]
    assert [(t["seat"], t["turn"]) for t in turns] == [(1, first), (2, first + 1), (0, first + 2)]


def test_hand_limit_returns_one_at_a_time():
    """RULES 4.1.1, E-MOR-1: return down to five, each card beneath the previous one."""
    s = start({"seats": [{"hand": ["Bell", "Crane", "Fan", "Pin", "Ring", "Sword", "Coin"]}, {}]})
    answer(s, "hand_limit", card="Bell")
    answer(s, "hand_limit", card="Crane")
    assert len(s.players[0].hand) == 5
    assert names(s.deck[:2]) == ["Crane", "Bell"]
    ev = s.events_since(1, 0)[0]
    assert all("card" not in e for e in ev if e["type"] == "return")


def test_no_task_means_one_prayer():
    """RULES 4.2.2, E-MOR-6, E-TSK-9: an empty slot gives exactly one Prayer."""
    s = start({"seats": [{"hand": ["Bell"]}, {}]})
    deck = len(s.deck)
    no_task(s)
    assert len(s.deck) == deck - 1
    assert s.current == 1 and names(s.players[0].hand) == ["Bell", s.name(s.players[0].hand[1])]


def test_old_task_goes_to_floor_and_noon_order():
    """RULES 4.1.3 and 4.2: discard the old task; opponents' tasks clockwise, then your own."""
    s = start(
        {"seats": [{"hand": ["Bell"], "task": "Crane"}, {"task": "Amulet"}, {"task": "Cloak"}]},
        players=3,
    )
    set_task(s, "Bell")
    assert "Crane" in names(s.floor)
    tasks = [e["event"] for e in s.event_log() if e["event"]["type"] == "task"]
    assert [t["owner"] for t in tasks] == [1]


def test_waiting_area_hidden_until_night():
    """RULES 4.3, E-HID-1: drawn cards wait face down, then join the hand at Night."""
    s = start({"seats": [{}, {}], "deck": ["Bell"]})
    no_task(s)
    pickup = next(e for e in s.events_since(0, 0)[0] if e["type"] == "pick_up")
    assert pickup["cards"] == ["Bell"]
    other = next(e for e in s.events_since(1, 0)[0] if e["type"] == "pick_up")
    assert "cards" not in other and other["count"] == 1
    draws = [e for e in s.events_since(0, 0)[0] if e["type"] == "draw"]
    assert draws and all("card" not in e for e in draws)


# ----- 5 Tasks and actions ---------------------------------------------------------------------


def test_action_count_covered_helpers_double():
    """RULES 5.2, 7: covered helpers give two actions each, uncovered one each (E-COV-1)."""
    s = start({"seats": [{"hand": ["Bell"], "helpers": ["Crane", "Fan"], "gallery": ["Poem"]}, {}]})
    set_task(s, "Bell")  # Metal task: no Metal helpers
    tasks = [e["event"] for e in s.event_log() if e["event"]["type"] == "task"]
    assert tasks[-1]["actions"] == 1
    s = start({"seats": [{"hand": ["Pin"], "helpers": ["Bell"], "gallery": ["Ring"]}, {}]})
    set_task(s, "Pin")
    assert [e["event"] for e in s.event_log() if e["event"]["type"] == "task"][-1]["actions"] == 3
    s = start({"seats": [{"hand": ["Crane"], "helpers": ["Fan", "Pin"], "gallery": ["Poem"]}, {}]})
    set_task(s, "Crane")  # 2 Paper helpers, capacity 1: uncovered
    assert [e["event"] for e in s.event_log() if e["event"]["type"] == "task"][-1]["actions"] == 3


def test_action_count_fixed_at_start():
    """E-TSK-1: helpers gained during a task do not change its action count."""
    s = start({"seats": [{"hand": ["Amulet"]}, {}], "floor": ["Bench", "Daidoro"]})
    set_task(s, "Amulet")
    answer(s, "action", action="task")
    answer(s, "monk", card="Bench")
    assert s.current == 1  # one action only, although a Stone helper arrived
    assert names(s.players[0].helpers) == ["Bench"]


def test_voluntary_prayer_and_clerk():
    """RULES 5.4 Clerk, E-TSK-4: prayer is always allowed; Clerk moves a bench card to sales."""
    s = start({"seats": [{"hand": ["Crane", "Fan"], "bench": ["Bench"]}, {}]})
    set_task(s, "Crane")
    kinds = [o["action"] for o in options_of(s, "action")]
    assert kinds == ["task", "craft", "prayer"]
    answer(s, "action", action="task")
    answer(s, "clerk", card="Bench")
    assert names(s.players[0].sales) == ["Bench"]


def test_potter_takes_floor_card_to_bench():
    """RULES 5.4 Potter."""
    s = start({"seats": [{"hand": ["Bowl"]}, {}], "floor": ["Bell"]})
    set_task(s, "Bowl")
    answer(s, "action", action="task")
    answer(s, "potter", card="Bell")
    assert names(s.players[0].bench) == ["Bell"]


def test_task_action_impossible_is_not_offered():
    """RULES 5.3: with an empty floor the Monk action is not offered; prayer remains."""
    s = start({"seats": [{"hand": ["Amulet"]}, {}]})
    set_task(s, "Amulet")
    assert [o["action"] for o in options_of(s, "action")] == ["prayer"]


def test_tailor_returns_then_refills_to_five():
    """RULES 5.4 Tailor, E-TSK-10: any number returned, then draw to hand + waiting = 5."""
    s = start({"seats": [{"hand": ["Cloak", "Bell", "Crane"]}, {}]})
    set_task(s, "Cloak")
    answer(s, "action", action="task")
    answer(s, "tailor_return", card="Bell")
    answer(s, "tailor_return", choice="stop")
    assert len(s.players[0].hand) + len(s.players[0].waiting) == 5 or s.current == 1
    assert len(s.players[0].hand) == 5  # after Night pick-up


def test_smith_any_material_with_hand_support():
    """RULES 5.4 Smith, 6.1-6.2: a Clay work needs two Clay cards revealed from hand."""
    s = start({"seats": [{"hand": ["Bell", "Bowl", "Cup", "Dice", "Jar"]}, {}]})
    set_task(s, "Bell")
    answer(s, "action", action="task")
    works = [o["card"] for o in options_of(s, "smith_work")]
    assert set(works) == {"Bowl", "Cup", "Dice", "Jar"}
    answer(s, "smith_work", card="Bowl")
    answer(s, "support", card="Cup")
    answer(s, "support", card="Dice")
    answer(s, "wing", wing="gallery")
    assert names(s.players[0].gallery) == ["Bowl"]
    assert names(s.players[0].hand)[:2] == ["Cup", "Dice"]  # support stays in hand
    reveals = [e["event"]["card"] for e in s.event_log() if e["event"]["type"] == "reveal"]
    assert reveals == ["Cup", "Dice"]


def test_smith_not_offered_without_enough_support():
    """E-TSK-8: only works whose support can be met are offered."""
    s = start({"seats": [{"hand": ["Bell", "Bowl", "Cup"]}, {}]})
    set_task(s, "Bell")
    assert [o["action"] for o in options_of(s, "action")] == ["prayer"]


def test_craft_uses_bench_support_of_task_material():
    """RULES 5.5, 6.3, E-TSK-6: Craft under a Monk task completes a Stone work from bench."""
    s = start({"seats": [{"hand": ["Amulet", "Bench"], "bench": ["Frog"]}, {}]})
    set_task(s, "Amulet")
    answer(s, "action", action="craft")
    answer(s, "craft_work", card="Bench")
    answer(s, "wing", wing="gift_shop")
    assert names(s.players[0].shop) == ["Bench"] and names(s.players[0].bench) == ["Frog"]
    done = {"type": "complete", "seat": 0, "card": "Bench", "wing": "gift_shop", "how": "craft"}
    assert all(done in s.events_since(seat, 0)[0] for seat in (0, 1))  # public (RULES 14)


def test_craft_support_offers_each_bench_card_once():
    """RULES 6.3, E-TSK-8: the bench cards of the work's material are one generic option, to be
    picked at most as many times as there are such cards (Crane's Paper cards fill the rest)."""
    s = start(
        {
            "seats": [
                {"hand": ["Bowl", "Cup"], "gallery": ["Crane"], "bench": ["Dice", "Fan", "Plane"]},
                {},
            ]
        }
    )
    set_task(s, "Bowl")
    answer(s, "action", action="craft")
    answer(s, "craft_work", card="Cup")
    assert [o["source"] for o in options_of(s, "support")] == ["bench", "crane", "crane"]
    answer(s, "support", source="bench")
    assert [o["source"] for o in options_of(s, "support")] == ["crane", "crane"]
    answer(s, "support", source="crane", card="Fan")
    answer(s, "wing", wing="gallery")
    assert names(s.players[0].gallery) == ["Crane", "Cup"]
    assert names(s.players[0].bench) == ["Dice", "Plane"]


def test_mixed_hand_and_bench_support_not_allowed():
    """E-TSK-7: Smith support comes from the hand only."""
    s = start({"seats": [{"hand": ["Bell", "Bowl", "Cup"], "bench": ["Dice"]}, {}]})
    set_task(s, "Bell")
    assert [o["action"] for o in options_of(s, "action")] == ["prayer"]


def test_opponents_tasks_clockwise_then_own():
    """RULES 4.2, E-TSK-11: opponents' tasks clockwise from the next seat, then your own."""
    s = start(
        {"seats": [{"hand": ["Amulet"], "gallery": ["Flute"]}, {"task": "Bell"}, {"task": "Cup"}]},
        players=3,
    )
    set_task(s, "Amulet")
    for _ in range(3):
        answer(s, "action", action="prayer")
    tasks = [e["event"]["owner"] for e in s.event_log() if e["event"]["type"] == "task"]
    assert tasks == [1, 2, 0]


# ----- 10 End of the game ----------------------------------------------------------------------


def test_deck_empty_ends_at_once():
    """RULES 10.1.1, 10.3, E-END-1: drawing the last card ends the game; it never scores."""
    s = start({"seats": [{"hand": ["Bell"]}, {}], "deck": ["Crane"], "exact_deck": True})
    no_task(s)
    assert not s.pending()
    assert s.outcome().details["end"] == "deck_empty"
    assert names(s.players[0].waiting) == ["Crane"]
    out = s.outcome()  # every seat's view shows scores and ranks once over (README "Views")
    for q in (0, 1):
        assert s.view(q)["scores"] == list(out.scores) and s.view(q)["ranks"] == list(out.ranks)


def test_fifth_work_ends_before_after_effects():
    """RULES 10.1.2, E-END-2, E-AFT-4: the fifth work in a wing ends the game at placement,
    before any after-effect (Amulet) is offered."""
    s = start(
        {
            "seats": [
                {"hand": ["Crane", "Straw"], "gallery": ["Fan", "Pinwheel", "Plane", "Amulet"]},
                {},
            ],
            "floor": [],
        }
    )
    set_task(s, "Crane")
    answer(s, "action", action="craft")
    answer(s, "craft_work", card="Straw")
    answer(s, "wing", wing="gallery")
    assert not s.pending() and s.outcome().details["end"] == "wing"


def test_extended_threshold_six():
    """RULES 12: in the extended game the fifth work does not end the game."""
    s = start(
        {
            "seats": [
                {"hand": ["Crane", "Straw"], "gallery": ["Fan", "Pinwheel", "Plane", "Scroll"]},
                {},
            ]
        },
        extended=True,
    )
    set_task(s, "Crane")
    answer(s, "action", action="craft")
    answer(s, "craft_work", card="Straw")
    answer(s, "wing", wing="gallery")
    assert s.pending()


# ----- 11 Scoring ------------------------------------------------------------------------------


def test_scoring_worked_example():
    """RULES 11 worked example: works 12, one covered Clay sale 3, two Metal backorders 6."""
    s = end_now(
        {
            "seats": [
                {
                    "hand": ["Bell", "Coin"],
                    "gallery": ["Crane", "Fan", "Amulet"],
                    "gift_shop": ["Bowl", "Cup", "Plane"],
                    "sales": ["Dice", "Chopsticks"],
                },
                {},
            ]
        }
    )
    b = s.outcome().details["breakdown"][0]
    assert b["works"] == 1 + 1 + 2 + 3 + 3 + 1
    assert b["sales"] == 3  # Clay covered by two Clay shop works; Metal uncovered
    assert b["backorders"] == 6
    assert b["total"] == 11 + 3 + 6


def test_uncovered_sales_all_or_nothing():
    """E-COV-1, E-SCO-7: one Paper shop work covers one Paper sale; two are both uncovered."""
    s = end_now({"seats": [{"gift_shop": ["Crane"], "sales": ["Fan", "Plane"]}, {}]})
    assert s.outcome().details["breakdown"][0]["sales"] == 0
    s = end_now({"seats": [{"gift_shop": ["Crane"], "sales": ["Fan"]}, {}]})
    assert s.outcome().details["breakdown"][0]["sales"] == 1


def test_backorders_need_strict_majority():
    """E-SCO-1: a tie for most sales gives nobody backorders; hand cards only."""
    s = end_now(
        {"seats": [{"hand": ["Bell"], "sales": ["Coin"]}, {"hand": ["Pin"], "sales": ["Ring"]}]}
    )
    assert [b["backorders"] for b in s.outcome().details["breakdown"]] == [0, 0]
    s = end_now(
        {
            "seats": [
                {"hand": ["Bell"], "sales": ["Coin", "Ring"]},
                {"hand": ["Pin"], "sales": ["Sword"]},
            ]
        }
    )
    assert [b["backorders"] for b in s.outcome().details["breakdown"]] == [3, 0]


def test_tie_break_current_player_then_clockwise():
    """RULES 11, E-SCO-6: ties go to the current player, then clockwise from them."""
    s = end_now(
        {
            "seats": [{"gallery": ["Crane"]}, {"gallery": ["Fan"]}, {"gallery": ["Plane"]}],
            "current": 1,
        },
        players=3,
    )
    assert s.outcome().scores[0] == s.outcome().scores[1]
    assert s.outcome().ranks == (2, 0, 1)


def test_views_hide_other_hands():
    """RULES 14: other hands appear only as counts; setup cards not at all."""
    s = GAME.new(3, 1)
    v = s.view(0)
    assert "hand" in v["seats"][0] and "hand" not in v["seats"][1]
    assert v["seats"][1]["hand_count"] == 5
    assert all("task" not in e for e in v["seats"])
    assert seat(s, 0)["hand"] == [c["name"] for c in v["seats"][0]["hand"]]

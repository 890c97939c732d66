"""One test per card for morning, night, instead-of, before-task, before-Tailor, obstruction and
continuous effects (cards.json categories; RULES 4, 5, 13)."""

from __future__ import annotations

from arena.games.mottainai import cards as C

from .helpers import (
    answer,
    end_now,
    names,
    no_task,
    options_of,
    set_task,
    start,
    task_events,
)

# ----- morning ----------------------------------------------------------------------------------


def test_bowl():
    """Bowl: top card of the deck into the craft bench."""
    s = start({"seats": [{"gallery": ["Bowl"]}, {}], "deck": ["Crane"]})
    answer(s, "morning_effect", effect="Bowl")
    assert names(s.players[0].bench) == ["Crane"]


def test_daidoro():
    """Daidoro: deal to the floor until it holds three; not offered at three (E-END-1)."""
    s = start(
        {
            "seats": [{"gallery": ["Daidoro"]}, {}],
            "floor": ["Bell"],
            "deck": ["Crane", "Fan", "Pin"],
        }
    )
    answer(s, "morning_effect", effect="Daidoro")
    assert names(s.floor) == ["Bell", "Crane", "Fan"]
    s = start({"seats": [{"gallery": ["Daidoro"]}, {}], "floor": ["Bell", "Coin", "Ring"]})
    assert s.pending()[0].kind == "new_task"


def test_kite_copies_a_work_until_turn_end():
    """Kite, E-KITE-1..4: a hand card to a bench, then Kite copies a work for this turn."""
    s = start({"seats": [{"gallery": ["Kite"], "hand": ["Crane", "Fan"]}, {"gallery": ["Bowl"]}]})
    answer(s, "morning_effect", effect="Kite")
    answer(s, "kite_card", card="Crane")
    answer(s, "kite_player", seat=1)
    answer(s, "kite_work", card="Bowl")
    kite = s.players[0].gallery[0]
    assert names(s.players[1].bench) == ["Crane"]
    assert s.eff(kite) == "Bowl" and s.mat(kite) == C.CLAY and s.val(kite) == 3
    assert s.pending()[0].kind == "new_task"  # E-KITE-2: the copied Bowl is not usable now
    assert s.view(1)["seats"][0]["gallery"][0]["copy_of"] == "Bowl"
    answer(s, "new_task", choice="none")
    assert s.current == 1 and not s.kite  # the copy ended with the turn


def test_kite_copy_of_a_booster_works_at_noon():
    """E-KITE-2, E-KITE-3: a copied booster works normally for the rest of the turn (Kite as a
    Bell: a Clerk action may sell the deck's top card)."""
    s = start(
        {
            "seats": [{"gallery": ["Kite"], "hand": ["Crane", "Fan"]}, {"gallery": ["Bell"]}],
            "deck": ["Cup", "Bowl"],
        }
    )
    answer(s, "morning_effect", effect="Kite")
    answer(s, "kite_card", card="Fan")
    answer(s, "kite_player", seat=1)
    answer(s, "kite_work", card="Bell")
    set_task(s, "Crane")
    answer(s, "action", action="task")
    answer(s, "clerk", source="bell")
    assert names(s.players[0].sales) == ["Cup"]


def test_pin_takes_a_tailor_action():
    """Pin, E-MOR-3: one Tailor action in the Morning."""
    s = start(
        {
            "seats": [{"gallery": ["Pin"], "hand": ["Crane"]}, {}],
            "deck": ["Bell", "Coin", "Ring", "Sword", "Flute"],
        }
    )
    answer(s, "morning_effect", effect="Pin")
    answer(s, "tailor_return", card="Crane")
    assert len(s.players[0].waiting) == 5 and not s.players[0].hand


def test_umbrella_deals_and_sells_a_matching_helper():
    """Umbrella: deal one card to the floor, then sell a helper of its material."""
    s = start(
        {"seats": [{"gallery": ["Umbrella"], "helpers": ["Bell", "Crane"]}, {}], "deck": ["Pin"]}
    )
    answer(s, "morning_effect", effect="Umbrella")
    assert [o.get("card") for o in options_of(s, "umbrella_sell")] == [None, "Bell"]
    answer(s, "umbrella_sell", card="Bell")
    assert names(s.floor) == ["Pin"] and names(s.players[0].sales) == ["Bell"]


# ----- night ------------------------------------------------------------------------------------


def test_pinwheel_returns_then_draws():
    """Pinwheel: at Night return a hand card, then you may draw one."""
    s = start(
        {
            "seats": [{"gallery": ["Pinwheel"], "hand": ["Crane", "Fan"]}, {}],
            "deck": ["Bell", "Coin"],
        }
    )
    no_task(s)  # lone prayer draws Bell
    answer(s, "night_effect", effect="Pinwheel")
    answer(s, "pinwheel_return", card="Crane")
    answer(s, "pinwheel_draw", choice="draw")
    assert sorted(names(s.players[0].hand)) == ["Bell", "Coin", "Fan"]
    assert names(s.deck[:1]) == ["Crane"]


# ----- instead of ------------------------------------------------------------------------------


def test_handkerchief_replaces_hand_limit():
    """Handkerchief, E-MOR-2: one card to the floor and no hand-limit returns."""
    hand = ["Bell", "Coin", "Ring", "Sword", "Flute", "Crane", "Fan"]
    s = start({"seats": [{"gallery": ["Handkerchief"], "hand": hand}, {}]})
    answer(s, "handkerchief", card="Bell")
    assert names(s.floor) == ["Bell"] and len(s.players[0].hand) == 6
    assert s.pending()[0].kind == "new_task"


def test_chopsticks_old_task_to_sales():
    """Chopsticks: the old face-up task goes to sales instead of the floor (not setup cards)."""
    s = start({"seats": [{"gallery": ["Chopsticks"], "task": "Bell"}, {}]})
    answer(s, "chopsticks", choice="sales")
    assert names(s.players[0].sales) == ["Bell"]
    s = start({"seats": [{"gallery": ["Chopsticks"], "task": "Bell", "task_face_down": True}, {}]})
    assert s.pending()[0].kind == "new_task" and names(s.floor) == ["Bell"]
    s = start({"seats": [{"gallery": ["Chopsticks"], "task": "Bell"}, {}]})
    answer(s, "chopsticks", choice="floor")  # declined: the old task goes to the floor
    assert not s.players[0].sales and names(s.floor) == ["Bell"]


def test_sketch_helper_becomes_task():
    """Sketch: one of your helpers becomes your new task."""
    s = start({"seats": [{"gallery": ["Sketch"], "helpers": ["Bell"]}, {}]})
    answer(s, "new_task", choice="sketch")
    answer(s, "sketch_helper", card="Bell")
    assert not s.players[0].helpers
    assert task_events(s)[-1]["card"] == "Bell"


def test_doll_takes_an_opponents_task_with_extra_action():
    """Doll, E-MOR-4: take an opponent's task; +1 action on it as your own; they skip it."""
    s = start({"seats": [{"gallery": ["Doll"]}, {"task": "Amulet"}]})
    answer(s, "new_task", choice="doll")
    answer(s, "doll_task", seat=1, card="Amulet")
    assert s.players[1].task is None
    assert [(t["owner"], t["actions"]) for t in task_events(s)] == [(0, 2)]


# ----- before a task ---------------------------------------------------------------------------


def test_figurine_on_opponents_task_only():
    """Figurine, E-TSK-2: reveal a matching card for +1 action on an opponent's task."""
    s = start({"seats": [{"gallery": ["Figurine"], "hand": ["Bowl", "Cup"]}, {"task": "Dice"}]})
    set_task(s, "Cup")
    answer(s, "figurine_reveal", card="Bowl")
    assert task_events(s)[-1]["actions"] == 2
    answer(s, "action", action="prayer")
    answer(s, "action", action="prayer")
    assert task_events(s)[-1]["owner"] == 0 and task_events(s)[-1]["actions"] == 1


def test_flag_on_own_task_only():
    """Flag, E-TSK-2: reveal a matching card for +1 action on your own task."""
    s = start({"seats": [{"gallery": ["Flag"], "hand": ["Bowl", "Cup"]}, {"task": "Dice"}]})
    set_task(s, "Cup")
    assert s.pending()[0].kind == "action"  # no Flag on the opponent's task
    answer(s, "action", action="prayer")
    answer(s, "flag_reveal", card="Bowl")
    assert task_events(s)[-1]["actions"] == 2


def reveals_seen_by(s, seat: int) -> list[dict]:
    """The ``reveal`` events in ``seat``'s own event stream (what that seat was told)."""
    return [e for e in s.events_since(seat, 0)[0] if e["type"] == "reveal"]


def test_figurine_and_flag_reveals_are_public():
    """E-TSK-2, E-HID-2: the card revealed for Figurine or Flag is shown to every seat at the
    moment of the reveal, and stays in the revealer's hand."""
    figurine = start(
        {"seats": [{"gallery": ["Figurine"], "hand": ["Bowl", "Cup"]}, {"task": "Dice"}]}
    )
    set_task(figurine, "Cup")
    answer(figurine, "figurine_reveal", card="Bowl")
    flag = start({"seats": [{"gallery": ["Flag"], "hand": ["Bowl", "Cup"]}, {}]})
    set_task(flag, "Cup")
    answer(flag, "flag_reveal", card="Bowl")
    for s, effect in ((figurine, "Figurine"), (flag, "Flag")):
        shown = {"type": "reveal", "seat": 0, "card": "Bowl", "reason": effect}
        assert reveals_seen_by(s, 1) == [shown], effect
        assert reveals_seen_by(s, 0) == [shown], effect
        assert "Bowl" in names(s.players[0].hand)


def test_fountain_only_before_a_clerk_task():
    """Fountain, E-TSK-3: its reveals come before a Clerk (Paper) task only; a Monk task asks
    nothing, and without Fountain a Clerk task asks nothing either."""
    s = start({"seats": [{"gallery": ["Fountain"], "hand": ["Amulet", "Bench"]}, {}]})
    set_task(s, "Amulet")
    assert s.pending()[0].kind == "action"
    s = start({"seats": [{"hand": ["Crane", "Amulet", "Bench"]}, {}]})
    set_task(s, "Crane")
    assert s.pending()[0].kind == "action"


def test_fountain_stone_cards_count_as_clerk_helpers():
    """Fountain, E-TSK-3: revealed Stone cards add Clerk helpers (cover test included)."""
    s = start({"seats": [{"gallery": ["Fountain"], "hand": ["Crane", "Amulet", "Bench"]}, {}]})
    set_task(s, "Crane")
    answer(s, "fountain_reveal", card="Amulet")
    answer(s, "fountain_reveal", card="Bench")
    assert task_events(s)[-1]["actions"] == 3  # two uncovered helpers


# ----- before a Tailor action ------------------------------------------------------------------


def test_dice_completes_matching_top_card():
    """Dice, E-TAI-1: top card value equals hand size: complete it for free."""
    s = start(
        {"seats": [{"gallery": ["Dice"], "hand": ["Cloak", "Bell"]}, {}], "deck": ["Crane", "Fan"]}
    )
    set_task(s, "Cloak")
    answer(s, "action", action="task")
    answer(s, "tailor_effect", effect="Dice")
    answer(s, "dice_complete", choice="complete")
    answer(s, "wing", wing="gift_shop")
    assert names(s.players[0].shop) == ["Crane"]


def test_dice_non_match_stays_on_top_known():
    """Dice, E-TAI-1: a non-matching card stays on top, known to everyone."""
    s = start(
        {"seats": [{"gallery": ["Dice"], "hand": ["Cloak", "Bell", "Coin"]}, {}], "deck": ["Crane"]}
    )
    set_task(s, "Cloak")
    answer(s, "action", action="task")
    answer(s, "tailor_effect", effect="Dice")
    assert s.pending()[0].kind == "tailor_return"
    assert s.view(1)["deck_top"]["name"] == "Crane"


def test_fan_keeps_one_on_top():
    """Fan, E-TAI-2: reveal three, keep one on top, the others to the bottom in chosen order."""
    s = start(
        {
            "seats": [{"gallery": ["Fan"], "hand": ["Cloak"]}, {}],
            "deck": ["Crane", "Bell", "Bowl", "Cup"],
        }
    )
    set_task(s, "Cloak")
    answer(s, "action", action="task")
    answer(s, "tailor_effect", effect="Fan")
    answer(s, "fan_keep", card="Bowl")
    answer(s, "fan_bottom", card="Crane")
    assert names(s.deck[:2]) == ["Bell", "Crane"]
    assert "Bowl" in names(s.players[0].hand)  # the Tailor refill drew the kept top card


def test_puppet_trades_hands():
    """Puppet, E-TAI-3: return Puppet; your hand to an opponent, theirs to your waiting area."""
    s = start(
        {
            "seats": [
                {"gallery": ["Puppet"], "hand": ["Cloak", "Bell", "Coin"]},
                {"hand": ["Crane", "Fan"]},
            ]
        }
    )
    set_task(s, "Cloak")
    answer(s, "action", action="task")
    answer(s, "tailor_effect", effect="Puppet")
    answer(s, "puppet_opponent", seat=1)
    assert names(s.players[1].hand) == ["Bell", "Coin"]
    # the opponent's hand waited face down, then joined the hand at Night with 3 refill draws
    assert names(s.players[0].hand)[:2] == ["Crane", "Fan"] and not s.players[0].gallery
    assert names(s.deck[:1]) == ["Puppet"]
    received = next(e for e in s.events_since(1, 0)[0] if e["type"] == "puppet")
    assert received["received"] == ["Bell", "Coin"]


# ----- obstruction -----------------------------------------------------------------------------


def test_curtain_blocks_cloth_task_without_reveal():
    """Curtain, E-OBS-1: no Cloth card to reveal: the whole task is skipped."""
    s = start({"seats": [{"hand": ["Bell"]}, {"gallery": ["Curtain"], "task": "Cloak"}]})
    set_task(s, "Bell")
    skipped = [e["event"] for e in s.event_log() if e["event"]["type"] == "task_skipped"]
    assert skipped and skipped[0]["owner"] == 1


def test_tower_reveal_or_skip():
    """Tower, E-OBS-1: the performer may reveal a matching card, or decline and skip."""
    s = start({"seats": [{"hand": ["Bell", "Fan"]}, {"gallery": ["Tower"], "task": "Crane"}]})
    set_task(s, "Bell")
    answer(s, "obstruction_reveal", choice="decline")
    assert [e["event"]["type"] for e in s.event_log()].count("task_skipped") == 1
    s = start({"seats": [{"hand": ["Bell", "Fan"]}, {"gallery": ["Tower"], "task": "Crane"}]})
    set_task(s, "Bell")
    answer(s, "obstruction_reveal", card="Fan")
    assert task_events(s)[0]["owner"] == 1


def test_mask_forbids_craft_and_prayer():
    """Mask, E-OBS-3: only the task action; if impossible the action is lost."""
    s = start({"seats": [{"hand": ["Bell"]}, {"gallery": ["Mask"], "task": "Amulet"}]})
    set_task(s, "Bell")
    lost = [e["event"] for e in s.event_log() if e["event"]["type"] == "action_lost"]
    assert len(lost) == 1
    s = start(
        {"seats": [{"hand": ["Bell"]}, {"gallery": ["Mask"], "task": "Amulet"}], "floor": ["Coin"]}
    )
    set_task(s, "Bell")
    assert options_of(s, "action") == [{"action": "task", "task": "Monk"}]


def test_bangle_blocks_helpers_and_covers_owners_stone():
    """Bangle, E-OBS-4: opponents' helpers give nothing on its owner's tasks; the owner's Stone
    helpers are always covered."""
    s = start(
        {
            "seats": [
                {"hand": ["Bell"], "helpers": ["Amulet"], "gallery": ["Bench"]},
                {"gallery": ["Bangle"], "task": "Frog"},
            ]
        }
    )
    set_task(s, "Bell")
    assert task_events(s)[0]["actions"] == 1
    s = start(
        {
            "seats": [
                {"gallery": ["Bangle"], "hand": ["Amulet"], "helpers": ["Bench", "Frog", "Statue"]},
                {},
            ]
        }
    )
    set_task(s, "Amulet")
    assert task_events(s)[0]["actions"] == 7


# ----- continuous ------------------------------------------------------------------------------


def test_go_set_stone_works_cover_in_both_wings():
    """Go Set, E-COV-3, E-END-3: Gallery Stone works cover Stone sales; and count for both wings."""
    s = end_now({"seats": [{"gallery": ["Go Set"], "sales": ["Amulet", "Bench"]}, {}]})
    assert s.outcome().details["breakdown"][0]["sales"] == 4
    s = start(
        {
            "seats": [
                {
                    "gallery": ["Go Set", "Amulet", "Bench"],
                    "gift_shop": ["Crane"],
                    "hand": ["Frog", "Statue", "Pin"],
                },
                {},
            ]
        }
    )
    set_task(s, "Pin")
    answer(s, "action", action="task")
    answer(s, "smith_work", card="Frog")
    answer(s, "wing", wing="gallery")
    assert not s.pending() and s.outcome().details["end"] == "wing"  # Gift Shop: 1 + 4 Stone


def test_five_materials_without_the_turtle_end_nothing():
    """E-END-5: only the Turtle's owner wins by owning works of all five materials."""
    s = start(
        {
            "seats": [
                {
                    "gallery": ["Coin", "Crane", "Amulet", "Cloak"],
                    "hand": ["Bell", "Bowl", "Cup", "Dice"],
                },
                {"gallery": ["Turtle", "Sword", "Ring"], "gift_shop": ["Flute"]},
            ]
        }
    )
    set_task(s, "Bell")
    answer(s, "action", action="task")
    answer(s, "smith_work", card="Bowl")
    answer(s, "wing", wing="gift_shop")
    assert len({C.DEFS[w % C.DECK_SIZE].material for w in s.players[0].works()}) == 5
    assert s.pending() and not s.is_over()  # the game goes on


def test_turtle_wins_for_the_owners_team():
    """E-END-5, RULES 12: in the team game a satisfied Turtle makes its owner's team win, even
    with fewer points."""
    s = start(
        {
            "seats": [
                {
                    "gallery": ["Turtle", "Crane", "Amulet", "Cloak"],
                    "hand": ["Bell", "Bowl", "Cup", "Dice"],
                },
                {"gallery": ["Coin", "Sword", "Ring"], "gift_shop": ["Flute"]},
                {},
                {"gallery": ["Gong", "Pin"]},
            ]
        },
        players=4,
        teams=True,
    )
    set_task(s, "Bell")
    answer(s, "action", action="task")
    answer(s, "smith_work", card="Bowl")
    answer(s, "wing", wing="gift_shop")
    out = s.outcome()
    assert out.details["end"] == "turtle" and out.ranks == (0, 2, 0, 2)
    assert out.details["team_scores"][0] < out.details["team_scores"][1]


def test_turtle_wins_outright():
    """Turtle, E-END-5: works of all five materials end the game; the owner wins."""
    s = start(
        {
            "seats": [
                {
                    "gallery": ["Turtle", "Crane", "Amulet", "Cloak"],
                    "hand": ["Bell", "Bowl", "Cup", "Dice"],
                },
                {"gallery": ["Coin", "Sword", "Ring"], "gift_shop": ["Flute"]},
            ]
        }
    )
    set_task(s, "Bell")
    answer(s, "action", action="task")
    answer(s, "smith_work", card="Bowl")
    answer(s, "wing", wing="gift_shop")
    out = s.outcome()
    assert out.details["end"] == "turtle" and out.ranks == (0, 1)
    assert out.scores[0] < out.scores[1]

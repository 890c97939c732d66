"""One test per card for after-effects, action boosters and end-game scoring (cards.json
categories after_complete_this, after_complete_work, after_action, action_booster,
end_game_scoring; RULES 5.4, 6, 11, 13)."""

from __future__ import annotations

from .helpers import (
    answer,
    breakdown,
    end_now,
    names,
    no_task,
    options_of,
    set_task,
    start,
    task_events,
)


def smith(s, task, work, wing="gallery", support=()):
    """Set ``task`` (a Metal card) and complete ``work`` with the Smith action."""
    set_task(s, task)
    answer(s, "action", action="task")
    answer(s, "smith_work", card=work)
    for card in support:
        answer(s, "support", card=card)
    answer(s, "wing", wing=wing)


# ----- after you complete this -----------------------------------------------------------------


def test_frog_extra_turn_only_when_not_ahead():
    """Frog, E-AFT-5: an extra turn if every opponent has at least as many works."""
    s = start({"seats": [{"hand": ["Pin", "Frog", "Amulet"]}, {"gallery": ["Crane"]}]})
    smith(s, "Pin", "Frog")
    answer(s, "after_effect", effect="Frog")
    assert s.current == 0
    turn = [e["event"] for e in s.event_log() if e["event"]["type"] == "turn"][-1]
    assert turn["seat"] == 0 and turn["extra"]
    no_task(s)  # the extra turn is played once, then play goes on to the opponent
    turns = [e["event"] for e in s.event_log() if e["event"]["type"] == "turn"]
    assert [(t["seat"], t["extra"]) for t in turns[-2:]] == [(0, True), (1, False)]
    s = start({"seats": [{"hand": ["Pin", "Frog", "Amulet"]}, {}]})
    smith(s, "Pin", "Frog")
    assert s.current == 1  # opponent has fewer works: Frog not offered


def test_jar_takes_named_material_from_opponents():
    """Jar, E-AFT-7: opponents' hand cards of the named material go to your waiting area."""
    s = start(
        {
            "seats": [{"hand": ["Pin", "Jar", "Bowl", "Cup"]}, {"hand": ["Dice", "Crane"]}],
            "deck": ["Bell"],
        }
    )
    smith(s, "Pin", "Jar")
    answer(s, "after_effect", effect="Jar")
    answer(s, "jar_material", material="Clay")
    assert names(s.players[1].hand) == ["Crane"]
    assert "Dice" in names(s.players[0].hand)  # joined the hand at Night
    public = next(e for e in s.events_since(1, 0)[0] if e["type"] == "jar")
    assert public["count"] == 1 and public["material"] == "Clay"


def test_shuriken_takes_a_work_from_a_richer_opponent():
    """Shuriken, E-AFT-8: take a work from an opponent with more works; you choose the wing."""
    s = start(
        {"seats": [{"hand": ["Pin", "Shuriken", "Bell", "Coin"]}, {"gallery": ["Crane", "Fan"]}]}
    )
    smith(s, "Pin", "Shuriken")
    answer(s, "after_effect", effect="Shuriken")
    answer(s, "shuriken_opponent", seat=1)
    answer(s, "shuriken_work", card="Fan")
    answer(s, "wing", wing="gift_shop")
    assert names(s.players[0].shop) == ["Fan"] and names(s.players[1].gallery) == ["Crane"]


def test_statue_up_to_two_floor_cards_to_bench():
    """Statue, E-AFT-6."""
    s = start({"seats": [{"hand": ["Pin", "Statue", "Amulet"]}, {}], "floor": ["Bell", "Crane"]})
    smith(s, "Pin", "Statue")
    answer(s, "after_effect", effect="Statue")
    answer(s, "statue_pick", card="Bell")
    answer(s, "statue_pick", card="Crane")
    assert names(s.players[0].bench) == ["Bell", "Crane"]


def test_vase_up_to_two_floor_cards_to_sales():
    """Vase, E-AFT-6: stopping after one is allowed."""
    s = start({"seats": [{"hand": ["Pin", "Vase", "Bowl", "Cup"]}, {}], "floor": ["Bell", "Crane"]})
    smith(s, "Pin", "Vase")
    answer(s, "after_effect", effect="Vase")
    answer(s, "vase_pick", card="Crane")
    answer(s, "vase_pick", choice="stop")
    assert names(s.players[0].sales) == ["Crane"]


def test_tablet_restock_or_return():
    """Tablet, E-MISC-1: deal until Stone and Metal show, or return the floor in order."""
    s = start(
        {
            "seats": [{"hand": ["Pin", "Tablet", "Amulet"]}, {}],
            "floor": ["Bell"],
            "deck": ["Crane", "Bench", "Coin"],
        }
    )
    smith(s, "Pin", "Tablet")
    answer(s, "after_effect", effect="Tablet")
    answer(s, "tablet_mode", choice="restock")
    assert names(s.floor) == ["Bell", "Crane", "Bench"]
    s = start({"seats": [{"hand": ["Pin", "Tablet", "Amulet"]}, {}], "floor": ["Bell", "Fan"]})
    smith(s, "Pin", "Tablet")
    answer(s, "after_effect", effect="Tablet")
    answer(s, "tablet_mode", choice="return_floor")
    assert not s.floor and names(s.deck[:2]) == ["Fan", "Bell"]


# ----- after you complete a work ---------------------------------------------------------------


def test_amulet_sells_a_bench_card_even_for_itself():
    """Amulet, E-AFT-1: after any completion, Amulet itself included."""
    s = start({"seats": [{"hand": ["Pin", "Amulet", "Bench"], "bench": ["Bell"]}, {}]})
    smith(s, "Pin", "Amulet")
    answer(s, "after_effect", effect="Amulet")
    answer(s, "amulet_card", card="Bell")
    assert names(s.players[0].sales) == ["Bell"]


def test_the_pool_goes_on_after_an_effect_that_does_not_return_the_work():
    """RULES 6.6: effects are picked from the pool one at a time, each at most once, until the
    player stops; after Stool the rest of the pool (Amulet, Cloak) is offered again."""
    s = start(
        {
            "seats": [
                {
                    "hand": ["Pin", "Amulet", "Bench"],
                    "gallery": ["Stool", "Cloak"],
                    "bench": ["Bell"],
                },
                {},
            ],
            "deck": ["Fan", "Crane", "Plane"],
        }
    )
    smith(s, "Pin", "Amulet")
    assert sorted(after_effects_offered(s)) == ["Amulet", "Cloak", "Stool"]
    answer(s, "after_effect", effect="Stool")
    assert sorted(after_effects_offered(s)) == ["Amulet", "Cloak"]
    answer(s, "after_effect", effect="Amulet")
    answer(s, "amulet_card", card="Bell")
    assert after_effects_offered(s) == ["Cloak"]


def test_cloak_returns_the_work_and_completes_metal():
    """Cloak, E-AFT-2: return the new work, then complete a Metal hand card for free."""
    s = start({"seats": [{"hand": ["Pin", "Crane", "Bell"], "gallery": ["Cloak"]}, {}]})
    smith(s, "Pin", "Crane")
    answer(s, "after_effect", effect="Cloak")
    answer(s, "cloak_work", card="Bell")
    answer(s, "wing", wing="gift_shop")
    assert names(s.players[0].shop) == ["Bell"] and names(s.deck[:1]) == ["Crane"]


def test_poem_returns_paper_work_and_completes_top_card():
    """Poem, E-AFT-1/2: return the Paper work, complete the top card of the deck."""
    s = start({"seats": [{"hand": ["Pin", "Crane"], "gallery": ["Poem"]}, {}], "deck": ["Bowl"]})
    smith(s, "Pin", "Crane")
    answer(s, "after_effect", effect="Poem")
    answer(s, "wing", wing="gift_shop")
    assert names(s.players[0].shop) == ["Bowl"] and names(s.deck[:1]) == ["Crane"]


def test_poem_only_after_a_paper_work():
    """Poem, RULES 6.6: it fits a completed Paper work only; after a Stone work it is not
    offered (Amulet is)."""
    s = start(
        {
            "seats": [
                {"hand": ["Pin", "Amulet", "Bench"], "gallery": ["Poem"], "bench": ["Bell"]},
                {},
            ]
        }
    )
    smith(s, "Pin", "Amulet")
    assert after_effects_offered(s) == ["Amulet"]


def test_poem_chain_is_bounded():
    """E-AFT-9: with only Paper left, Poem can be used at most deck-size times in a chain."""
    s = start(
        {
            "seats": [{"hand": ["Pin", "Crane"], "gallery": ["Poem"]}, {}],
            "deck": ["Fan", "Plane"],
            "exact_deck": True,
        }
    )
    smith(s, "Pin", "Crane")
    uses = 0
    while s.pending() and s.pending()[0].kind in ("after_effect", "wing"):
        dec = s.pending()[0]
        if dec.kind == "after_effect":
            if not any(o.get("effect") == "Poem" for o in dec.options):
                break
            answer(s, "after_effect", effect="Poem")
            uses += 1
        else:
            answer(s, "wing", wing="gallery")
    assert uses == 2


def test_stool_draws_after_stone_clay_metal_work_only():
    """Stool: draw after completing a Stone, Clay or Metal work; not for Paper."""
    s = start({"seats": [{"hand": ["Pin", "Amulet", "Bench"], "gallery": ["Stool"]}, {}]})
    smith(s, "Pin", "Amulet")
    answer(s, "after_effect", effect="Stool")
    draws = [e["event"]["reason"] for e in s.event_log() if e["event"]["type"] == "draw"]
    assert "Stool" in draws
    s = start({"seats": [{"hand": ["Pin", "Crane"], "gallery": ["Stool"]}, {}]})
    smith(s, "Pin", "Crane")
    assert s.current == 1


# ----- after an action -------------------------------------------------------------------------


def test_cup_ends_the_game_after_prayer():
    """Cup, E-END-4: return Cup after a Prayer: the game ends; Cup does not score."""
    s = start({"seats": [{"gallery": ["Cup"]}, {}]})
    no_task(s)
    answer(s, "after_effect", effect="Cup")
    assert not s.pending() and s.outcome().details["end"] == "cup"
    assert breakdown(s, 0)["works"] == 0


def test_deck_of_cards_after_smith_paper_work_only():
    """Deck of Cards, E-AFT-3: draw after a Smith action completing a Paper work."""
    s = start({"seats": [{"hand": ["Pin", "Crane"], "gallery": ["Deck of Cards"]}, {}]})
    smith(s, "Pin", "Crane")
    answer(s, "after_effect", effect="Deck of Cards")
    assert any(e["event"].get("reason") == "Deck of Cards" for e in s.event_log())
    s = start({"seats": [{"hand": ["Crane", "Fan"], "gallery": ["Deck of Cards"]}, {}]})
    set_task(s, "Crane")
    answer(s, "action", action="craft")
    answer(s, "craft_work", card="Fan")
    answer(s, "wing", wing="gallery")
    assert s.current == 1  # not after a Craft


def test_gong_draws_three_then_moves_to_waiting():
    """Gong, E-AFT-10: three draws, then Gong joins the waiting area (public)."""
    s = start({"seats": [{"gallery": ["Gong"]}, {}]})
    no_task(s)
    answer(s, "after_effect", effect="Gong")
    assert not s.players[0].gallery
    assert "Gong" in names(s.players[0].hand) and len(s.players[0].hand) == 5


def test_plane_moves_a_work_after_potter():
    """Plane, E-BOO-5: after a Potter action that collected, move a work to the other wing."""
    s = start(
        {"seats": [{"hand": ["Bowl"], "gallery": ["Plane", "Amulet"]}, {}], "floor": ["Bell"]}
    )
    set_task(s, "Bowl")
    answer(s, "action", action="task")
    answer(s, "potter", card="Bell")
    answer(s, "after_effect", effect="Plane")
    answer(s, "plane_work", card="Amulet")
    assert names(s.players[0].shop) == ["Amulet"]


def test_ring_takes_a_sale_from_richer_opponent():
    """Ring, E-BOO-2/5: after selling, take a sale from an opponent with more sales."""
    s = start(
        {
            "seats": [
                {"hand": ["Crane"], "gallery": ["Ring"], "bench": ["Bell"]},
                {"sales": ["Fan", "Plane", "Coin"]},
            ]
        }
    )
    set_task(s, "Crane")
    answer(s, "action", action="task")
    answer(s, "clerk", card="Bell")
    answer(s, "after_effect", effect="Ring")
    answer(s, "ring_opponent", seat=1)
    answer(s, "ring_card", card="Coin")
    assert names(s.players[0].sales) == ["Bell", "Coin"]


def after_effects_offered(s) -> list[str]:
    """The effects of the pending after-effect choice (none if no such choice is asked)."""
    pending = s.pending()
    if not pending or pending[0].kind != "after_effect":
        return []
    return [o["effect"] for o in pending[0].options if "effect" in o]


def test_a_work_taken_by_shuriken_ends_the_game_at_once():
    """E-AFT-8, RULES 10.1.2: the wing threshold is checked right after the taken work is
    placed: a fifth work in a wing ends the game there."""
    s = start(
        {
            "seats": [
                {"hand": ["Pin", "Shuriken", "Bell", "Coin"], "gallery": ["Crane", "Fan", "Plane"]},
                {"gallery": ["Bowl", "Cup", "Dice"], "gift_shop": ["Vase", "Jar"]},
            ]
        }
    )
    smith(s, "Pin", "Shuriken")
    answer(s, "after_effect", effect="Shuriken")
    answer(s, "shuriken_opponent", seat=1)
    answer(s, "shuriken_work", card="Vase")
    answer(s, "wing", wing="gallery")
    assert len(s.players[0].gallery) == 5
    assert not s.pending() and s.outcome().details["end"] == "wing"


def test_ring_needs_an_opponent_with_strictly_more_sales():
    """Ring, E-BOO-2: counted after your own sale, an opponent with as many sales as you is no
    target; Ring is offered only against one with more."""
    offered = {}
    for theirs in (["Fan"], ["Fan", "Plane"]):
        s = start(
            {
                "seats": [
                    {"hand": ["Crane"], "gallery": ["Ring"], "bench": ["Bell"]},
                    {"sales": theirs},
                ]
            }
        )
        set_task(s, "Crane")
        answer(s, "action", action="task")
        answer(s, "clerk", card="Bell")
        assert names(s.players[0].sales) == ["Bell"]
        offered[len(theirs)] = "Ring" in after_effects_offered(s)
    assert offered == {1: False, 2: True}


def test_shuriken_needs_an_opponent_with_strictly_more_works():
    """Shuriken, E-AFT-8 and E-BOO-2: works are counted after Shuriken is placed; an opponent
    with as many works as you is no target."""
    offered = {}
    for theirs in (["Crane"], ["Crane", "Fan"]):
        s = start({"seats": [{"hand": ["Pin", "Shuriken", "Bell", "Coin"]}, {"gallery": theirs}]})
        smith(s, "Pin", "Shuriken")
        assert names(s.players[0].gallery) == ["Shuriken"]
        offered[len(theirs)] = "Shuriken" in after_effects_offered(s)
    assert offered == {1: False, 2: True}


# ----- action boosters -------------------------------------------------------------------------


def test_bell_sells_top_of_deck():
    """Bell: a Clerk action may sell the top card of the deck."""
    s = start({"seats": [{"hand": ["Crane"], "gallery": ["Bell"]}, {}], "deck": ["Cup"]})
    set_task(s, "Crane")
    answer(s, "action", action="task")
    answer(s, "clerk", source="bell")
    assert names(s.players[0].sales) == ["Cup"]


def test_brick_counts_task_cards_as_smith_support():
    """Brick, E-TSK-7: face-up task cards of the work's material support a Smith work."""
    s = start({"seats": [{"hand": ["Pin", "Bowl", "Cup"], "gallery": ["Brick"]}, {"task": "Dice"}]})
    set_task(s, "Pin")
    answer(s, "action", action="prayer")  # seat 1's Clay task
    answer(s, "action", action="task")
    answer(s, "smith_work", card="Bowl")
    answer(s, "wing", wing="gallery")  # support Cup (hand) + Dice (task) is automatic
    assert names(s.players[0].gallery) == ["Brick", "Bowl"]
    s = start({"seats": [{"hand": ["Pin", "Bowl", "Cup"]}, {"task": "Dice"}]})
    set_task(s, "Pin")
    answer(s, "action", action="prayer")
    assert [o["action"] for o in options_of(s, "action")] == ["prayer"]


def test_crane_paper_from_bench_as_support():
    """Crane, E-TSK-8: bench Paper cards supply support and go under the deck in pick order."""
    s = start(
        {
            "seats": [
                {"hand": ["Pin", "Bowl", "Cup"], "gallery": ["Crane"], "bench": ["Fan", "Plane"]},
                {},
            ]
        }
    )
    set_task(s, "Pin")
    answer(s, "action", action="task")
    answer(s, "smith_work", card="Bowl")
    answer(s, "support", source="crane", card="Plane")
    answer(s, "support", source="crane", card="Fan")
    answer(s, "wing", wing="gallery")
    assert names(s.players[0].bench) == [] and names(s.deck[:2]) == ["Fan", "Plane"]


def test_flute_takes_an_opponents_paper_work():
    """Flute, E-BOO-1: a Monk action may take an opponent's Paper work as a helper."""
    s = start({"seats": [{"hand": ["Amulet"], "gallery": ["Flute"]}, {"gallery": ["Crane"]}]})
    set_task(s, "Amulet")
    answer(s, "action", action="task")
    answer(s, "monk", source="flute")
    answer(s, "flute_target", seat=1, card="Crane")
    assert names(s.players[0].helpers) == ["Crane"] and not s.players[1].gallery


def test_flute_reaches_paper_works_in_either_wing():
    """Flute, E-BOO-1: an opponent's Paper works in the gift shop are targets too."""
    s = start({"seats": [{"hand": ["Amulet"], "gallery": ["Flute"]}, {"gift_shop": ["Crane"]}]})
    set_task(s, "Amulet")
    answer(s, "action", action="task")
    answer(s, "monk", source="flute")
    answer(s, "flute_target", seat=1, zone="gift_shop", card="Crane")
    assert names(s.players[0].helpers) == ["Crane"] and not s.players[1].shop


def test_robe_sells_all_bench_cards_of_a_material():
    """Robe."""
    s = start(
        {"seats": [{"hand": ["Crane"], "gallery": ["Robe"], "bench": ["Bell", "Fan", "Coin"]}, {}]}
    )
    set_task(s, "Crane")
    answer(s, "action", action="task")
    answer(s, "clerk", source="robe")
    answer(s, "robe_material", material="Metal")
    assert names(s.players[0].sales) == ["Bell", "Coin"] and names(s.players[0].bench) == ["Fan"]


def test_socks_collects_top_of_deck():
    """Socks: a Potter action may take the top card of the deck."""
    s = start({"seats": [{"hand": ["Bowl"], "gallery": ["Socks"]}, {}], "deck": ["Bell"]})
    set_task(s, "Bowl")
    answer(s, "action", action="task")
    answer(s, "potter", source="socks")
    assert names(s.players[0].bench) == ["Bell"]


def test_straw_lowers_smith_requirement():
    """Straw: a Cloth work needs no support under Smith."""
    s = start({"seats": [{"hand": ["Pin", "Cloak"], "gallery": ["Straw"]}, {}]})
    smith(s, "Pin", "Cloak")
    assert names(s.players[0].gallery) == ["Straw", "Cloak"]


def test_sword_hires_from_opponent_with_more_helpers():
    """Sword, E-BOO-2."""
    s = start(
        {"seats": [{"hand": ["Amulet"], "gallery": ["Sword"]}, {"helpers": ["Bell", "Coin"]}]}
    )
    set_task(s, "Amulet")
    answer(s, "action", action="task")
    answer(s, "monk", source="sword")
    answer(s, "sword_opponent", seat=1)
    answer(s, "sword_card", card="Coin")
    assert names(s.players[0].helpers) == ["Coin"]
    assert task_events(s)[0]["actions"] == 1
    used = {"type": "effect", "seat": 0, "effect": "Sword", "card": "Sword"}
    assert all(used in s.events_since(seat, 0)[0] for seat in (0, 1))  # public (RULES 14)


def test_sword_is_a_source_only_for_its_owner():
    """E-BOO-2, RULES 5.4 (Monk, Potter): without the Sword, an opponent with more helpers or
    bench cards is no source: only the floor is offered."""
    for task, kind, zone in (("Amulet", "monk", "helpers"), ("Bowl", "potter", "bench")):
        s = start({"seats": [{"hand": [task]}, {zone: ["Bell", "Coin"]}], "floor": ["Crane"]})
        set_task(s, task)
        answer(s, "action", action="task")
        assert [o["source"] for o in options_of(s, kind)] == ["floor"], kind


def test_sword_needs_an_opponent_with_strictly_more():
    """Sword, E-BOO-2: an opponent with as many helpers (Monk) or bench cards (Potter) as you is
    no source; one with more is."""
    for task, kind, zone in (("Amulet", "monk", "helpers"), ("Bowl", "potter", "bench")):
        offered = {}
        for theirs in (["Bell"], ["Bell", "Coin"]):
            s = start(
                {
                    "seats": [
                        {"hand": [task], "gallery": ["Sword"], zone: ["Pin"]},
                        {zone: theirs},
                    ],
                    "floor": ["Crane"],
                }
            )
            set_task(s, task)
            answer(s, "action", action="task")
            offered[len(theirs)] = "sword" in [o["source"] for o in options_of(s, kind)]
        assert offered == {1: False, 2: True}, kind


# ----- end-game scoring ------------------------------------------------------------------------


def test_scroll():
    """Scroll: +3."""
    assert breakdown(end_now({"seats": [{"gallery": ["Scroll"]}, {}]}), 0)["effects"] == 3


def test_bench():
    """Bench, E-SCO-5: +2 per Stone work, each once even with Go Set."""
    s = end_now({"seats": [{"gallery": ["Bench", "Go Set"], "gift_shop": ["Amulet"]}, {}]})
    assert breakdown(s, 0)["effects"] == 6


def test_tapestry():
    """Tapestry, E-SCO-5: +1 per work in its wing."""
    s = end_now({"seats": [{"gallery": ["Tapestry", "Crane", "Fan"], "gift_shop": ["Bell"]}, {}]})
    assert breakdown(s, 0)["effects"] == 3


def test_tapestry_with_go_set_counts_stone_works_of_the_other_wing():
    """Tapestry, RULES 11 step 4: with Go Set, Stone works of the other wing count too."""
    s = end_now(
        {
            "seats": [
                {"gallery": ["Tapestry", "Go Set", "Crane"], "gift_shop": ["Amulet", "Bell"]},
                {},
            ]
        }
    )
    assert breakdown(s, 0)["effects"] == 4  # three gallery works + the gift shop's Amulet


def test_fountain_reveals_are_haniwa_helpers_when_the_game_ends_in_that_task():
    """E-TSK-3, RULES 11 step 4: Stone cards revealed for Fountain count as helpers for Haniwa
    if the game ends during that Clerk task (here Bell sells the deck's last card)."""
    s = start(
        {
            "seats": [
                {"gallery": ["Fountain", "Haniwa", "Bell"], "hand": ["Crane", "Amulet", "Bench"]},
                {},
            ],
            "deck": ["Fan"],
            "exact_deck": True,
        }
    )
    set_task(s, "Crane")
    answer(s, "fountain_reveal", card="Amulet")
    answer(s, "fountain_reveal", card="Bench")
    answer(s, "action", action="task")
    answer(s, "clerk", source="bell")
    assert not s.pending() and s.outcome().details["end"] == "deck_empty"
    assert breakdown(s, 0)["effects"] == 3 * 2 and breakdown(s, 1)["effects"] == 0


def test_haniwa():
    """Haniwa: +3 per helper of the most numerous helper material."""
    s = end_now({"seats": [{"gallery": ["Haniwa"], "helpers": ["Bowl", "Cup", "Bell"]}, {}]})
    assert breakdown(s, 0)["effects"] == 6


def test_teapot():
    """Teapot: +3 per bench card of the most numerous bench material."""
    s = end_now({"seats": [{"gallery": ["Teapot"], "bench": ["Bowl", "Cup", "Bell"]}, {}]})
    assert breakdown(s, 0)["effects"] == 6


def test_coin_counts_backorders_twice():
    """Coin, E-SCO-2: qualifying backorders score an extra time; others still nothing."""
    s = end_now(
        {
            "seats": [
                {"gallery": ["Coin"], "hand": ["Bell", "Crane"], "sales": ["Ring"]},
                {"sales": ["Fan"]},
            ]
        }
    )
    assert breakdown(s, 0)["backorders"] == 6


def test_lampshade_backorders_on_ties():
    """Lampshade, E-SCO-3: Clay/Metal backorders when no one has more sales, even at zero."""
    s = end_now({"seats": [{"gallery": ["Lampshade"], "hand": ["Bowl", "Crane"]}, {}]})
    assert breakdown(s, 0)["backorders"] == 3


def test_quilt_covers_and_backorders():
    """Quilt, E-SCO-3: Paper/Stone/Cloth sales covered; backorders on ties."""
    s = end_now(
        {"seats": [{"gallery": ["Quilt"], "hand": ["Fan"], "sales": ["Amulet", "Bench"]}, {}]}
    )
    b = breakdown(s, 0)
    assert b["sales"] == 4 and b["backorders"] == 1


def test_pillar_covers_most_sold_material():
    """Pillar, E-SCO-4: sales of the most sold material count as covered."""
    s = end_now({"seats": [{"gallery": ["Pillar"], "sales": ["Bell", "Coin", "Crane"]}, {}]})
    assert breakdown(s, 0)["sales"] == 6

"""What a seat may see (RULES.md section 17) and rules checked through the view."""

from __future__ import annotations

from arena.games.mai_star import GAME

from .helpers import answer, arranged, events_of, kind

DECK = ["scholar_green", "scholar_green", "yakuza_green", "yakuza_green", "thief_green"]


def test_view_shows_own_hand_and_only_counts_of_others() -> None:
    """RULES.md 17: hand contents only for the owner; sizes, rows, discard, deck size public."""
    st = arranged(
        ["Oboro", "Momiji", "Natsumi"],
        hands={0: ["thief_red", "monk_black"]},
        guests={1: ["samurai_red"]},
        ads={2: ["okaasan_blue"]},
        deck=DECK,
    )
    view = st.view(1)
    assert view["hand"] == ["actor_green"]
    assert view["tables"][0]["hand_size"] == 2
    assert "hand" not in view["tables"][0]
    assert view["tables"][1]["guests"] == ["samurai_red"]
    assert view["tables"][2]["advertisers"] == ["okaasan_blue"]
    assert view["tables"][2]["reputation"] == {"performance": 3, "service": 7, "intelligence": 1}
    assert view["deck_size"] == 5 and view["active"] == 0 and view["phase"] == "play"
    assert "monk_black" not in str(view)


def test_selection_view() -> None:
    """RULES.md 3: during selection the remaining geishas are shown; no reputation yet."""
    st = GAME.new(3, 4)
    view = st.view(st.pending()[0].seat)
    assert view["phase"] == "selection" and len(view["available_geishas"]) == 6
    assert all("geisha" not in t for t in view["tables"])


def test_added_guests_never_trigger_geishas() -> None:
    """RULES.md 2 (add vs play), R32, R33: a guest taken by a Samurai triggers no Natsumi."""
    st = arranged(
        ["Natsumi", "Oboro", "Momiji"],
        hands={0: ["samurai_blue", "actor_red"]},
        guests={1: ["scholar_blue"]},
        ads={0: ["okaasan_blue", "okaasan_blue"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="samurai_blue")
    answer(st, "effect", action="target", target=1)
    assert st.active == 1  # no natsumi prompt: no blue card in hand, and the taken one is added
    assert [e["type"] for e in events_of(st, 0)].count("guest") == 1


def test_income_goes_to_the_holder_at_round_end() -> None:
    """RULES.md R29: a moved guest pays whoever holds it when the round is scored."""
    st = arranged(
        ["Oboro", "Momiji", "Natsumi"],
        hands={0: ["samurai_red"]},
        ads={0: ["okaasan_red", "okaasan_red"]},
        guests={1: ["doctor_green"]},
        deck=DECK,
    )
    answer(st, "action", action="guest", card="samurai_red")
    answer(st, "effect", action="target", target=1)
    scores = next(e for e in events_of(st, 2) if e["type"] == "round_score")["scores"]
    assert scores[0]["income"] == 8 + 6 and scores[1]["income"] == 0
    assert kind(st) in ("action", "pre_action")

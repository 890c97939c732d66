"""Board data, path costs and setup (RULES.md 1, 3, 6.3; rulings 17.1-17.9)."""

from __future__ import annotations

import pytest

from arena.games.motora import GAME
from arena.games.motora.board import BOARD, bfs, reference_distances
from arena.games.motora.cards import CARDS
from arena.games.motora.model import ACTIVE
from arena.games.motora.victory import idols_required
from tests.games.motora.helpers import events, fresh, index


def test_bfs_matches_reference_distance_table() -> None:
    """RULES.md 6.3, 17.16: BFS round the volcano and the ocean = board.json distance table."""
    table = reference_distances()
    assert len(table) == len(BOARD.village_spots)
    for village, row in table.items():
        for pos, dist in row.items():
            assert BOARD.land_dist[village][pos] == dist, (village, pos)
        assert set(row) == set(BOARD.positions)


def test_canoe_distance_never_longer_and_volcano_never_entered() -> None:
    """RULES.md 6.3 / CR10: ocean may be crossed with the canoe; the volcano never."""
    for village in BOARD.village_spots:
        for pos, d in BOARD.land_dist[village].items():
            assert BOARD.sea_dist[village][pos] <= d
    assert "r4c4" not in BOARD.positions
    assert BOARD.sea_dist["r1c2"]["r1c4"] == 2  # across the F2 bay
    assert bfs(BOARD.grid, "r3c4", False)["r5c4"] == 4  # round the volcano


def test_board_counts() -> None:
    """RULES.md 1.1, 17.1, 17.3: 40 positions, 8 villages, 32 tiles, volcano fixed at the centre."""
    assert len(BOARD.positions) == 40
    assert len(BOARD.village_spots) == 8 and len(BOARD.village_tiles) == 8
    assert len(BOARD.tile_spots) == 32 and len(BOARD.other_tiles) == 32
    assert sum(1 for c in CARDS if c.deck == "event") == 30
    assert sum(1 for c in CARDS if c.deck == "craftsmen") == 24
    assert sum(1 for c in CARDS if c.deck == "temple") == 16


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_setup(players: int) -> None:
    """RULES.md 3, 17.4, 17.5, 17.6: tiles, village choice from the first player, idols, decks."""
    st = GAME.new(players, 7)
    assert sorted(st.tile_at.values()) == sorted(BOARD.tiles)
    chosen = []
    while st.pending()[0].kind == "village":
        d = st.pending()[0]
        assert d.seat == (st.first + len(chosen)) % players
        assert [o["position"] for o in d.options] == [
            p for p in BOARD.village_spots if p not in chosen
        ]
        chosen.append(d.options[-1]["position"])
        st.act(d.seat, len(d.options) - 1)
    for t in st.tribes:
        tile = BOARD.tiles[st.tile_at[t.village]]
        assert (t.food, t.water, t.shelter) == (
            tile.start["food"],
            tile.start["water"],
            tile.start["shelter"],
        )
        assert len(st.own(t.seat, (ACTIVE,))) == 6
    on_board = [i.pos for i in st.idols]
    ruined = [p for p in BOARD.village_spots if p not in chosen]
    assert on_board[: len(ruined)] == ruined
    expected = {2: 6, 3: 5, 4: 4, 5: 3, 6: 3}[players]
    assert len(st.idols) == expected
    assert idols_required(st) == {2: 4, 3: 3, 4: 3, 5: 2, 6: 2}[players]
    if players == 6:
        # 17.6: the sixth idol sits on the temple matching a d6
        roll = events(st, "die")[0]["roll"]
        assert on_board[-1] == st.pos_of_tile["T31" if roll <= 3 else "T32"]
    assert {k: len(v) for k, v in st.decks.items()} == {"event": 30, "craftsmen": 24, "temple": 16}
    assert st.turn == 1 and st.pending()[0].seat == st.first


def test_villages_produce_nothing_and_ruins_are_ordinary() -> None:
    """RULES.md 3.5, 17.2: a village gives no Gather; a ruined village is a normal position."""
    st = fresh(2)
    d = st.pending()[0]
    st.act(d.seat, index(d, action="pass"))
    st.act(1, 0)
    d = st.pending()[0]
    assert d.kind == "place"
    spots = [o["position"] for o in d.options]
    assert "r1c4" in spots and "r1c2" in spots  # ruined neighbour village and home


def test_dice_are_reported() -> None:
    """RULES.md conventions, 17.9: every die the engine rolls appears as a public event."""
    st = GAME.new(6, 3)
    while st.pending()[0].kind == "village":
        st.act(st.pending()[0].seat, 0)
    assert events(st, "die")[0]["for"] == "temple_idol"
    _, cursor = st.events_since(0, 0)
    assert cursor == len(st.event_log())

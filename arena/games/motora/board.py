"""The island, loaded once from the packaged ``board.json``, and its path costs (RULES.md 1.1, 6.3).

Nothing about the layout is hard-coded: positions, villages, tiles, fishing spots, the eruption
sequence and the per-player-count idol table all come from the data file, so a replacement
``board.json`` with the same schema changes the island without code changes.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OCEAN_CHARS = ("~", "f")
VOLCANO_CHAR = "X"


@dataclass(frozen=True)
class Tile:
    """One board tile: a village tile or a non-village tile from the tile pool."""

    id: str
    name: str
    group: str | None  # selection group ("plant", "water", ...); None for village tiles
    d6: tuple[int, ...]
    gather: tuple[dict[str, Any], ...]  # options: {"resource", "subtype", "amount"}
    special: str | None  # "wild_boars", "craftsmen_hut", "temple" or None
    start: dict[str, int] | None  # starting stock of a village tile


@dataclass(frozen=True)
class FishingSpot:
    id: str
    food: int
    fishable_from: tuple[str, ...]


@dataclass
class Board:
    """Static facts about the island; shared by every game (never mutated after loading)."""

    rows: int
    cols: int
    grid: tuple[str, ...]
    positions: tuple[str, ...]  # every land position in board order (volcano excluded)
    order: dict[str, int]  # position -> board-order index
    village_spots: tuple[str, ...]
    tile_spots: tuple[str, ...]
    neighbours: dict[str, tuple[str, ...]]  # land positions adjacent to a land position
    fishing: dict[str, FishingSpot]
    fishing_near: dict[str, tuple[str, ...]]  # position -> adjacent fishing spot ids
    village_tiles: tuple[Tile, ...]
    other_tiles: tuple[Tile, ...]
    tiles: dict[str, Tile]
    groups: dict[str, dict[int, str]]  # group -> d6 number -> tile id
    group_tiles: dict[str, tuple[str, ...]]
    eruption: tuple[str, ...]
    idols_required: dict[int, int]
    constants: dict[str, Any]
    land_dist: dict[str, dict[str, int]] = field(default_factory=dict)
    sea_dist: dict[str, dict[str, int]] = field(default_factory=dict)


def pos_id(row: int, col: int) -> str:
    return f"r{row}c{col}"


def bfs(grid: tuple[str, ...], start: str, may_cross_ocean: bool) -> dict[str, int]:
    """Shortest 4-neighbour step counts from ``start`` to every reachable land position (6.3).

    Land cells are always passable whatever their state; ocean and fishing cells only when
    ``may_cross_ocean`` (Outrigger Canoe); the volcano never. Only land positions are returned.
    """
    rows, cols = len(grid), len(grid[0])
    sr, sc = _parse(start)
    seen = {(sr, sc): 0}
    queue = deque([(sr, sc)])
    while queue:
        r, c = queue.popleft()
        for nr, nc in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)):
            if not (0 <= nr < rows and 0 <= nc < cols) or (nr, nc) in seen:
                continue
            ch = grid[nr][nc]
            if ch == VOLCANO_CHAR or (ch in OCEAN_CHARS and not may_cross_ocean):
                continue
            seen[(nr, nc)] = seen[(r, c)] + 1
            queue.append((nr, nc))
    return {
        pos_id(r, c): d
        for (r, c), d in seen.items()
        if grid[r][c] not in (*OCEAN_CHARS, VOLCANO_CHAR)
    }


def _parse(position: str) -> tuple[int, int]:
    row, col = position[1:].split("c")
    return int(row), int(col)


def _tile(raw: dict[str, Any], group: str | None) -> Tile:
    return Tile(
        id=raw["id"],
        name=raw["name"],
        group=group,
        d6=tuple(raw.get("d6") or ()),
        gather=tuple(dict(o) for o in raw.get("gather_options") or ()),
        special=raw.get("special"),
        start=dict(raw["starting_resources"]) if raw.get("starting_resources") else None,
    )


def load_board(path: Path) -> Board:
    """Parse ``board.json`` and precompute every land-to-land distance, with and without ocean."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    grid = tuple(raw["map"])
    land = [
        pos_id(r, c)
        for r in range(len(grid))
        for c in range(len(grid[0]))
        if grid[r][c] not in (*OCEAN_CHARS, VOLCANO_CHAR)
    ]
    land_set = frozenset(land)
    neighbours = {}
    for p in land:
        r, c = _parse(p)
        near = [pos_id(nr, nc) for nr, nc in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1))]
        neighbours[p] = tuple(sorted((q for q in near if q in land_set), key=land.index))
    fishing = {
        f["id"]: FishingSpot(f["id"], int(f["food"]), tuple(f["fishable_from"]))
        for f in raw["fishing_spots"]
    }
    fishing_near = {p: tuple(f.id for f in fishing.values() if p in f.fishable_from) for p in land}
    pool = raw["tile_pool"]
    village_tiles = tuple(_tile(t, None) for t in pool["village_tiles"])
    other_tiles = tuple(_tile(t, t["selection_group"]) for t in pool["non_village_tiles"])
    groups = {
        g: {int(k): v for k, v in spec["tiles"].items()}
        for g, spec in raw["selection_groups"].items()
    }
    board = Board(
        rows=len(grid),
        cols=len(grid[0]),
        grid=grid,
        positions=tuple(land),
        order={p: i for i, p in enumerate(land)},
        village_spots=tuple(sorted(raw["village_spots"], key=land.index)),
        tile_spots=tuple(sorted(raw["tile_spots"], key=land.index)),
        neighbours=neighbours,
        fishing=fishing,
        fishing_near=fishing_near,
        village_tiles=village_tiles,
        other_tiles=other_tiles,
        tiles={t.id: t for t in village_tiles + other_tiles},
        groups=groups,
        group_tiles={g: tuple(spec["tile_ids"]) for g, spec in raw["selection_groups"].items()},
        eruption=tuple(raw["eruption_sequence"]),
        idols_required={int(k): int(v["idols_required"]) for k, v in raw["players"].items()},
        constants=dict(raw["constants"]),
    )
    for p in land:
        board.land_dist[p] = bfs(grid, p, False)
        board.sea_dist[p] = bfs(grid, p, True)
    return board


DATA_DIR = Path(__file__).parent
BOARD = load_board(DATA_DIR / "board.json")


def reference_distances() -> dict[str, dict[str, int]]:
    """The distance table shipped in ``board.json`` (for the path-cost test)."""
    raw = json.loads((DATA_DIR / "board.json").read_text(encoding="utf-8"))
    return raw["reference_distances"]["village_to_position"]

"""The report's plots as inline SVG, drawn by matplotlib.

Why matplotlib to SVG: a report must open offline and stay small. An SVG figure is a few tens of
kilobytes of markup inside the page, needs no JavaScript library (Plotly's is about 3.5 MB per
self-contained page) and keeps its text as text. Every data series carries an SVG id
(``gid``) so tests and readers can find its points; hover titles come from SVG ``<title>``.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence

import matplotlib as mpl
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure

from arena.ladder.ratings import HistoryRow

mpl.rcParams.update(
    {
        "svg.fonttype": "none",  # text stays text: smaller, selectable, searchable
        "svg.hashsalt": "arena-report",  # the same data gives the same markup
        "font.size": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
    }
)


def slug(name: str) -> str:
    """An id-safe rendering of a bot name (names are ``[A-Za-z0-9_.@-]``)."""
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in name)


def _svg(fig: Figure) -> str:
    buffer = io.StringIO()
    FigureCanvasSVG(fig).print_svg(buffer, metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    text = text[text.index("<svg") :]  # inline: no XML prologue or doctype
    return _PATH.sub(lambda m: _NUMBER.sub(_rounded, m[0]), text)


# A path's coordinates, which matplotlib writes with 6 decimals, to a tenth of a point: a
# long series' path is about half the size, drawn the same at any zoom a page is read at.
_PATH = re.compile(r' d="[^"]*"')
_NUMBER = re.compile(r"-?\d+\.\d{2,}")


def _rounded(number: re.Match[str]) -> str:
    text = f"{float(number[0]):.1f}"
    return "0" if text in ("0.0", "-0.0") else text.removesuffix(".0")


HISTORY_POINTS = 200  # per bot: a plot's size must not grow with the ladder's history
H2H_BOTS = 24  # the heatmap shows the best bots; the table and bot pages show every pair


def sampled(count: int, points: int = HISTORY_POINTS) -> list[int]:
    """At most ``points`` indexes of ``count`` evenly spread, the first and last included."""
    if count <= points:
        return list(range(count))
    return sorted({round(i * (count - 1) / (points - 1)) for i in range(points)})


Point = tuple[int, HistoryRow]  # a row of a bot's history, with its index among the bot's rows


def rating_history(
    history: Sequence[HistoryRow], bots: Sequence[str], most: int = HISTORY_POINTS
) -> str:
    """mu per bot after each of its matches, with a band of two sigmas either side; at most
    ``most`` points per bot (evenly spread over its matches, the first and last included), so
    the plot of a long history costs what it shows."""
    by_bot: dict[str, list[HistoryRow]] = {}
    for r in history:
        by_bot.setdefault(r.bot, []).append(r)
    series = {}
    for bot in bots:
        every = by_bot.get(bot, [])
        series[bot] = [(i, every[i]) for i in sampled(len(every), most)]
    return rating_lines(series)


def rating_lines(series: Mapping[str, Sequence[Point]], markers: bool = True) -> str:
    """The plot of :func:`rating_history` from points already chosen, per bot in this order
    (a bot without any is left out); ``markers``: a marker on each point (which a reader can
    count), else the line alone (a smaller SVG)."""
    fig = Figure(figsize=(7.5, 3.6), layout="constrained")
    ax = fig.add_subplot()
    for bot, points in series.items():
        if not points:
            continue
        x = [i + 1 for i, _ in points]
        mu = [r.mu for _, r in points]
        low = [r.mu - 2 * r.sigma for _, r in points]
        high = [r.mu + 2 * r.sigma for _, r in points]
        (line,) = ax.plot(x, mu, linewidth=1.2, label=bot, marker="o" if markers else "",
                          markersize=2.5)  # fmt: skip
        line.set_gid(f"history-{slug(bot)}")
        band = ax.fill_between(x, low, high, alpha=0.15, color=line.get_color(), linewidth=0)
        band.set_gid(f"band-{slug(bot)}")
    ax.set_xlabel("the bot's matches, in schedule order")
    ax.set_ylabel("TrueSkill mu (band: mu ± 2 sigma)")
    if ax.lines:  # a bot with no stored match yet has no line to name
        ax.legend(loc="upper left", fontsize=8, ncols=min(4, len(ax.lines)), frameon=False)
    return _svg(fig)


def head_to_head(order: Sequence[str], pairs: Mapping[tuple[str, str], tuple[int, int]]) -> str:
    """A heatmap of the share of meetings the row bot finished ahead of the column bot, of the
    first ``H2H_BOTS`` bots of ``order`` (its size grows with the square of the bots)."""
    order = order[:H2H_BOTS]
    n = len(order)
    size = max(3.0, 0.55 * n + 1.8)
    fig = Figure(figsize=(size + 1.2, size), layout="constrained")
    ax = fig.add_subplot()
    grid = [[float("nan")] * n for _ in range(n)]
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            ahead, met = pairs.get((a, b), (0, 0))
            if met:
                grid[i][j] = ahead / met
    image = ax.imshow(grid, cmap="RdBu", vmin=0, vmax=1)
    image.set_gid("h2h-cells")
    for i in range(n):
        for j in range(n):
            ahead, met = pairs.get((order[i], order[j]), (0, 0))
            if met:
                dark = abs(ahead / met - 0.5) > 0.3  # the colour map's ends are dark
                colour = "white" if dark else "black"
                text = ax.text(
                    j, i, f"{ahead}/{met}", ha="center", va="center", fontsize=7, color=colour
                )
                text.set_gid(f"h2h-{i}-{j}")
    ax.set_xticks(range(n), order, rotation=45, ha="right")
    ax.set_yticks(range(n), order)
    ax.set_xlabel("opponent")
    fig.colorbar(image, ax=ax, shrink=0.8, label="share of meetings ahead")
    return _svg(fig)


def seat_effects(seats: Sequence[int], means: Sequence[float], cis: Sequence[tuple]) -> str:
    """Mean relative score per seat position with its interval (complete duplicate sets)."""
    fig = Figure(figsize=(4.5, 2.8), layout="constrained")
    ax = fig.add_subplot()
    lows = [m - lo for m, (lo, _) in zip(means, cis, strict=True)]
    highs = [hi - m for m, (_, hi) in zip(means, cis, strict=True)]
    bars = ax.bar([str(s + 1) for s in seats], means, yerr=[lows, highs], capsize=4)
    for seat, bar in zip(seats, bars, strict=True):
        bar.set_gid(f"seat-{seat + 1}")
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("seat (1 plays first)")
    ax.set_ylabel("relative score")
    return _svg(fig)

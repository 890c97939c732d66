"""Pure rule helpers: duo values and duo legality (RULES.md 2, 4.2 and section 13).

Kept free of state so the engine, tests and bots share one definition of a legal duo.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import COLOUR, NUMBER


def duo_value(left: int, right: int) -> int:
    """The two-digit value of a duo: the left card gives the tens (R10, R31)."""
    return 10 * NUMBER[left] + NUMBER[right]


def is_happy_mochi(left: int, right: int) -> bool:
    """Both digits equal (R9)."""
    return NUMBER[left] == NUMBER[right]


def same_colour(left: int, right: int) -> bool:
    return COLOUR[left] == COLOUR[right]


def legal_duo_starts(hand: Sequence[int], top_t: int, top_u: int, direction: int) -> list[int]:
    """Ascending indices ``i`` such that ``hand[i], hand[i+1]`` is a legal duo (RULES.md 4.2).

    ``direction`` is +1 for '+' (play higher) and -1 for '-' (play lower). A Happy Mochi ignores
    both conditions (R9); otherwise the strict value condition (R11) and, when the main duo
    ``top_t, top_u`` is same-coloured, the colour condition (R12) must both hold.
    """
    main = 10 * NUMBER[top_t] + NUMBER[top_u]
    colour_rule = COLOUR[top_t] == COLOUR[top_u]
    starts = []
    for i in range(len(hand) - 1):
        left, right = hand[i], hand[i + 1]
        nl, nr = NUMBER[left], NUMBER[right]
        if nl == nr or (
            (10 * nl + nr - main) * direction > 0
            and (not colour_rule or COLOUR[left] == COLOUR[right])
        ):
            starts.append(i)
    return starts

"""Mottainai (Carl Chudyk, Asmadi Games 2015): the complete game for 2 to 5 players.

See README.md for decision kinds, views, events and rulings.
"""

from .game import Mottainai

GAME = Mottainai()

__all__ = ["GAME", "Mottainai"]

"""Mai-Star (Seiji Kanai; AEG 2013 English edition) for 3 to 6 players. See README.md."""

from .game import GAME, MaiStarGame
from .state import MaiStarState

__all__ = ["GAME", "MaiStarGame", "MaiStarState"]

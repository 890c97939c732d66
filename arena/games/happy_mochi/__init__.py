"""Happy Mochi (Zygomatic, 2025) for Arena: rules engine per the packaged RULES.md."""

from .game import HappyMochi
from .state import MochiState

GAME = HappyMochi()

__all__ = ["GAME", "HappyMochi", "MochiState"]

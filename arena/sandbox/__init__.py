"""Starting bot processes at the strongest isolation level this machine allows.

``launch`` starts one bot; ``probe`` says which level is in force here and why stronger ones
are not. See ``docs/sandbox.md`` for the layers and what each one stops.
"""

from .limits import SandboxLimits
from .process import LEVEL, BotProcess, Usage, bot_environment, launch

__all__ = ["LEVEL", "BotProcess", "SandboxLimits", "Usage", "bot_environment", "launch"]

"""A match as a worker receives it, and what the worker sends back: typed on both sides.

Between the runner and a worker (a local process or a Dask worker) a job and its result travel
as plain dicts, so they pickle the same way to either and a worker depends on no object of the
runner's. Each side converts them with the one pair of functions here: ``as_dict`` and
``from_dict``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.match.bots import BotSpec
from arena.match.faults import FaultPolicy
from arena.match.results import Limits, is_host_void, is_load_void
from arena.sandbox import SandboxLimits, choose

if TYPE_CHECKING:  # a worker imports this module: not the runner's parser and scheduler
    from arena.ladder.config import LadderConfig
    from arena.ladder.schedule import MatchSpec


@dataclass(frozen=True)
class MatchJob:
    """Everything a worker needs to play one match (absolute paths)."""

    match_id: str
    game: str
    seed: int
    options: dict[str, Any]
    limits: Limits
    sandbox_limits: SandboxLimits
    # The level the runner settled on: the ladder's, else the strongest the runner has. A
    # worker that cannot give it voids the match (``host:``), never falls to a weaker one.
    sandbox: str
    policy: FaultPolicy
    bots: tuple[BotSpec, ...]  # in seat order
    replay: Path | None
    lane: int  # a kept bot process plays one rotation: never a deal twice

    @classmethod
    def of(cls, cfg: LadderConfig, spec: MatchSpec, key: bytes) -> MatchJob:
        """The job of ``spec``, a match of the ladder ``cfg`` whose secret deal key is ``key``:
        the engine seed comes from it (``engine_seed``), never from the schedule alone. (Imported
        here: the schedule's module brings numpy, which a worker, importing this one, never
        needs: a quarter of its start-up.)"""
        from arena.ladder.schedule import engine_seed

        bots = {b.name: b for b in cfg.bots}
        return cls(
            match_id=spec.match_id,
            game=cfg.game.id,
            seed=engine_seed(key, spec.seed),
            options=cfg.options,
            limits=cfg.limits,
            sandbox_limits=cfg.sandbox_limits,
            sandbox=cfg.sandbox or choose(None),
            policy=cfg.policy,
            bots=tuple(bots[n] for n in spec.bots),
            replay=cfg.replays / f"{spec.match_id}.json.gz" if cfg.replays else None,
            lane=spec.rotation,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "game": self.game,
            "seed": self.seed,
            "options": self.options,
            "limits": _plain(self.limits),
            "sandbox_limits": _plain(self.sandbox_limits),
            "sandbox": self.sandbox,
            "policy": _plain(self.policy),
            "bots": [
                {
                    "name": b.name,
                    "command": list(b.command),
                    "cwd": None if b.cwd is None else str(b.cwd),
                    "transport": b.transport,
                    "limits": _plain(b.limits) if b.limits else None,
                    "reuse": b.reuse,
                }
                for b in self.bots
            ],
            "replay": None if self.replay is None else str(self.replay),
            "lane": self.lane,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchJob:
        return cls(
            match_id=data["match_id"],
            game=data["game"],
            seed=data["seed"],
            options=data["options"],
            limits=Limits(**data["limits"]),
            sandbox_limits=SandboxLimits(**data["sandbox_limits"]),
            sandbox=data["sandbox"],
            policy=FaultPolicy(**data["policy"]),
            bots=tuple(
                BotSpec(
                    b["name"],
                    tuple(b["command"]),
                    None if b["cwd"] is None else Path(b["cwd"]),
                    b["transport"],
                    SandboxLimits(**b["limits"]) if b["limits"] else None,
                    b["reuse"],
                )
                for b in data["bots"]
            ),
            replay=None if data["replay"] is None else Path(data["replay"]),
            lane=data["lane"],
        )


@functools.lru_cache(maxsize=64)
def _cached_plain(part: Limits | SandboxLimits | FaultPolicy) -> dict[str, Any]:
    return part.as_dict()


def _plain(part: Limits | SandboxLimits | FaultPolicy) -> dict[str, Any]:
    """``part.as_dict()``, converted once per distinct object: every job of a ladder holds the
    same few, and ``dataclasses.asdict`` copies deeply (a sixth of the runner's work per short
    match). A copy, so no two jobs share one dict."""
    return dict(_cached_plain(part))


@dataclass(frozen=True)
class Returned:
    """What came back for one match: its result as the store writes it, or why it is void.

    ``result`` is ``MatchResult.as_dict()`` with the ``worker`` (``host:pid``) that played it.
    A void is never a bot's fault (see ``arena.match.results.VoidKind``); ``worker_died`` says
    the worker died with this match in flight, so which of its matches caused it is not known.
    """

    result: dict[str, Any] | None
    void: str | None = None
    worker_died: bool = False

    @property
    def host_void(self) -> bool:
        """This machine failed to start a bot: the run stops."""
        return is_host_void(self.void)

    @property
    def load_void(self) -> bool:
        """This machine was too busy to give a seat its time: played again, the run goes on."""
        return is_load_void(self.void)

    def as_dict(self) -> dict[str, Any]:
        if self.result is not None:
            return self.result
        return {"void": self.void, "worker_died": self.worker_died}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Returned:
        void = data.get("void")
        if void is None:
            return cls(data)
        return cls(None, void, bool(data.get("worker_died")))

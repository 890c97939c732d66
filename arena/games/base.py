"""The game contract: what every rules engine offers the referee.

A game is a pure, deterministic rules engine. It knows nothing of processes, sockets or time; the
referee drives it through this small surface, the same for every game:

* :class:`Game` describes the game (id, title, player range, typed :class:`OptionSpec` options, the
  range its scores stay in) and creates a :class:`State` from a player count, a seed and validated
  options.
* :class:`State` answers four questions: which :class:`Decision` objects are awaited now
  (``pending``), how an answer changes the game (``act``), what a seat may know (``view``,
  ``events_since``) and, once nothing is pending, how the game ended (``outcome``).
* A :class:`Decision` lists every legal choice as a small msgpack-able map; a bot answers with the
  index of one of them. An engine never offers an illegal option, and breaks large choices into a
  sequence of small ones, so option lists stay short.

Rules every engine follows (they make games reproducible across processes):

* all randomness comes from the state's own ``KeyedRandom(seed)`` (``arena/games/rng.py``: a
  generator no outputs can be traced back from, so a deal is as secret as its seed);
* options and deals are never built by iterating a ``set`` or a hash-ordered mapping of hashed keys;
* the same seed and the same answers give the same game, event for event, in every process.

Hidden information lives in one place: :meth:`State.view` and the :class:`EventLog` visibility
rules. The referee sends nothing else about the state to a bot.

Positions are states as data (like FEN for chess): :meth:`State.position` writes plain JSON-able
data holding everything needed to continue the game exactly (zones, decks in order, the pending
decision and its sub-step, the random generator, scores so far), and :meth:`Game.load` rebuilds
and validates a state from it. A hand-written *short* position (``"form": "short"``, cards by name,
defaults for what is not said) is expanded by :meth:`Game.expand` first. Each game's README
documents its fields. :meth:`Game.determinize` builds a full state consistent with one seat's
knowledge, hidden cards sampled at random: what search bots explore.
"""

from __future__ import annotations

import copy
import pickle
import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

AUTO = "auto"


class IllegalChoice(Exception):
    """An answer the current state cannot accept: wrong seat, stale decision or bad index."""


class PositionError(ValueError):
    """A position that cannot be loaded; the message starts with the field that is wrong."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where


POSITION_KEYS = ("game", "version", "players", "options")  # every position's envelope


class OptionError(ValueError):
    """A game option that does not exist or has a value of the wrong type or range."""


@dataclass(frozen=True)
class OptionSpec:
    """One typed game option with its default.

    ``type`` is ``int``, ``bool`` or ``str``. ``choices`` restricts a value to a fixed list;
    ``minimum``/``maximum`` bound an int. Values given as strings (from a command line or a
    ladder file) are parsed by :meth:`parse`. A default of None means "decided by the game"
    (for example from the player count); such an option also accepts None or ``auto``.
    """

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None

    def parse(self, raw: Any) -> Any:
        """Convert ``raw`` to this option's type and check its range; raise OptionError if not."""
        if self.default is None and (raw is None or str(raw).strip().lower() == AUTO):
            return None
        value = raw
        if isinstance(raw, str) and self.type is not str:
            value = self._from_text(raw)
        if self.type is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise OptionError(f"option {self.name!r} must be an integer, got {raw!r}")
        if self.type is bool and not isinstance(value, bool):
            raise OptionError(f"option {self.name!r} must be true or false, got {raw!r}")
        if self.type is str and not isinstance(value, str):
            raise OptionError(f"option {self.name!r} must be a string, got {raw!r}")
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise OptionError(f"option {self.name!r} must be one of {allowed}, got {raw!r}")
        if self.minimum is not None and value < self.minimum:
            raise OptionError(f"option {self.name!r} must be at least {self.minimum}, got {raw!r}")
        if self.maximum is not None and value > self.maximum:
            raise OptionError(f"option {self.name!r} must be at most {self.maximum}, got {raw!r}")
        return value

    def _from_text(self, text: str) -> Any:
        if self.type is bool:
            lowered = text.strip().lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise OptionError(f"option {self.name!r} must be true or false, got {text!r}")
        try:
            return int(text.strip(), 10)
        except ValueError:
            raise OptionError(f"option {self.name!r} must be an integer, got {text!r}") from None

    def describe(self) -> str:
        """A one-line summary for listings such as ``arena games``."""
        extra = ""
        if self.choices is not None:
            extra = f" ({'|'.join(str(c) for c in self.choices)})"
        elif self.minimum is not None or self.maximum is not None:
            lo = "" if self.minimum is None else self.minimum
            hi = "" if self.maximum is None else self.maximum
            extra = f" ({lo}..{hi})"
        default = AUTO if self.default is None else repr(self.default)
        return f"{self.name}={default}{extra}"


@dataclass(frozen=True)
class Decision:
    """A choice the engine awaits from one seat.

    ``kind`` is a stable name documented in the game's README; ``options`` is a tuple of small
    maps (str keys; int, str, bool, None, list or map values), each one legal choice; the answer is
    an index into it. ``prompt`` is a short sentence for humans and logs.
    """

    seat: int
    kind: str
    options: tuple[dict[str, Any], ...]
    prompt: str


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    ``scores``: the game's points per seat, higher is better (games counted in penalty points
    report them negated). ``ranks``: 0 is best; equal ranks are ties and the next rank skips
    (0, 0, 2). ``teams``: lists of seats playing together, or None. ``details``: game-specific
    extras such as per-round scores (msgpack-able).
    """

    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    teams: tuple[tuple[int, ...], ...] | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"scores": list(self.scores), "ranks": list(self.ranks)}
        if self.teams is not None:
            out["teams"] = [list(t) for t in self.teams]
        if self.details:
            out["details"] = dict(self.details)
        return out


def competition_ranks(keys: Sequence[Any]) -> tuple[int, ...]:
    """Ranks (0 best) for per-seat sort keys where a *smaller* key is better; ties share a rank."""
    order = sorted(range(len(keys)), key=lambda s: keys[s])
    ranks = [0] * len(keys)
    for pos, seat in enumerate(order):
        if pos and keys[seat] == keys[order[pos - 1]]:
            ranks[seat] = ranks[order[pos - 1]]
        else:
            ranks[seat] = pos
    return tuple(ranks)


@dataclass
class _Entry:
    public: dict[str, Any]
    only: tuple[int, ...] | None
    private: dict[int, dict[str, Any]]


class EventLog:
    """The single place where an engine decides who sees what happened.

    Each event is a map with at least ``type``. ``only`` restricts an event to some seats;
    ``private`` adds fields for some seats (for example the identity of a card that only its
    drawer sees). A seat's cursor is simply a position in the log, so ``since`` is cheap.
    """

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: list[_Entry] = []

    def emit(
        self,
        event: dict[str, Any],
        *,
        only: Iterable[int] | None = None,
        private: Mapping[int, Mapping[str, Any]] | None = None,
    ) -> None:
        self._entries.append(
            _Entry(
                event,
                None if only is None else tuple(only),
                {s: dict(extra) for s, extra in (private or {}).items()},
            )
        )

    def __len__(self) -> int:
        return len(self._entries)

    def since(self, seat: int, cursor: int) -> tuple[list[dict[str, Any]], int]:
        """Events visible to ``seat`` from position ``cursor`` on, and the new cursor."""
        out = []
        for entry in self._entries[cursor:]:
            if entry.only is not None and seat not in entry.only:
                continue
            extra = entry.private.get(seat)
            out.append({**entry.public, **extra} if extra else dict(entry.public))
        return out, len(self._entries)

    def full(self) -> list[dict[str, Any]]:
        """The omniscient log for replays: every event with its visibility and private parts."""
        out = []
        for entry in self._entries:
            item: dict[str, Any] = {"event": entry.public}
            if entry.only is not None:
                item["only"] = list(entry.only)
            if entry.private:
                item["private"] = {str(s): extra for s, extra in sorted(entry.private.items())}
            out.append(item)
        return out


class State(ABC):
    """A game in progress. Subclasses hold plain data plus their own generator
    (``rng.KeyedRandom``).

    Every event goes through ``self.log`` (an :class:`EventLog`), which serves
    ``events_since``, ``event_log`` and ``event_count``. A seat has at most one pending
    decision at a time.
    """

    log: EventLog

    @abstractmethod
    def pending(self) -> tuple[Decision, ...]:
        """Decisions awaited now; empty once the game is over. Several = a simultaneous choice."""

    @abstractmethod
    def act(self, seat: int, choice: int) -> None:
        """Apply ``seat``'s answer to its pending decision.

        Raises IllegalChoice when ``seat`` has no pending decision, or ``choice`` is not an index
        into its options. Answers to a simultaneous choice are buffered and resolved, in seat
        order, once every seat has answered.
        """

    @abstractmethod
    def view(self, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may know now, and nothing else (msgpack-able). A new map at each
        call that shares nothing mutable with the state: the referee keeps the last one sent
        to a seat that takes deltas, to compare the next one with (arena.match.views)."""

    @abstractmethod
    def outcome(self) -> Outcome:
        """The result; only valid once ``pending()`` is empty."""

    def is_over(self) -> bool:
        return not self.pending()

    def events_since(self, seat: int, cursor: int) -> tuple[list[dict[str, Any]], int]:
        """Events visible to ``seat`` after ``cursor`` and the new cursor (start with 0)."""
        return self.log.since(seat, cursor)

    def event_log(self) -> list[dict[str, Any]]:
        """The omniscient event log (for replays and their verification)."""
        return self.log.full()

    def event_count(self) -> int:
        """How many events the omniscient log holds (a cheap position for replays)."""
        return len(self.log)

    def clone(self) -> State:
        """An independent copy (search bots and tests explore from it)."""
        return copy.deepcopy(self)

    @abstractmethod
    def position(self) -> dict[str, Any]:
        """This state as a position: JSON-able data that :meth:`Game.load` continues exactly.

        It starts with the envelope of :func:`Game.envelope`. The event log is not part of it:
        a loaded state's log starts empty, so cursors start again at 0.
        """

    def snapshot(self) -> bytes:
        """A serialised copy of the whole state, RNG included; restore with :meth:`Game.restore`.

        Snapshots hold hidden information and use pickle: they are for the referee, tests and
        local search, never for data received from a bot.
        """
        return pickle.dumps(self, protocol=pickle.HIGHEST_PROTOCOL)


class Game(ABC):
    """A game's facts and its factory. Subclasses set the class attributes and ``_new``."""

    id: ClassVar[str]
    title: ClassVar[str]
    version: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options: ClassVar[tuple[OptionSpec, ...]] = ()

    def option(self, name: str) -> OptionSpec:
        for spec in self.options:
            if spec.name == name:
                return spec
        known = ", ".join(s.name for s in self.options) or "none"
        raise OptionError(f"game {self.id!r} has no option {name!r} (options: {known})")

    def resolve_options(
        self, given: Mapping[str, Any] | None = None, players: int | None = None
    ) -> dict[str, Any]:
        """All options with defaults filled in; values may be typed or strings. Raises OptionError.

        With ``players`` the player count is checked too, together with any option that depends
        on it (see :meth:`check_options`).
        """
        values = {spec.name: spec.default for spec in self.options}
        for name, raw in (given or {}).items():
            values[name] = self.option(name).parse(raw)
        if players is not None:
            self.check_players(players)
        self.check_options(values, players)
        return values

    def check_options(self, values: Mapping[str, Any], players: int | None) -> None:
        """Cross-option checks a game may add (raise OptionError); none by default.

        ``players`` is None when options are checked before the seat count is known.
        """

    @abstractmethod
    def score_range(self, players: int, options: Mapping[str, Any]) -> tuple[float, float]:
        """The lowest and the highest score a seat can end a game with, at this player count
        and with these resolved options: a true bound, however unlikely its extremes.

        Ladder statistics are guaranteed for any distribution of scores inside this range (a
        rare huge score cannot fool them), so it must hold for every game; the tighter it is,
        the fewer duplicate sets a verdict on mean scores needs (``ladders/README.md``).
        """

    def public_data(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Static facts every seat may know (card tables, a board), sent once in ``welcome``.

        Keeping them out of ``view`` keeps every turn message small. None by default.
        """
        return {}

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            raise OptionError(
                f"{self.title} takes {self.min_players} to {self.max_players} players, "
                f"got {players}"
            )

    def new(self, players: int, seed: int, options: Mapping[str, Any] | None = None) -> State:
        """A fresh game for ``players`` seats, dealt from ``seed``."""
        return self._new(players, seed, self.resolve_options(options, players))

    @abstractmethod
    def _new(self, players: int, seed: int, options: dict[str, Any]) -> State:
        """Create the state; ``options`` are complete and validated."""

    def envelope(self, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """The fields every position starts with (``POSITION_KEYS``)."""
        return {
            "game": self.id,
            "version": self.version,
            "players": players,
            "options": dict(options),
        }

    def load(self, position: Mapping[str, Any]) -> State:
        """Rebuild a state from a position (full, or short with ``"form": "short"``) and check it.

        Raises :class:`PositionError` naming the field that breaks the game's invariants.
        """
        if not isinstance(position, Mapping):
            raise PositionError("position", "must be a map")
        data = dict(position)
        if not isinstance(data.get("options") or {}, Mapping):
            raise PositionError("options", "must be a map of option names to values")
        try:
            if data.get("form") == "short":
                data = self.expand(data)
            if data.get("game") != self.id:
                raise PositionError("game", f"is {data.get('game')!r}, expected {self.id!r}")
            players = data.get("players")
            if not isinstance(players, int) or isinstance(players, bool):
                raise PositionError("players", "must be an integer")
            try:
                self.check_players(players)
                options = self.resolve_options(data.get("options") or {}, players)
            except OptionError as exc:
                raise PositionError("options", str(exc)) from None
            return self._load(players, options, data)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            if isinstance(exc, PositionError):
                raise
            # A value of a type the engine's own checks did not foresee (a list for a card).
            raise PositionError("position", f"malformed ({type(exc).__name__}: {exc})") from None

    @abstractmethod
    def _load(self, players: int, options: dict[str, Any], position: dict[str, Any]) -> State:
        """Build and validate the state; the envelope is checked, ``options`` resolved."""

    @abstractmethod
    def expand(self, short: Mapping[str, Any]) -> dict[str, Any]:
        """A full position from the game's hand-written short form (documented in its README)."""

    @abstractmethod
    def determinize(
        self,
        players: int,
        options: Mapping[str, Any],
        seat: int,
        view: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]],
        rng: random.Random,
    ) -> State:
        """A full state ``seat`` cannot tell from the real one, with the decision it is asked now.

        ``view`` is the seat's latest view and ``events`` every event it was sent, in order; the
        cards it cannot have seen are dealt from ``rng`` among those still unaccounted for.
        """

    def restore(self, snapshot: bytes) -> State:
        state = pickle.loads(snapshot)
        if not isinstance(state, State):
            raise TypeError("not a game state snapshot")
        return state

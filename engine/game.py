"""The game/state interface every engine follows, modelled on DeepMind OpenSpiel.

A :class:`Game` describes the rules and parameters and makes initial states from a seed.
A :class:`State` is one position: it knows whose turn it is, the legal actions, how to apply
one, whether the game is over and what each player got. Chance (shuffling, drawing from the
boneyard or stock) is driven by the seeded ``random.Random`` owned by the state, so a game is
replayable from ``(seed, actions)``: ``game.replay(seed, actions)``.

Actions are immutable, hashable values (small frozen dataclasses or ints) that the game
defines; ``state.action_to_string(a)`` gives a human reading, ``state.action_record(a)`` the
:class:`engine.actions.ActionRecord` of the schema all games share and
``state.action_to_json(a)`` its JSON (``{"type", "tiles", "place", ...}``);
``state.action_from_json(d)`` finds the legal action a JSON action names. Engines are pure
logic: no I/O, vision or web code lives in ``engine/``.
"""

from __future__ import annotations

import copy
import math
import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from .actions import ActionRecord

# Player ids with a special meaning, as in OpenSpiel.
TERMINAL = -4
"""``current_player()`` once the game is over."""

Action = Hashable
#: The action type of a game's states (``State[A]``).
A = TypeVar("A", bound=Hashable)


class IllegalActionError(ValueError):
    """Raised by ``apply_action`` for an action that is not in ``legal_actions()``."""


class Game(ABC):
    """Rules and parameters of one game (e.g. double-6 draw to 100 with 2 players).

    Subclasses set ``num_players``. ``name`` (the short id used by the CLI and the web page) is
    the name of the game's record in the catalog (:data:`engine.GAMES`), found by its class.
    """

    num_players: int = 1

    @property
    def name(self) -> str:
        """The short name of this game in the catalog (``""`` for a class outside it)."""
        from .catalog import name_of

        return name_of(type(self))

    @abstractmethod
    def new_initial_state(self, seed: int | None = None) -> State[Any]:
        """A fresh deal. The same seed gives the same deal."""

    def replay(self, seed: int | None, actions: Sequence[Any]) -> State[Any]:
        """Rebuild a state from its seed and the list of actions played since the deal.

        Raises:
            IllegalActionError: an action was not legal where it was applied.
        """
        state = self.new_initial_state(seed)
        for a in actions:
            state.apply_action(a)
        return state

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class State(ABC, Generic[A]):
    """One position of a game. Subclasses implement the abstract methods.

    ``self.rng`` is the seeded source of every chance event; ``self.history`` lists the actions
    applied so far (so ``game.replay(seed, state.history)`` reproduces the state).
    """

    def __init__(self, game: Game, seed: int | None):
        self.game = game
        self.seed = seed
        self.rng = random.Random(seed)
        self.history: list[A] = []

    # --- the OpenSpiel-like core -------------------------------------------------------
    @abstractmethod
    def current_player(self) -> int:
        """Index of the player to act (0-based), or :data:`TERMINAL` when the game is over."""

    @abstractmethod
    def legal_actions(self) -> list[A]:
        """The actions the current player may take now; empty when terminal."""

    @abstractmethod
    def _apply(self, action: A) -> None:
        """Apply a known-legal action (subclasses implement; callers use apply_action)."""

    @abstractmethod
    def is_terminal(self) -> bool:
        """True once the game is over."""

    @abstractmethod
    def returns(self) -> list[float]:
        """Per-player result: the score so far (points) or, for solitaires, 1.0 won / 0.0 not."""

    def apply_action(self, action: A) -> None:
        """Play ``action`` for the current player.

        Raises:
            IllegalActionError: the game is over or the action is not legal now.
        """
        if self.is_terminal():
            raise IllegalActionError("the game is over; no more actions")
        if action not in self.legal_actions():
            raise IllegalActionError(f"illegal action {self.action_to_string(action)}")
        self._apply(action)
        self.history.append(action)

    def clone(self) -> State[A]:
        """An independent deep copy (the RNG included, so chance continues identically)."""
        return copy.deepcopy(self)

    # --- readings ----------------------------------------------------------------------
    def action_to_string(self, action: A) -> str:
        """A short human reading of ``action``."""
        return str(action)

    @abstractmethod
    def action_record(self, action: A) -> ActionRecord:
        """``action`` in the schema all games share (:mod:`engine.actions`): its type, the tiles
        it handles and its place. Read in this state (e.g. the Big Clock's drawn tile)."""

    def action_to_json(self, action: A) -> dict[str, Any]:
        """The JSON of :meth:`action_record`: ``{"type", "tiles"[, "place"][, "source"]}``."""
        return self.action_record(action).to_json()

    def action_from_json(self, data: Any) -> A:
        """The legal action whose JSON (:meth:`action_to_json`) is ``data``.

        Raises:
            ValueError: ``data`` is not an action of the common schema.
            IllegalActionError: no legal action of this state has that JSON.
        """
        want = ActionRecord.from_json(data)
        for a in self.legal_actions():
            if self.action_record(a) == want:
                return a
        raise IllegalActionError(f"no legal action {want.to_json()} here")

    def __str__(self) -> str:
        return f"<{type(self).__name__} player={self.current_player()}>"


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (used by the benchmark scripts).

    Returns ``(low, high)`` as fractions in [0, 1]; ``(0.0, 1.0)`` when ``n == 0``.
    """
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mcnemar(before: list[bool], after: list[bool]) -> tuple[int, int, float]:
    """Exact two-sided McNemar test of paired wins (the same deals or games played two ways,
    used by the benchmark scripts): ``(won only before, won only after, p)``.

    Raises:
        ValueError: the lists differ in length.
    """
    if len(before) != len(after):
        raise ValueError(f"{len(before)} against {len(after)} games: not the same seeds")
    b = sum(1 for x, y in zip(before, after) if x and not y)
    c = sum(1 for x, y in zip(before, after) if y and not x)
    m = b + c
    p = min(1.0, 2 * sum(math.comb(m, i) for i in range(min(b, c) + 1)) / 2**m) if m else 1.0
    return b, c, p


@dataclass
class Hint:
    """A recommended action with the evidence behind it (what the phone shows).

    Attributes:
        action: the recommended action (one of ``state.legal_actions()``), or None when there is
            nothing to do.
        ranking: ``[(action, value), ...]`` best first; ``value`` is in the unit named by
            ``value_unit`` (``"win_rate"`` in [0, 1], nan when no search finished, or
            ``"points"``).
        value_unit: what ``value`` measures.
        win_chance: estimated chance in [0, 1] to win from here (solitaires), else None.
        explanation: one human sentence.
        elapsed_ms: time the hint took, in milliseconds.
        plan: the whole line the hint recommends, ``action`` first (a Tableaux turn of several
            plays); ``[action]`` or empty where the hint looks one action ahead.
        search: what the search behind the best action found, per game (solitaires:
            ``{"won", "finished", "unknown", "raw"}``), or None.
    """

    action: Any
    ranking: list[tuple[Any, float]] = field(default_factory=list)
    value_unit: str = ""
    win_chance: float | None = None
    explanation: str = ""
    elapsed_ms: float = 0.0
    plan: list[Any] = field(default_factory=list)
    search: dict[str, Any] | None = None

    def to_json(self, state: State[Any], top: int = 10) -> dict[str, Any]:
        """JSON-ready hint for ``state`` (the state it was asked for): ``action`` (text),
        ``action_json`` (:meth:`State.action_to_json`, None without action), ``value_unit``,
        ``win_chance``, ``explanation``, ``elapsed_ms``, ``ranking`` (the best ``top``:
        ``[{"action": text, "json": ..., "value": v or None}]``) and ``plan`` (JSON actions,
        each read in the state the ones before it lead to; cut where one is not legal)."""

        def value(v: float) -> float | None:
            return None if isinstance(v, float) and math.isnan(v) else v

        plan: list[dict[str, Any]] = []
        at = state
        for k, a in enumerate(self.plan):
            if at.is_terminal() or a not in at.legal_actions():
                break
            plan.append(at.action_to_json(a))
            if k + 1 < len(self.plan):
                at = at.clone() if at is state else at
                at.apply_action(a)
        return {
            "action": None if self.action is None else state.action_to_string(self.action),
            "action_json": None if self.action is None else state.action_to_json(self.action),
            "value_unit": self.value_unit,
            "win_chance": self.win_chance,
            "explanation": self.explanation,
            "elapsed_ms": self.elapsed_ms,
            "ranking": [
                {
                    "action": state.action_to_string(a),
                    "json": state.action_to_json(a),
                    "value": value(v),
                }
                for a, v in self.ranking[:top]
            ],
            "plan": plan,
        }

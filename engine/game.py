"""The game/state interface every engine follows, modelled on DeepMind OpenSpiel.

A :class:`Game` describes the rules and parameters and makes initial states from a seed.
A :class:`State` is one position: it knows whose turn it is, the legal actions, how to apply
one, whether the game is over and what each player got. Chance (shuffling, drawing from the
boneyard or stock) is driven by the seeded ``random.Random`` owned by the state, so a game is
replayable from ``(seed, actions)``: ``game.replay(seed, actions)``.

Actions are immutable, hashable values (small frozen dataclasses or ints) that the game
defines; ``state.action_to_string(a)`` gives a human reading and ``state.action_to_json(a)`` a
JSON-ready dict. Engines are pure logic: no I/O, vision or web code lives in ``engine/``.
"""

from __future__ import annotations

import copy
import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from dataclasses import asdict, is_dataclass
from typing import Any

# Player ids with a special meaning, as in OpenSpiel.
TERMINAL = -4
"""``current_player()`` once the game is over."""

Action = Hashable


class IllegalActionError(ValueError):
    """Raised by ``apply_action`` for an action that is not in ``legal_actions()``."""


class Game(ABC):
    """Rules and parameters of one game (e.g. double-6 draw to 100 with 2 players).

    Subclasses set ``name`` (the short id used by the CLI and the web page, e.g. ``"draw100"``)
    and ``num_players``.
    """

    name: str = ""
    num_players: int = 1

    @abstractmethod
    def new_initial_state(self, seed: int | None = None) -> State:
        """A fresh deal. The same seed gives the same deal."""

    def replay(self, seed: int | None, actions: Sequence[Action]) -> State:
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


class State(ABC):
    """One position of a game. Subclasses implement the abstract methods.

    ``self.rng`` is the seeded source of every chance event; ``self.history`` lists the actions
    applied so far (so ``game.replay(seed, state.history)`` reproduces the state).
    """

    def __init__(self, game: Game, seed: int | None):
        self.game = game
        self.seed = seed
        self.rng = random.Random(seed)
        self.history: list[Action] = []

    # --- the OpenSpiel-like core -------------------------------------------------------
    @abstractmethod
    def current_player(self) -> int:
        """Index of the player to act (0-based), or :data:`TERMINAL` when the game is over."""

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """The actions the current player may take now; empty when terminal."""

    @abstractmethod
    def _apply(self, action: Action) -> None:
        """Apply a known-legal action (subclasses implement; callers use apply_action)."""

    @abstractmethod
    def is_terminal(self) -> bool:
        """True once the game is over."""

    @abstractmethod
    def returns(self) -> list[float]:
        """Per-player result: the score so far (points) or, for solitaires, 1.0 won / 0.0 not."""

    def apply_action(self, action: Action) -> None:
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

    def clone(self) -> State:
        """An independent deep copy (the RNG included, so chance continues identically)."""
        return copy.deepcopy(self)

    # --- readings ----------------------------------------------------------------------
    def action_to_string(self, action: Action) -> str:
        """A short human reading of ``action``."""
        return str(action)

    def action_to_json(self, action: Action) -> Any:
        """A JSON-ready form of ``action`` (dataclasses become dicts)."""
        if is_dataclass(action):
            return {k: _jsonable(v) for k, v in asdict(action).items()}
        return _jsonable(action)

    def __str__(self) -> str:
        return f"<{type(self).__name__} player={self.current_player()}>"


def _jsonable(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if hasattr(v, "low") and hasattr(v, "high"):
        return [v.low, v.high]
    return v


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


class Hint:
    """A recommended action with the evidence behind it (what the phone shows).

    Attributes:
        action: the recommended action (one of ``state.legal_actions()``), or None when there is
            nothing to do.
        ranking: ``[(action, value), ...]`` best first; ``value`` is in the unit named by
            ``value_unit`` (e.g. ``"win_rate"`` in [0, 1] or ``"points"``).
        value_unit: what ``value`` measures.
        win_chance: estimated chance in [0, 1] to win from here (solitaires), else None.
        explanation: one human sentence.
        elapsed_ms: time the hint took, in milliseconds.
    """

    def __init__(
        self,
        action: Action | None,
        ranking: list[tuple[Action, float]] | None = None,
        value_unit: str = "",
        win_chance: float | None = None,
        explanation: str = "",
        elapsed_ms: float = 0.0,
    ):
        self.action = action
        self.ranking = list(ranking or [])
        self.value_unit = value_unit
        self.win_chance = win_chance
        self.explanation = explanation
        self.elapsed_ms = elapsed_ms

    def __repr__(self) -> str:
        return (
            f"Hint(action={self.action!r}, win_chance={self.win_chance}, "
            f"value_unit={self.value_unit!r}, n_ranked={len(self.ranking)})"
        )

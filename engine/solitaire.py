"""Shared helpers for the three solitaires: Good Neighbors, The Big Clock and Luzon.

SOLITAIRE MODULE INTERFACE
==========================
Each of ``engine/good_neighbors.py``, ``engine/big_clock/`` and ``engine/luzon.py`` provides,
at module level (the terminal front end ``companion/terminal/solitaire.py`` and the benchmark
``scripts/bench_solitaires.py`` use only these names):

- The Game class on the common interface of ``engine/game.py``:
  ``GoodNeighborsGame(max_pip=12|9|6)``, ``BigClockGame(max_pip=12|9|6)``,
  ``LuzonGame(variant=None|"sixes")``. Its states have ``current_player()`` 0 or ``TERMINAL``,
  ``returns()`` ``[1.0]`` when won and ``[0.0]`` otherwise, and
  ``determinize(rng) -> State``: a clone whose unseen stock is reshuffled with ``rng`` (a
  ``random.Random``); the layout the player sees is unchanged. For a game with nothing hidden
  (Luzon) it is a plain clone.
- ``random_action(state, rng) -> action``: a uniformly random legal action.
- ``greedy_action(state) -> action``: a simple, sensible one-step rule (documented per game).
- ``solve(state, node_limit=...) -> bool | None``: perfect-information solver that knows the
  stock order (the ceiling). True: a win exists; False: none; None: ``node_limit`` search nodes
  were used up before an answer.
- ``solve_line(state, node_limit=...) -> list[action] | None`` (optional): a winning action list
  from ``state`` when the solver finds one, else None.
- ``hint(state, samples=..., seed=...) -> engine.game.Hint``: what a player asks the phone for.
  The player sees the layout but not the stock order, so the hint samples ``samples`` orders of
  the unseen stock (``state.determinize(rng)``), solves each one after each candidate action and
  recommends the action that wins in most samples. ``Hint.ranking`` is ``[(action, win_rate)]``
  best first, ``value_unit="win_rate"``, ``Hint.win_chance`` the best action's rate in [0, 1].
  :func:`determinized_hint` below does this loop for any game.
- ``GAME_SIZES``: ``[(label, params), ...]`` the variants to benchmark, e.g.
  ``[("double-12", {"max_pip": 12}), ("double-9", {"max_pip": 9}), ("double-6", {"max_pip": 6})]``.
- A position constructor for the camera side, a classmethod of the Game class
  ``state_from_position(...)`` (its arguments are per game, e.g. Good Neighbors
  ``state_from_position(grid, stock, seed=None)``, Luzon
  ``state_from_position(columns, reserve, seed=None)``) that raises ``ValueError`` for an
  impossible position (a tile twice, a wrong grid size, a tile outside the set).
- ``str(state)`` renders the layout the player sees as a few text lines (the terminal prints
  it), including the stock size and what was set aside or removed where the game has that.
- Optional, for the terminal front end: ``menu_actions(state) -> list[action]`` (the actions to
  number; default all legal actions) and ``parse_action(state, text) -> action | None`` (free-form
  input such as ``"1+3"``; raise ValueError with a message for bad text) and
  ``menu_text(state, action) -> str | None`` (what to type for an action not on the menu).

Actions are immutable, hashable values (frozen dataclasses). ``state.action_to_string(a)`` reads
them for people.
"""

from __future__ import annotations

import random
import statistics
import time
from abc import abstractmethod
from collections.abc import Callable, Hashable, Sequence
from typing import Any, ClassVar

from .game import TERMINAL, Hint, State

Action = Hashable

#: ``evaluate(det_state, actions, node_limit) -> [True | False | None per action]``: does each
#: action, applied to a determinized state (stock order known), still lead to a win?
Evaluator = Callable[[State, Sequence[Action], int], list]


class SearchLimit(Exception):
    """Raised inside a solver when its node budget is used up (callers turn it into None)."""


class NodeBudget:
    """A counter of solver nodes shared by one search.

    ``spend()`` counts one node and raises :class:`SearchLimit` once more than ``limit`` nodes
    were spent. ``limit`` is a count of search nodes (positions expanded).
    """

    __slots__ = ("limit", "used")

    def __init__(self, limit: int):
        if limit <= 0:
            raise ValueError(f"node limit must be positive, got {limit}")
        self.limit = limit
        self.used = 0

    def spend(self) -> None:
        self.used += 1
        if self.used > self.limit:
            raise SearchLimit()


def clone_rng(rng: random.Random) -> random.Random:
    """An independent copy of ``rng`` in the same state (for fast ``State.clone`` overrides)."""
    out = random.Random()
    out.setstate(rng.getstate())
    return out


class SolitaireState(State):
    """Base of the solitaire states (Good Neighbors, The Big Clock, Luzon).

    One player (0) until the game is over (:data:`engine.game.TERMINAL`); ``returns()`` is
    ``[1.0]`` when won and ``[0.0]`` otherwise; the legal actions are computed once per position
    (``self._legal``, cleared by every action); ``clone()`` copies only what an action changes;
    ``determinize(rng)`` reshuffles the face-down stock.

    Subclasses implement :meth:`is_won`, :meth:`_compute_legal` (``[]`` once the game is over)
    and ``_apply``, and set :attr:`COPIED` (the list attributes an action changes in place: a
    clone gets copies of them; other attributes are shared, so they must be immutable values or
    be replaced, not changed, by an action; :meth:`_copy_into` makes deeper copies) and
    :attr:`STOCK` (the attribute holding the face-down stock in draw order, or None when nothing
    is hidden, as in Luzon).
    """

    COPIED: ClassVar[tuple[str, ...]] = ()
    STOCK: ClassVar[str | None] = None

    def __init__(self, game: Any, seed: int | None):
        super().__init__(game, seed)
        self._legal: list[Any] | None = None

    @abstractmethod
    def is_won(self) -> bool:
        """True when the layout is won (the rules' goal reached)."""

    @abstractmethod
    def _compute_legal(self) -> list[Any]:
        """The legal actions of this position, in the game's order; [] when it is over."""

    def _actions(self) -> list[Any]:
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def legal_actions(self) -> list[Any]:
        return list(self._actions())

    def apply_action(self, action: Action) -> None:
        super().apply_action(action)
        self._legal = None

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else 0

    def is_terminal(self) -> bool:
        return not self._actions()

    def returns(self) -> list[float]:
        return [1.0 if self.is_won() else 0.0]

    def clone(self) -> Any:
        """An independent copy: its own RNG (same state), history and :attr:`COPIED` lists."""
        c = object.__new__(type(self))
        c.__dict__.update(self.__dict__)
        c.rng = clone_rng(self.rng)
        c.history = list(self.history)
        for name in self.COPIED:
            setattr(c, name, list(getattr(self, name)))
        self._copy_into(c)
        return c

    def _copy_into(self, c: Any) -> None:
        """Deeper copies for :meth:`clone` (e.g. Luzon's columns); nothing by default."""

    def determinize(self, rng: random.Random) -> Any:
        """A clone with the face-down stock (:attr:`STOCK`) reshuffled by ``rng``; the layout
        the player sees is unchanged. A plain clone when nothing is hidden."""
        c = self.clone()
        if self.STOCK is not None:
            rng.shuffle(getattr(c, self.STOCK))
        return c


def random_legal_action(state: State, rng: random.Random) -> Action:
    """A uniformly random legal action of ``state``.

    Raises:
        ValueError: the state has no legal action (it is terminal).
    """
    actions = state.legal_actions()
    if not actions:
        raise ValueError("no legal action: the game is over")
    return rng.choice(actions)


def evaluate_by_solving(solve: Callable[..., bool | None]) -> Evaluator:
    """An :data:`Evaluator` that clones, applies each action and calls ``solve(child, node_limit=)``.

    Games with a faster internal search pass their own evaluator to :func:`determinized_hint`.
    """

    def evaluate(det: State, actions: Sequence[Action], node_limit: int) -> list:
        out = []
        for a in actions:
            child = det.clone()
            child.apply_action(a)
            out.append(solve(child, node_limit=node_limit))
        return out

    return evaluate


def determinized_hint(
    state: State,
    *,
    evaluate: Evaluator,
    samples: int = 20,
    seed: int | None = None,
    node_limit: int = 20_000,
    actions: Sequence[Action] | None = None,
    perfect_information: bool = False,
    screen_samples: int = 4,
    keep: int = 6,
    sample_node_budget: int | None = None,
    min_node_limit: int = 50,
    calibration_key: str | None = None,
    settings: str | None = None,
) -> Hint:
    """Determinized Monte Carlo hint: rank the actions by their win rate over sampled stocks.

    For ``samples`` orders of the unseen stock (``state.determinize(rng)``, the same orders for
    every action), ``evaluate`` tells whether each action still wins. An unknown answer (the
    solver hit ``node_limit``) is **not** a win: it is left out of the rate (rate = wins /
    finished searches) and reported. Ranking uses ``(wins + 0.5) / (finished + 1)`` so that an
    action whose searches never finished sits at one half, not at a win; ties keep the order
    of ``actions`` (games pass their greedy preference first). With ``perfect_information=True``
    (nothing hidden, e.g. Luzon) one sample is enough and the answer is exact when it finished.

    The quoted chance (``Hint.win_chance``) is not the raw rate: with hidden tiles the search
    knows each sampled order, so its rate is optimistic. It is the calibrated chance of
    ``engine.calibration.shown_chance(calibration_key, raw, settings)`` (what hints with that
    raw rate led to on benchmark deals), or None where that tenth is not calibrated. For a
    perfect-information game a finished search is exact: chance 1.0 or 0.0.

    Args:
        state: the position; not modified.
        evaluate: see :data:`Evaluator`.
        samples: number of sampled stock orders (>= 1).
        seed: seed of the sampling (same seed, same hint).
        node_limit: solver nodes allowed per action and sample.
        actions: the candidate actions (default ``state.legal_actions()``).
        screen_samples, keep: when there are more than ``keep`` candidates, all of them get the
            first ``screen_samples`` samples and only the best ``keep`` get the rest (successive
            halving; the ranking lists the screened-out ones after them).
        sample_node_budget: when set, the per-action limit is at most this many nodes divided
            by the number of live candidates (but at least ``min_node_limit``), so a position
            with hundreds of candidate actions stays fast.
        calibration_key, settings: the calibration entry (``"<game>/<size>"``) and the hint
            settings it must have been measured with; None: no chance is quoted.

    Returns:
        :class:`engine.game.Hint` with ``ranking`` ``[(action, win_rate)]`` best first
        (``value_unit="win_rate"``, the raw rate over finished searches; nan when none
        finished), ``win_chance`` the calibrated chance or None, ``elapsed_ms`` in ms, and
        ``Hint.search`` a dict ``{"won", "finished", "unknown", "raw"}`` for the best action
        (``raw`` None when no search finished). For a terminal state:
        ``Hint(None, win_chance=returns()[0])``.

    Raises:
        ValueError: ``samples`` < 1.
    """
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    t0 = time.perf_counter()
    if state.is_terminal():
        won = state.returns()[0]
        return Hint(
            None,
            [],
            "win_rate",
            won,
            "the game is over: " + ("won" if won else "lost"),
            (time.perf_counter() - t0) * 1000,
        )
    cands = list(state.legal_actions() if actions is None else actions)
    n = 1 if perfect_information else samples
    rng = random.Random(seed)
    wins = [0] * len(cands)
    done = [0] * len(cands)
    tried = [0] * len(cands)
    live = list(range(len(cands)))

    def rank_score(i: int) -> float:
        return (wins[i] + 0.5) / (done[i] + 1)

    for k in range(n):
        if k == screen_samples and len(live) > keep:
            # successive halving: only the best ``keep`` candidates get the remaining samples
            live = sorted(live, key=lambda i: (-rank_score(i), i))[:keep]
        det = state.determinize(random.Random(rng.getrandbits(64)))
        limit = node_limit
        if sample_node_budget is not None:
            limit = max(min_node_limit, min(node_limit, sample_node_budget // len(live)))
        for i, r in zip(live, evaluate(det, [cands[i] for i in live], limit)):
            tried[i] += 1
            if r is not None:
                done[i] += 1
                wins[i] += bool(r)
    order = sorted(range(len(cands)), key=lambda i: (-tried[i], -rank_score(i), i))
    ranking = [(cands[i], wins[i] / done[i] if done[i] else float("nan")) for i in order]
    b = order[0]
    best = cands[b]
    unknown = tried[b] - done[b]
    raw = wins[b] / done[b] if done[b] else None
    if perfect_information:
        chance = raw
        why = (
            "this move keeps a winning line"
            if raw == 1.0
            else "no move wins from here any more (this one follows the simple rule)"
            if raw == 0.0
            else "the search was cut short: win chance unknown"
        )
    else:
        from .calibration import shown_chance

        shown = shown_chance(calibration_key, raw, settings) if calibration_key else None
        chance = None if shown is None else shown.chance
        if raw is None:
            why = (
                f"no search finished on its {tried[b]} sampled stock orders "
                "(the node limit cut them): win chance unknown"
            )
        else:
            why = (
                f"with the stock order known it would win in {wins[b]} of {done[b]} sampled "
                "orders"
                + (
                    f" ({unknown} more search{'es' if unknown > 1 else ''} unfinished)"
                    if unknown
                    else ""
                )
            )
            if shown is not None:
                why += (
                    f"; hints like this led to a win {100 * shown.chance:.0f}% of the time "
                    f"(95% interval {100 * shown.low:.0f}-{100 * shown.high:.0f}%, "
                    f"{shown.hints} hints on {shown.deals} benchmark deals)"
                )
            else:
                why += "; win chance not shown: quotes like this are not calibrated"
    text = f"{state.action_to_string(best)}: {why}"
    return Hint(
        best,
        ranking,
        "win_rate",
        chance,
        text,
        (time.perf_counter() - t0) * 1000,
        plan=[best],
        search={"won": wins[b], "finished": done[b], "unknown": unknown, "raw": raw},
    )


def play_out(state: State, policy: Callable[[State], Action], max_turns: int = 10_000) -> bool:
    """Play ``state`` to the end with ``policy(state) -> action``; True when won.

    Modifies ``state``. Raises ValueError when the game does not end within ``max_turns``.
    """
    for _ in range(max_turns):
        if state.is_terminal():
            return state.returns()[0] == 1.0
        state.apply_action(policy(state))
    raise ValueError(f"the game did not end within {max_turns} turns")


def exhaustive_win(state: State) -> bool:
    """Can ``state`` be won, by plain search over the State API (no memo, stock order known)?

    The reference the fast solvers are tested against; exponential, so only for small positions.
    """
    if state.is_terminal():
        return state.returns()[0] == 1.0
    for a in state.legal_actions():
        child = state.clone()
        child.apply_action(a)
        if exhaustive_win(child):
            return True
    return False


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` by linear interpolation; nan when empty."""
    if not values:
        return float("nan")
    if len(values) == 1:
        return float(values[0])
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    k = min(98, max(0, round(q * 100) - 1))
    return float(cuts[k])


def json_ready(obj: Any) -> Any:
    """Tiles become ``"a-b"`` strings, tuples lists (for reports and the terminal)."""
    if isinstance(obj, (list, tuple)):
        return [json_ready(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): json_ready(v) for k, v in obj.items()}
    if hasattr(obj, "low") and hasattr(obj, "high"):
        return str(obj)
    return obj

"""Tableaux (2 players; RULES.md section 5, seed ``002_*.txt``) on the common state interface.

Every choice the seed leaves open is written down in ``docs/tableaux-rules.md``; the short
version, as implemented here:

- A game: coin toss (the state's seeded RNG) picks who starts the first hand; each hand the
  double-N set is shuffled, each player gets ``hand_size`` tiles (player 0 first), the next tile
  is the **starter**, laid vertically with its low end on cell ``(0, 0)`` and its high end on
  ``(1, 0)``; the rest is the boneyard.
- A turn must play at least one tile; with no legal play the player passes (:data:`PASS`) and
  scores -3. After a corner or centre play (even for 0 points) or any double the turn *may* go on
  (the player may also stop with :data:`END_TURN`); a side play of a non-double ends it, and so
  does having no legal play left. Playing the last tile of the hand while the turn goes on draws
  a fresh hand (up to ``hand_size`` from the boneyard) and the turn goes on. After the turn the
  player draws back up to ``hand_size``.
- The hand ends (no penalty) when neither player can play, or when the boneyard is empty and a
  player holds no tile. The player with more points scored in that hand wins it and starts the
  next; on a tie the player who did not start the hand starts the next.
- The game ends the moment a player's total reaches the target (121 double-6, 361 double-9); only
  the scoring player's total moves at a time, so there is no tie at the target.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Union

from ..actions import ActionRecord, Cells
from ..game import TERMINAL, Game, State
from ..tiles import DominoSet, Tile
from .board import Board, Cell, Placement, are_adjacent, can_be_built

#: (hand size, target points) per set, RULES.md section 5.
SIZES = {6: (4, 121), 9: (5, 361)}
PASS_PENALTY = 3
STARTER_CELLS: tuple[Cell, Cell] = ((0, 0), (1, 0))


@dataclass(frozen=True, order=True)
class Place:
    """Play ``tile`` with its low end on ``low_cell`` and its high end on ``high_cell``.

    Cells are ``(row, col)``, row increasing downwards. For a double, ``low_cell < high_cell``.
    """

    tile: Tile
    low_cell: Cell
    high_cell: Cell

    def __str__(self) -> str:
        return f"{self.tile.low}@{self.low_cell} {self.tile.high}@{self.high_cell}"


@dataclass(frozen=True, order=True)
class Pass:
    """No legal play at the start of a turn: -3 points, the turn ends."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, order=True)
class EndTurn:
    """Stop a turn that could go on (after a corner/centre play or a double)."""

    def __str__(self) -> str:
        return "end turn"


PASS = Pass()
END_TURN = EndTurn()
TableauxAction = Union[Place, Pass, EndTurn]  # noqa: UP007 (PyPy 3.9 runs the benchmarks, docs/solitaires.md)


class _HybridMethod:
    """Descriptor: a method that gets the game instance when called on one, else the class."""

    def __init__(self, func: Any):
        self.func = func
        self.__doc__ = func.__doc__

    def __get__(self, obj: Any, cls: type) -> Any:
        target = obj if obj is not None else cls

        def bound(*args: Any, **kwargs: Any) -> Any:
            return self.func(target, *args, **kwargs)

        bound.__doc__ = self.func.__doc__
        return bound


class TableauxGame(Game):
    """Two-player Tableaux with a double-6 set (hands of 4, to 121) or double-9 (hands of 5, to
    361), RULES.md section 5.

    Raises:
        ValueError: ``max_pip`` is not 6 or 9.
    """

    num_players = 2

    def __init__(self, max_pip: int = 6):
        if max_pip not in SIZES:
            raise ValueError(f"Tableaux is played with double-6 or double-9, not double-{max_pip}")
        self.max_pip = max_pip
        self.hand_size, self.target = SIZES[max_pip]
        self.tile_set = DominoSet(max_pip)

    def new_initial_state(self, seed: int | None = None) -> TableauxState:
        """A new game: coin toss for the first player, then the first hand is dealt."""
        return TableauxState(self, seed)

    def __repr__(self) -> str:
        return f"TableauxGame(max_pip={self.max_pip})"

    @_HybridMethod
    def state_from_position(
        target: Any,
        placed: Sequence[tuple[Any, Cell, Cell]],
        hand: Sequence[Tile],
        scores: Sequence[int] = (0, 0),
        player: int = 0,
        opponent_hand_count: int | None = None,
        seed: int | None = None,
        max_pip: int | None = None,
        continuing: bool = False,
        hand_starter: int | None = None,
        check_build: bool = True,
    ) -> TableauxState:
        """Build a state from a seen position (the camera side uses this).

        Call it on a game (``TableauxGame(9).state_from_position(...)``) or on the class
        (``TableauxGame.state_from_position(..., max_pip=9)``; default double-6).

        Args:
            placed: the tableau, one entry per tile: ``(tile, cell1, cell2)``. With a
                :class:`Tile` the tile's **low** end is on ``cell1`` and its **high** end on
                ``cell2``. With a pair of ints ``(a, b)`` (e.g. ``TileDetection.pips``) ``a`` is
                on ``cell1`` and ``b`` on ``cell2``. Cells are ``(row, col)`` ints, row
                increasing downwards, col to the right; any origin (negatives allowed).
            hand: the tiles of the player to move (``player``), at most the hand size.
            scores: game totals (points) of players 0 and 1.
            player: 0 or 1, the player to move (the one holding ``hand``).
            opponent_hand_count: tiles in the other player's hand; default the hand size or
                as many unseen tiles as there are.
            seed: seeds the shuffle that deals the unseen tiles (set minus tableau minus hand)
                to the opponent's hand and the boneyard, and all later chance.
            max_pip: the set, only when called on the class (6 or 9).
            continuing: True when the player already played this turn and may go on (then the
                legal actions include :data:`END_TURN` instead of :data:`PASS`).
            hand_starter: who started this hand (for the tie rule); default ``player``.
            check_build: refuse a tableau that no order of legal plays builds
                (:func:`~engine.tableaux.board.can_be_built`; a misread tile shows here; when
                the bounded search gives up the tableau is accepted). False for made-up puzzles.

        Returns:
            A :class:`TableauxState` with empty hand scores and an empty history. The player to
            move keeps the turn even if the hand could be over (nobody able to play); the
            end-of-hand check runs at the start of the next turn. The opponent's hand is a
            sample of the unseen tiles, so use the state for the player to move only.

        Raises:
            ValueError: an impossible position: no tile placed, a tile twice (tableau or hand),
                a tile not in the set, a number outside 0..max_pip, two cells of one tile not
                edge-adjacent, two tiles on one cell, a tableau in several pieces, a tableau no
                order of legal plays builds (``check_build``), a hand too big, a bad player or
                opponent hand count.
        """
        if isinstance(target, TableauxGame):
            game = target
            if max_pip is not None and max_pip != game.max_pip:
                raise ValueError(f"max_pip={max_pip} contradicts the game's double-{game.max_pip}")
        else:
            game = TableauxGame(6 if max_pip is None else max_pip)
        return TableauxState._from_position(
            game,
            placed,
            hand,
            scores,
            player,
            opponent_hand_count,
            seed,
            continuing,
            hand_starter,
            check_build,
        )


class TableauxState(State[TableauxAction]):
    """One position of a Tableaux game (see the module docstring for the rules as played).

    Readable attributes: ``board`` (:class:`~engine.tableaux.board.Board`), ``hands`` (two lists
    of tiles), ``boneyard`` (list, drawn from the end), ``scores`` (game totals, points),
    ``hand_scores`` (points in the current hand), ``hand_number`` (1-based),
    ``hand_starter``, ``plays_this_turn``, ``turn_points``, ``winner`` (None until the end),
    ``hand_results`` (list of ``(hand_scores, winner)`` for finished hands), ``starters`` (the
    starter of each hand dealt, in order: a hand where neither player can play ends at its
    deal, so its starter is on the table for no move), ``events`` (short
    human log lines of automatic things: draws, hand ends).
    """

    game: TableauxGame

    def __init__(self, game: TableauxGame, seed: int | None, _deal: bool = True):
        super().__init__(game, seed)
        self.tgame = game
        self.board = Board()
        self.hands: list[list[Tile]] = [[], []]
        self.boneyard: list[Tile] = []
        self.scores = [0, 0]
        self.hand_scores = [0, 0]
        self.hand_number = 0
        self.player = 0
        self.hand_starter = 0
        self.plays_this_turn = 0
        self.turn_points = 0
        self.winner: int | None = None
        self.hand_results: list[tuple[tuple[int, int], int]] = []
        self.starters: list[Tile] = []
        self.events: list[str] = []
        self._moves: list[Placement] | None = None
        if _deal:
            first = self.rng.randrange(2)  # the coin toss
            self.events.append(f"coin toss: player {first} starts")
            self._deal(first)

    # --- dealing and turn flow ----------------------------------------------------------------
    def _deal(self, first: int) -> None:
        g = self.tgame
        stock = g.tile_set.shuffled(self.rng)
        h = g.hand_size
        self.hands = [stock[:h], stock[h : 2 * h]]
        starter = stock[2 * h]
        self.boneyard = stock[2 * h + 1 :]
        self.board = Board()
        self.board.place(STARTER_CELLS[0], starter.low, STARTER_CELLS[1], starter.high)
        self.starters.append(starter)
        self.hand_number += 1
        self.hand_scores = [0, 0]
        self.player = self.hand_starter = first
        self.plays_this_turn = 0
        self.turn_points = 0
        self._moves = None
        self.events.append(f"hand {self.hand_number}: starter {starter}, player {first} starts")
        self._begin_turn()

    def _draw_up(self, p: int) -> None:
        hand = self.hands[p]
        while len(hand) < self.tgame.hand_size and self.boneyard:
            hand.append(self.boneyard.pop())

    def _begin_turn(self) -> None:
        """At the start of a turn: end the hand if it is over (rules in the module docstring)."""
        self._moves = None
        if self.boneyard == [] and (not self.hands[0] or not self.hands[1]):
            self._end_hand("boneyard empty and a hand played out")
        elif not self.board.has_placement(self.hands[self.player]) and not self.board.has_placement(
            self.hands[1 - self.player]
        ):
            self._end_hand("neither player can play")

    def _end_turn(self) -> None:
        p = self.player
        self._draw_up(p)
        self.player = 1 - p
        self.plays_this_turn = 0
        self.turn_points = 0
        self._begin_turn()

    def _end_hand(self, why: str) -> None:
        a, b = self.hand_scores
        winner = 0 if a > b else 1 if b > a else 1 - self.hand_starter
        self.hand_results.append(((a, b), winner))
        self.events.append(
            f"hand {self.hand_number} over ({why}): {a} to {b}, player {winner} starts the next"
        )
        self._deal(winner)

    def _score(self, p: int, points: int) -> None:
        self.scores[p] += points
        self.hand_scores[p] += points
        self.turn_points += points
        if points > 0 and self.scores[p] >= self.tgame.target:
            self.winner = p

    # --- the OpenSpiel-like core --------------------------------------------------------------
    def current_player(self) -> int:
        """0 or 1, or TERMINAL once a player reached the target."""
        return TERMINAL if self.winner is not None else self.player

    def is_terminal(self) -> bool:
        return self.winner is not None

    def returns(self) -> list[float]:
        """Game totals (points) of players 0 and 1."""
        return [float(s) for s in self.scores]

    def placements(self) -> list[Placement]:
        """Every legal placement for the player to move (with kind, points, continues)."""
        if self._moves is None:
            self._moves = (
                self.board.placements(self.hands[self.player]) if self.winner is None else []
            )
        return self._moves

    def legal_actions(self) -> list[Any]:
        """:class:`Place` actions, plus :data:`END_TURN` when the turn may stop, or only
        :data:`PASS` when the turn has no play; empty when terminal."""
        if self.winner is not None:
            return []
        acts: list[Any] = [Place(m.tile, m.low_cell, m.high_cell) for m in self.placements()]
        if self.plays_this_turn:
            acts.append(END_TURN)
        elif not acts:
            acts.append(PASS)
        return acts

    def placement_of(self, action: Place) -> Placement | None:
        """The :class:`Placement` (kind, points, continues) of a legal ``action``, else None."""
        for m in self.placements():
            if (
                m.tile == action.tile
                and m.low_cell == action.low_cell
                and m.high_cell == action.high_cell
            ):
                return m
        return None

    def _apply(self, action: Any) -> None:
        p = self.player
        if isinstance(action, Pass):
            self._score(p, -PASS_PENALTY)
            self._end_turn()
            return
        if isinstance(action, EndTurn):
            self._end_turn()
            return
        m = self.placement_of(action)
        assert m is not None
        t = m.tile
        self.board.place(m.low_cell, t.low, m.high_cell, t.high)
        self.hands[p].remove(t)
        self.plays_this_turn += 1
        self._moves = None
        self._score(p, m.points)
        if self.winner is not None:
            return
        if not m.continues:
            self._end_turn()
            return
        if not self.hands[p]:
            if not self.boneyard:
                self._end_turn()
                return
            self._draw_up(p)  # a whole hand played out: fresh hand, the turn goes on
            self.events.append(f"player {p} played out the hand and draws {len(self.hands[p])}")
        if not self.placements():
            self._end_turn()

    # --- readings -------------------------------------------------------------------------
    def unseen_tiles(self, p: int | None = None) -> list[Tile]:
        """Tiles player ``p`` (default: to move) cannot see: opponent hand plus boneyard."""
        p = self.player if p is None else p
        return sorted(self.hands[1 - p] + self.boneyard)

    def action_to_string(self, action: Any) -> str:
        if isinstance(action, Place):
            m = self.placement_of(action) if self.winner is None else None
            extra = f" ({m.kind}, {m.points} pts{', goes on' if m.continues else ''})" if m else ""
            return (
                f"{action.tile} at {action.low_cell}={action.tile.low} "
                f"{action.high_cell}={action.tile.high}{extra}"
            )
        return str(action)

    def action_record(self, action: Any) -> ActionRecord:
        """A placement plays its tile on two cells (low half first); pass and end_turn no tile."""
        if isinstance(action, Place):
            return ActionRecord(
                "play", (str(action.tile),), Cells((action.low_cell, action.high_cell))
            )
        return ActionRecord("pass" if isinstance(action, Pass) else "end_turn")

    def clone(self) -> TableauxState:
        """A fast independent copy (board, hands, boneyard, RNG)."""
        s = TableauxState.__new__(TableauxState)
        s.__dict__.update(self.__dict__)
        s.rng = random.Random()
        s.rng.setstate(self.rng.getstate())
        s.history = list(self.history)
        s.board = self.board.copy()
        s.hands = [list(self.hands[0]), list(self.hands[1])]
        s.boneyard = list(self.boneyard)
        s.scores = list(self.scores)
        s.hand_scores = list(self.hand_scores)
        s.hand_results = list(self.hand_results)
        s.starters = list(self.starters)
        s.events = list(self.events)
        s._moves = None
        return s

    def __str__(self) -> str:
        g = self.tgame
        lines = [
            self.board.render(),
            f"scores: P0 {self.scores[0]}  P1 {self.scores[1]}  (to {g.target}; this hand "
            f"{self.hand_scores[0]} to {self.hand_scores[1]})",
            f"hand {self.hand_number}, boneyard {len(self.boneyard)}, "
            f"hands P0 {len(self.hands[0])} P1 {len(self.hands[1])}",
        ]
        if self.winner is not None:
            lines.append(f"player {self.winner} wins")
        else:
            lines.append(
                f"player {self.player} to play"
                + (
                    f" (turn goes on, {self.turn_points} pts so far)"
                    if self.plays_this_turn
                    else ""
                )
            )
        return "\n".join(lines)

    # --- construction from a seen position ------------------------------------------------------
    @classmethod
    def _from_position(
        cls,
        game: TableauxGame,
        placed: Sequence[tuple[Any, Cell, Cell]],
        hand: Sequence[Tile],
        scores: Sequence[int],
        player: int,
        opponent_hand_count: int | None,
        seed: int | None,
        continuing: bool,
        hand_starter: int | None,
        check_build: bool = True,
    ) -> TableauxState:
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        if len(scores) != 2:
            raise ValueError(f"scores must be two numbers, got {scores!r}")
        if not placed:
            raise ValueError("the tableau is empty; there is always at least the starter")
        board = Board()
        tiles: list[Tile] = []
        n = game.max_pip
        for i, entry in enumerate(placed):
            try:
                what, c1, c2 = entry
                c1 = (int(c1[0]), int(c1[1]))
                c2 = (int(c2[0]), int(c2[1]))
            except (TypeError, ValueError, IndexError):
                raise ValueError(
                    f"placed[{i}] must be (tile, (row, col), (row, col)), got {entry!r}"
                ) from None
            if isinstance(what, Tile):
                tile, a, b = what, what.low, what.high
            else:
                try:
                    a, b = (int(x) for x in what)
                except (TypeError, ValueError):
                    raise ValueError(
                        f"placed[{i}]: {what!r} is neither a Tile nor a pair of numbers"
                    ) from None
                tile = Tile(a, b)
            if a > n or b > n:
                raise ValueError(f"placed[{i}]: tile {tile} is not in a double-{n} set")
            if not are_adjacent(c1, c2):
                raise ValueError(
                    f"placed[{i}]: cells {c1} and {c2} of tile {tile} are not edge-adjacent"
                )
            for c in (c1, c2):
                if c in board.num:
                    raise ValueError(f"placed[{i}]: cell {c} of tile {tile} is already covered")
            board.place(c1, a, c2, b)
            tiles.append(tile)
        hand = list(hand)
        for t in hand:
            if not isinstance(t, Tile):
                raise ValueError(f"hand holds {t!r}, not a Tile")
        game.tile_set.check_tiles(tiles + hand)
        if len(hand) > game.hand_size:
            raise ValueError(f"a hand holds at most {game.hand_size} tiles, got {len(hand)}")
        # connected tableau
        start = next(iter(board.num))
        seen = {start}
        todo = [start]
        while todo:
            row, col = todo.pop()
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                nb = (row + dr, col + dc)
                if nb in board.num and nb not in seen:
                    seen.add(nb)
                    todo.append(nb)
        if len(seen) != len(board.num):
            raise ValueError("the tableau is in several pieces; every tile touches the rest")
        if check_build and can_be_built(board) is False:
            raise ValueError(
                "no order of legal plays builds this tableau (RULES.md section 5: "
                "side, corner and centre plays); a tile may be misread"
            )
        used = set(tiles) | set(hand)
        unseen = [t for t in game.tile_set.tiles if t not in used]
        state = cls(game, seed, _deal=False)
        state.rng.shuffle(unseen)
        if opponent_hand_count is None:
            opponent_hand_count = min(game.hand_size, len(unseen))
        if not 0 <= opponent_hand_count <= min(game.hand_size, len(unseen)):
            raise ValueError(
                f"opponent_hand_count must be 0..{min(game.hand_size, len(unseen))}"
                f", got {opponent_hand_count}"
            )
        state.board = board
        state.hands[player] = hand
        state.hands[1 - player] = unseen[:opponent_hand_count]
        state.boneyard = unseen[opponent_hand_count:]
        state.scores = [int(scores[0]), int(scores[1])]
        state.hand_number = 1
        state.player = player
        state.hand_starter = player if hand_starter is None else hand_starter
        state.plays_this_turn = 1 if continuing else 0
        for p in (0, 1):
            if state.scores[p] >= game.target:
                raise ValueError(f"player {p} already reached the target {game.target}")
        if continuing and not state.placements():
            raise ValueError("continuing=True but the player has no legal play left")
        return state

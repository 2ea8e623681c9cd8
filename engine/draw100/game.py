"""Double-six draw game to 100 points, 2-4 players (RULES.md section 4, seed ``004_*.txt``).

Rules as implemented (rule choices marked CHOICE are documented in ``docs/draw100.md``):

- Double-6 set (28 tiles). Each player draws ``hand_size`` (5) tiles; the rest is the
  boneyard. If nobody drew a double, all tiles go back, are reshuffled and redrawn (chance,
  inside the deal, driven by ``state.rng``).
- The holder of the highest double leads it: at the start of every round the only legal action
  is ``Play(that double, None)``. CHOICE: this holds for every round, not just the first
  (the rule says the highest double leads each deal).
- Play passes to the left: seat ``p`` is followed by seat ``(p + 1) % num_players``.
- Every double is a spinner (see :mod:`engine.draw100.line`): the first double has 4 open ends,
  a later one 3. Non-doubles match an open end's number (blank matches blank).
- A player who can play must play exactly one tile (``Play(tile, open_end_id)``). One who
  cannot must ``Draw`` (one tile per action, same player again) until able; with the boneyard
  empty the only action is ``Pass``. Drawing is an explicit action so that a table position
  (someone drawing) maps to one action; the drawn tile is the next one of the boneyard, which
  was shuffled with ``state.rng``.
- A round ends by *domino* (a player plays their last tile: they score the pips left in all
  opponents' hands) or *blocked* (the boneyard is empty and no hand holds a tile matching an
  open end; detected as soon as it happens): the player with the fewest pips scores
  (opponents' pips) - (own pips). CHOICE: on a tie for fewest pips nobody scores.
- The game ends when a player's total reaches ``target`` (100) or more. Only the round's winner
  scores, so at most one player can cross the target in a round; CHOICE: were several ever at or
  above it, the highest total wins (lowest seat on an exact tie).

``returns()`` is the list of total scores (points) per player; ``state.winner`` is the winning
seat once terminal.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Union

from ..actions import ActionRecord, OpenEnd
from ..game import TERMINAL, Game, IllegalActionError, State
from ..tiles import DominoSet, Tile
from .line import LineOfPlay

SET = DominoSet(6)
ALL_TILES: tuple[Tile, ...] = SET.tiles


@dataclass(frozen=True)
class Play:
    """Play ``tile`` at the open end ``end`` (an :class:`engine.draw100.line.OpenEnd` id such
    as ``"0.side_a"``); ``end`` is None for the lead (the first tile of a round)."""

    tile: Tile
    end: str | None = None


@dataclass(frozen=True)
class Draw:
    """Draw one tile from the boneyard (only legal when the player cannot play)."""


@dataclass(frozen=True)
class Pass:
    """Pass (only legal when the player cannot play and the boneyard is empty)."""


DRAW = Draw()
PASS = Pass()
Action = Union[Play, Draw, Pass]  # noqa: UP007 (PyPy 3.9 runs the benchmarks, docs/solitaires.md)


@dataclass(frozen=True)
class RoundResult:
    """How a round ended.

    Attributes:
        round_no: 1 for the first round.
        kind: ``"domino"`` or ``"blocked"``.
        winner: seat that scored, or None (blocked with a tie for fewest pips).
        points: points the winner scored (0 when nobody scored).
        hand_pips: pips left in each player's hand at the end of the round.
    """

    round_no: int
    kind: str
    winner: int | None
    points: int
    hand_pips: tuple[int, ...]


class Draw100Game(Game):
    """Double-six draw game to ``target`` points for ``num_players`` (2-4) players.

    Args:
        num_players: 2, 3 or 4.
        target: points needed to win the game (default 100, RULES.md section 4).
        hand_size: tiles drawn per player at a deal (default 5).
        max_pip: must be 6 (or None): the game uses a double-six set.

    Raises:
        ValueError: a parameter is out of range (players not 2-4, target < 1, hand size such that
            the hands do not fit in the set or is < 1, a set other than double-six).
    """

    def __init__(
        self, num_players: int = 2, target: int = 100, hand_size: int = 5, max_pip: int | None = 6
    ):
        if max_pip not in (None, 6):
            raise ValueError("draw100 is played with a double-six set (max_pip=6)")
        if not isinstance(num_players, int) or not 2 <= num_players <= 4:
            raise ValueError(f"draw100 is for 2 to 4 players, got {num_players!r}")
        if not isinstance(target, int) or target < 1:
            raise ValueError(f"target must be a positive number of points, got {target!r}")
        if not isinstance(hand_size, int) or hand_size < 1 or hand_size * num_players > len(SET):
            raise ValueError(f"hand size {hand_size!r} does not fit {num_players} players")
        self.num_players = num_players
        self.target = target
        self.hand_size = hand_size

    def new_initial_state(self, seed: int | None = None) -> Draw100State:
        """A fresh game: round 1 dealt (redealt until someone holds a double), scores 0."""
        state = Draw100State(self, seed)
        state._deal()
        return state

    def state_from_position(
        self,
        line: LineOfPlay | Sequence[dict],
        hand: Iterable[Tile | str],
        boneyard_count: int,
        opponent_hand_counts: Sequence[int],
        scores: Sequence[int] | None = None,
        player: int = 0,
        seed: int | None = None,
        opponent_lacks: dict[int, Iterable[int]] | None = None,
    ) -> Draw100State:
        """A state for a position seen on the table (e.g. rebuilt from a photo), for hints.

        The unseen tiles (28 - line - hand) are dealt at random (``random.Random(seed)``) to the
        opponents' hands and the boneyard, consistently with the counts (and with
        ``opponent_lacks``). Only what ``player`` knows is meaningful in the result. A block is
        not checked here (it depends on the unseen tiles); it is detected after the next action.

        Args:
            line: the line of play (a :class:`LineOfPlay`, or its ``to_json()`` data). Its first
                tile must be a double (the lead).
            hand: the tiles in the hand of ``player`` (the player to move).
            boneyard_count: tiles left in the boneyard.
            opponent_hand_counts: number of tiles in each opponent's hand, ``num_players - 1``
                values, starting with the player to the left of ``player`` (seat ``player+1``).
            scores: total scores per seat so far (default all 0); all must be below target.
            player: seat of the player to move.
            seed: seed of the random deal of the unseen tiles and of later chance.
            opponent_lacks: optional ``{seat: numbers}`` known absent from that seat's hand
                (e.g. it drew or passed on those open numbers).

        Raises:
            ValueError: an impossible position: a tile twice (or in both hand and line), a tile
                outside the set, counts that do not add up to 28 or are negative/zero, a line
                that does not start with a double or has a tile not matching its parent, a bad
                seat, or a score at or above target.
        """
        n = self.num_players
        if not isinstance(line, LineOfPlay):
            line = LineOfPlay.from_json(line)
        line = line.copy()
        if len(line) == 0:
            raise ValueError("the line of play is empty; start a new round instead")
        if not line.nodes[0].tile.is_double:
            raise ValueError(
                f"the first tile {line.nodes[0].tile} is not a double; "
                "the highest double leads (RULES.md section 4)"
            )
        hand_tiles = [t if isinstance(t, Tile) else Tile.parse(str(t)) for t in hand]
        SET.check_tiles(list(line.tiles()) + hand_tiles)
        if not isinstance(player, int) or not 0 <= player < n:
            raise ValueError(f"player must be a seat 0..{n - 1}, got {player!r}")
        counts = list(opponent_hand_counts)
        if len(counts) != n - 1:
            raise ValueError(
                f"need {n - 1} opponent hand counts for {n} players, got {len(counts)}"
            )
        if not hand_tiles or any((not isinstance(c, int)) or c < 1 for c in counts):
            raise ValueError(
                "every hand must hold at least one tile (an empty hand ends the round)"
            )
        if not isinstance(boneyard_count, int) or boneyard_count < 0:
            raise ValueError(f"boneyard count must be >= 0, got {boneyard_count!r}")
        total = len(line) + len(hand_tiles) + boneyard_count + sum(counts)
        if total != len(SET):
            raise ValueError(
                f"line {len(line)} + hand {len(hand_tiles)} + boneyard "
                f"{boneyard_count} + opponents {sum(counts)} = {total}, not 28"
            )
        score_list = [0] * n if scores is None else [int(s) for s in scores]
        if len(score_list) != n or any(s < 0 or s >= self.target for s in score_list):
            raise ValueError(f"scores must be {n} values in 0..{self.target - 1}, got {scores!r}")
        state = Draw100State(self, seed)
        state.scores = score_list
        state.round_no = 1
        state.line = line
        state.player = player
        state.hands = [[] for _ in range(n)]
        state.hands[player] = sorted(hand_tiles)
        state.slots = [[0] * len(hand_tiles) if p == player else [] for p in range(n)]
        for k, c in enumerate(counts):
            state.slots[(player + 1 + k) % n] = [0] * c
        for seat, numbers in (opponent_lacks or {}).items():
            if not (isinstance(seat, int) and 0 <= seat < n) or seat == player:
                raise ValueError(f"opponent_lacks: {seat!r} is not an opponent's seat")
            mask = 0
            for x in numbers:
                if not (isinstance(x, int) and 0 <= x <= 6):
                    raise ValueError(f"opponent_lacks: {x!r} is not a number 0-6")
                mask |= 1 << x
            state.slots[seat] = [mask] * len(state.slots[seat])
        in_hand = set(hand_tiles)
        unseen = [t for t in ALL_TILES if t not in line and t not in in_hand]
        if not state._deal_unseen(player, unseen, state.rng):
            raise ValueError("no deal of the unseen tiles fits the opponents' known lacks")
        return state


class Draw100State(State[Action]):
    """A position of :class:`Draw100Game`. Read-only attributes for front ends:

    - ``line``: the :class:`LineOfPlay` of this round (empty before the lead).
    - ``hands``: list of tile lists per seat (the engine knows all; a front end shows only one).
    - ``boneyard``: list of tiles; the next drawn is ``boneyard[-1]``.
    - ``scores``: total points per seat; ``rounds``: list of :class:`RoundResult`.
    - ``round_no``: current round (1-based); ``winner``: seat that won the game, or None.
    - ``slots``: public knowledge, per seat one bitmask per tile in hand of the numbers that tile
      is known NOT to show (set when the seat drew or passed on those open numbers); used by
      hints to sample unseen tiles consistently.
    """

    game: Draw100Game

    def __init__(self, game: Draw100Game, seed: int | None):
        super().__init__(game, seed)
        n = game.num_players
        self.num_players = n
        self.hands: list[list[Tile]] = [[] for _ in range(n)]
        self.boneyard: list[Tile] = []
        self.line = LineOfPlay()
        self.player = 0
        self.scores = [0] * n
        self.rounds: list[RoundResult] = []
        self.round_no = 0
        self.winner: int | None = None
        self.slots: list[list[int]] = [[] for _ in range(n)]

    # --- dealing -------------------------------------------------------------------------
    def _deal(self) -> None:
        g = self.game
        while True:
            stock = SET.shuffled(self.rng)
            hands = [stock[i * g.hand_size : (i + 1) * g.hand_size] for i in range(g.num_players)]
            if any(t.is_double for h in hands for t in h):
                break  # otherwise: all back, reshuffle, redraw (RULES.md section 4)
        self.hands = [sorted(h) for h in hands]
        self.boneyard = stock[g.num_players * g.hand_size :]
        self.line = LineOfPlay()
        self.round_no += 1
        self.slots = [[0] * g.hand_size for _ in range(g.num_players)]
        lead = self.lead_tile()
        self.player = next(p for p, h in enumerate(self.hands) if lead in h)

    def lead_tile(self) -> Tile | None:
        """The highest double in any hand (the lead), or None when no hand holds a double."""
        doubles = [t for h in self.hands for t in h if t.is_double]
        return max(doubles) if doubles else None

    def _deal_unseen(self, viewer: int, unseen: list[Tile], rng: random.Random) -> bool:
        """Deal ``unseen`` to the other seats' hands (sizes and lacks from ``slots``) and the
        boneyard; True on success, False when no deal fitting the lacks was found."""
        others = [p for p in range(self.num_players) if p != viewer]
        for _attempt in range(50):
            pool = list(unseen)
            rng.shuffle(pool)
            hands: dict[int, list[Tile]] = {}
            ok = True
            for p in others:
                got = []
                for mask in sorted(self.slots[p], reverse=True):
                    for i, t in enumerate(pool):
                        if not (mask >> t.low) & 1 and not (mask >> t.high) & 1:
                            got.append(pool.pop(i))
                            break
                    else:
                        ok = False
                        break
                if not ok:
                    break
                hands[p] = got
            if ok:
                for p in others:
                    self.hands[p] = sorted(hands[p])
                self.boneyard = pool
                return True
        return False

    def determinize(self, rng: random.Random, viewer: int | None = None) -> Draw100State:
        """A clone where everything ``viewer`` (default: the player to move) cannot see -- the
        other hands and the boneyard order -- is redealt with ``rng``, consistently with the hand
        sizes and the known lacks in ``slots`` (if no such deal is found in 50 tries, the lacks
        are ignored)."""
        viewer = self.player if viewer is None else viewer
        out = self.clone()
        unseen = [t for p in range(self.num_players) if p != viewer for t in self.hands[p]]
        unseen += self.boneyard
        if not out._deal_unseen(viewer, unseen, rng):
            saved = out.slots
            out.slots = [[0] * len(s) for s in saved]
            out._deal_unseen(viewer, unseen, rng)
            out.slots = saved
        return out

    def clone(self) -> Draw100State:
        """An independent copy (faster than deepcopy; the RNG state is copied)."""
        out = Draw100State.__new__(Draw100State)
        out.__dict__.update(self.__dict__)
        out.rng = random.Random()
        out.rng.setstate(self.rng.getstate())
        out.history = list(self.history)
        out.hands = [list(h) for h in self.hands]
        out.boneyard = list(self.boneyard)
        out.line = self.line.copy()
        out.scores = list(self.scores)
        out.rounds = list(self.rounds)
        out.slots = [list(s) for s in self.slots]
        return out

    # --- the State interface ---------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.winner is not None else self.player

    def is_terminal(self) -> bool:
        return self.winner is not None

    def returns(self) -> list[float]:
        """Total scores per seat (points)."""
        return [float(s) for s in self.scores]

    def playable(self, seat: int | None = None) -> list[Play]:
        """The ``Play`` actions open to ``seat`` (default: the player to move) right now."""
        seat = self.player if seat is None else seat
        hand = self.hands[seat]
        if len(self.line) == 0:
            lead = self.lead_tile()
            return [Play(lead, None)] if lead in hand else []
        ends = self.line.open_ends()
        return [Play(t, e.id) for t in hand for e in ends if t.has(e.number)]

    def legal_actions(self) -> list[Action]:
        """``Play`` actions when any (must play if able); else ``[Draw()]`` when the boneyard has
        tiles, else ``[Pass()]``. Empty when terminal."""
        if self.winner is not None:
            return []
        plays: list[Action] = list(self.playable())
        if plays:
            return plays
        return [DRAW] if self.boneyard else [PASS]

    def _open_mask(self) -> int:
        mask = 0
        for x in self.line.open_numbers():
            mask |= 1 << x
        return mask

    def _apply(self, action: Action) -> None:
        p = self.player
        if isinstance(action, Play):
            t = action.tile
            if action.end is None:
                self.line.place_first(t)
            else:
                self.line.attach(t, action.end)
            self.hands[p].remove(t)
            self._remove_slot(p, t)
            if not self.hands[p]:
                self._end_round("domino")
                return
            self.player = (p + 1) % self.num_players
        elif isinstance(action, Draw):
            forbid = self._open_mask()
            self.slots[p] = [m | forbid for m in self.slots[p]] + [0]
            t = self.boneyard.pop()
            self.hands[p].append(t)
            self.hands[p].sort()
        else:  # Pass
            forbid = self._open_mask()
            self.slots[p] = [m | forbid for m in self.slots[p]]
            self.player = (p + 1) % self.num_players
        self._check_blocked()

    def _remove_slot(self, p: int, t: Tile) -> None:
        # Slots' masks form a chain (each draw/pass adds the same numbers to all of them), so
        # removing the most constrained slot compatible with the played tile keeps the
        # description true whichever slot really held it.
        slots = self.slots[p]
        if not slots:
            return
        bits = (1 << t.low) | (1 << t.high)
        best = None
        for i, m in enumerate(slots):
            if not m & bits and (best is None or m > slots[best]):
                best = i
        slots.pop(best if best is not None else max(range(len(slots)), key=lambda i: slots[i]))

    def _check_blocked(self) -> None:
        if self.boneyard or len(self.line) == 0 or self.winner is not None:
            return
        mask = self._open_mask()
        for h in self.hands:
            for t in h:
                if (mask >> t.low) & 1 or (mask >> t.high) & 1:
                    return
        self._end_round("blocked")

    def _end_round(self, kind: str) -> None:
        pips = tuple(sum(t.pips for t in h) for h in self.hands)
        total = sum(pips)
        if kind == "domino":
            winner: int | None = self.player
            points = total - pips[self.player]
        else:
            low = min(pips)
            lows = [p for p, x in enumerate(pips) if x == low]
            if len(lows) > 1:
                winner, points = None, 0  # CHOICE: tie for fewest pips, nobody scores
            else:
                winner = lows[0]
                points = (total - low) - low
        if winner is not None:
            self.scores[winner] += points
        self.rounds.append(RoundResult(self.round_no, kind, winner, points, pips))
        best = max(self.scores)
        if best >= self.game.target:
            self.winner = self.scores.index(best)
        else:
            self._deal()

    # --- readings ------------------------------------------------------------------------
    def action_to_string(self, action: Action) -> str:
        if isinstance(action, Play):
            if action.end is None:
                return f"lead {action.tile}"
            try:
                end = self.line.open_end(action.end)
                host = self.line.node(end.node_id).tile
                return f"play {action.tile} on the {end.number} of {host} [{end.id}]"
            except ValueError:
                return f"play {action.tile} on {action.end}"
        return "draw" if isinstance(action, Draw) else "pass"

    def action_record(self, action: Action) -> ActionRecord:
        """A play names its tile and open end (no place: the lead); draw and pass no tile."""
        if isinstance(action, Play):
            end = None if action.end is None else OpenEnd(action.end)
            return ActionRecord("play", (str(action.tile),), end)
        return ActionRecord("draw" if isinstance(action, Draw) else "pass")

    def to_json(self, viewer: int | None = None) -> dict[str, Any]:
        """What seat ``viewer`` (default: the player to move) may see, JSON-ready: round, scores,
        target, player to move (-4 when over), the line (``LineOfPlay.to_json()``), open ends,
        the viewer's hand, hand sizes, boneyard size, legal actions (``action_to_json``, only
        when the viewer is to move), finished rounds and the winner."""
        viewer = self.player if viewer is None else viewer
        to_move = self.current_player()
        return {
            "game": self.game.name,
            "round": self.round_no,
            "scores": list(self.scores),
            "target": self.game.target,
            "player": to_move,
            "viewer": viewer,
            "line": self.line.to_json(),
            "open_ends": [
                {"id": e.id, "node": e.node_id, "direction": e.direction, "number": e.number}
                for e in self.line.open_ends()
            ],
            "hand": [str(t) for t in self.hands[viewer]],
            "hand_sizes": [len(h) for h in self.hands],
            "boneyard": len(self.boneyard),
            "legal": (
                [self.action_to_json(a) for a in self.legal_actions()] if to_move == viewer else []
            ),
            "rounds": [
                {
                    "round": r.round_no,
                    "kind": r.kind,
                    "winner": r.winner,
                    "points": r.points,
                    "hand_pips": list(r.hand_pips),
                }
                for r in self.rounds
            ],
            "winner": self.winner,
        }

    def __str__(self) -> str:
        n = self.num_players
        lines = [
            f"Round {self.round_no}  scores: "
            + "  ".join(f"P{p}={s}" for p, s in enumerate(self.scores))
            + f"  (to {self.game.target})",
            str(self.line),
            "open ends: " + (", ".join(f"{e.id}={e.number}" for e in self.line.open_ends()) or "-"),
            f"boneyard: {len(self.boneyard)}  hands: "
            + "  ".join(f"P{p}:{len(self.hands[p])}" for p in range(n)),
        ]
        if self.winner is not None:
            lines.append(f"game over: P{self.winner} wins")
        return "\n".join(lines)


__all__ = [
    "Draw100Game",
    "Draw100State",
    "Play",
    "Draw",
    "Pass",
    "DRAW",
    "PASS",
    "RoundResult",
    "IllegalActionError",
]

"""The Big Clock's game and state classes (RULES.md section 2; seed ``001_*.txt``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Union

from ..actions import ActionRecord, Pile
from ..game import Game
from ..solitaire import SolitaireState
from ..tiles import DominoSet, Tile
from .rules import (
    GIVE_UP,
    MAX_MOVES_PER_DRAW,
    SET_ASIDE,
    BigClockAction,
    GiveUp,
    Move,
    Piles,
    Place,
    SetAside,
    _all_home,
    _drawn_in_trouble,
    _in_trouble,
    _is_home,
    _matches_none,
    _move,
    _moves,
    _place_targets,
    _put,
    _tables,
)

TileLike = Union[Tile, str]  # noqa: UP007 (PyPy 3.9 runs the benchmarks, docs/solitaires.md)


def _as_tile(x: TileLike) -> Tile:
    if isinstance(x, Tile):
        return x
    if isinstance(x, str):
        return Tile.parse(x)
    raise ValueError(f"not a tile: {x!r} (give a Tile or text such as '3-5')")


class BigClockGame(Game):
    """The Big Clock on a double-``max_pip`` set (12: slots 12, 1..11; 9: slots 1..9;
    6: slots 1..6). 0-0 is out of play in the centre in every size.

    Raises:
        ValueError: ``max_pip`` is not 12, 9 or 6.
    """

    num_players = 1

    def __init__(self, max_pip: int | None = 12):
        max_pip = 12 if max_pip is None else max_pip
        if max_pip not in (12, 9, 6):
            raise ValueError(
                f"The Big Clock is played with double-12, double-9 or double-6, "
                f"not double-{max_pip}"
            )
        self.max_pip = max_pip
        self.domino_set = DominoSet(max_pip)
        self.slots = tuple(range(1, max_pip + 1))
        self.deal_order = _tables(max_pip).deal_order

    def new_initial_state(self, seed: int | None = None) -> BigClockState:
        """Take out 0-0, shuffle the rest with ``seed``, deal one tile per slot in deal order
        (double-12: slot 12 first, then 1..11), then draw the first tile."""
        return BigClockState(self, seed)

    def state_from_position(
        self,
        piles: Mapping[int, Sequence[TileLike] | TileLike | None],
        home: Iterable[int] | None = None,
        stock: Sequence[TileLike] | None = None,
        drawn: TileLike | None = None,
        set_aside: Sequence[TileLike] = (),
        seed: int | None = None,
        shuffle: bool = True,
    ) -> BigClockState:
        """A position seen on the table (e.g. rebuilt from a photo).

        Args:
            piles: every slot 1..N -> its pile bottom to top (a list of tiles), or only the top
                tile (a Tile; the tiles under it are then unknown and counted as unseen), or
                None / [] for a blank slot. Tiles may be given as text such as ``"3-5"``.
            home: slots the player reports as home (optional check: each must hold its own
                double on top; a double on its own slot is home anyway).
            stock: tiles still face down, any order (shuffled with ``seed``); None means every
                tile not seen elsewhere (0-0 excluded). With an explicit stock, tiles found
                nowhere are counted as set aside.
            drawn: the tile drawn and not yet placed. None: the drawn tile is unknown; a tile
                is drawn from the (seed-shuffled) stock so that the state is complete, but
                ``state.drawn_known`` is False and :func:`hint` gives no advice: the hint is
                about the drawn tile, so it needs it.
            set_aside: tiles set aside for good.
            seed: seed of the stock order and of later chance.
            shuffle: False keeps ``stock`` in the given order (next draw first), e.g. to
                replay a known order in tests.

        Raises:
            ValueError: a slot outside 1..N or missing, a tile outside the set or twice, 0-0 on
                the clock (it stays in the centre), a tile lying on a double (doubles are never
                covered) or on a tile it shares no number with, a home slot without its double.
        """
        n = self.max_pip
        ds = self.domino_set
        bad = [k for k in piles if not isinstance(k, int) or not 1 <= k <= n]
        if bad:
            raise ValueError(f"slot(s) {bad} out of range: double-{n} slots are 1..{n}")
        missing = [k for k in self.slots if k not in piles]
        if missing:
            raise ValueError(
                f"slot(s) {missing} missing: give every slot 1..{n} (None or [] for a blank slot)"
            )
        clock: dict[int, list[Tile]] = {}
        for k in self.slots:
            v = piles[k]
            if v is None:
                clock[k] = []
            elif isinstance(v, (Tile, str)):
                clock[k] = [_as_tile(v)]
            else:
                clock[k] = [_as_tile(x) for x in v]
        for k, pile in clock.items():
            for below, above in zip(pile, pile[1:]):
                if below.is_double:
                    raise ValueError(
                        f"slot {k}: {above} lies on the double {below}; "
                        "a double is never covered (RULES.md 2)"
                    )
                if not below.shares_number(above):
                    raise ValueError(
                        f"slot {k}: {above} lies on {below} but they share no number (RULES.md 2)"
                    )
        for k in home or ():
            if k not in clock:
                raise ValueError(f"home slot {k} out of range 1..{n}")
            if not clock[k] or clock[k][-1] != Tile(k, k):
                raise ValueError(
                    f"slot {k} is reported home but {Tile(k, k)} is not on top of its pile"
                )
        drawn_t = None if drawn is None else _as_tile(drawn)
        aside = [_as_tile(x) for x in set_aside]
        seen = [t for p in clock.values() for t in p] + aside + ([drawn_t] if drawn_t else [])
        if Tile(0, 0) in seen:
            raise ValueError("0-0 is out of play in the centre of the clock (RULES.md 2)")
        ds.check_tiles(seen)
        if stock is None:
            used = set(seen)
            stock_t = [t for t in ds.tiles if t != Tile(0, 0) and t not in used]
        else:
            stock_t = [_as_tile(x) for x in stock]
            if Tile(0, 0) in stock_t:
                raise ValueError("0-0 is out of play in the centre of the clock (RULES.md 2)")
            ds.check_tiles(seen + stock_t)
        state = BigClockState(self, seed, deal=False)
        if shuffle:
            state.rng.shuffle(stock_t)
        state._piles = tuple([()] + [tuple(ds.index(t) for t in clock[k]) for k in self.slots])
        state._stock = [ds.index(t) for t in stock_t]
        known = set(seen) | set(stock_t)
        aside += [t for t in ds.tiles if t != Tile(0, 0) and t not in known]
        state._set_aside = [ds.index(t) for t in aside]
        if drawn_t is not None:
            state._drawn = ds.index(drawn_t)
        elif not _all_home(state._tab, state._piles):
            state._draw()
            state.drawn_known = False
        return state

    def __repr__(self) -> str:
        return f"BigClockGame(max_pip={self.max_pip})"


class BigClockState(SolitaireState[BigClockAction]):
    """A Big Clock position.

    Read it through :attr:`piles` (slot -> tiles bottom to top), :attr:`drawn`, :attr:`stock`
    (draw order, next first), :attr:`set_aside`, :meth:`home_slots`, :meth:`blank_slots`,
    :meth:`doubles_in_trouble`, :attr:`moves_used` (moves since the last draw),
    :attr:`rescuing` (True once a move was made while the drawn double matched no top tile:
    moves may then go on until the drawn tile is placed, even when a move made it match a wrong
    pile; docs/big-clock.md, choice 4), :attr:`drawn_known` (False when a position was given
    without its drawn tile: the one shown is a stand-in drawn from the stock, until it is
    placed).
    """

    COPIED = ("_stock", "_set_aside")
    STOCK = "_stock"
    game: BigClockGame

    def __init__(self, game: BigClockGame, seed: int | None, deal: bool = True):
        super().__init__(game, seed)
        self._tab = _tables(game.max_pip)
        self._piles: Piles = tuple(() for _ in range(game.max_pip + 1))
        self._stock: list[int] = []
        self._drawn = -1
        self._set_aside: list[int] = []
        self.moves_used = 0
        self.rescuing = False
        self.drawn_known = True
        self._gave_up = False
        if deal:
            ds = game.domino_set
            tiles = [t for t in ds.tiles if t != Tile(0, 0)]
            self.rng.shuffle(tiles)
            ids = [ds.index(t) for t in tiles]
            piles: list[tuple[int, ...]] = [()] * (game.max_pip + 1)
            for slot, t in zip(game.deal_order, ids):
                piles[slot] = (t,)
            self._piles = tuple(piles)
            self._stock = ids[game.max_pip :]
            if not _all_home(self._tab, self._piles):
                self._draw()

    # --- readings ---
    @property
    def piles(self) -> dict[int, list[Tile]]:
        """Slot (1..N) -> its pile, bottom to top ([] for a blank slot)."""
        tiles = self._tab.tiles
        return {k: [tiles[t] for t in self._piles[k]] for k in self._tab.slots}

    @property
    def drawn(self) -> Tile | None:
        """The drawn tile waiting to be placed (None when the stock is exhausted)."""
        return None if self._drawn < 0 else self._tab.tiles[self._drawn]

    @property
    def stock(self) -> list[Tile]:
        """The face-down stock in draw order (next first)."""
        return [self._tab.tiles[t] for t in self._stock]

    @property
    def set_aside(self) -> list[Tile]:
        """Tiles set aside for good, in order."""
        return [self._tab.tiles[t] for t in self._set_aside]

    def top(self, slot: int) -> Tile | None:
        """Top tile of ``slot``'s pile (None for a blank slot)."""
        p = self._piles[slot]
        return self._tab.tiles[p[-1]] if p else None

    def home_slots(self) -> list[int]:
        """Slots whose own double is home (closed)."""
        return [k for k in self._tab.slots if _is_home(self._tab, self._piles, k)]

    def blank_slots(self) -> list[int]:
        """Slots emptied by moves (only their own double may go there)."""
        return [k for k in self._tab.slots if not self._piles[k]]

    def doubles_in_trouble(self) -> list[Tile]:
        """Doubles lying on a wrong slot, plus the drawn double if it matches no top tile."""
        tab = self._tab
        out = [
            tab.tiles[p[-1]]
            for k, p in enumerate(self._piles)
            if k and p and tab.dbl[p[-1]] and p[-1] != tab.double_of[k]
        ]
        if (
            self._drawn >= 0
            and tab.dbl[self._drawn]
            and _matches_none(tab, self._piles, self._drawn)
        ):
            out.append(tab.tiles[self._drawn])
        return out

    def is_won(self) -> bool:
        """Every double n-n (n >= 1) is home."""
        return _all_home(self._tab, self._piles)

    # --- State interface ---
    def _draw(self) -> None:
        self._drawn = self._stock.pop(0) if self._stock else -1
        self.moves_used = 0
        self.rescuing = False
        self.drawn_known = True

    def _compute_legal(self) -> list[BigClockAction]:
        """Places (best first by the slot rule), then SetAside, moves and GiveUp; empty when
        the game is over."""
        tab, piles, drawn = self._tab, self._piles, self._drawn
        if self._gave_up or drawn < 0 or _all_home(tab, piles):
            return []
        out: list[BigClockAction] = [Place(k) for k in _place_targets(tab, piles, drawn)]
        placed = bool(out)
        if not placed and not tab.dbl[drawn]:
            out.append(SET_ASIDE)
        moves = []
        if self.moves_used < MAX_MOVES_PER_DRAW and (
            self.rescuing or _in_trouble(tab, piles, drawn)
        ):
            moves = [Move(i, j) for i, j in _moves(tab, piles)]
        out.extend(moves)
        if not placed and tab.dbl[drawn] and moves:
            out.append(GIVE_UP)
        return out

    def _apply(self, action: BigClockAction) -> None:
        tab = self._tab
        if isinstance(action, Place):
            self._piles = _put(self._piles, action.slot, self._drawn)
            if _all_home(tab, self._piles):
                self._drawn = -1
            else:
                self._draw()
        elif isinstance(action, SetAside):
            self._set_aside.append(self._drawn)
            self._draw()
        elif isinstance(action, Move):
            if _drawn_in_trouble(tab, self._piles, self._drawn):
                self.rescuing = True
            self._piles = _move(self._piles, action.src, action.dst)
            self.moves_used += 1
        else:
            self._gave_up = True

    def action_to_string(self, action: BigClockAction) -> str:
        d = self.drawn
        if isinstance(action, Place):
            k = action.slot
            if d is not None and d == Tile(k, k):
                return f"bring {d} home to slot {k}"
            top = self.top(k)
            if top is None:
                return f"fill blank slot {k} with {d}"
            return f"put {d} on slot {k} (on {top})"
        if isinstance(action, Move):
            m = self.top(action.src)
            if m is not None and m == Tile(action.dst, action.dst):
                return f"move {m} from slot {action.src} home to slot {action.dst}"
            return (
                f"move {m} from slot {action.src} to slot {action.dst} (on {self.top(action.dst)})"
            )
        if isinstance(action, SetAside):
            return f"set {d} aside (it fits nowhere)"
        if isinstance(action, GiveUp):
            return f"give up: {d} cannot come home"
        return str(action)

    def action_record(self, action: BigClockAction) -> ActionRecord:
        """``play`` of the drawn tile on a pile; ``move`` of a pile's top tile from pile to pile;
        ``set_aside`` and ``give_up`` name the drawn tile."""
        d = self.drawn
        drawn = () if d is None else (str(d),)
        if isinstance(action, Place):
            return ActionRecord("play", drawn, Pile(action.slot))
        if isinstance(action, Move):
            top = self.top(action.src)
            return ActionRecord(
                "move", () if top is None else (str(top),), Pile(action.dst), Pile(action.src)
            )
        return ActionRecord("set_aside" if isinstance(action, SetAside) else "give_up", drawn)

    def __str__(self) -> str:
        tab = self._tab
        lines = []
        for k in self.game.deal_order:
            p = self._piles[k]
            if not p:
                what = "blank (only its double may go here)"
            elif _is_home(tab, self._piles, k):
                what = f"HOME {tab.tiles[p[-1]]}"
            else:
                top = tab.tiles[p[-1]]
                what = f"{top}" + ("  <- double in trouble" if top.is_double else "")
                if len(p) > 1:
                    what += f"   ({len(p)} tiles)"
            lines.append(f"{k:>2} o'clock: {what}")
        d = self.drawn
        lines.append(
            f"drawn: {d if d is not None else '-'}   stock: {len(self._stock)}   "
            f"set aside: {len(self._set_aside)}   home: {len(self.home_slots())}/"
            f"{tab.n}   moves this draw: {self.moves_used}/{MAX_MOVES_PER_DRAW}"
        )
        return "\n".join(lines)

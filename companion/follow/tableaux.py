"""Tableaux's rules of change (RULES.md section 5) for :class:`companion.follow.Follower`."""

from __future__ import annotations

from itertools import permutations

from companion.follow.base import _check_sync, _GameFollow, _order_note, _unsure
from engine.tiles import Tile

# --- Tableaux --------------------------------------------------------------------------------

#: The 8 rotations/reflections of the grid, as (swap, sign of row, sign of col).
_SYMMETRIES = [(sw, sr, sc) for sw in (False, True) for sr in (1, -1) for sc in (1, -1)]


def _sym(cell, s) -> tuple[int, int]:
    sw, sr, sc = s
    r, c = cell
    if sw:
        r, c = c, r
    return (r * sr, c * sc)


def _register(ours: dict[Tile, tuple], seen: dict[Tile, tuple]):
    """The map from the reading's cells to ours: ``f(cell) -> cell`` using the tiles both show,
    or None when no rotation/reflection plus shift fits them all.

    ``ours`` / ``seen``: ``{tile: ((cell, number), (cell, number))}``."""
    common = [t for t in seen if t in ours]
    if not common:
        return None
    for s in _SYMMETRIES:
        offsets = None
        ok = True
        for t in common:
            (ca, na), (cb, nb) = seen[t]
            (oa, ma), (ob, mb) = ours[t]
            cand = set()
            for (x, nx), (y, ny) in (((ca, na), (cb, nb)), ((cb, nb), (ca, na))):
                if nx != ma or ny != mb:
                    continue
                sx, sy = _sym(x, s), _sym(y, s)
                d1 = (oa[0] - sx[0], oa[1] - sx[1])
                d2 = (ob[0] - sy[0], ob[1] - sy[1])
                if d1 == d2:
                    cand.add(d1)
            offsets = cand if offsets is None else offsets & cand
            if not offsets:
                ok = False
                break
        if ok and offsets:
            d = min(offsets)
            return lambda cell, s=s, d=d: (_sym(cell, s)[0] + d[0], _sym(cell, s)[1] + d[1])
    return None


def _why_not_tableaux(board, tile: Tile, c0, n0: int, c1, n1: int) -> str:
    """One sentence: why ``tile`` (``n0`` on cell ``c0``, ``n1`` on ``c1``) is not a legal play
    on ``board`` (RULES.md section 5: side, corner and centre plays)."""

    touch = []
    for c, n, other in ((c0, n0, c1), (c1, n1, c0)):
        nbrs = [(c[0] + dr, c[1] + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))]
        nums = [board.num[m] for m in nbrs if m in board.num and m != other]
        if nums:
            touch.append((n, nums))
    if not touch:
        return f"{tile} does not touch the tableau"
    if len(touch) == 2:
        return f"{tile} touches the tableau with both halves; only one half may touch"
    n, nums = touch[0]
    if len(nums) == 1:
        if n != nums[0]:
            return f"{tile} does not match the {nums[0]} it touches"
        return f"{tile} touches the {nums[0]} end to end or crosswise; a side play lies alongside"
    total = sum(nums)
    if n != total and not (len(nums) == 3 and tile.pips == total):
        return f"{tile}: its {n} touches halves adding up to {total}"
    return f"{tile} is not a side, corner or centre play there"


class _TableauxFollow(_GameFollow):
    """Tableaux (RULES.md section 5): plays, each play's points, turn order, hands."""

    @classmethod
    def create(cls, g, players, max_pip, first_player, variant):
        return cls(max_pip or g.default_set, first_player)

    def read_params(self):
        return {"max_pip": self.max_pip}

    def __init__(self, max_pip: int, first_player: int | None):
        from engine.tableaux import TableauxGame
        from engine.tableaux.board import Board

        #: None: seat 0 starts a game seen from its start; a game joined in progress asks
        self.ask_on_join = first_player is None
        first_player = 0 if first_player is None else first_player
        self.asking = False
        self.last_view: tuple | None = None
        if first_player not in (0, 1):
            raise ValueError(f"Tableaux first player must be 0 or 1, got {first_player!r}")
        g = TableauxGame(max_pip)
        self.max_pip = max_pip
        #: tiles on the tableau (the starter counted) once the boneyard is empty: the set less
        #: both hands (RULES.md section 5: the hand ends when the boneyard is empty and a
        #: player's hand is played out, or when neither player can play)
        self.boneyard_gone = (max_pip + 1) * (max_pip + 2) // 2 - 2 * g.hand_size
        self.target = g.target
        self._Board = Board
        self.board = Board()
        self.tiles: dict[Tile, tuple] = {}  # tile -> ((cell, number), (cell, number)) in our frame
        self.scores = [0, 0]
        self.hand_scores = [0, 0]
        self.player = first_player
        self.hand_starter = first_player
        self.hand_number = 0
        self.flagged: set[Tile] = set()
        self.winner: int | None = None
        #: followed tiles not seen in the last view that were asked about
        self.asked_gone: set[Tile] = set()
        #: an empty table was seen since the tableau was last seen (the hand over, or every
        #: tile missed for a few frames: decided by the next views)
        self.cleared = False
        #: a single tile seen alone where the tableau was (no tile of it lined up): the next
        #: hand's starter, or the next play while the followed tiles are missed; the next view
        #: with more tiles tells which
        self.maybe_starter: dict[Tile, tuple] | None = None

    @property
    def over(self) -> bool:
        return self.winner is not None

    def _score(self, p: int, points: int, reason: str) -> list[dict]:
        self.scores[p] += points
        self.hand_scores[p] += points
        out = [
            {"type": "score", "source": "camera", "player": p, "points": points, "reason": reason}
        ]
        if points > 0 and self.scores[p] >= self.target:
            self.winner = p
            out.append({"type": "result", "winner": p, "scores": list(self.scores)})
        return out

    def sync_scores(self, totals, winner):
        _check_sync(2, totals, winner)
        for p in (0, 1):
            self.hand_scores[p] += totals[p] - self.scores[p]
            self.scores[p] = totals[p]
        self.winner = winner

    def _end_hand(self) -> list[dict]:
        out = self.flush()  # taps made before the table was cleared
        a, b = self.hand_scores
        winner = 0 if a > b else 1 if b > a else 1 - self.hand_starter
        self.player = self.hand_starter = winner
        self.board = self._Board()
        self.tiles = {}
        self.flagged = set()
        self.asked_gone = set()
        self.cleared = False
        self.maybe_starter = None
        return out + [
            {
                "type": "hand_end",
                "hand": self.hand_number,
                "hand_scores": [a, b],
                "next_starter": winner,
            }
        ]

    def _start(self, seen: dict[Tile, tuple]) -> list[dict]:
        self.hand_number += 1
        self.hand_scores = [0, 0]
        for _t, ((ca, na), (cb, nb)) in seen.items():
            self.board.place(ca, na, cb, nb)
        self.tiles = dict(seen)
        return [
            {
                "type": "hand_start",
                "hand": self.hand_number,
                "tiles": [str(t) for t in seen],
                "player": self.player,
            }
        ]

    def on_stable(self, reading, stable, frame):
        self.last_view = (reading, stable, frame)
        if reading is None or not reading.layout.get("placed"):
            if not self.tiles:
                return []
            if len(self.tiles) + len(self.flagged) >= self.boneyard_gone:
                return self._end_hand()
            # fewer tiles down than empty the boneyard: the hand is over only if neither player
            # can play, rare this early; more likely the tiles were missed for a few frames (a
            # hand over them, misreads). The hand is taken as over when the next hand shows.
            self.cleared = True
            return []
        unsure = _unsure(reading)
        if unsure:
            return []
        seen: dict[Tile, tuple] = {}
        for p in reading.layout["placed"]:
            a, b = p["pips"]
            seen[Tile(a, b)] = ((tuple(p["cells"][0]), a), (tuple(p["cells"][1]), b))
        if not self.tiles:
            out = self._start(seen)
            if len(seen) > 1 and self.ask_on_join and self.hand_number == 1:
                self.asking = True  # joined in progress: who is to move is asked, not assumed
                out.append(
                    {
                        "type": "question",
                        "ask": "player",
                        "message": "joined a game in progress: who is to move? (tap the player)",
                    }
                )
            return out
        if self.asking:
            return []
        f = _register(self.tiles, seen)
        if (
            f is not None
            and self.cleared
            and 2 * sum(t in seen for t in self.tiles) <= len(self.tiles)
        ):
            f = None  # after an empty table, half the old tableau or less: a new hand
        if f is None:
            if len(seen) == 1:
                # the next hand's starter, or the next play while the followed tiles are
                # missed: the next view that holds more tiles tells (it lines up with one or
                # the other)
                if self.maybe_starter == seen:
                    return []
                self.maybe_starter = seen
                t = next(iter(seen))
                return [
                    {
                        "type": "question",
                        "tile": str(t),
                        "message": f"{t} seen alone, the tableau not: the next hand's starter? "
                        "(taken as one when the next tile is played on it)",
                    }
                ]
            if self.maybe_starter is not None and _register(self.maybe_starter, seen):
                starter = self.maybe_starter
                return self._end_hand() + self._start(starter) + self.on_stable(*self.last_view)
            if self.cleared:  # the new hand's starter and a play at once
                return self._end_hand() + self._start(seen)
            return [
                {
                    "type": "question",
                    "message": "the tableau seen does not line up with the "
                    "one followed so far; check the tiles",
                }
            ]
        self.cleared = False
        self.maybe_starter = None
        gone = [t for t in self.tiles if t not in seen]
        out: list[dict] = []
        # a followed tile not seen (a hand over it, a misread) is a question on that tile, asked
        # once; it stays on the followed tableau and the other new tiles are still taken
        fresh = [t for t in gone if t not in self.asked_gone]
        self.asked_gone = set(gone)
        if fresh:
            out.append(
                {
                    "type": "question",
                    "tile": " ".join(map(str, fresh)),
                    "message": f"{', '.join(map(str, fresh))} no longer seen on "
                    "the tableau; kept where it was played",
                }
            )
        moved = [
            t
            for t in self.tiles
            if t in seen and {(f(c), n) for c, n in seen[t]} != set(self.tiles[t])
        ]
        if moved:
            return out + [{"type": "question", "message": f"{', '.join(map(str, moved))} moved"}]
        new = {t: tuple((f(c), n) for c, n in seen[t]) for t in seen if t not in self.tiles}
        # a new value on the cells of a tile not seen: that tile misread, not a play
        hidden = {c for t in gone for c, _ in self.tiles[t]}
        misread = [t for t, cells in new.items() if any(c in hidden for c, _ in cells)]
        if misread:
            out.append(
                {
                    "type": "question",
                    "message": f"{', '.join(map(str, misread))} read where "
                    f"{', '.join(map(str, gone))} lies: a misread? (not taken)",
                }
            )
            new = {t: c for t, c in new.items() if t not in misread}
        return out + self._plays(new)

    def _placement(self, board, t: Tile, cells):
        (c0, n0), (c1, n1) = cells
        low_cell, high_cell = (c0, c1) if n0 == t.low else (c1, c0)
        if t.is_double:
            low_cell, high_cell = min(c0, c1), max(c0, c1)
        for m in board.placements([t]):
            if (
                {m.low_cell, m.high_cell} == {c0, c1}
                and m.low_cell == low_cell
                and m.high_cell == high_cell
            ):
                return m
        return None

    def _lay(self, board, tiles: list[Tile], new: dict[Tile, tuple]):
        """Place on ``board`` (changed in place) every tile of ``tiles`` that fits, one by one
        while any does; returns ``(placed in order, left over)``."""
        order, rest = [], list(tiles)
        progress = True
        while progress:
            progress = False
            for t in list(rest):
                m = self._placement(board, t, new[t])
                if m is not None:
                    order.append(t)
                    rest.remove(t)
                    board.place(m.low_cell, t.low, m.high_cell, t.high)
                    progress = True
        return order, rest

    def _plays(self, new: dict[Tile, tuple]) -> list[dict]:
        todo = [t for t in new if t not in self.flagged]
        if not todo:
            return []
        order = None
        if len(todo) <= 4:
            for perm in permutations(todo):
                b = self.board.copy()
                ok = True
                for t in perm:
                    m = self._placement(b, t, new[t])
                    if m is None:
                        ok = False
                        break
                    b.place(m.low_cell, t.low, m.high_cell, t.high)
                if ok:
                    order = list(perm)
                    break
        out: list[dict] = []
        if order is None:  # the largest part that is legal, one by one; the rest is flagged
            b = self.board.copy()
            order, rest = self._lay(b, todo, new)
            for t in rest:
                (c0, n0), (c1, n1) = new[t]
                self.flagged.add(t)
                out.append(
                    {
                        "type": "flag",
                        "tile": str(t),
                        "message": _why_not_tableaux(b, t, c0, n0, c1, n1),
                    }
                )
        if order:
            # a flagged tile still lying there that fits once these plays are down: the tile it
            # needed was missed when it came (a misread, a hand over it); it is a play after all
            b = self.board.copy()
            self._lay(b, order, new)
            order += self._lay(b, [t for t in new if t in self.flagged], new)[0]
        out += _order_note("tiles", [str(t) for t in order])
        for t in order:
            m = self._placement(self.board, t, new[t])
            if t in self.flagged:
                self.flagged.discard(t)
                out.append(
                    {
                        "type": "flag_withdrawn",
                        "tile": str(t),
                        "message": f"{t} fits now: the tile it touches had not been seen",
                    }
                )
            out += self.flush(t)
            self.board.place(m.low_cell, t.low, m.high_cell, t.high)
            self.tiles[t] = new[t]
            p = self.player
            out.append(
                {
                    "type": "play",
                    "player": p,
                    "tile": str(t),
                    "kind": m.kind,
                    "points": m.points,
                    "action": f"{t} at {list(m.low_cell)}={t.low} {list(m.high_cell)}={t.high}",
                    "continues": m.continues,
                }
            )
            if m.points:
                out += self._score(p, m.points, f"{m.kind} play {t}")
            if self.winner is not None:
                break
            if not m.continues:
                self.player = 1 - p
        return out

    def check_tap(self, kind, player):
        if kind == "player" and player not in (0, 1):
            raise ValueError(f"Tableaux seats are 0 and 1, got {player!r}")

    def on_tap(self, kind, player):
        if kind == "player":
            self.player = player
            if not self.tiles or self.asking:
                self.hand_starter = player
            out = [{"type": "turn", "player": player}]
            if self.asking:  # the answer: the view that waited is taken now
                self.asking = False
                if self.last_view is not None:
                    out += self.on_stable(*self.last_view)
            return out
        if kind == "done":
            self.player = 1 - self.player
            return [{"type": "turn", "player": self.player}]
        p = self.player
        out = [{"type": "play", "player": p, "action": "pass", "tile": None, "points": -3}]
        out += self._score(p, -3, "pass")
        self.player = 1 - p
        return out

    def summary(self):
        return {
            "scores": list(self.scores),
            "player": None if self.asking else self.player,
            "hand": self.hand_number,
            "over": self.over,
            "winner": self.winner,
        }

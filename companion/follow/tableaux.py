"""Tableaux's rules of change (RULES.md section 5) for :class:`companion.follow.Follower`."""

from __future__ import annotations

import itertools

import numpy as np

from companion.follow.base import UNSURE_KINDS, _check_sync, _GameFollow, _order_note, _unsure
from engine.tiles import Tile
from vision.types import TileDetection

# --- Tableaux --------------------------------------------------------------------------------

#: Most new tiles of one view put in a legal order by trying every order (more are laid one by
#: one while any fits).
MAX_AT_ONCE = 4

#: The 8 rotations/reflections of the grid, as (swap, sign of row, sign of col).
_SYMMETRIES = [(sw, sr, sc) for sw in (False, True) for sr in (1, -1) for sc in (1, -1)]


def _sym(cell, s) -> tuple[int, int]:
    sw, sr, sc = s
    r, c = cell
    if sw:
        r, c = c, r
    return (r * sr, c * sc)


def _mapping(s, d: tuple[int, int]):
    """The map of a reading's cells to ours: symmetry ``s`` (:func:`_sym`), then the shift
    ``d`` (rows, columns)."""

    def f(cell) -> tuple[int, int]:
        r, c = _sym(cell, s)
        return (r + d[0], c + d[1])

    return f


def _register(ours: dict[Tile, tuple], seen: dict[Tile, tuple]):
    """The map from the reading's cells to ours: ``f(cell) -> cell`` using the tiles both show,
    or None when no rotation/reflection plus shift fits them all.

    ``ours`` / ``seen``: ``{tile: ((cell, number), (cell, number))}``."""
    common = [t for t in seen if t in ours]
    if not common:
        return None
    for s in _SYMMETRIES:
        offsets: set | None = None
        for t in common:
            got = _offsets(ours, seen, t, s)
            offsets = got if offsets is None else offsets & got
            if not offsets:
                break
        if offsets:
            return _mapping(s, min(offsets))
    return None


def _offsets(ours: dict[Tile, tuple], seen: dict[Tile, tuple], t: Tile, s) -> set:
    """The shifts that take tile ``t``'s cells in ``seen``, under symmetry ``s``, onto its cells
    in ``ours`` with the same number on each (both ways round for a double)."""
    (ca, na), (cb, nb) = seen[t]
    (oa, ma), (ob, mb) = ours[t]
    out = set()
    for (x, nx), (y, ny) in (((ca, na), (cb, nb)), ((cb, nb), (ca, na))):
        if nx != ma or ny != mb:
            continue
        sx, sy = _sym(x, s), _sym(y, s)
        d1 = (oa[0] - sx[0], oa[1] - sx[1])
        if d1 == (ob[0] - sy[0], ob[1] - sy[1]):
            out.add(d1)
    return out


#: Fewest followed tiles that must line up for a view to be registered with some of its tiles
#: read off their cells (:func:`_register_most`).
MIN_LINED_UP = 4


def _register_most(ours: dict[Tile, tuple], seen: dict[Tile, tuple]):
    """The map from the reading's cells to ours that nearly all the tiles both show agree on,
    and the tiles it leaves off their cells: ``(f, [tile, ...])``, or None.

    A camera view of a large tableau often has one or two tiles read off their cells (a box
    drawn across two tiles, one of two boxes at one place kept, a tile read a cell away just
    after the camera zoomed) while every other tile lies where the followed tableau has it; the
    tableau does not move (RULES.md section 5: tiles are laid, never moved), so those tiles are
    misreads. Taken when at least :data:`MIN_LINED_UP` tiles line up under one rotation,
    reflection and shift, at most a quarter of the tiles both show do not, and no other map
    lines up within two tiles of as many (a tableau that fits two ways is not guessed)."""
    common = [t for t in seen if t in ours]
    votes: dict[tuple, int] = {}
    for s in _SYMMETRIES:
        for t in common:
            for d in _offsets(ours, seen, t, s):
                votes[(s, d)] = votes.get((s, d), 0) + 1
    if not votes:
        return None
    ranked = sorted(votes.items(), key=lambda kv: -kv[1])
    (s, d), n = ranked[0]
    runner_up = ranked[1][1] if len(ranked) > 1 else 0
    off = [t for t in common if d not in _offsets(ours, seen, t, s)]
    if n < MIN_LINED_UP or 4 * len(off) > len(common) or runner_up > n - 2:
        return None
    return _mapping(s, d), off


#: Doubts of a reading that :meth:`_TableauxFollow._untwinned` may explain from the followed
#: hand (any other leaves the view untaken).
EXPLAINED = frozenset({"duplicate", "unreadable", "doubtful", "outside_set", "overlap"})


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


def _value_boxes(reading, stable) -> dict[Tile, list]:
    """``{value: [box, ...]}``: the boxes of ``stable`` (the view's detections) each value of the
    reading's layout (``reading.layout["placed"]``, by ``tile_index``) was read on, in layout
    order; placements without a value or a box left out."""
    boxes: dict[Tile, list] = {}
    for p in reading.layout.get("placed") or []:
        k = p.get("tile_index")
        if p["pips"] is not None and k is not None and 0 <= k < len(stable):
            boxes.setdefault(Tile(*p["pips"]), []).append(stable[k])
    return boxes


def _cells(placed: list[dict]) -> dict[Tile, tuple]:
    """The layout reader's placed tiles as ``{tile: ((cell, number), (cell, number))}``."""
    seen: dict[Tile, tuple] = {}
    for p in placed:
        a, b = p["pips"]
        seen[Tile(a, b)] = ((tuple(p["cells"][0]), a), (tuple(p["cells"][1]), b))
    return seen


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
        #: plays the seat to move has made this turn (0 when the seat changes or a hand starts;
        #: None: not known, the turn began before the follower saw the table)
        self.turn_plays: int | None = None if self.ask_on_join else 0
        #: a "done" tap came before any play of this turn was seen (RULES.md Tableaux, Turns:
        #: a turn plays at least one tile): the next play is that seat's, then the turn ends
        self.done_waiting = False
        #: a side play ended the turn in the view being taken: a "done" applied with that view
        #: (tapped while the play was read) says nothing more
        self.side_ended = False
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
        #: what was asked this hand, asked once: ``("gone", tile)`` a followed tile not seen,
        #: ``("off", tile)`` one read off its cells, ``("misread", tile, cells)`` a new value
        #: read on followed cells (per place), ``("align",)`` a view that did not line up
        #: (asked again once a view lined up)
        self.asked: set[tuple] = set()
        #: ``("gone" | "off", tile)`` of the last view that lined up: a followed tile is asked
        #: about only when a second view in a row misses it (a hand passing over is no question)
        self.unseen_last: set[tuple] = set()
        #: an empty table was seen since the tableau was last seen (the hand over, or every
        #: tile missed for a few frames: decided by the next views)
        self.cleared = False
        #: ... and that view held no box at all (a view of boxes without a value, such as a
        #: close-up of the starter read as backs, is no table seen cleared for certain)
        self.cleared_bare = False
        #: a single tile seen alone where the tableau was (no tile of it lined up): the next
        #: hand's starter, or the next play while the followed tiles are missed; the next view
        #: with more tiles tells which
        self.maybe_starter: dict[Tile, tuple] | None = None
        #: such a tile, then an empty table again (see :meth:`on_stable`)
        self.taken_up: dict[Tile, tuple] | None = None
        #: the table was seen empty before the current hand's first tiles (so several tiles at
        #: that first view are a starter and the plays after it, not a game in progress)
        self.watched_empty = False
        #: this hand's views, taps and score-sheet changes as taken, each with the state before
        #: it (:meth:`_retake` follows them again when a tile read late shows an order the
        #: camera missed)
        self.log: list[tuple] = []
        #: the log entry at which each flagged tile was first flagged
        self.flag_entry: dict[Tile, int] = {}
        #: views that read each value (a followed tile on its cells), and how many views in a
        #: row read a new value ``t`` on exactly the cells of the followed tile ``u``:
        #: ``{(t, u): views}`` (:meth:`_reread`)
        self.views_read: dict[Tile, int] = {}
        self.read_over: dict[tuple, int] = {}
        #: where each value not followed was read, and since when: ``[tile, (2,) pixel centre
        #: in the last view, first frame]``, moved with the camera (:meth:`_note_reads`)
        self.first_read: list[list] = []
        #: the pixel centre of each value the last view read on one box
        self.seen_px: dict[Tile, object] = {}
        #: each value of the last view not followed: the first frame it was read where it lies
        self.read_since: dict[Tile, int] = {}
        #: ``{(tile, cell): first frame}``: each value not followed that a view taken read on a
        #: cell (ours), taken or not (:meth:`_before_tap`)
        self.read_cells: dict[tuple, int] = {}
        self._retaking = False
        #: views being taken (:meth:`_plays` nested in a retake), and the tiles read when the
        #: tap being applied was made (None: a tap taken at once)
        self._depth = 0
        self._tap_values: set[Tile] | None = None
        #: taps made while the table was seen empty before the boneyard was (the hand over or
        #: the tiles missed: not yet decided), and the state before the first of them; when the
        #: next hand shows they are taken back and taken again in it (:meth:`_next_hand`)
        self.clear_taps: list[tuple] = []
        self.clear_snap: tuple | None = None
        #: the cells (ours) of boxes on free cells whose value was not read (no value, or a
        #: followed tile's value read there too) in the views not taken since the last taken,
        #: and how many taps were waiting when the first was seen (:meth:`_unread_at_taps`)
        self.unread: tuple[set, int] | None = None
        #: score-sheet changes made meanwhile (points per seat, winner): applied again after
        #: the taps are taken back
        self.clear_syncs: list[tuple] = []

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
        delta = [totals[p] - self.scores[p] for p in (0, 1)]
        self.log.append(("sync", delta, winner, self._snapshot(), None))
        if self.clear_snap is not None:  # kept when those taps are taken back
            self.clear_syncs.append((delta, winner))
        self._sync(delta, winner)

    def _sync(self, delta: list[int], winner: int | None) -> None:
        """The score sheet's change (points per seat, the winner) taken into the tally."""
        for p in (0, 1):
            self.hand_scores[p] += delta[p]
            self.scores[p] += delta[p]
        self.winner = winner

    def _end_hand(self) -> list[dict]:
        out = self.flush()  # taps made before the table was cleared
        a, b = self.hand_scores
        winner = 0 if a > b else 1 if b > a else 1 - self.hand_starter
        self.player = self.hand_starter = winner
        self.turn_plays, self.done_waiting = 0, False
        self.board = self._Board()
        self.tiles = {}
        self.flagged = set()
        self.asked, self.unseen_last = set(), set()
        self.cleared = self.cleared_bare = False
        self.maybe_starter = self.taken_up = None
        self.watched_empty = True
        self.log = []
        self.flag_entry = {}
        self.first_read, self.seen_px, self.read_since = [], {}, {}
        self.read_cells = {}
        self.views_read, self.read_over = {}, {}
        self.clear_taps, self.clear_snap, self.clear_syncs = [], None, []
        self.unread = None
        return out + [
            {
                "type": "hand_end",
                "hand": self.hand_number,
                "hand_scores": [a, b],
                "next_starter": winner,
            }
        ]

    def _next_hand(self) -> list[dict]:
        """The hand over, decided once the next hand shows after an empty table: the taps made
        since the table was seen empty (a pass of the next hand's first player, most often)
        are taken back from the hand that ended (its tally decides who starts the next,
        RULES.md section 5), with a ``score`` per seat whose total changes, and wait to be
        taken in the next hand before its first play (or at the end of the view)."""
        taps, snap = self.clear_taps, self.clear_snap
        out: list[dict] = []
        if snap is not None:
            before = list(self.scores)
            self._restore(snap)
            for delta, winner in self.clear_syncs:
                self._sync(delta, winner)
            out.append(
                {
                    "type": "note",
                    "message": f"{len(taps)} tap(s) made after the table was cleared taken in "
                    "the next hand",
                }
            )
            out += [
                {
                    "type": "score",
                    "source": "camera",
                    "player": p,
                    "points": self.scores[p] - before[p],
                    "reason": "a tap made after the table was cleared belongs to the next hand",
                }
                for p in (0, 1)
                if self.scores[p] != before[p]
            ]
        out += self._end_hand()
        self.pending[:0] = [(kind, player, set(), {}) for kind, player in taps]
        return out

    def _starter_only(self) -> bool:
        """Whether the hand followed is its starter alone: no play, no waiting tap, and no tap
        since its starter was seen (a player tap before it, who starts, does not count)."""
        return (
            len(self.tiles) == 1
            and not self.flagged
            and not self.pending
            and all(
                e[0] == "sync" or (e[0] == "tap" and e[1] == "player" and not e[3][1])
                for e in self.log
            )
        )

    def _dealt_again(self, seen: dict[Tile, tuple]) -> list[dict]:
        """The hand's starter alone, the table seen empty, then the same tile alone again: the
        hand ended at its deal (neither player could play on its starter, RULES.md section 5:
        0 to 0, the seat that did not start it starts the next) and the next deal turned up
        the same starter. The other reading, the lone starter missed for a few frames (a hand
        over it) and seen again before any play or tap, is not taken; a ``question`` says what
        was taken, and a player tap puts the seat to move right."""
        (t,) = seen
        out = self._next_hand() + self._start(seen)
        out.append(
            {
                "type": "question",
                "tile": str(t),
                "message": f"{t} taken up and laid again: taken as a hand that ended at its "
                f"deal and a new hand with the same starter, seat {self.player} to move (tap "
                "the player to move if not)",
            }
        )
        return out

    def _same_place(self, before_px: dict, reading, stable, seen: dict[Tile, tuple]) -> bool:
        """Whether the one tile of ``seen`` lies where the followed starter was read in the
        view before (``before_px``: pixel centres of that view): within a quarter of its box's
        length (a tile laid flush with the starter lies a tile width, half a length, or more
        from it), the camera's motion between the two views not known (no value read in
        both)."""
        (old,), (new,) = self.tiles, seen
        boxes = _value_boxes(reading, stable).get(new)
        if old not in before_px or not boxes:
            return False
        d = boxes[0]
        return bool(np.hypot(*(d.centre - before_px[old])) <= max(d.size) / 4)

    def _starter_read_again(self, seen: dict[Tile, tuple]) -> list[dict]:
        """The hand's starter alone, nothing played or tapped, the table never seen empty, and
        another value read alone where it lies: the starter was misread (a tile is taken up
        only with the table cleared, RULES.md section 5: a hand over at its deal), so the
        value read now is the starter, not the next hand's."""
        (old,), (new,) = self.tiles, seen
        self.board = self._Board()
        (ca, na), (cb, nb) = seen[new]
        self.board.place(ca, na, cb, nb)
        self.tiles = dict(seen)
        self.maybe_starter = None
        return [
            {
                "type": "note",
                "tile": str(new),
                "message": f"the starter read as {old} is read as {new} where it lies: taken "
                f"as {new}",
            }
        ]

    def _starter_misread(self, seen: dict[Tile, tuple]) -> list[dict]:
        """The hand followed is its starter alone (nothing played or tapped), views holding
        only boxes without a value followed it (no table seen cleared of every box), and the
        view now holds a starter and plays after it without the followed starter: the starter
        was misread, and this hand starts again from the view (:meth:`_start_with_plays`), the
        same seat to move; no hand ended at its deal (RULES.md section 5)."""
        (old,) = self.tiles
        self.board = self._Board()
        self.tiles = {}
        self.hand_number -= 1
        self.cleared = self.cleared_bare = False
        self.maybe_starter = self.taken_up = None
        self.clear_taps, self.clear_snap, self.clear_syncs = [], None, []  # no hand ended
        out: list[dict] = [
            {
                "type": "note",
                "tile": str(old),
                "message": f"the starter read as {old} is not on the table now: it was misread, "
                "the hand starts again from this view",
            }
        ]
        return out + (self._start_with_plays(seen) or self._start(seen))

    def _start(self, seen: dict[Tile, tuple]) -> list[dict]:
        self.hand_number += 1
        self.hand_scores = [0, 0]
        for _t, ((ca, na), (cb, nb)) in seen.items():
            self.board.place(ca, na, cb, nb)
        self.tiles = dict(seen)
        self.watched_empty = False
        return [
            {
                "type": "hand_start",
                "hand": self.hand_number,
                "tiles": [str(t) for t in seen],
                "player": self.player,
            }
        ]

    def _start_with_plays(self, seen: dict[Tile, tuple]) -> list[dict] | None:
        """A hand's first view holding several tiles after an empty table: the starter and the
        plays after it, seen at once (the starter unread until the first play came, or a view
        missed). The starter is a tile from which the others are a legal sequence of plays
        (RULES.md section 5), credited in turn from the hand's starter; of several such tiles
        the one nearest the middle of the tableau (the starter is laid in the middle), then
        the one after whose plays the turn passed (a play that lets the turn go on is
        usually followed at once by the next). When the choices disagree on who is to move, a
        ``question`` says which was taken. None when no tile is such a starter, or more than
        :data:`MAX_AT_ONCE` tiles follow it (a tableau that large is a game in progress)."""
        if not 1 < len(seen) <= MAX_AT_ONCE + 1:
            return None
        cells = [c for v in seen.values() for c, _ in v]
        mid = (sum(r for r, _ in cells) / len(cells), sum(c for _, c in cells) / len(cells))
        options = []
        for s in seen:
            board = self._Board()
            (ca, na), (cb, nb) = seen[s]
            board.place(ca, na, cb, nb)
            rest = {t: v for t, v in seen.items() if t != s}
            order = self._legal_order(board, list(rest), rest)
            if order is None:
                continue
            player, ends = self.player, False
            for t in order:
                m = self._put(board, t, rest[t])
                ends = not m.continues
                player = 1 - player if ends else player
            r = (ca[0] + cb[0]) / 2 - mid[0], (ca[1] + cb[1]) / 2 - mid[1]
            options.append((round(r[0] ** 2 + r[1] ** 2, 6), not ends, str(s), s, player))
        if not options:
            return None
        options.sort()
        starter = options[0][3]
        out = self._start({starter: seen[starter]})
        if len({o[4] for o in options}) > 1:
            others = ", ".join(str(o[3]) for o in options[1:])
            out.append(
                {
                    "type": "question",
                    "tile": str(starter),
                    "message": f"{starter} taken as the starter, the other tiles as plays after "
                    f"it; {others} could have been the starter too (tap the player to move if "
                    f"it is not seat {options[0][4]})",
                }
            )
        return out + self._plays({t: v for t, v in seen.items() if t != starter})

    def on_stable(self, reading, stable, frame):
        self.last_view = (reading, stable, frame)
        self.holding = False
        self.side_ended = False
        if reading is None or not reading.layout.get("placed"):
            if not self.tiles:
                self.watched_empty = True
                return []
            if len(self.tiles) + len(self.flagged) >= self.boneyard_gone:
                return self._end_hand()
            # fewer tiles down than empty the boneyard: the hand is over only if neither player
            # can play, rare this early; more likely the tiles were missed for a few frames (a
            # hand over them, misreads). The hand is taken as over when the next hand shows.
            self.cleared = True
            self.cleared_bare = self.cleared_bare or not stable
            # a tile seen alone after the table was cleared, then taken up: the starter of a
            # hand where neither player could play, if another tile comes alone
            self.taken_up = self.maybe_starter
            return []
        before_px = dict(self.seen_px)
        self._read_elsewhere_at_taps(self._note_reads(reading, stable, frame))
        seen = self._untwinned(reading) if _unsure(reading) else _cells(reading.layout["placed"])
        if seen is None:  # not taken: the taps made meanwhile wait for a view that is
            self.holding = True
            return []
        if not self.tiles:
            if self.watched_empty:
                begun = self._start_with_plays(seen)
                if begun is not None:
                    return begun
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
        if self.cleared and self._starter_only() and seen.keys() == self.tiles.keys():
            # the starter alone, an empty table, the same tile alone: a hand over at its deal
            return self._dealt_again(seen)
        if (
            not self.cleared
            and self._starter_only()
            and len(seen) == 1
            and seen.keys() != self.tiles.keys()
            and self._same_place(before_px, reading, stable, seen)
        ):
            return self._starter_read_again(seen)
        f = _register(self.tiles, seen)
        off: list[Tile] = []  # followed tiles this view reads off their cells (misreads)
        if f is None and (got := _register_most(self.tiles, seen)) is not None:
            f, off = got
        if (
            f is not None
            and self.cleared
            and 2 * sum(t in seen for t in self.tiles) <= len(self.tiles)
        ):
            f = None  # after an empty table, half the old tableau or less: a new hand
        if f is None:
            if self.taken_up is not None and self.taken_up != seen and self.cleared:
                # the table cleared, a starter laid alone and taken up, another laid: a hand
                # that ended at its deal (neither player could play on its starter, RULES.md
                # section 5): 0 to 0, the seat that did not start it starts the next
                dead, self.taken_up = self.taken_up, None
                out = self._next_hand()
                held, self._pending = self.pending, []  # taps for the hand after it
                out += self._start(dead) + self._end_hand()
                self._pending = held + self._pending
                return out + self.on_stable(*self.last_view)
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
                return self._next_hand() + self._start(starter) + self.on_stable(*self.last_view)
            if self.cleared and not self.cleared_bare and self._starter_only() and len(seen) > 1:
                # the starter alone, views of boxes without a value only, then another starter
                # with plays after it: the starter was misread (a close-up, glare), since a
                # hand over at its deal has its starter taken up from a table seen cleared
                return self._starter_misread(seen)
            if self.cleared:  # the new hand's starter and the plays after it at once
                out = self._next_hand()
                return out + (self._start_with_plays(seen) or self._start(seen))
            self.holding = True  # not taken either
            if ("align",) in self.asked:
                return []
            self.asked.add(("align",))
            return [
                {
                    "type": "question",
                    "message": "the tableau seen does not line up with the "
                    "one followed so far; check the tiles",
                }
            ]
        self.cleared = self.cleared_bare = False
        self.maybe_starter = self.taken_up = None
        self.clear_taps, self.clear_snap, self.clear_syncs = [], None, []
        self.asked.discard(("align",))
        # a followed tile not seen (a hand over it, a misread), or read off its cells while the
        # rest of the tableau lines up (a misread: tiles are never moved), in two such views in
        # a row, is a question on that tile, asked once in the hand; it stays on the followed
        # tableau and the other new tiles are taken
        out: list[dict] = []
        gone = [("off" if t in off else "gone", t) for t in self.tiles if t not in seen or t in off]
        fresh = [key for key in gone if key in self.unseen_last and key not in self.asked]
        self.unseen_last = set(gone)
        self.asked.update(fresh)
        for what, ts in (
            ("no longer seen on the tableau", [t for k, t in fresh if k == "gone"]),
            ("read off its cells (a misread?)", [t for k, t in fresh if k == "off"]),
        ):
            if ts:
                out.append(
                    {
                        "type": "question",
                        "tile": " ".join(map(str, ts)),
                        "message": f"{', '.join(map(str, ts))} {what}; kept where it was played",
                    }
                )
        new = {t: tuple((f(c), n) for c, n in seen[t]) for t in seen if t not in self.tiles}
        for t, v in new.items():
            for c, _ in v:
                self.read_cells.setdefault((t, c), frame)
        # a new value on the cells of a followed tile (one not seen, or a box drawn across two
        # tiles): a misread, not a play (a tile is laid on free cells, RULES.md section 5)
        owner = {c: t for t, v in self.tiles.items() for c, _ in v}
        under = {t: sorted({owner[c] for c, _ in cells if c in owner}) for t, cells in new.items()}
        misread = {t: u for t, u in under.items() if u}
        for t in seen:
            if t not in off:
                self.views_read[t] = self.views_read.get(t, 0) + 1
        # a new value read on exactly the cells of one followed tile, in more views in a row
        # than ever read that tile (2 at least): that tile was the misread (:meth:`_reread`)
        over = {
            (t, u[0]): new[t]
            for t, u in misread.items()
            if len(u) == 1 and {c for c, _ in new[t]} == {c for c, _ in self.tiles[u[0]]}
        }
        self.read_over = {k: self.read_over.get(k, 0) + 1 for k in over}
        for (t, u), cells in over.items():
            n = self.read_over[(t, u)]
            if n >= 2 and n > self.views_read.get(u, 0):
                got = self._reread(u, t, cells)
                if got is not None:
                    self.read_over = {}
                    return out + got + self.on_stable(*self.last_view)
        # asked once per value and place (the same box across two tiles is read view after view)
        ask = {
            t: u for t, u in misread.items() if ("misread", t, frozenset(new[t])) not in self.asked
        }
        self.asked.update(("misread", t, frozenset(new[t])) for t in ask)
        if ask:
            out.append(
                {
                    "type": "question",
                    "message": "; ".join(
                        f"{t} read where {', '.join(map(str, u))} lies" for t, u in ask.items()
                    )
                    + ": a misread? (not taken)",
                }
            )
        new = {t: c for t, c in new.items() if t not in misread}
        # two new tiles read on one cell: one of them is a misread, which one is not known yet
        cells = [c for v in new.values() for c, _ in v]
        if len(cells) != len(set(cells)):
            self.holding = True
            return out
        self._unread_at_taps(new)
        return out + self._plays(new)

    def _unread_at_taps(self, new: dict[Tile, tuple]) -> None:
        """A view taken after views not taken for a box on free cells whose value was not
        read (:attr:`unread`): each new tile of ``new`` (``{tile: cells}``, our cells) lying on
        those cells was on the table, unread, when the taps made since then were made, so it
        counts as read at those taps (played before them, :meth:`flush`)."""
        if self.unread is None:
            return
        (cells, since), self.unread = self.unread, None
        there = {t for t, v in new.items() if {c for c, _ in v} & cells}
        for k in range(min(since, len(self.pending)), len(self.pending)) if there else ():
            kind, player, values, places = self.pending[k]
            self.pending[k] = (kind, player, values | there, places)

    def _note_reads(self, reading, stable, frame: int) -> dict[Tile, TileDetection]:
        """Keep, for each value read in this view that is not followed, the first frame it was
        read where it lies now (:attr:`read_since`): a tile lies still once laid, so when a
        view holds several new tiles (the views between not taken) the one read there earlier
        was laid earlier (RULES.md section 5: the turn, and so the seat credited, follows the
        order of play). A value read elsewhere before (a box across two tiles giving the same
        value) does not count. Places are pixels of the last view: the camera's motion since
        (``vision.tracking.camera_motion``, fitted on the values read on one box in both)
        moves every place kept; a value within half its box's length of a kept place of the
        same value is read there again. Returns the view's values read on one box, ``{tile:
        box}``."""
        from vision.tracking import apply_motion, motion_since

        boxes = _value_boxes(reading, stable)
        now = {t: ds[0] for t, ds in boxes.items() if len(ds) == 1}
        both = [t for t in now if t in self.seen_px]
        if both:
            m = motion_since(self.seen_px, now, both)
            for r in self.first_read:
                r[1] = apply_motion(m, r[1])[0]
        self.seen_px = {t: d.centre for t, d in now.items()}
        self.read_since = {}
        for t, ds in boxes.items():
            if t in self.tiles:
                continue
            for d in ds:
                near = [
                    r
                    for r in self.first_read
                    if r[0] == t and np.hypot(*(r[1] - d.centre)) <= max(d.size) / 2
                ]
                if near:
                    since = min(r[2] for r in near)
                    near[0][1] = d.centre
                else:
                    since = frame
                    self.first_read.append([t, d.centre, frame])
                self.read_since[t] = min(self.read_since.get(t, since), since)
        return now

    def _read_elsewhere_at_taps(self, now: dict[Tile, TileDetection]) -> None:
        """Drop from each waiting tap's values (the tiles read when it was made, taken as laid
        before it) a value not followed that this view (``now``: ``{tile: box}``, values read
        on one box) reads more than half its box's length from where it was read when the tap
        was made, the camera's motion since fitted on at least 3 followed tiles read on one box
        both times (``vision.tracking.camera_motion``): a tile lies still once laid (RULES.md
        section 5), so what was read then was another tile misread, or the tile not yet laid,
        and its play comes after the tap. A value whose place then or now is not known stays."""
        from vision.tracking import apply_motion, motion_since

        for k, (kind, player, values, places) in enumerate(self.pending):
            both = [t for t in self.tiles if t in places and t in now]
            moved = [t for t in values if t not in self.tiles and t in places and t in now]
            if len(both) < 3 or not moved:
                continue
            m = motion_since(places, now, both)
            away = {
                t
                for t in moved
                if np.hypot(*(apply_motion(m, places[t])[0] - now[t].centre)) > max(now[t].size) / 2
            }
            if away:
                self.pending[k] = (kind, player, values - away, places)

    def _untwinned(self, reading) -> dict[Tile, tuple] | None:
        """A doubtful view taken when the followed hand explains each doubt. A value read on
        two boxes (a set has one of each): a followed tile's box on its own cells (the one
        choice of such boxes that lines up with the followed tableau, :func:`_register`, or
        failing that the one that leaves fewest tiles off their cells, :func:`_register_most`),
        or, for a tile not followed, the one box where it is a legal play (RULES.md section 5);
        the other box is a misread of another tile (which then reads as not seen). A box
        without a trusted value (unreadable, doubtful, outside the set) on cells of a followed
        tile: that tile unread (glare, a hand), or a box drawn across two tiles; tiles are not
        laid on tiles, so it is no play. Such a box on free cells may be a new tile not read
        yet, and so may the other box of a followed tile read twice when it lies on free cells
        beside the tableau (the followed tile lies on its own cells), and two boxes at one
        place: the view is not taken (the cells of such boxes kept in :attr:`unread`).
        ``{tile: cells}`` as :meth:`on_stable` reads it, or None (the view not taken)."""
        doubts = [p for p in reading.problems if p.kind in UNSURE_KINDS and p.source == "table"]
        if not self.tiles or self.asking or any(p.kind not in EXPLAINED for p in doubts):
            return None
        boxes: dict[Tile, list[dict]] = {}
        bare = []
        for p in reading.layout["placed"]:
            if p["pips"] is None:
                bare.append(p)
            else:
                boxes.setdefault(Tile(*p["pips"]), []).append(p)
        singles = [bs[0] for bs in boxes.values() if len(bs) == 1]
        kept = [t for t, bs in boxes.items() if len(bs) > 1 and t in self.tiles]
        if sum(len(boxes[t]) for t in kept) > 8:
            return None
        # the followed tiles read twice: the one choice of their boxes that lines up with the
        # followed tableau (each on its own cells), else that leaves fewest off their cells
        choices = [singles + list(c) for c in itertools.product(*(boxes[t] for t in kept))]
        fits = [(c, f) for c in choices if (f := _register(self.tiles, _cells(c))) is not None]
        if not fits:
            most = [(c, got) for c in choices if (got := _register_most(self.tiles, _cells(c)))]
            fewest = min((len(got[1]) for _, got in most), default=None)
            fits = [(c, got[0]) for c, got in most if len(got[1]) == fewest]
        if len(fits) != 1:
            return None
        choice, f = fits[0]
        seen = _cells(choice)
        taken = {c for v in self.tiles.values() for c, _ in v}
        beside = {
            (r + dr, q + dq) for r, q in taken for dr, dq in ((-1, 0), (1, 0), (0, -1), (0, 1))
        }
        # a box without a value on free cells, or the other box of a followed tile read twice
        # on free cells beside the tableau (where a play lies): maybe a tile not read yet (a
        # followed tile lies on its own cells; a tile is laid on free cells touching the
        # tableau, RULES.md section 5), so the view is not taken
        twins = [b for t in kept for b in boxes[t] if all(b is not x for x in choice)]
        unread = [
            cells
            for b, anywhere in [(b, True) for b in bare] + [(b, False) for b in twins]
            if not (cells := {f(tuple(c)) for c in b["cells"]}) & taken
            and (anywhere or cells & beside)
        ]
        if unread:
            cells, since = self.unread or (set(), len(self.pending))
            self.unread = (cells.union(*unread), since)
            return None
        for t, bs in boxes.items():
            if len(bs) == 1 or t in self.tiles:
                continue
            legal = [
                cells
                for cells in (next(iter(_cells([b]).values())) for b in bs)
                if self._placement(self.board, t, tuple((f(c), n) for c, n in cells)) is not None
            ]
            if len(legal) != 1:  # a new tile read twice: taken only where it is a legal play
                return None
            seen[t] = legal[0]
        return seen

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

    def _put(self, board, t: Tile, cells):
        """Place ``t`` on ``board`` (changed in place) on ``cells`` when that is a legal play
        there (:meth:`_placement`); returns the placement, or None (``board`` unchanged)."""
        m = self._placement(board, t, cells)
        if m is not None:
            board.place(m.low_cell, t.low, m.high_cell, t.high)
        return m

    def _lay(self, board, tiles: list[Tile], new: dict[Tile, tuple]):
        """Place on ``board`` (changed in place) every tile of ``tiles`` that fits, one by one
        while any does; returns ``(placed in order, left over)``."""
        order, rest = [], list(tiles)
        progress = True
        while progress:
            progress = False
            for t in list(rest):
                if self._put(board, t, new[t]) is not None:
                    order.append(t)
                    rest.remove(t)
                    progress = True
        return order, rest

    def _legal_order(self, board, todo: list[Tile], new: dict[Tile, tuple]) -> list[Tile] | None:
        """The first order of ``todo`` (at most :data:`MAX_AT_ONCE` tiles, tried in every order)
        in which each is a legal play on ``board`` (not changed) after those before it, or
        None."""
        if len(todo) > MAX_AT_ONCE:
            return None
        for perm in itertools.permutations(todo):
            b = board.copy()
            for t in perm:
                if self._put(b, t, new[t]) is None:
                    break
            else:
                return list(perm)
        return None

    def _snapshot(self) -> tuple:
        """What a view or a tap changes, to follow the hand again from there (:meth:`_retake`)."""
        return (
            self.board.copy(),
            dict(self.tiles),
            list(self.scores),
            list(self.hand_scores),
            self.player,
            set(self.flagged),
            dict(self.flag_entry),
            self.winner,
            self.turn_plays,
            self.done_waiting,
            self.side_ended,
        )

    def _restore(self, snap: tuple) -> None:
        board, tiles, scores, hand_scores, player, flagged, flag_entry, winner, *turn = snap
        self.board = board.copy()
        self.tiles = dict(tiles)
        self.scores, self.hand_scores = list(scores), list(hand_scores)
        self.player, self.winner = player, winner
        self.flagged, self.flag_entry = set(flagged), dict(flag_entry)
        self.turn_plays, self.done_waiting, self.side_ended = turn

    def _late(self, new: dict[Tile, tuple]):
        """Flagged tiles of ``new`` that fit once the view's other new tiles are down: ``(log
        entry where the first of them was flagged, the new tiles they need, the flagged tiles
        that fit)``, or None. Those new tiles were on the table, unread, when the flagged
        tiles came (a tile is played only on tiles already down)."""
        flagged = [t for t in new if t in self.flagged and t in self.flag_entry]
        if not flagged:
            return None
        todo = [t for t in new if t not in self.flagged]
        b = self.board.copy()
        placed = self._lay(b, todo, new)[0]
        fits = self._lay(b, flagged, new)[0]
        if not fits:
            return None
        needed = []
        for u in placed:
            b = self.board.copy()
            self._lay(b, [t for t in placed if t != u], new)
            if len(self._lay(b, flagged, new)[0]) < len(fits):
                needed.append(u)
        if not needed:
            return None
        return min(self.flag_entry[t] for t in fits), needed, fits

    def _follow_again(self, entry: int, view_of) -> list[dict]:
        """Take the log entries from ``entry`` on again in their order, the state restored to
        the one before that entry and the log cut there: taps, score-sheet changes, and each
        view's tiles as ``view_of(k, tiles)`` gives them (``k`` counted from ``entry``); the
        records."""
        redo = self.log[entry:]
        self._restore(redo[0][2])
        self.log = self.log[:entry]
        pending, self._pending = self.pending, []  # the taps waiting for this view wait on
        self._retaking = True
        rec: list[dict] = []
        try:
            for k, item in enumerate(redo):
                if item[0] == "sync":  # an entry typed or undone on the sheet meanwhile
                    self._sync(item[1], item[2])
                    continue
                if item[0] == "tap":
                    if item[4] is None:
                        rec += self.on_tap(item[1], item[2])
                        self.log[-1] = self.log[-1][:5] + (item[5],)
                    continue  # else applied within its view, below
                view = view_of(k, item[1])
                # the taps that waited for this view, applied before the same plays again
                self._pending = [
                    (x[1], x[2], x[4], {})
                    for x in itertools.takewhile(lambda x: x[0] != "view", redo[k + 1 :])
                    if x[0] == "tap" and x[4] is not None
                ]
                rec += self._plays({t: v for t, v in view.items() if t not in self.tiles})
                rec += self.flush()
        finally:
            self._retaking = False
            self._pending = pending
        return rec

    def _reread(self, u: Tile, t: Tile, cells: tuple) -> list[dict] | None:
        """The followed tile ``u`` was a misread of ``t``, read on its cells (``cells``) in
        more views than ever read ``u``: the hand is followed again from the view that took
        ``u`` with ``t`` there instead (RULES.md section 5: the same seat's play, the plays
        after it checked again). Records: ``play_withdrawn`` for ``u`` and any play no longer
        legal, the plays not recorded before (``t``'s, flagged tiles that fit now), withdrawn
        flags and a ``score`` per seat whose total changes; None (nothing changed) when ``t``
        is no legal play there either."""
        entry = next(
            (k for k, item in enumerate(self.log) if item[0] == "view" and u in item[1]), None
        )
        if entry is None:
            return None
        snap, log, pending = self._snapshot(), list(self.log), list(self.pending)
        before, winner = list(self.scores), self.winner
        played, flagged = dict(self.tiles), set(self.flagged)
        rec = self._follow_again(
            entry,
            lambda k, view: {
                (t if x == u else x): (cells if x == u else c) for x, c in view.items()
            },
        )
        if t not in self.tiles:  # no legal play either: the misread stays a question
            self._restore(snap)
            self.log, self._pending = log, pending
            return None
        why = f"{t} read where {u} lies in more views than {u}: {u} was a misread"
        out: list[dict] = [
            {
                "type": "play_withdrawn",
                "tile": str(x),
                "message": why if x == u else f"{x} no longer fits once {u} is read as {t}",
            }
            for x in played
            if x not in self.tiles
        ]
        out += [
            r
            for r in rec
            if (r["type"] == "play" and r.get("tile") and Tile.parse(r["tile"]) not in played)
            or (r["type"] == "flag" and Tile.parse(r["tile"]) not in flagged)
        ]
        out += [
            {"type": "flag_withdrawn", "tile": str(x), "message": f"{x} fits now: {u} was {t}"}
            for x in flagged
            if x in self.tiles
        ]
        return out + self._score_changes(
            before, winner, rec, f"{u} was {t}: the plays since taken again"
        )

    def _score_changes(
        self, before: list[int], winner: int | None, rec: list[dict], reason: str
    ) -> list[dict]:
        """After a hand followed again (records ``rec``): a ``score`` record per seat whose
        total differs from ``before`` (plays re-credited), then the game's ``result`` records
        of ``rec`` when the game has a winner now and had none (``winner``) before."""
        won = self.winner is not None and winner is None
        return [
            {
                "type": "score",
                "source": "camera",
                "player": p,
                "points": self.scores[p] - before[p],
                "reason": reason,
            }
            for p in (0, 1)
            if self.scores[p] != before[p]
        ] + ([r for r in rec if r["type"] == "result"] if won else [])

    def _retake(self, new: dict[Tile, tuple], entry: int, needed: list[Tile], fits: list[Tile]):
        """Follow the hand again from log ``entry`` (the view where a flagged tile of ``fits``
        came) with the tiles ``needed`` played in that view, before it: they were on the table
        unread (RULES.md section 5: a tile is played on tiles already down), so the views and
        taps since then are taken again in their order, each play credited to the seat whose
        turn it was then. Returns the records: a note, the plays not recorded before (the tiles
        read late and the flagged tiles), the withdrawn flags, a ``score`` per seat whose total
        changes (the points re-credited), then the view's other new tiles as plays."""
        before = list(self.scores)
        winner = self.winner
        played, flagged = set(self.tiles), set(self.flagged)

        def view_of(k: int, view: dict) -> dict:
            # a tile this view shows lies where this view puts it (an earlier view may have
            # registered a flagged tile under another of the tableau's symmetries)
            out = {t: new.get(t, v) for t, v in view.items()}
            if k == 0:
                out.update({t: new[t] for t in needed})
            return out

        rec = self._follow_again(entry, view_of)
        late = ", ".join(map(str, needed))
        return self._taken_again(
            new,
            rec,
            (before, winner, played, flagged),
            f"{late} read late: the plays since {', '.join(map(str, fits))} came taken again "
            "in the order",
            {t: f"{t} fits now: {late} lay there unread" for t in fits},
            f"plays taken again in their order once {late} was read",
        )

    def _taken_again(
        self,
        new: dict[Tile, tuple],
        rec: list[dict],
        was: tuple[list, object, set],
        note: str,
        withdrawn: dict[Tile, str],
        reason: str,
    ) -> list[dict]:
        """The records of a hand followed again (:meth:`_follow_again` gave ``rec``; ``was``:
        the scores, winner, followed tiles and flagged tiles before it): a note (``note`` and
        the plays in their new order), a withdrawn flag for each tile of ``withdrawn`` now
        followed (its message) and for each other tile flagged before and not now (the
        message ``rec`` gave it), the plays not recorded before, a ``score`` per seat whose
        total changed (``reason``), then this view's other new tiles of ``new`` as plays."""
        before, winner, played, flagged = was
        plays = [r for r in rec if r["type"] == "play" and r.get("tile")]
        out: list[dict] = [
            {
                "type": "note",
                "message": f"{note} "
                + ", ".join(f"{r['tile']} (seat {r['player']})" for r in plays),
            }
        ]
        out += [
            {"type": "flag_withdrawn", "tile": str(t), "message": message}
            for t, message in withdrawn.items()
            if t in self.tiles
        ]
        gone = {t for t in flagged if t not in self.flagged and t not in self.tiles}
        for r in rec:
            if r["type"] == "flag_withdrawn" and (u := Tile.parse(r["tile"])) in gone:
                gone.discard(u)  # once each
                out.append(r)
        out += [r for r in plays if Tile.parse(r["tile"]) not in played]
        out += self._score_changes(before, winner, rec, reason)
        rest = {t: v for t, v in new.items() if t not in self.tiles}
        return out + (self._plays(rest) if rest and self.winner is None else [])

    def _before_tap(self, new: dict[Tile, tuple]) -> list[dict] | None:
        """New tiles of this view that lay on the table, read in a view taken before a "done"
        or "pass" tap applied at once since: read on a cell they lie on now (:attr:`read_cells`;
        not taken then: read across a followed tile's cells, flagged where it was read a cell
        off), or another value not followed read on both their cells (the tile misread, and
        flagged as that value). A tile lies still once laid (RULES.md section 5), so they were
        played before that tap, by the seat to move then. The hand is followed again from that
        tap with those tiles played just before it, where this view reads them, and the views
        and taps since in their order. Records as :meth:`_retake` gives them, then the view's
        other new tiles as plays; None (nothing changed) when no such tap was made, or a tile
        is no legal play there."""

        def lay_there(t: Tile, at: int) -> bool:
            if any(self.read_cells.get((t, c), at + 1) <= at for c, _ in new[t]):
                return True
            mine = {c for c, _ in new[t]}
            by: dict[Tile, set] = {}
            for (u, c), k in self.read_cells.items():
                if k <= at and c in mine and u != t and u not in self.tiles:
                    by.setdefault(u, set()).add(c)
            return mine in by.values()

        def read_by(at: int) -> list[Tile]:
            return [t for t in new if lay_there(t, at)]

        found = next(
            (
                (k, item, early)
                for k, item in enumerate(self.log)
                if item[0] == "tap" and item[4] is None and item[1] != "player"
                if (early := read_by(item[5]))
            ),
            None,
        )
        if found is None:
            return None
        entry, item, early = found
        snap, log, pending = self._snapshot(), list(self.log), list(self.pending)
        before, winner = list(self.scores), self.winner
        played, flagged = set(self.tiles), set(self.flagged)
        self.log.pop()  # this view: taken again after the tap
        self.log.insert(entry, ("view", {t: new[t] for t in early}, item[3]))
        rec = self._follow_again(entry, lambda k, view: {t: new.get(t, v) for t, v in view.items()})
        if any(t not in self.tiles for t in early):  # no legal play then: taken as it comes
            self._restore(snap)
            self.log, self._pending = log, pending
            return None
        tiles = ", ".join(map(str, early))
        return self._taken_again(
            new,
            rec,
            (before, winner, played, flagged),
            f"{tiles} read where it lies before the {item[1]} tap: played before it; the "
            "plays since taken again in the order",
            {t: f"{t} fits where it lies now: read off its cells, or put right" for t in flagged},
            f"{tiles} played before the tap",
        )

    def _plays(self, new: dict[Tile, tuple]) -> list[dict]:
        self._depth += 1
        try:
            return self._take(new)
        finally:
            self._depth -= 1

    def _take(self, new: dict[Tile, tuple]) -> list[dict]:
        if new:
            self.log.append(("view", dict(new), self._snapshot()))
        if not self._retaking:
            late = self._late(new)
            if late is not None:
                self.log.pop()  # followed again from the entry where the first flag came
                return self._retake(new, *late)
            early = self._before_tap(new)
            if early is not None:
                return early
        # in the order they were first read where they lie (a view not taken in between: the
        # tile read earlier was laid earlier), then those read when a waiting tap was made
        todo = sorted(
            (t for t in new if t not in self.flagged),
            key=lambda t: self.read_since.get(t, float("inf")),
        )
        if self.pending:  # the tiles read when a waiting tap was made were played before it
            todo.sort(key=lambda t: t not in self.pending[0][2])
        order = self._legal_order(self.board, todo, new) if todo else []
        out: list[dict] = []
        if order is None:  # the largest part that is legal, one by one; the rest is flagged
            b = self.board.copy()
            order, rest = self._lay(b, todo, new)
            for t in rest:
                (c0, n0), (c1, n1) = new[t]
                self.flagged.add(t)
                self.flag_entry.setdefault(t, len(self.log) - 1)
                out.append(
                    {
                        "type": "flag",
                        "tile": str(t),
                        "message": _why_not_tableaux(b, t, c0, n0, c1, n1),
                    }
                )
        # a flagged tile still lying there that fits once these plays are down (the tile it
        # needed was missed when it came: a misread, a hand over it), or that now lies where it
        # fits (put right): it is a play after all
        b = self.board.copy()
        self._lay(b, order, new)
        order += self._lay(b, [t for t in new if t in self.flagged], new)[0]
        if not order:
            return out
        out += _order_note("tiles", [str(t) for t in order])
        for t in order:
            m = self._placement(self.board, t, new[t])
            if t in self.flagged:
                self.flagged.discard(t)
                out.append(
                    {
                        "type": "flag_withdrawn",
                        "tile": str(t),
                        "message": f"{t} fits now: the tile it touches had not been seen, "
                        "or it was put right",
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
            out += self._read_wrong(t, new)
            if self.turn_plays is not None:
                self.turn_plays += 1
            self.side_ended = not m.continues
            if not m.continues or self.done_waiting:  # the turn ends: a side play, or the
                # "done" tapped before this play was seen
                if m.continues:
                    out.append({"type": "turn", "player": 1 - p})
                self.player, self.turn_plays, self.done_waiting = 1 - p, 0, False
        return out

    def _read_wrong(self, t: Tile, new: dict[Tile, tuple]) -> list[dict]:
        """Withdraw the flag of each flagged value that this view does not read and that was
        read, when it was flagged, on exactly the cells the play of ``t`` now lies on: a tile
        lies still once laid (RULES.md section 5), so it was ``t`` read wrong. The
        ``flag_withdrawn`` records."""
        mine = {c for c, _ in new[t]}
        out = []
        for u in sorted(self.flagged, key=str):
            entry = self.flag_entry.get(u)
            item = self.log[entry] if entry is not None and entry < len(self.log) else None
            was = item[1].get(u) if item is not None and item[0] == "view" else None
            if u in new or was is None or {c for c, _ in was} != mine:
                continue
            self.flagged.discard(u)
            del self.flag_entry[u]  # flagged again elsewhere: from that view
            out.append(
                {
                    "type": "flag_withdrawn",
                    "tile": str(u),
                    "message": f"{u} was {t} read wrong: {t} lies where {u} was read",
                }
            )
        return out

    def followed(self):
        return set(self.tiles) | self.flagged

    def check_tap(self, kind, player):
        if kind == "player" and player not in (0, 1):
            raise ValueError(f"Tableaux seats are 0 and 1, got {player!r}")

    def on_waited_tap(self, kind, player, values):
        self._tap_values = values
        try:
            return self.on_tap(kind, player)
        finally:
            self._tap_values = None

    def on_tap(self, kind, player):
        # a tap that waited and was applied while a view's plays were taken (before a play of a
        # tile not yet read when it was made) is followed again the same way (:meth:`_retake`)
        inside = self._tap_values if self._depth else None
        # the frame of the last stable view when the tap was made (a tap followed again keeps
        # the one it had, :meth:`_follow_again`)
        at = self.last_view[2] if self.last_view is not None else -1
        self.log.append(("tap", kind, player, self._snapshot(), inside, at))
        if self.cleared and self.tiles and not self._retaking:
            if self.clear_snap is None:
                self.clear_snap = self._snapshot()
            self.clear_taps.append((kind, player))
        if kind == "player":
            self.player = player
            # who is to move: mid-hand the seat may have played already this turn
            self.turn_plays, self.done_waiting = (None if self.tiles else 0), False
            if not self.tiles or self.asking:
                self.hand_starter = player
            out = [{"type": "turn", "player": player}]
            if self.asking:  # the answer: the view that waited is taken now
                self.asking = False
                if self.last_view is not None:
                    out += self.on_stable(*self.last_view)
            return out
        if kind == "done":
            if self.side_ended:  # the side play just taken ended the turn already
                self.side_ended = False
                return []
            if self.turn_plays == 0 and self.tiles and not self.done_waiting:
                self.done_waiting = True
                return [
                    {
                        "type": "question",
                        "message": f"'done' tapped before a play of seat {self.player}'s turn "
                        "was seen (a turn plays at least one tile): the next tile laid is "
                        f"taken as seat {self.player}'s, then the turn ends; if seat "
                        f"{self.player} passed, tap 'pass'",
                    }
                ]
            self.player, self.turn_plays, self.done_waiting = 1 - self.player, 0, False
            return [{"type": "turn", "player": self.player}]
        p = self.player
        out = [{"type": "play", "player": p, "action": "pass", "tile": None, "points": -3}]
        out += self._score(p, -3, "pass")
        self.player, self.turn_plays, self.done_waiting = 1 - p, 0, False
        return out

    def summary(self):
        return {
            "scores": list(self.scores),
            "player": None if self.asking else self.player,
            "hand": self.hand_number,
            "over": self.over,
            "winner": self.winner,
        }

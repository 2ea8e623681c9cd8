"""The draw game's rules of change (RULES.md section 4) for :class:`companion.follow.Follower`."""

from __future__ import annotations

import numpy as np

from companion.follow.base import UNSURE_KINDS, _check_sync, _GameFollow, _order_note, _read_line
from engine.tiles import Tile
from vision.types import TileDetection

# --- the draw game ---------------------------------------------------------------------------

#: A loose face-up tile closer than this many tile lengths to a tile of the line is taken as a
#: play (flagged when it matches nothing); farther away it is a hand shown at the end.
NEAR_LINE = 1.6


class _Draw100Follow(_GameFollow):
    """The double-six draw game (RULES.md section 4): plays on open ends, the end of a hand
    (the remaining tiles shown apart from the line), the hand's points."""

    @classmethod
    def create(cls, g, players, max_pip, first_player, variant):
        return cls(players, first_player)

    def read(self, stable, game):
        return _read_line(stable, game)

    def __init__(self, players: int, first_player: int):
        from engine.draw100.line import LineOfPlay

        if not isinstance(players, int) or not 2 <= players <= 4:
            raise ValueError(f"the draw game is for 2 to 4 players, got {players!r}")
        if not 0 <= first_player < players:
            raise ValueError(f"first player must be a seat 0..{players - 1}, got {first_player!r}")
        self.n = players
        self.target = 100
        self._Line = LineOfPlay
        self.line = LineOfPlay()
        self.node: dict[Tile, int] = {}
        self.scores = [0] * players
        self.player = first_player
        self.last_player: int | None = None
        self.phase = "play"
        self.groups: list[list[Tile]] = []
        self.group: set[Tile] = set()
        self.flagged: set[Tile] = set()
        self.hand_number = 0
        self.winner: int | None = None

    @property
    def over(self) -> bool:
        return self.winner is not None

    def sync_scores(self, totals, winner):
        _check_sync(self.n, totals, winner)
        self.scores = list(totals)
        self.winner = winner

    def _reset(self):
        self.line = self._Line()
        self.node = {}
        self.phase = "play"
        self.groups = []
        self.group = set()
        self.flagged = set()

    def on_stable(self, reading, stable, frame):
        if reading is None or not any(not d.face_down for d in stable):
            return self._cleared()
        lay = reading.layout
        unsure = [p for p in reading.problems if p.kind in UNSURE_KINDS and p.source == "table"]
        if unsure:
            return []
        by_index = {d_i: d for d_i, d in enumerate(stable)}
        line_tiles = {Tile.parse(it["tile"]): it["tile_index"] for it in lay["line"]}
        loose = [
            (Tile.parse(it["tile"]), it["tile_index"]) for it in lay.get("loose", []) if it["tile"]
        ]
        length = float(np.median([d.size[0] for d in stable]))
        centres = {t: by_index[i].centre for t, i in line_tiles.items()}
        near, far = [], []
        for t, i in loose:
            c = by_index[i].centre
            dist = min((float(np.hypot(*(c - x))) for u, x in centres.items()), default=1e9)
            (near if dist < NEAR_LINE * length and self.phase == "play" else far).append((t, i))
        out: list[dict] = []
        # a line that does not contain ours: a new hand begun without an empty table between
        values = {
            Tile(*(int(v) for v in d.pips))
            for d in stable
            if not d.face_down and d.pips is not None
        }
        if self.node and not any(t in values for t in self.node) and len(line_tiles) == 1:
            out += self._cleared()
        gone = [t for t in self.node if t not in line_tiles]
        if gone and self.phase == "play":  # a tile of the line hidden or misread: wait
            return out + [
                {
                    "type": "question",
                    "message": f"{', '.join(map(str, gone))} no longer seen in the line",
                }
            ]
        if self.phase == "play" and not far:
            out += self._line_plays(lay, line_tiles, by_index, frame)
            for t, i in near:
                if t in self.flagged or t in self.node:
                    continue
                self.flagged.add(t)
                out.append(
                    {
                        "type": "flag",
                        "tile": str(t),
                        "message": self._why_not(
                            t, by_index[i].centre, lay, by_index, seen_det=by_index[i]
                        ),
                    }
                )
            return out
        # the end of the hand: the players show their remaining tiles apart from the line
        if self.phase == "play":
            self.phase = "reveal"
            out.append(
                {"type": "hand_end", "hand": self.hand_number, "last_player": self.last_player}
            )
        shown = {t for t, _ in loose if t not in self.node}
        if shown:
            self.group |= shown
        elif self.group:
            out += self._close_group()
        return out

    def _line_plays(self, lay, line_tiles, by_index, frame):
        out: list[dict] = []
        if not line_tiles:
            return out
        if not self.node:
            if len(line_tiles) == 1:
                t = next(iter(line_tiles))
                if not t.is_double:
                    if t not in self.flagged:
                        self.flagged.add(t)
                        out.append(
                            {
                                "type": "flag",
                                "tile": str(t),
                                "message": f"{t} cannot lead: the "
                                "highest double leads (RULES.md section 4)",
                            }
                        )
                    return out
                self.hand_number += 1
                self.node[t] = self.line.place_first(t)
                out.append(self._play(t, f"lead {t}"))
                return out
            # joined mid-hand: take the line as seen
            from engine.draw100.line import LineOfPlay

            try:
                self.line = LineOfPlay.from_json(
                    [{k: it[k] for k in ("tile", "parent", "direction")} for it in lay["line"]]
                )
            except ValueError as e:
                return [
                    {"type": "question", "message": f"the line seen is not a line of play: {e}"}
                ]
            self.hand_number += 1
            self.node = {n.tile: n.id for n in self.line.nodes}
            return [
                {
                    "type": "note",
                    "message": f"joined a hand in progress: {len(self.node)} tiles in the line",
                }
            ]
        gone = [t for t in self.node if t not in line_tiles]
        if gone:
            return [
                {
                    "type": "question",
                    "message": f"{', '.join(map(str, gone))} no longer seen in the line",
                }
            ]
        index_tile = {i: t for t, i in line_tiles.items()}
        partners: dict[Tile, list[Tile]] = {}
        for i, j in lay.get("joins", []):
            a, b = index_tile.get(i), index_tile.get(j)
            if a is None or b is None:
                continue
            partners.setdefault(a, []).append(b)
            partners.setdefault(b, []).append(a)
        new = [t for t in line_tiles if t not in self.node]
        placed = []
        progress = True
        while new and progress:
            progress = False
            for t in list(new):
                for host in partners.get(t, []):
                    if host not in self.node:
                        continue
                    ends = [
                        e
                        for e in self.line.open_ends()
                        if e.node_id == self.node[host] and t.has(e.number)
                    ]
                    if not ends:
                        continue
                    e = ends[0]
                    self.node[t] = self.line.attach(t, e.id)
                    placed.append((t, f"play {t} on the {e.number} of {host}"))
                    new.remove(t)
                    progress = True
                    break
        out += _order_note("tiles", [str(t) for t, _ in placed])
        for t, text in placed:
            out += self.flush(t)
            out.append(self._play(t, text))
        for t in new:
            if t not in self.flagged:
                self.flagged.add(t)
                out.append(
                    {
                        "type": "question",
                        "message": f"{t} joins the line where no open end takes it",
                    }
                )
        return out

    def _play(self, t: Tile, text: str) -> dict:
        p = self.player
        self.last_player = p
        self.player = (p + 1) % self.n
        return {"type": "play", "player": p, "tile": str(t), "action": text, "points": 0}

    def _why_not(
        self,
        t: Tile,
        centre,
        lay,
        by_index,
        exclude: int | None = None,
        seen_det: TileDetection | None = None,
    ) -> str:
        """The number of the open end of the followed line nearest to ``centre`` (pixels)."""
        index_of = {it["tile"]: it["tile_index"] for it in lay["line"]}
        ends = []
        for e in self.line.open_ends():
            i = index_of.get(str(self.line.node(e.node_id).tile))
            if i is not None and i != exclude:
                ends.append((float(np.hypot(*(by_index[i].centre - centre))), e.number, i))
        if not ends:
            return f"{t} touches no open end of the line"
        _, number, at = min(ends, key=lambda x: x[0])
        text = str(t)
        det = by_index.get(at) if isinstance(at, int) else None
        if det is not None and seen_det is not None and seen_det.pips is not None:
            # name the tile with the half that touches first, as the players see it
            near = int(np.argmin([float(np.hypot(*(h - det.centre))) for h in seen_det.halves]))
            text = f"{seen_det.pips[near]}-{seen_det.pips[1 - near]}"
        return f"{text} does not match the {number} it touches"

    def _close_group(self) -> list[dict]:
        seat = (
            (self.last_player if self.last_player is not None else -1) + 1 + len(self.groups)
        ) % self.n
        group = sorted(self.group)
        self.groups.append(group)
        self.group = set()
        out = [
            {
                "type": "hand_shown",
                "player": seat,
                "tiles": [str(t) for t in group],
                "pips": sum(t.pips for t in group),
            }
        ]
        if len(self.groups) == self.n:
            out += self._score_hand("blocked")
        elif len(self.groups) == self.n - 1 and self._surely_domino():
            out += self._score_hand("domino")
        return out

    def _surely_domino(self) -> bool:
        """After the other players showed their tiles: the last player cannot hold tiles when
        the line and the shown tiles are the whole set, or when a tile still unseen would fit an
        open end (a blocked hand leaves the boneyard empty and no tile playable)."""
        seen = set(self.node) | {t for g in self.groups for t in g}
        unseen = [Tile(a, b) for a in range(7) for b in range(a, 7) if Tile(a, b) not in seen]
        opens = set(self.line.open_numbers())
        return not unseen or any(t.low in opens or t.high in opens for t in unseen)

    def _score_hand(self, kind: str) -> list[dict]:
        n = self.n
        seat_of = [
            ((self.last_player if self.last_player is not None else -1) + 1 + k) % n
            for k in range(len(self.groups))
        ]
        pips = [0] * n
        for s, g in zip(seat_of, self.groups):
            pips[s] = sum(t.pips for t in g)
        if kind == "domino":
            winner, points = self.last_player, sum(pips)
        else:
            low = min(pips)
            lows = [p for p in range(n) if pips[p] == low]
            winner, points = (None, 0) if len(lows) > 1 else (lows[0], sum(pips) - 2 * low)
        out = [
            {
                "type": "hand_scored",
                "kind": kind,
                "winner": winner,
                "points": points,
                "hand_pips": pips,
            }
        ]
        if winner is not None:
            self.scores[winner] += points
            out.append(
                {
                    "type": "score",
                    "source": "camera",
                    "player": winner,
                    "points": points,
                    "reason": f"hand {self.hand_number} ({kind})",
                }
            )
            if self.scores[winner] >= self.target:
                self.winner = winner
                out.append({"type": "result", "winner": winner, "scores": list(self.scores)})
        self.phase = "scored"
        return out

    def _cleared(self) -> list[dict]:
        out: list[dict] = self.flush()  # taps made before the table was cleared
        if self.phase == "reveal":
            if self.group:
                out += self._close_group()
            if self.phase == "reveal":
                if len(self.groups) == self.n - 1:
                    out += self._score_hand("domino")
                else:
                    out.append(
                        {
                            "type": "question",
                            "message": f"the table was cleared after "
                            f"{len(self.groups)} hand(s) shown; {self.n - 1} or {self.n} were expected",
                        }
                    )
        elif self.phase == "play" and self.node:
            out.append(
                {"type": "question", "message": "the line was cleared before the hands were shown"}
            )
        self._reset()
        return out

    def check_tap(self, kind, player):
        if kind == "player" and not (isinstance(player, int) and 0 <= player < self.n):
            raise ValueError(f"seats are 0..{self.n - 1}, got {player!r}")
        if kind == "done":
            raise ValueError("the draw game has no 'done' tap: a turn is one play")

    def on_tap(self, kind, player):
        if kind == "player":
            self.player = player
            return [{"type": "turn", "player": player}]
        if kind == "pass":
            p = self.player
            self.player = (p + 1) % self.n
            return [{"type": "play", "player": p, "action": "pass", "tile": None, "points": 0}]
        return super().on_tap(kind, player)

    def summary(self):
        return {
            "scores": list(self.scores),
            "player": self.player,
            "hand": self.hand_number,
            "over": self.over,
            "winner": self.winner,
        }

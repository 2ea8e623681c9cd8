"""Tracking keeps each tile's identity and geometry: corner order, flipping values, doubles."""

from __future__ import annotations

import numpy as np

from engine.tiles import Tile
from vision.tracking import Tracker
from vision.types import TileDetection

#: A tile 100 x 50 pixels lying along x; the 5 on the left half, the 3 on the right.
BOX = np.array([[100, 100], [200, 100], [200, 150], [100, 150]], np.float32)


def _others() -> list[TileDetection]:
    """Three more tiles in a row below, so the camera fit has tiles to work with."""
    out = []
    for k, pips in enumerate(((0, 1), (2, 4), (6, 6))):
        c = BOX + np.float32([150 * k, 200])
        out.append(TileDetection(c, 0.9, pips=pips, pip_confidence=0.95))
    return out


def _tile_of(dets: list[TileDetection], t: Tile) -> TileDetection:
    return next(d for d in dets if d.pips is not None and Tile(*d.pips) == t)


def test_corners_rotated_180_degrees_in_alternate_frames_keep_the_tile_whole():
    tr = Tracker(steady_frames=3)
    turned = np.roll(BOX, 2, axis=0)  # the same box started at the opposite corner
    for k in range(6):
        five = (
            TileDetection(BOX, 0.9, pips=(5, 3), pip_confidence=0.95)
            if k % 2 == 0
            else TileDetection(turned, 0.9, pips=(3, 5), pip_confidence=0.95)
        )
        tr.update([five] + _others())
    d = _tile_of(tr.stable, Tile(3, 5))
    length, width = d.size
    assert abs(length - 100) < 1 and abs(width - 50) < 1
    # the halves still carry their own numbers: the 5 on the left, the 3 on the right
    five_half = d.halves[list(d.pips).index(5)]
    assert five_half[0] < 150 < d.halves[list(d.pips).index(3)][0]


def test_a_reading_that_flips_between_two_values_keeps_the_tile_on_the_table():
    tr = Tracker(steady_frames=3)
    for pips in ((5, 3), (5, 2), (5, 2), (5, 3), (5, 3)):
        tr.update([TileDetection(BOX, 0.9, pips=pips, pip_confidence=0.95)] + _others())
    values = {Tile(*d.pips) for d in tr.stable}
    assert Tile(3, 5) in values  # read 3 times of 5: voted on its own
    tr = Tracker(steady_frames=3)
    for pips in ((5, 3), (5, 2), (5, 2), (5, 3), None):
        five = [] if pips is None else [TileDetection(BOX, 0.9, pips=pips, pip_confidence=0.95)]
        tr.update(five + _others())
    values = {Tile(*d.pips) for d in tr.stable}
    # never both, never none: 5-2 won the place 2 to 1 at the third frame, and holds it on the
    # 2 to 2 tie after
    assert values & {Tile(3, 5), Tile(2, 5)} == {Tile(2, 5)}
    assert len(values) == 4


def test_a_tile_read_whole_outweighs_readings_of_its_box_cut_by_the_picture_border():
    # draw100-s16-1 hand 10: 1-5 lay at the picture's bottom edge, its box cut to 40 of 69 px
    # and read 0-1 in two frames (here 1-3: the other tiles hold 0-1); the camera moved, the next frame read the whole tile 1-5
    cut = BOX.copy()
    cut[1:3, 0] = 160  # the right 40 px beyond the picture
    frames: list[list[TileDetection]] = [
        [],
        [TileDetection(cut, 0.85, pips=(1, 3), pip_confidence=0.7, at_edge=True)],
        [],
        [TileDetection(cut, 0.8, pips=(1, 3), pip_confidence=0.8, at_edge=True)],
        [TileDetection(BOX, 0.93, pips=(1, 5), pip_confidence=0.98)],
    ]
    tr = Tracker(steady_frames=3)
    for dets in frames:
        tr.update(dets + _others())
    values = {Tile(*d.pips) for d in tr.stable}
    assert Tile(1, 5) in values and Tile(1, 3) not in values
    # the same readings, none of them cut: the value read in more frames has the place
    tr = Tracker(steady_frames=3)
    for dets in frames:
        tr.update(
            [TileDetection(d.corners, 0.9, pips=d.pips, pip_confidence=0.9) for d in dets]
            + _others()
        )
    values = {Tile(*d.pips) for d in tr.stable}
    assert Tile(1, 3) in values and Tile(1, 5) not in values


def test_a_double_keeps_the_orientation_of_its_best_reading():
    tr = Tracker(steady_frames=3)
    centre = BOX.mean(0)
    across = (BOX - centre) @ np.float32([[0, 1], [-1, 0]]) + centre  # turned 90 degrees
    for k in range(5):
        if k in (1, 3):  # two doubtful readings of the same double crosswise
            d = TileDetection(across, 0.5, pips=(4, 4), pip_confidence=0.6)
        else:
            d = TileDetection(BOX, 0.95, pips=(4, 4), pip_confidence=0.99)
        tr.update([d] + _others())
    dd = _tile_of(tr.stable, Tile(4, 4))
    length, width = dd.size
    assert abs(length - 100) < 1 and abs(width - 50) < 1
    assert abs(dd.long_axis[1]) < 0.05  # along x, as the trusted readings lie


def test_photo_mode_takes_each_photo_as_a_stable_view():
    from companion.follow import Follower
    from vision.render.real_layouts import VINTAGE

    by_tile = {Tile(*d.pips): d for d in VINTAGE.detections()}
    order = [Tile(5, 5), Tile(2, 5), Tile(4, 5), Tile(3, 5), Tile(4, 4), Tile(3, 3), Tile(1, 4)]
    f = Follower("draw100", players=2)
    plays = []
    for k in range(1, len(order) + 1):  # one photo after each play, nothing in between
        recs = f.feed([by_tile[t] for t in order[:k]], still=True)
        plays += [(r["player"], r["tile"]) for r in recs if r["type"] == "play"]
        assert not [r for r in recs if r["type"] in ("flag", "question")]
    assert plays == [(k % 2, str(t)) for k, t in enumerate(order)]
    # the same photos as frames of a video wait for 3 steady frames: the first gives nothing
    g = Follower("draw100", players=2)
    assert not [r for r in g.feed([by_tile[Tile(5, 5)]]) if r["type"] == "play"]


def test_two_values_read_in_one_frame_are_never_merged_as_one_tile():
    tr = Tracker(steady_frames=3)
    a = TileDetection(BOX, 0.9, pips=(5, 3), pip_confidence=0.95)
    b = TileDetection(BOX + np.float32([8, 0]), 0.9, pips=(2, 6), pip_confidence=0.95)
    for _ in range(3):
        tr.update([a, b] + _others())
    for _ in range(2):  # both taken away: read in 2 of the 5 voting frames each
        tr.update(_others())
    tr.update(_others())
    values = {Tile(*d.pips) for d in tr.stable}
    assert values.isdisjoint({Tile(3, 5), Tile(2, 6)})


def test_tiles_that_moved_on_a_grid_are_not_taken_for_the_camera_turning():
    from vision.tracking import _align, _frame

    def frame(centres: dict[tuple[int, int], tuple[float, float]]):
        dets = []
        for pips, (x, y) in centres.items():
            box = BOX - BOX.mean(0) + np.float32([x, y])
            dets.append(TileDetection(box, 0.9, pips=pips, pip_confidence=0.95))
        return _frame(dets, 0.0)

    a = {(0, 1): (300, 300), (2, 4): (400, 300), (6, 6): (300, 400), (5, 3): (400, 400)}
    # a grid closing up moved the tiles so that a quarter turn about (300, 300) fits three of them
    turned = {k: (300 - (y - 300), 300 + (x - 300)) for k, (x, y) in a.items()}
    turned[(5, 3)] = (700, 650)
    assert np.allclose(_align(frame(a), frame(turned)), [[1, 0, 0], [0, 1, 0]])
    # the camera moved and zoomed (a phone lifted): every tile agrees, the fit is taken
    zoomed = {k: (1.5 * x + 20, 1.5 * y - 10) for k, (x, y) in a.items()}
    m = _align(frame(a), frame(zoomed))
    assert np.allclose(m, [[1.5, 0, 20], [0, 1.5, -10]], atol=0.5)


def test_a_box_without_a_value_put_down_at_a_new_place_changes_the_stable_state():
    # a blank double read as a plain back: no value to vote with, but a box that holds at a new
    # place for steady_frames frames is a change (the layout reader decides what it is); a box
    # seen in fewer frames (a hand passing) is not
    tr = Tracker(steady_frames=3)
    for _ in range(3):
        tr.update(_others())
    assert tr.stable is not None and len(tr.stable) == 3
    plain = TileDetection(BOX, 0.9, face_down=True)
    assert not tr.update(_others() + [plain]).changed
    for _ in range(4):  # out of the five voting frames again
        tr.update(_others())
    assert not any(tr.update(_others() + [plain]).changed for _ in range(2))
    assert tr.update(_others() + [plain]).changed  # the third of the five voting frames
    assert len(tr.stable) == 4 and sum(d.face_down for d in tr.stable) == 1
    assert not any(tr.update(_others() + [plain]).changed for _ in range(3))  # held: no change


def test_a_value_also_read_on_a_box_across_two_tiles_stays_on_its_tile():
    # 1-1 put down at BOX; in some frames a box drawn across the halves of two tiles lying side
    # by side (the 1 of 1-2 and the 1 of 1-3) also reads 1-1: that box lies on those tiles, it
    # is not a tile, and 1-1 keeps its votes
    tr = Tracker(steady_frames=3)
    below = [
        TileDetection(BOX + np.float32([300, 0]), 0.9, pips=(2, 1), pip_confidence=0.95),
        TileDetection(BOX + np.float32([300, 50]), 0.9, pips=(3, 1), pip_confidence=0.95),
    ]
    across = TileDetection(
        np.array([[400, 100], [450, 100], [450, 200], [400, 200]], np.float32),
        0.4,
        pips=(1, 1),
        pip_confidence=0.95,
    )
    one = TileDetection(BOX, 0.9, pips=(1, 1), pip_confidence=0.95)
    for _ in range(3):
        tr.update(below + _others())
    for k in range(5):
        tr.update([one] + below + _others() + ([across] if k % 2 == 0 else []))
    d = _tile_of(tr.stable, Tile(1, 1))
    assert np.allclose(d.centre, BOX.mean(0), atol=1)
    assert sum(d.pips is not None and Tile(*d.pips) == Tile(1, 1) for d in tr.stable) == 1
    # two boxes that are both tiles by their place: neither is trusted, both are kept for the
    # layout reader to report (a value read twice)
    tr = Tracker(steady_frames=3)
    apart = TileDetection(BOX + np.float32([0, 400]), 0.9, pips=(1, 1), pip_confidence=0.95)
    for _ in range(5):
        tr.update([one, apart] + below + _others())
    ones = [d for d in tr.stable if d.pips is not None and Tile(*d.pips) == Tile(1, 1)]
    assert len(ones) == 2


def test_values_seen_at_a_tap_leave_out_a_misread_of_one_earlier_frame():
    # the tiles read when a tap is made (a tap waits for those not followed yet): a value read
    # once, in a frame before the latest, is a passing misread (another tile read wrong), not a
    # tile put down before the tap; one read in the latest frame, or in two frames, is
    tr = Tracker(steady_frames=3)
    five = TileDetection(BOX, 0.9, pips=(5, 3), pip_confidence=0.95)
    misread = TileDetection(BOX, 0.9, pips=(5, 6), pip_confidence=0.95)
    for dets in ([five], [misread], [five]):
        tr.update(dets + _others())
    assert Tile(5, 6) not in tr.last_values
    assert Tile(3, 5) in tr.last_values
    tr.update([misread] + _others())
    assert Tile(5, 6) in tr.last_values  # read in the latest frame
    for dets in ([misread], [five]):
        tr.update(dets + _others())
    assert Tile(5, 6) in tr.last_values  # read in two of the last three frames
    tr.update([five] + _others())
    assert Tile(5, 6) not in tr.last_values
    # a tile whose value is also misread on another box in some frames (trusted on neither box
    # there) is still a tile on the table
    twin = TileDetection(BOX + np.float32([0, 400]), 0.9, pips=(3, 5), pip_confidence=0.95)
    for dets in ([five, twin], [five, twin], [misread]):
        tr.update(dets + _others())
    assert Tile(3, 5) in tr.last_values


def test_a_box_without_a_value_taken_away_changes_the_stable_state():
    # a box without a value held in the stable state (a tile shown but read as a plain back),
    # then taken away: when steady_frames of the voting frames no longer show a box there the
    # stable state drops it (a hand over it for fewer frames does not)
    tr = Tracker(steady_frames=3)
    plain = TileDetection(BOX, 0.9, face_down=True)
    for _ in range(3):
        tr.update(_others() + [plain])
    assert tr.stable is not None and sum(d.face_down for d in tr.stable) == 1
    assert not any(tr.update(_others()).changed for _ in range(2))
    assert tr.update(_others() + [plain]).changed is False
    for _ in range(2):
        tr.update(_others() + [plain])
    assert not tr.update(_others()).changed
    assert not tr.update(_others()).changed
    assert tr.update(_others()).changed  # the third of the five voting frames without it
    assert len(tr.stable) == 3 and not any(d.face_down for d in tr.stable)
    assert not any(tr.update(_others()).changed for _ in range(3))


def test_a_place_read_as_one_value_in_most_frames_is_taken_though_each_reading_is_doubtful():
    # a tile shown at the picture's edge: its pips read under the 0.5 bar in every frame,
    # flipping between 3-3 and 2-3 (draw100-s11-4 hand 16)
    reads = [((3, 3), 0.34), ((2, 3), 0.45), ((3, 3), 0.49), ((2, 3), 0.70), ((3, 3), 0.40)]
    tr = Tracker(steady_frames=3)
    for pips, conf in reads:
        tr.update([TileDetection(BOX, 0.9, pips=pips, pip_confidence=conf)] + _others())
    d = _tile_of(tr.stable, Tile(3, 3))
    assert d.pip_confidence >= 0.5  # trusted by its votes: read 3-3 in 3 of the 5 frames
    assert not any(o.pips is not None and Tile(*o.pips) == Tile(2, 3) for o in tr.stable)
    assert len(tr.stable) == 4  # the place counts once: no doubtful box left beside it
    # two readings of each value in the window are not enough: no value there
    tr = Tracker(steady_frames=3)
    for pips, conf in reads[:4] + [(None, None)]:
        tile = [] if pips is None else [TileDetection(BOX, 0.9, pips=pips, pip_confidence=conf)]
        tr.update(tile + _others())
    assert {Tile(*o.pips) for o in tr.stable if o.pip_confidence >= 0.5} == {
        Tile(*d.pips) for d in _others()
    }


def test_one_value_misread_on_three_tiles_in_turn_is_no_tile_put_down():
    # 1-1 read once on each of three tiles of the table (0-1, then 2-4, then 5-3), in three of
    # the five voting frames: a tile put down is read at its place, so readings of a new value
    # scattered over three places are misreads, and the stable state holds no 1-1; a 1-1 laid
    # at one place and read there in three frames is taken
    tr = Tracker(steady_frames=3)
    five = TileDetection(BOX, 0.9, pips=(5, 3), pip_confidence=0.95)
    for _ in range(3):
        tr.update([five] + _others())

    def misread(dets: list[TileDetection], k: int) -> list[TileDetection]:
        out = list(dets)
        out[k] = TileDetection(out[k].corners, 0.9, pips=(1, 1), pip_confidence=0.95)
        return out

    table = [five] + _others()  # 5-3, 0-1, 2-4, 6-6
    for frame in (misread(table, 1), table, misread(table, 2), table, misread(table, 0)):
        up = tr.update(frame)
        assert Tile(1, 1) not in {Tile(*d.pips) for d in up.stable if d.pips is not None}
    one = TileDetection(BOX + np.float32([0, 400]), 0.9, pips=(1, 1), pip_confidence=0.95)
    for _ in range(3):
        up = tr.update(table + [one])
    assert Tile(1, 1) in {Tile(*d.pips) for d in up.stable if d.pips is not None}


def test_a_face_read_bare_in_some_frames_and_undecided_in_the_latest_stays_bare():
    # a blank double without divider bars put down: the pip reader finds its face bare in some
    # frames (TileFlag.BLANK_OR_BACK) and undecided in others (no flag: grain taken for marks);
    # the stable state keeps it bare, so a face-up layout can take it as the 0-0; a reading
    # of large printed marks at that place keeps it a plain box
    from vision.types import TileFlag

    def box(flag: TileFlag) -> TileDetection:
        return TileDetection(BOX, 0.9, face_down=True, flag=flag)

    def stable_flag(flags: list[TileFlag]) -> TileFlag:
        tr = Tracker(steady_frames=3)
        for _ in range(3):
            tr.update(_others())
        changed = [tr.update([box(fl)] + _others()).changed for fl in flags]
        assert changed == [False, False, True]
        (bare,) = [d for d in tr.stable if d.face_down]
        return bare.flag

    bare, none, printed = TileFlag.BLANK_OR_BACK, TileFlag.NONE, TileFlag.PRINTED_BACK
    assert stable_flag([bare, none, none]) is bare
    assert stable_flag([none, none, none]) is none
    assert stable_flag([bare, printed, none]) is none
    assert stable_flag([none, none, bare]) is bare

"""Following draw-game hands rebuilt from a real photo (tiles erased in reverse play order,
hands shown from the photo's own tiles) through the detector: photo mode and camera frames."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from engine.tiles import Tile
from vision.render.real_layouts import VINTAGE, load
from vision.render.real_sequences import as_sent, camera_frames, play_order, sequences


@pytest.fixture(scope="module")
def seqs():
    return sequences(VINTAGE, 1)


def test_the_sequences_are_real_photos_taken_back_in_play_order(seqs):
    import random

    order = play_order(VINTAGE, random.Random(0))
    assert sorted(order) == list(range(len(VINTAGE.boxes)))
    names = [s.name for s in seqs]
    assert len(names) == 6 and all(s.states for s in seqs)
    domino = seqs[0]
    # one state per play, one with the loser's tiles shown, one taken back, the table cleared
    assert len(domino.states) == len(domino.plays) + 3
    assert domino.scores is not None and sum(domino.scores) > 0
    assert seqs[2].flags  # an illegal tile put down and taken back
    cross = next(s for s in seqs if s.name.startswith("a cross"))
    # one state per tile laid, the illegal ones left on the table: 6 plays, 5 flags
    assert len(cross.states) == len(cross.plays) + len(cross.flags) == 11
    assert len(cross.flags) == 5 and cross.scores is None
    frames = camera_frames(domino.states[3], np.random.default_rng(0), 3, np.array([300, 300]))
    assert 3 <= len(frames) <= 5 and all(f.shape == domino.states[3].shape for f in frames)
    # a shaken frame comes before the steady ones, blurred: far less fine detail
    shaken = camera_frames(domino.states[3], np.random.default_rng(0), 2, None, 0.0, 1.0)
    sharp = [cv2.Laplacian(cv2.cvtColor(f, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var() for f in shaken]
    assert len(shaken) == 3 and sharp[0] < 0.3 * min(sharp[1:])


@pytest.mark.slow
@pytest.mark.parametrize("phone", [False, True], ids=["640px", "12MP"])
def test_follow_one_photo_per_play_reports_the_plays_and_the_score(seqs, tmp_path, capsys, phone):
    """Photo mode from JPEG files; ``phone``: snapped as a phone writes them, 4032x3024 files of
    1.5 MB or more (enlarged, with sensor noise)."""
    from companion.cli import main

    seq = seqs[0]
    rng = np.random.default_rng(3)
    paths = []
    for k, img in enumerate(seq.states):
        p = tmp_path / f"p{k:02d}.jpg"
        if phone:
            p.write_bytes(as_sent(img, (4032, 3024), 92, rng))
            assert p.stat().st_size > 1_500_000
        else:
            cv2.imwrite(str(p), img, [int(cv2.IMWRITE_JPEG_QUALITY), 88])
        paths.append(str(p))
    assert main(["follow", *paths, "--game", "draw100", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    plays = [(e["tile"], e["player"]) for e in out["events"] if e["type"] == "play"]
    assert plays == seq.plays
    assert not [e for e in out["events"] if e["type"] == "flag"]
    assert out["summary"]["scores"] == seq.scores


@pytest.mark.slow
def test_follow_joined_in_progress_with_to_move(seqs, tmp_path, capsys):
    from companion.cli import main

    seq = seqs[1]
    paths = []
    for k, img in enumerate(seq.states[:4]):
        p = tmp_path / f"j{k}.png"
        cv2.imwrite(str(p), img)
        paths.append(str(p))
    argv = ["follow", *paths, "--game", "draw100", "--players", "3", "--json"]
    assert main(argv + ["--names", "Ana,Ben,Cleo", "--to-move", "Cleo"]) == 0
    out = json.loads(capsys.readouterr().out)
    plays = [(e["tile"], e["player"]) for e in out["events"] if e["type"] == "play"]
    assert plays == seq.plays[:3]
    # not told: it asks, and the plays wait for the answer
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert [e for e in out["events"] if e.get("ask") == "player"]
    assert not [e for e in out["events"] if e["type"] == "play"]


@pytest.mark.slow
def test_a_snake_of_real_tiles_with_doubles_in_line_reads_through_the_detector():
    from vision.layout import detect_options, read
    from vision.pipeline import detect
    from vision.render.real_sequences import SNAKE_CHAIN, snake

    image, _ = snake(VINTAGE)
    got = read(detect(image, **detect_options("draw100")), "draw100")
    assert {Tile.parse(it["tile"]) for it in got.layout["line"]} == {
        Tile(a, b) for a, b in SNAKE_CHAIN
    }
    notes = [p.message for p in got.problems if p.kind == "house_rule"]
    assert len(notes) == 4 and all("RULES.md section 4" in m for m in notes)


def test_another_real_layout_loads_from_json(tmp_path):
    path = tmp_path / "layout.json"
    boxes = [[x0, y0, x1, y1, list(v)] for x0, y0, x1, y1, v in VINTAGE.boxes]
    path.write_text(json.dumps({"photo": str(VINTAGE.path), "boxes": boxes}))
    got = load(path)
    assert got.boxes == VINTAGE.boxes and got.path == VINTAGE.path
    path.write_text(json.dumps({"photo": "x.jpg", "boxes": [[1, 2, 3]]}))
    with pytest.raises(ValueError, match="boxes"):
        load(path)


def test_a_layout_that_is_no_line_of_play_is_said_in_words(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from vision.render.real_sequences import check

    boxes = [[x0, y0, x1, y1, list(v)] for x0, y0, x1, y1, v in VINTAGE.boxes]
    check(VINTAGE)  # the vintage photo's line is one
    # the 0-0 moved off the line: 6-1 and 0-6 no longer join it
    apart = [b if b[4] != [0, 0] else [371, 500, 417, 593, [0, 0]] for b in boxes]
    path = tmp_path / "apart.json"
    path.write_text(json.dumps({"photo": str(VINTAGE.path), "boxes": apart}))
    with pytest.raises(ValueError, match="joined tiles of 12"):
        check(load(path))
    # seven tiles side by side in a box (as shared/real_photos/boxed-set-row.jpg holds them)
    row = [[25 + 85 * k, 312, 110 + 85 * k, 483, [3, 3 + k % 4]] for k in range(7)]
    path.write_text(json.dumps({"photo": str(VINTAGE.path), "boxes": row}))
    with pytest.raises(ValueError, match="at least 12 tiles"):
        check(load(path))
    script = Path(__file__).resolve().parents[2] / "scripts" / "bench_follow.py"
    got = subprocess.run(
        [sys.executable, str(script), "--real", "--real-layout", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert got.returncode == 2 and "Traceback" not in got.stderr
    assert "--real-layout" in got.stderr and "at least 12 tiles" in got.stderr

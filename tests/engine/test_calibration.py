"""Win chances: unknown searches are no wins, and only calibrated tenths are shown."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from engine import calibration
from engine.big_clock import BigClockGame
from engine.calibration import bin_of, shown_chance
from engine.solitaire import determinized_hint

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location(
        "calibrate_solitaires", ROOT / "scripts/calibrate_solitaires.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bin_of_edges():
    assert [bin_of(x) for x in (0.0, 0.099, 0.1, 0.5, 0.999, 1.0)] == [0, 0, 1, 5, 9, 9]
    with pytest.raises(ValueError):
        bin_of(1.01)


def _table(tmp_path, bins, settings="S"):
    path = tmp_path / "cal.json"
    path.write_text(json.dumps({"g/s": {"settings": settings, "bins": bins}}))
    return path


def test_shown_chance_only_for_shown_tenths_and_matching_settings(tmp_path):
    bins = [
        {"fit_n": 0, "fit_won": 0, "check_n": 0, "check_won": 0, "shown": False} for _ in range(10)
    ]
    bins[9] = {
        "fit_n": 200,
        "fit_won": 130,
        "fit_deals": 40,
        "check_n": 180,
        "check_won": 120,
        "check_deals": 40,
        "shown": True,
    }
    path = _table(tmp_path, bins)
    got = shown_chance("g/s", 0.95, "S", path=path)
    assert got.chance == pytest.approx(0.65) and got.low < 0.65 < got.high
    assert (got.hints, got.deals) == (200, 40)
    # the interval counts deals, not hints: as wide as 26 of 40
    from engine.game import wilson_interval

    assert (got.low, got.high) == pytest.approx(wilson_interval(26, 40))
    assert shown_chance("g/s", 0.5, "S", path=path) is None  # tenth not shown
    assert shown_chance("g/s", 0.95, "other settings", path=path) is None
    assert shown_chance("nothing/here", 0.95, path=path) is None
    assert shown_chance("g/s", None, "S", path=path) is None  # no search finished


def _rows(raw, fit_won, check_won, n=100):
    """``2 n`` deals with one hint quoting ``raw`` (and one unfinished search) each: even seeds
    (fit) won ``fit_won`` times, odd seeds (check) ``check_won`` times."""
    rows = []
    for i in range(n):
        rows.append({"seed": 2 * i, "won": i < fit_won, "quotes": [[raw, None], [None, None]]})
        rows.append({"seed": 2 * i + 1, "won": i < check_won, "quotes": [[raw, None]]})
    return rows


def test_reliability_splits_by_seed_and_checks_the_gap():
    mod = _script()
    rel = mod.reliability(
        _rows(0.95, 60, 62) + [dict(r, seed=r["seed"] + 1000) for r in _rows(0.55, 50, 30)]
    )
    hi, mid = rel["bins"][9], rel["bins"][5]
    assert (hi["fit_n"], hi["fit_won"], hi["check_n"], hi["check_won"]) == (100, 60, 100, 62)
    assert hi["shown"] and hi["fit_deals"] == 100  # 2 points apart: shown
    assert (mid["fit_won"], mid["check_won"]) == (50, 30) and not mid["shown"]  # 20 apart
    few = mod.reliability(_rows(0.95, 10, 10, n=calibration.MIN_HINTS - 1))
    assert not few["bins"][9]["shown"]  # too few hints to tell
    one_deal = [{"seed": s, "won": True, "quotes": [[0.95, None]] * 60} for s in (0, 1)]
    assert not mod.reliability(one_deal)["bins"][9]["shown"]  # many hints, too few deals
    sc = mod.brier(_rows(0.95, 60, 62), mod.reliability(_rows(0.95, 60, 62)))
    assert sc["hints"] == sc["hints_shown"] == 100
    assert sc["raw"] == pytest.approx((62 * 0.05**2 + 38 * 0.95**2) / 100)
    assert sc["shown"] == pytest.approx((62 * 0.4**2 + 38 * 0.6**2) / 100)
    assert sc["shown"] < sc["raw"]


def _mixed_rows(first, n):
    """``n`` deals from seed ``first``, hints spread over several tenths. Deals quoting below
    50% win alike in both seed halves (their tenths are shown); deals quoting 50% or more win
    on every even seed and one odd seed in seven (those tenths are not)."""
    rows = []
    for seed in range(first, first + n):
        high = seed % 10 >= 5
        raws = [(5 * high + (seed + k) % 5) / 10 for k in range(1 + seed % 4)]
        won = (seed % 2 == 0 or seed % 7 == 1) if high else seed % 3 != 0
        rows.append({"seed": seed, "won": won, "quotes": [[r, None] for r in raws]})
    return rows


def shown_chance_of(b):
    """(chance, low, high) that ``engine.calibration.shown_chance`` gives a shown tenth ``b``."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "cal.json"
        bins = [dict(b, shown=True)] * 10
        path.write_text(json.dumps({"g/s": {"settings": "S", "bins": bins}}))
        got = shown_chance("g/s", 0.5, "S", path=path)
    return got.chance, got.low, got.high


def test_extending_a_stored_table_equals_measuring_all_deals_at_once():
    """A table of seeds 0-599 extended by seeds 600-1199 (whose per-deal results are all that
    is on disk) holds the same counts, shown tenths and Brier scores as one made from all
    1,200 deals; the held-out check compares the stored chances with the new deals' hints."""
    mod = _script()
    old_rows, new_rows = _mixed_rows(0, 600), _mixed_rows(600, 600)
    everything = mod.reliability(old_rows + new_rows)
    assert [b["shown"] for b in everything["bins"]] == [True] * 5 + [False] * 5
    want_sc = mod.brier(old_rows + new_rows, everything)
    old = mod.reliability(old_rows)
    old.update(deals=600, brier=mod.brier(old_rows, old))
    new = mod.reliability(new_rows)
    table, sc = mod.extend(old, new, mod.brier(new_rows, new), 600)
    assert table["deals"] == 1200
    for got, want in zip(table["bins"], everything["bins"]):
        assert got == want
    for k in ("raw", "shown", "base_rate", "hints", "hints_shown", "base"):
        assert sc[k] == pytest.approx(want_sc[k])
    assert mod.bin_brier(everything["bins"])["shown"] == pytest.approx(want_sc["shown"])
    checked = mod.held_out(old, new_rows)
    for h, b in zip(checked, old["bins"]):
        hints = [(r, q) for r in new_rows for q in r["quotes"] if bin_of(q[0]) == h["tenth"]]
        assert h["n"] == len(hints) and h["won"] == sum(r["won"] for r, _ in hints)
        assert h["shown"] == b["shown"]
        if b["fit_n"]:
            want = shown_chance_of(b)
            assert (h["chance"], h["low"], h["high"]) == pytest.approx(want)
    with pytest.raises(ValueError, match="raw Brier"):
        mod.extend({"bins": old["bins"], "deals": 600}, new, sc, 600)


def test_extend_stored_refuses_results_that_do_not_follow_the_stored_seeds(
    tmp_path, monkeypatch, capsys
):
    import engine.big_clock as bc

    mod = _script()
    config = mod.policy_config(bc, "hint", None, 0, {"max_pip": 6})
    table = tmp_path / "calibration.json"
    rows = _mixed_rows(0, 40)
    old = mod.reliability(rows)
    entry = {
        "settings": repr(tuple(bc.HINT_SETTINGS[6])),
        "deals": 40,
        "bins": old["bins"],
        "brier": mod.brier(rows, old),
    }
    table.write_text(json.dumps({"big-clock/double-6": entry}))
    monkeypatch.setattr(mod, "TABLE_PATH", table)
    bench = tmp_path / "bench"
    bench.mkdir()
    args = ["--games", "big-clock", "--sizes", "double-6", "--out-dir", str(bench)]

    def write(rows):
        (bench / "big-clock-double-6-hint.jsonl").write_text(
            "".join(json.dumps(dict(r, config=config)) + "\n" for r in rows)
        )

    write(_mixed_rows(50, 40))  # a gap after seed 39
    with pytest.raises(SystemExit):
        mod.main([*args, "--extend-stored", "--write"])
    assert "no results go on from seed 40" in capsys.readouterr().err
    assert json.loads(table.read_text())["big-clock/double-6"]["deals"] == 40  # kept
    write(_mixed_rows(40, 40) + _mixed_rows(90, 5))  # seeds 40-79, then 90-94 after a gap
    assert mod.main([*args, "--extend-stored", "--write"]) == 0
    got = json.loads(table.read_text())["big-clock/double-6"]
    assert (got["deals"], got["seeds"]) == (80, [0, 79])
    out = capsys.readouterr().out
    assert "stored chances (seeds 0-39)" in out and "5 results after a gap" in out


def test_a_search_cut_by_the_node_limit_is_not_a_win():
    state = BigClockGame(6).new_initial_state(5)
    acts = state.legal_actions()[:2]

    def unknown(det, actions, limit):
        return [None] * len(actions)

    h = determinized_hint(
        state,
        evaluate=unknown,
        samples=4,
        seed=0,
        actions=acts,
        calibration_key="big-clock/double-6",
    )
    assert h.win_chance is None and h.search == {"won": 0, "finished": 0, "unknown": 4, "raw": None}
    assert "unknown" in h.explanation and all(r != r for _a, r in h.ranking)  # nan

    def one_win(det, actions, limit):
        return [True, None][: len(actions)]

    h = determinized_hint(state, evaluate=one_win, samples=4, seed=0, actions=acts)
    assert h.action == acts[0] and h.search["raw"] == 1.0 and h.search["unknown"] == 0
    assert h.win_chance is None  # no calibration key: no chance quoted
    assert "4 of 4" in h.explanation


def test_quote_says_how_the_search_went_and_shows_only_calibrated_chances(tmp_path):
    bins = [{"fit_n": 0, "fit_won": 0, "shown": False} for _ in range(10)]
    bins[9] = {"fit_n": 100, "fit_won": 61, "fit_deals": 30, "shown": True}
    path = _table(tmp_path, bins)
    chance, why = calibration.quote("g/s", 19, 19, 20, "S", path=path)
    assert chance == pytest.approx(0.61)
    assert "win in 19 of 19 sampled orders (1 more search unfinished)" in why
    assert "led to a win 61% of the time" in why and "100 hints on 30 benchmark deals" in why
    chance, why = calibration.quote("g/s", 5, 10, 10, "S", path=path)  # tenth 50-60%: not shown
    assert chance is None and "not calibrated" in why and "unfinished" not in why
    chance, why = calibration.quote("g/s", 19, 19, 19, "other", path=path)  # other settings
    assert chance is None and "not calibrated" in why
    assert calibration.quote("g/s", 0, 0, 7, "S", path=path) == (
        None,
        "no search finished on its 7 sampled stock orders (the node limit cut them): "
        "win chance unknown",
    )
    # nothing hidden: a finished search is the answer
    assert calibration.quote(None, 1, 1, 1, exact=True)[0] == 1.0
    assert calibration.quote(None, 0, 1, 1, exact=True)[0] == 0.0
    assert calibration.quote(None, 0, 0, 1, exact=True) == (
        None,
        "the search was cut short: win chance unknown",
    )


def test_write_drops_tables_of_other_hint_settings(tmp_path, monkeypatch, capsys):
    """A stored Big Clock table measured with other hint settings is never read again, so
    ``--write`` without new results for that size drops it; other games' tables stay."""
    mod = _script()
    table = tmp_path / "calibration.json"
    table.write_text(
        json.dumps(
            {
                "big-clock/double-9": {"settings": "(4, 200, 2, 2, 600)", "bins": []},
                "luzon/standard": {"settings": None, "bins": []},
            }
        )
    )
    monkeypatch.setattr(mod, "TABLE_PATH", table)
    empty = tmp_path / "bench"
    empty.mkdir()
    assert mod.main(["--games", "big-clock", "--out-dir", str(empty), "--write"]) == 0
    assert sorted(json.loads(table.read_text())) == ["luzon/standard"]
    assert "dropped" in capsys.readouterr().out


def test_calibration_reads_only_results_of_the_bench_config_of_the_default_hint(tmp_path):
    """The calibration takes a stored hint result only when its whole ``config`` is the one
    ``bench_solitaires.policy_config`` gives the default hint: a former ``HINT_VERSION``,
    other settings, another sample count or a key the bench does not write leave it out."""
    import engine.big_clock as bc

    mod = _script()
    want = mod.policy_config(bc, "hint", None, 0, {"max_pip": 6})
    assert want["version"] == bc.HINT_VERSION
    assert want["settings"] == repr(bc.HINT_SETTINGS[6])
    others = [
        dict(want, version=bc.HINT_VERSION - 1),
        dict(want, settings="(4, 200, 2, 2, 600)"),
        dict(want, samples=8),
        dict(want, hint_node_limit=2_000),
        {k: v for k, v in want.items() if k != "version"},
    ]
    path = tmp_path / "big-clock-double-6-hint.jsonl"
    lines = [{"seed": 0, "won": True, "quotes": [[0.9, 0.7]], "config": want}]
    lines += [
        {"seed": s, "won": False, "quotes": [[0.1, None]], "config": c}
        for s, c in enumerate(others, start=1)
    ]
    lines.append({"seed": 9, "won": True, "config": want})  # no quotes: not a hint run
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + '{"seed": 10, "wo')
    rows = mod.load_hints(path, want)
    assert [r["seed"] for r in rows] == [0]

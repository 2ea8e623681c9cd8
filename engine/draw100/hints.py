"""Hints for the double-six draw game: determinized Monte Carlo with greedy rollouts.

The player to move knows only their own hand, the line of play, the boneyard size, the
opponents' hand sizes, and what the public play revealed: an opponent who drew or passed holds no
tile showing any number open at that moment (``state.slots``, see
:class:`engine.draw100.game.Draw100State`). :func:`hint` therefore

1. groups the legal plays by *effect* (tile, number of the open end): plays of one tile on two
   open ends showing the same number lead to the same game, so they are one candidate;
2. draws ``samples`` determinizations: the unseen tiles (28 - line - own hand) are dealt at
   random to the opponents' hands (sizes and known lacks respected) and the boneyard (random
   order), the same deals for every candidate;
3. plays each candidate, then finishes the round with a fast rollout in which every player
   plays its heaviest playable tile (the usual "dump the points" rule; a non-double that fits
   both ways exposes the number the player holds more of), draws until able and passes on an
   empty boneyard;
4. ranks the candidates by the round's average point margin (points the player scores minus
   the points the opponents score), ties broken by round win rate. With ``race=True`` (an
   option: measured no better, docs/draw100.md), once a seat is within :data:`RACE_WINDOW`
   points of the target, by the **race to 100** instead: each sampled round result is scored
   by :func:`race_value` of the game totals it leaves (1 when the player reaches the target, 0
   when an opponent does, else a share that falls with the points the player still needs
   against the others'), averaged over the samples; ties broken by the round's average point
   margin. So near 100 it prefers the play that keeps an opponent from
   going out (or blocks) over one that scores more but lets the leader finish.

Never reads the opponents' real hands or the boneyard order. Rules: RULES.md section 4.
"""

from __future__ import annotations

import random
import time

from ..game import Hint
from .game import ALL_TILES, Draw100State, Play

_INDEX = {t: i for i, t in enumerate(ALL_TILES)}
_LOW = [t.low for t in ALL_TILES]
_HIGH = [t.high for t in ALL_TILES]
_PIPS = [t.pips for t in ALL_TILES]
_BITS = [(1 << t.low) | (1 << t.high) for t in ALL_TILES]


def _rollout(
    hands: list[list[int]], bone: list[int], counts: list[int], player: int, passes: int = 0
) -> tuple[int | None, int]:
    """Finish a round in place with the greedy policy; returns ``(winner seat or None, points)``.

    ``hands``: tile indices per seat; ``bone``: boneyard, drawn from the end; ``counts[x]``:
    number of open ends showing ``x``; ``player``: seat to move; ``passes``: consecutive passes
    so far (a round is blocked after ``len(hands)`` passes on an empty boneyard).
    """
    n = len(hands)
    low, high, pips, bits = _LOW, _HIGH, _PIPS, _BITS
    om = 0
    for x in range(7):
        if counts[x]:
            om |= 1 << x
    while True:
        h = hands[player]
        best = -1
        bestp = -1
        for t in h:
            if bits[t] & om and pips[t] > bestp:
                best = t
                bestp = pips[t]
        while best < 0 and bone:
            t = bone.pop()
            h.append(t)
            if bits[t] & om:
                best = t
        if best < 0:
            passes += 1
            if passes >= n:
                return _blocked_result(hands)
            player = (player + 1) % n
            continue
        passes = 0
        h.remove(best)
        a, b = low[best], high[best]
        if a == b:
            counts[a] += 2  # the open end it covers, plus its far end and two sides
        else:
            if counts[a] and counts[b]:
                na = sum(1 for t in h if (bits[t] >> a) & 1)
                nb = sum(1 for t in h if (bits[t] >> b) & 1)
                if na > nb:
                    a, b = b, a  # attach on b, expose a
            elif not counts[a]:
                a, b = b, a
            counts[a] -= 1
            counts[b] += 1
        om = 0
        for x in range(7):
            if counts[x]:
                om |= 1 << x
        if not h:
            return player, sum(pips[t] for hh in hands for t in hh)
        player = (player + 1) % n


def _blocked_result(hands: list[list[int]]) -> tuple[int | None, int]:
    totals = [sum(_PIPS[t] for t in h) for h in hands]
    low = min(totals)
    if totals.count(low) > 1:
        return None, 0
    w = totals.index(low)
    return w, sum(totals) - 2 * low


#: Points of need that weigh one ``e`` in :func:`race_value` (a round's winner scores about
#: 10-25 points in a two-player game).
RACE_SCALE = 20.0
#: The race is weighed once some seat is within this many points of the target (about two
#: rounds' scores); before that every round matters alike and the round margin ranks the plays.
RACE_WINDOW = 30


def race_value(scores: list[int], me: int, target: int, scale: float = RACE_SCALE) -> float:
    """How well seat ``me`` stands in the race to ``target`` with these game totals, in [0, 1].

    1 when ``me`` reached ``target``, 0 when another seat did; else the share of ``me`` in
    ``exp(-need_i / scale)`` over the seats (``need_i = target - scores[i]``, points). A model
    score for ranking plays, not a calibrated chance (RULES.md section 4: first to 100 wins).
    """
    if scores[me] >= target:
        return 1.0
    if any(x >= target for x in scores):
        return 0.0
    from math import exp

    w = [exp(-(target - x) / scale) for x in scores]
    return w[me] / sum(w)


def _sample_unseen(
    state: Draw100State,
    me: int,
    unseen: list[int],
    rng: random.Random,
) -> tuple[list[list[int]], list[int]]:
    """Deal ``unseen`` tile indices to the other seats (hand sizes, known lacks) and the
    boneyard; after 20 failed tries the lacks are ignored."""
    n = state.num_players
    for attempt in range(21):
        pool = list(unseen)
        rng.shuffle(pool)
        hands: list[list[int]] = [[] for _ in range(n)]
        ok = True
        for p in range(n):
            if p == me:
                continue
            masks = (
                sorted(state.slots[p], reverse=True) if attempt < 20 else [0] * len(state.hands[p])
            )
            if len(masks) != len(state.hands[p]):
                masks = [0] * len(state.hands[p])
            for m in masks:
                for i, t in enumerate(pool):
                    if not _BITS[t] & m:
                        hands[p].append(pool.pop(i))
                        break
                else:
                    ok = False
                    break
            if not ok:
                break
        if ok:
            return hands, pool
    raise AssertionError("unreachable: an unconstrained deal always succeeds")


def hint(
    state: Draw100State, samples: int = 32, seed: int | None = None, race: bool = False
) -> Hint:
    """Recommend an action for the player to move, using only what that player knows.

    Args:
        state: the position (not modified).
        samples: number of sampled deals of the unseen tiles (>= 1); each candidate play is
            rolled out once per sample. 32 samples take about 1-2 ms per hint on one core
            (see docs/draw100.md for measured timings).
        seed: seed of the sampling (same seed and state, same hint).
        race: rank by the race to the target (:func:`race_value`) once a seat is within
            :data:`RACE_WINDOW` points of it; else (and always with the default False) by the
            round's average point margin.

    Returns:
        :class:`engine.game.Hint` with ``ranking`` ``[(action, value)]`` best first: with
        ``race`` the mean :func:`race_value` after the round (``value_unit="race"``, a model
        score in [0, 1], not a chance), else the mean point margin (``value_unit="points"``:
        the round points the player scores minus those the opponents score, averaged over the
        samples); ``win_chance`` None, ``elapsed_ms`` in ms. A forced
        action (the lead, a draw, a pass, or one play) is returned at once with value 0.0.
        For a terminal state: ``Hint(None)``.

    Raises:
        ValueError: ``samples`` < 1.
    """
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    t0 = time.perf_counter()
    if state.is_terminal():
        return Hint(None, [], "points", None, "the game is over", 0.0)
    race = race and max(state.scores) >= state.game.target - RACE_WINDOW
    actions = state.legal_actions()
    me = state.player
    # group plays by effect: (tile, number of the open end)
    groups: dict[tuple, list] = {}
    for a in actions:
        if isinstance(a, Play) and a.end is not None:
            key = (a.tile, state.line.open_end(a.end).number)
        else:
            key = (a,)
        groups.setdefault(key, []).append(a)
    if len(groups) == 1:
        a = actions[0]
        why = {
            "Draw": "you cannot play: draw from the boneyard",
            "Pass": "you cannot play and the boneyard is empty: pass",
        }.get(
            type(a).__name__,
            "the only possible move"
            if len(actions) == 1
            else "the only tile you can play (its open ends all show the same number)",
        )
        if isinstance(a, Play) and a.end is None:
            why = "the highest double leads"
        return Hint(
            a,
            [(x, 0.0) for x in actions],
            "race" if race else "points",
            None,
            f"{state.action_to_string(a)}: {why}",
            (time.perf_counter() - t0) * 1000,
        )

    rng = random.Random(seed)
    n = state.num_players
    my_hand = [_INDEX[t] for t in state.hands[me]]
    seen = set(my_hand) | {_INDEX[t] for t in state.line.tiles()}
    unseen = [i for i in range(len(ALL_TILES)) if i not in seen]
    base_counts = [0] * 7
    for x in state.line.open_numbers():
        base_counts[x] += 1
    keys = list(groups)
    total = [0.0] * len(keys)
    wins = [0] * len(keys)
    standing = [0.0] * len(keys)
    scores = list(state.scores)
    target = state.game.target
    nxt = (me + 1) % n
    for _ in range(samples):
        opp_hands, bone = _sample_unseen(state, me, unseen, rng)
        for k, (tile, number) in enumerate(keys):
            ti = _INDEX[tile]
            hands = [list(h) for h in opp_hands]
            hands[me] = [t for t in my_hand if t != ti]
            counts = list(base_counts)
            if tile.is_double:
                counts[number] += 2
            else:
                counts[number] -= 1
                counts[tile.other(number)] += 1
            if not hands[me]:
                winner, points = me, sum(_PIPS[t] for h in hands for t in h)
            else:
                winner, points = _rollout(hands, list(bone), counts, nxt)
            if winner == me:
                total[k] += points
                wins[k] += 1
            elif winner is not None:
                total[k] -= points
            if race:
                if winner is not None:
                    scores[winner] += points
                standing[k] += race_value(scores, me, target)
                if winner is not None:
                    scores[winner] -= points
    if race:
        order = sorted(range(len(keys)), key=lambda k: (-standing[k], -total[k], k))
        value = [x / samples for x in standing]
    else:
        order = sorted(range(len(keys)), key=lambda k: (-total[k], -wins[k], k))
        value = [x / samples for x in total]
    ranking = []
    for k in order:
        for a in groups[keys[k]]:
            ranking.append((a, value[k]))
    best_k = order[0]
    best = groups[keys[best_k]][0]
    text = (
        f"{state.action_to_string(best)}: average round margin {total[best_k] / samples:+.1f} "
        f"points, round won in {wins[best_k]} of {samples} sampled deals"
    )
    if race:
        text += f"; weighed for the race to {target} (totals {'-'.join(map(str, state.scores))})"
    return Hint(
        best, ranking, "race" if race else "points", None, text, (time.perf_counter() - t0) * 1000
    )


def hint_action(
    state: Draw100State, samples: int = 32, seed: int | None = None, race: bool = False
):
    """Just the recommended action of :func:`hint` (for bots and benchmarks)."""
    return hint(state, samples=samples, seed=seed, race=race).action

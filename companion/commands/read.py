"""``domino-companion read IMAGE --game NAME``: rebuild a game state from a photo.

Runs ``vision.pipeline.detect`` on the table photo (and on ``--hand``, the player's own tiles
photographed apart), then ``vision.layout.read``; prints the layout, the problems, the legal
moves and the hint (``--json``: one JSON object, see ``ReadResult.to_json``).

Exit status: 0 when a state was rebuilt, 3 when the photo leaves a blocking problem (the
problems say which tile and why), 1 for a bad file or argument.
"""

from __future__ import annotations

import argparse
import json

from engine import GAMES, Hand, Shape, games_where

#: Games whose reading takes the tile just drawn (``--drawn``), games that need a hand, games
#: played by more than two (``--players``): from the catalog.
DRAWN_GAMES = sorted(games_where(lambda g: g.hand is Hand.DRAWN))
HAND_GAMES = sorted(games_where(lambda g: g.needs_hand))
PLAYER_GAMES = sorted(games_where(lambda g: g.max_players > 2))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("image", help="photo of the table (JPEG/PNG)")
    p.add_argument("--game", required=True, choices=list(GAMES), help="which game is on the table")
    p.add_argument(
        "--hand",
        default=None,
        help="photo of your own hand, tiles face up "
        f"(needed for {' and '.join(HAND_GAMES)} moves; {', '.join(DRAWN_GAMES)}: the tile "
        "you drew)",
    )
    p.add_argument(
        "--drawn",
        default=None,
        help=f"{', '.join(DRAWN_GAMES)}: the tile you drew, e.g. 3-5 "
        "(the hint needs it; or photograph it with --hand)",
    )
    p.add_argument(
        "--max-pip",
        type=int,
        default=None,
        choices=sorted({s for g in GAMES.values() for s in g.sets}),
        help="set size (default: the game's, or read from the photo)",
    )
    p.add_argument(
        "--players",
        type=int,
        default=2,
        help=f"{', '.join(PLAYER_GAMES)}: players at the table "
        + ", ".join(f"({GAMES[n].min_players}-{GAMES[n].max_players})" for n in PLAYER_GAMES),
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the unseen tiles' sample")
    p.add_argument("--no-hint", action="store_true", help="skip the hint (faster)")
    p.add_argument("--model", default=None, help="ONNX detector (default models/tiles-obb.onnx)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    """Detect, read, print. Raises ValueError / OSError with a message for bad input (the CLI
    prints it as an error line)."""
    from vision.layout import detect_options, read
    from vision.pipeline import detect, load_image

    g = GAMES[args.game]
    drawn = None
    if args.drawn is not None:
        if g.hand is not Hand.DRAWN:
            raise ValueError(f"--drawn is for {', '.join(DRAWN_GAMES)} (the tile you drew)")
        if args.hand:
            raise ValueError("give the drawn tile once: --drawn or --hand, not both")
        from engine.tiles import Tile

        drawn = Tile.parse(args.drawn)

    table = detect(load_image(args.image), model=args.model, **detect_options(args.game))
    hand = None
    if args.hand:  # the player photographs the own hand face up
        hand = detect(load_image(args.hand), model=args.model, read_backs=True)
    params = {"seed": args.seed}
    if drawn is not None:
        params["drawn"] = drawn
    if args.game in PLAYER_GAMES:
        if not g.min_players <= args.players <= g.max_players:
            raise ValueError(
                f"--players must be {g.min_players}-{g.max_players}, got {args.players}"
            )
        params["players"] = args.players
    result = read(table, args.game, hand=hand, max_pip=args.max_pip, **params)
    out = result.to_json()
    out["hint"] = None
    if result.state is not None and result.legal_moves and not args.no_hint:
        from engine import get_game_type

        out["hint"] = get_game_type(args.game).hint(result.state).to_json(result.state)
    out["tiles_seen"] = len(table)
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(f"{args.game}: {len(table)} tiles seen" + (f", hand {out['hand']}" if hand else ""))
        if out["state_text"]:
            print(out["state_text"])
        if g.shape is Shape.LINE:
            print(
                "open ends: "
                + ", ".join(f"{e['number']} on {e['tile']}" for e in out["layout"]["open_ends"])
            )
        for p in out["problems"]:
            where = "" if p["tile_index"] is None else f" ({p['source']} tile {p['tile_index']})"
            print(f"{'PROBLEM' if p['blocking'] else 'note'}{where}: {p['message']}")
        if out["terminal"]:
            print(f"the position is over (returns {out['returns']}): no moves")
        if out["legal_moves"]:
            print("legal moves: " + "; ".join(m["text"] for m in out["legal_moves"][:30]))
        if out["hint"]:
            print(f"hint: {out['hint']['action']}  {out['hint']['explanation']}")
    return 0 if result.ok else 3

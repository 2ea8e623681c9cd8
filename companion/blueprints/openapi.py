"""The OpenAPI 3.1 document of the companion's JSON API, served at ``/api/openapi.json``.

Kept next to the routes in ``api.py``; ``tests/web/test_api.py`` checks that every API route
is documented here and every documented path exists.
"""

from __future__ import annotations

from typing import Any

from engine import GAMES
from engine.actions import ACTION_TYPES, PLACE_KINDS

from .live import openapi_paths as live_paths

_ERR = {
    "description": "error",
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
}
_CODE = {
    "name": "X-Table-Code",
    "in": "header",
    "required": True,
    "schema": {"type": "string"},
    "description": "the table's join code (8 characters; 6 for tables made before); needed to change a table",
}
_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9._:-]{8,100}$"},
    "description": "chosen by the client (e.g. a UUID); a retry with the same key is answered with the "
    "first answer and stores nothing twice",
}
_PLAYER = {
    "name": "X-Player",
    "in": "header",
    "required": False,
    "schema": {"type": "integer"},
    "description": "the player (id) whose seat this phone holds (its seat cookie, set by taking the "
    "seat, must hold it: 403 otherwise); hands and their readings are per seat",
}
_SEAT = {"name": "player_id", "in": "path", "required": True, "schema": {"type": "integer"}}
#: The answer about this phone's seat.
_SEAT_ANSWER = {
    "description": "{player_id (the seat this phone holds, or null), hand, table (Table)}",
}
#: A multipart body with one field ``photo`` (JPEG or PNG).
_PHOTO_BODY = {
    "required": True,
    "content": {
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "properties": {"photo": {"type": "string", "format": "binary"}},
                "required": ["photo"],
            }
        }
    },
}
#: A hand in a request: "3-5 6-6" or ["3-5", "6-6"].
_HAND = {
    "oneOf": [
        {"type": "string", "example": "3-5 6-6"},
        {"type": "array", "items": {"type": "string"}},
    ]
}
_TID = {"name": "table_id", "in": "path", "required": True, "schema": {"type": "integer"}}
_PID = {"name": "photo_id", "in": "path", "required": True, "schema": {"type": "integer"}}


def _json(ref: str, desc: str = "ok") -> dict:
    return {
        "description": desc,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}},
    }


def _json_body(schema: dict) -> dict:
    """A required JSON request body with this schema."""
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _per_game(what: str, texts: dict[str, str]) -> str:
    """``what`` followed by ``game: text`` for each game of the catalog that has a text."""
    return what + "; ".join(f"{name}: {t}" for name, t in texts.items() if t)


def _players() -> str:
    return _per_game(
        "names; ",
        {
            n: (
                str(g.min_players)
                if g.min_players == g.max_players
                else f"{g.min_players}-{g.max_players}"
            )
            for n, g in GAMES.items()
        },
    )


def _sets() -> str:
    return _per_game("set (double-N): ", {n: "|".join(map(str, g.sets)) for n, g in GAMES.items()})


def _variants() -> str:
    return _per_game(
        "", {n: " or ".join(repr(v) for v in g.variants if v) for n, g in GAMES.items()}
    )


def _targets() -> str:
    return _per_game(
        "points to win; default ",
        {n: "/".join(f"{t} (double-{s})" for s, t in g.targets.items()) for n, g in GAMES.items()},
    )


def _round_kinds() -> str:
    return _per_game("", {n: "|".join(g.round_kinds) for n, g in GAMES.items()})


def _pass_penalties() -> str:
    return "; ".join(
        f"-{g.pass_penalty} allowed for a pass at {n}" for n, g in GAMES.items() if g.pass_penalty
    )


_PLACE = {
    "type": "object",
    "required": ["kind"],
    "description": "where a tile goes (or comes from): open_end {end: id of the draw game's "
    "open end}, cells {cells: [[row, col] low half, [row, col] high half]} of a Tableaux "
    "tableau, pile {pile: hour 1..12} of the Big Clock, new_column (Luzon)",
    "properties": {
        "kind": {"enum": list(PLACE_KINDS)},
        "end": {"type": "string"},
        "cells": {
            "type": "array",
            "items": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
            "minItems": 2,
            "maxItems": 2,
        },
        "pile": {"type": "integer"},
    },
}
_ACTION = {
    "type": "object",
    "required": ["type", "tiles"],
    "description": "an action of any game (engine/actions.py): what is done, the tiles it "
    "handles ('low-high'; remove: pair by pair) and where they go",
    "properties": {
        "type": {"enum": list(ACTION_TYPES)},
        "tiles": {"type": "array", "items": {"type": "string", "pattern": "^\\d{1,2}-\\d{1,2}$"}},
        "place": {"$ref": "#/components/schemas/Place"},
        "source": {"$ref": "#/components/schemas/Place"},
    },
}


def openapi_document() -> dict[str, Any]:
    """The API description as a dict (JSON-ready)."""
    table_resp = {"200": _json("Table"), "403": _ERR, "404": _ERR, "429": _ERR, "503": _ERR}
    photo_resp = {
        "201": _json("Photo", "stored and analysed"),
        "400": _ERR,
        "403": _ERR,
        "404": _ERR,
        "409": _ERR,
        "413": _ERR,
        "429": _ERR,
        "503": _ERR,
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Domino table companion API",
            "version": "1.0",
            "description": "JSON API behind the phone page: tables, photos with the tiles read, "
            "hints, and the score sheets of draw to 100 and Tableaux. Errors are "
            '{"error": {"status", "message"}}. Every write may also answer 507 (the server\'s '
            "disk is full) or 503 (busy or a storage error, with Retry-After), and 403 when "
            "its Origin or Referer is another site.",
        },
        "paths": {
            **live_paths(),
            "/api/status": {
                "get": {
                    "summary": "Whether the tile detector runs, and whether there is a laptop camera",
                    "responses": {"200": {"description": "ok"}},
                }
            },
            "/api/games": {
                "get": {
                    "summary": "The five games with their sets, player counts and targets",
                    "responses": {"200": {"description": "ok"}},
                }
            },
            "/api/openapi.json": {
                "get": {"summary": "This document", "responses": {"200": {"description": "ok"}}}
            },
            "/api/tables": {
                "get": {
                    "summary": "Tables, newest first (no codes)",
                    "responses": {"200": {"description": "ok"}},
                },
                "post": {
                    "summary": "Start a table; the answer carries the code and the join URL",
                    "requestBody": _json_body({"$ref": "#/components/schemas/NewTable"}),
                    "responses": {
                        "201": _json("Table", "created (with code and join_url)"),
                        "400": _ERR,
                        "429": _ERR,
                    },
                },
            },
            "/api/tables/{table_id}": {
                "get": {
                    "summary": "A table: players, running totals, history, status, winner",
                    "parameters": [_TID],
                    "responses": {"200": _json("Table"), "404": _ERR},
                },
                "delete": {
                    "summary": "Delete the table with its photos, hands and score sheet",
                    "parameters": [_TID, _CODE],
                    "responses": {
                        "200": {"description": "{deleted: id}"},
                        "403": _ERR,
                        "404": _ERR,
                    },
                },
            },
            "/api/tables/{table_id}/rematch": {
                "post": {
                    "summary": "A new table of the same game, set, target and players; the answer carries its code and url",
                    "parameters": [_TID, _CODE],
                    "responses": {"201": _json("Table", "created"), "403": _ERR, "404": _ERR},
                }
            },
            "/api/tables/{table_id}/new-hand": {
                "post": {
                    "summary": "Start the next hand for every phone: the photo, its hints and "
                    "every player's hand are cleared (photos stay in the history); a draw game's "
                    "recorded hand does it by itself",
                    "parameters": [_TID, _CODE],
                    "responses": {"200": _json("Table"), "403": _ERR, "404": _ERR},
                }
            },
            "/api/tables/{table_id}/next": {
                "post": {
                    "summary": "Move this phone on to the table's rematch (its code into the "
                    "session, its seat kept)",
                    "parameters": [_TID, _CODE],
                    "responses": {"200": _json("Table"), "403": _ERR, "404": _ERR},
                }
            },
            "/api/tables/{table_id}/seat": {
                "get": {
                    "summary": "The seat this phone holds (its seat cookie) and that seat's hand",
                    "parameters": [_TID, _CODE],
                    "responses": {"200": _SEAT_ANSWER, "403": _ERR, "404": _ERR},
                }
            },
            "/api/tables/{table_id}/seats/{player_id}": {
                "post": {
                    "summary": "Take this seat: sets the phone's HttpOnly seat cookie (only its "
                    "token's hash is stored); a seat this phone held before is left",
                    "parameters": [_TID, _SEAT, _CODE],
                    "responses": {
                        "200": _SEAT_ANSWER,
                        "201": _SEAT_ANSWER,
                        "400": _ERR,
                        "403": _ERR,
                        "409": {
                            **_ERR,
                            "description": "another phone holds the seat (demo tables: taken over)",
                        },
                    },
                },
                "delete": {
                    "summary": "Leave the seat this phone holds, or free another phone's seat (a "
                    "lost phone); the seat's hand is cleared",
                    "parameters": [_TID, _SEAT, _CODE],
                    "responses": {
                        "200": {"description": "{freed, left, player_id, hand, table}"},
                        "400": _ERR,
                        "403": _ERR,
                    },
                },
            },
            "/api/tables/{table_id}/hand": {
                "get": {
                    "summary": "This player's own hand",
                    "parameters": [_TID, _CODE, _PLAYER],
                    "responses": {"200": {"description": "{player_id, hand}"}, "403": _ERR},
                },
                "put": {
                    "summary": "Set this player's own hand (others' hands untouched); the latest photo is read with it",
                    "parameters": [_TID, _CODE, _PLAYER],
                    "requestBody": _json_body(
                        {
                            "type": "object",
                            "properties": {
                                "hand": _HAND,
                                "player_id": {"type": "integer"},
                            },
                        }
                    ),
                    "responses": {
                        "200": {
                            "description": "{player_id, hand, photo (Photo with this player's reading, or null)}"
                        },
                        "400": _ERR,
                        "403": _ERR,
                    },
                },
            },
            "/api/tables/{table_id}/hand-photo": {
                "post": {
                    "summary": "A photo of this player's hand: its tiles become the hand; the table photo stays as it is",
                    "parameters": [_TID, _CODE, _PLAYER],
                    "requestBody": _PHOTO_BODY,
                    "responses": {
                        "200": {"description": "{player_id, hand, photo, message}"},
                        "400": _ERR,
                        "403": _ERR,
                        "413": _ERR,
                        "503": _ERR,
                    },
                }
            },
            "/api/tables/{table_id}/read-tiles": {
                "post": {
                    "summary": "Read the tiles on a photo of a hand left at the end of a hand (score sheet); nothing is stored",
                    "parameters": [_TID, _CODE],
                    "requestBody": _PHOTO_BODY,
                    "responses": {
                        "200": {"description": '{tiles: ["3-5", ...], unread: n}'},
                        "400": _ERR,
                        "403": _ERR,
                        "413": _ERR,
                        "503": _ERR,
                    },
                }
            },
            "/api/tables/{table_id}/photos/{photo_id}/tiles": {
                "post": {
                    "summary": "Add a tile the detector missed at a spot of the photo; the table is read again",
                    "parameters": [_TID, _PID, _CODE, _PLAYER],
                    "requestBody": _json_body(
                        {
                            "type": "object",
                            "required": ["at", "pips"],
                            "properties": {
                                "at": {
                                    "type": "array",
                                    "items": {"type": "number"},
                                    "description": "[x, y] photo pixels",
                                },
                                "pips": {
                                    "type": "array",
                                    "items": {"type": "integer"},
                                    "minItems": 2,
                                    "maxItems": 2,
                                },
                            },
                        }
                    ),
                    "responses": {"201": _json("Photo"), "400": _ERR, "403": _ERR, "404": _ERR},
                }
            },
            "/api/tables/{table_id}/qr.svg": {
                "get": {
                    "summary": "Join QR code (SVG)",
                    "parameters": [_TID, _CODE],
                    "responses": {"200": {"description": "image/svg+xml"}, "403": _ERR},
                }
            },
            "/api/tables/{table_id}/rounds": {
                "get": {
                    "summary": "The history of the game: every entry, undone ones marked",
                    "parameters": [_TID],
                    "responses": {"200": {"description": "list of Round"}, "404": _ERR},
                },
                "post": {
                    "summary": "Record a hand (draw to 100) or a turn (Tableaux)",
                    "parameters": [_TID, _CODE, _KEY],
                    "requestBody": _json_body({"$ref": "#/components/schemas/NewRound"}),
                    "responses": {
                        "201": _json("Table"),
                        "400": _ERR,
                        "403": _ERR,
                        "409": _ERR,
                        "429": _ERR,
                        "503": _ERR,
                    },
                },
            },
            "/api/tables/{table_id}/undo": {
                "post": {
                    "summary": "Undo the entry round_id, which must be the latest one not undone (kept in the history, "
                    "marked undone); 409 when a newer entry exists or it is undone already",
                    "parameters": [_TID, _CODE],
                    "requestBody": _json_body(
                        {
                            "type": "object",
                            "properties": {"round_id": {"type": "integer"}},
                            "required": ["round_id"],
                        }
                    ),
                    "responses": {**table_resp, "400": _ERR, "409": _ERR},
                }
            },
            "/api/tables/{table_id}/photos": {
                "get": {
                    "summary": "The table's photos, newest first",
                    "parameters": [_TID],
                    "responses": {"200": {"description": "list of Photo"}},
                },
                "post": {
                    "summary": "Upload a JPEG or PNG photo: the tiles found, the game read, legal moves and the hint",
                    "parameters": [_TID, _CODE, _KEY],
                    "requestBody": {
                        "required": True,
                        "content": {
                            "multipart/form-data": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "photo": {"type": "string", "format": "binary"},
                                        "hand": {
                                            "type": "string",
                                            "description": "your hand, e.g. '3-5 6-6' (draw100, tableaux)",
                                        },
                                    },
                                    "required": ["photo"],
                                }
                            }
                        },
                    },
                    "responses": photo_resp,
                },
            },
            "/api/tables/{table_id}/camera": {
                "post": {
                    "summary": "Grab a photo from the laptop webcam (serve --camera N)",
                    "parameters": [_TID, _CODE, _KEY],
                    "responses": photo_resp,
                }
            },
            "/api/tables/{table_id}/photos/{photo_id}": {
                "get": {
                    "summary": "One photo with its reading (with the code "
                    "and X-Player: that player's hand and reading)",
                    "parameters": [_TID, _PID, _PLAYER],
                    "responses": {"200": _json("Photo"), "404": _ERR},
                }
            },
            "/api/tables/{table_id}/photos/{photo_id}/image": {
                "get": {
                    "summary": "The stored JPEG",
                    "parameters": [_TID, _PID],
                    "responses": {"200": {"description": "image/jpeg"}, "404": _ERR},
                }
            },
            "/api/tables/{table_id}/photos/{photo_id}/hand": {
                "put": {
                    "summary": "Set this player's own hand (draw100, Tableaux need it for moves) and read this photo with it",
                    "parameters": [_TID, _PID, _CODE, _PLAYER],
                    "requestBody": _json_body(
                        {
                            "type": "object",
                            "properties": {"hand": _HAND},
                        }
                    ),
                    "responses": {"200": _json("Photo"), "400": _ERR, "403": _ERR, "404": _ERR},
                }
            },
            "/api/tables/{table_id}/photos/{photo_id}/tiles/{index}": {
                "parameters": [
                    _TID,
                    _PID,
                    {
                        "name": "index",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "integer"},
                        "description": "0-based position in Photo.tiles",
                    },
                ],
                "put": {
                    "summary": "Correct a misread tile (its value, not a tile, face down); the table is read again",
                    "parameters": [_CODE, _PLAYER],
                    "requestBody": _json_body(
                        {
                            "type": "object",
                            "properties": {
                                "pips": {
                                    "type": "array",
                                    "items": {"type": "integer"},
                                    "minItems": 2,
                                    "maxItems": 2,
                                },
                                "kind": {"enum": ["pips", "not_tile", "face_down"]},
                            },
                        }
                    ),
                    "responses": {"200": _json("Photo"), "400": _ERR, "403": _ERR, "404": _ERR},
                },
                "delete": {
                    "summary": "Drop the correction of a tile",
                    "parameters": [_CODE],
                    "responses": {"200": _json("Photo"), "403": _ERR, "404": _ERR},
                },
            },
        },
        "components": {
            "schemas": {
                "Error": {
                    "type": "object",
                    "properties": {
                        "error": {
                            "type": "object",
                            "properties": {
                                "status": {"type": "integer"},
                                "message": {"type": "string"},
                            },
                        }
                    },
                },
                "Action": _ACTION,
                "Place": _PLACE,
                "NewTable": {
                    "type": "object",
                    "required": ["game"],
                    "properties": {
                        "game": {"enum": list(GAMES)},
                        "players": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": _players(),
                        },
                        "max_pip": {"type": "integer", "description": _sets()},
                        "variant": {"type": "string", "description": _variants()},
                        "target": {"type": "integer", "description": _targets()},
                    },
                },
                "NewRound": {
                    "type": "object",
                    "required": ["scores"],
                    "properties": {
                        "scores": {
                            "type": "object",
                            "additionalProperties": {"type": "integer"},
                            "description": f"player id -> points (0..999; {_pass_penalties()})",
                        },
                        "kind": {
                            "type": "string",
                            "description": _round_kinds(),
                        },
                        "source": {"enum": ["hand", "photo"]},
                        "photo_id": {"type": ["integer", "null"]},
                        "note": {"type": "string"},
                    },
                },
                "Player": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "seat": {"type": "integer"},
                        "name": {"type": "string"},
                        "total": {"type": "integer"},
                        "held": {
                            "type": "boolean",
                            "description": "a phone holds this seat (only it sees the hand)",
                        },
                    },
                },
                "Round": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "number": {"type": "integer"},
                        "kind": {"type": "string"},
                        "source": {"type": "string"},
                        "photo_id": {"type": ["integer", "null"]},
                        "note": {"type": "string"},
                        "undone": {"type": "boolean"},
                        "created": {"type": "string"},
                        "scores": {"type": "object", "additionalProperties": {"type": "integer"}},
                    },
                },
                "Table": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "game": {"type": "string"},
                        "game_label": {"type": "string"},
                        "scored": {"type": "boolean"},
                        "params": {"type": "object"},
                        "target": {"type": ["integer", "null"]},
                        "status": {"enum": ["playing", "finished"]},
                        "winner": {
                            "oneOf": [{"$ref": "#/components/schemas/Player"}, {"type": "null"}]
                        },
                        "players": {
                            "type": "array",
                            "items": {"$ref": "#/components/schemas/Player"},
                        },
                        "rounds": {
                            "type": "array",
                            "items": {"$ref": "#/components/schemas/Round"},
                        },
                        "latest_photo_id": {"type": ["integer", "null"]},
                        "photo_count": {"type": "integer"},
                        "code": {
                            "type": "string",
                            "description": "only in the answer to POST /api/tables",
                        },
                        "join_url": {
                            "type": "string",
                            "description": "only in the answer to POST /api/tables",
                        },
                    },
                },
                "Tile": {
                    "type": "object",
                    "properties": {
                        "pips": {"type": ["array", "null"], "items": {"type": "integer"}},
                        "face_down": {"type": "boolean"},
                        "corners": {
                            "type": "array",
                            "description": "(4,2) pixel corners of the oriented bounding box",
                        },
                        "halves": {
                            "type": "array",
                            "description": "(2,2) pixel centres of the halves; pips[i] is on halves[i]",
                        },
                        "confidence": {"type": "number"},
                        "pip_confidence": {"type": ["number", "null"]},
                        "note": {"type": "string"},
                        "corrected": {"type": "boolean"},
                    },
                },
                "Photo": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "image_url": {"type": "string"},
                        "width": {"type": "integer"},
                        "height": {"type": "integer"},
                        "tiles": {"type": "array", "items": {"$ref": "#/components/schemas/Tile"}},
                        "corrections": {
                            "type": "object",
                            "description": "tile index -> [a, b], 'not_tile' or 'face_down'",
                        },
                        "hand": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": "this player's own hand ([] for a watcher)",
                        },
                        "player_id": {"type": ["integer", "null"]},
                        "rendered": {
                            "type": "boolean",
                            "description": "a rendered picture (demo tables), not a photo",
                        },
                        "analysis": {
                            "type": "object",
                            "description": "vision.layout ReadResult.to_json(): layout, problems "
                            "(message in players' words, tiles named), legal_moves "
                            "(text, words, json: an Action); the engine's hint (action_json: "
                            "an Action; plan: Actions); plus ok, message (why not) and "
                            "advice (companion.hints.present: text, details, tiles, "
                            "outline, pairs, ghost, anchor)",
                        },
                        "suggestion": {
                            "type": ["object", "null"],
                            "description": "points to prefill the score form",
                        },
                        "elapsed_ms": {
                            "type": "number",
                            "description": "upload to hint on the server, ms",
                        },
                    },
                },
            }
        },
    }

-- Companion database (SQLite, in the Flask instance folder). Created on first run or by
-- `flask --app companion.app init-db`. Every statement is idempotent (IF NOT EXISTS).

CREATE TABLE IF NOT EXISTS tables (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    code        TEXT    NOT NULL UNIQUE,          -- short join code; holders may change the table
    game        TEXT    NOT NULL,                 -- draw100 | tableaux | good-neighbors | big-clock | luzon
    params_json TEXT    NOT NULL DEFAULT '{}',    -- engine parameters, e.g. {"max_pip": 9}
    target      INTEGER,                          -- points to win (scored games), NULL for solitaires
    status      TEXT    NOT NULL DEFAULT 'playing' CHECK (status IN ('playing', 'finished')),
    winner_id   INTEGER REFERENCES players(id),
    demo        INTEGER NOT NULL DEFAULT 0,       -- 1 for the demo tables `serve` creates
    hand_from   INTEGER NOT NULL DEFAULT 0,       -- photos up to this id belong to finished hands
    next_id     INTEGER,                          -- the rematch table every phone moves on to
    created     TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE IF NOT EXISTS players (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
    seat     INTEGER NOT NULL,                    -- 0-based, play passes to the left (seat + 1)
    name     TEXT    NOT NULL,
    UNIQUE (table_id, seat)
);

-- A photo taken at a table, with what the pipeline saw and what people corrected.
CREATE TABLE IF NOT EXISTS photos (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id         INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
    filename         TEXT    NOT NULL,            -- file under <instance>/photos/
    width            INTEGER NOT NULL,            -- pixels
    height           INTEGER NOT NULL,
    detections_json  TEXT    NOT NULL DEFAULT '[]',   -- TileDetection.to_json() list
    corrections_json TEXT    NOT NULL DEFAULT '{}',   -- {"<tile index>": [a, b]} set by hand
    hand_json        TEXT    NOT NULL DEFAULT '[]',   -- unused (hands are per player: table hands)
    rendered         INTEGER NOT NULL DEFAULT 0,      -- 1: a rendered picture (demo tables), not a photo
    analysis_json    TEXT    NOT NULL DEFAULT '{}',   -- last read: state, problems, moves, hint
    elapsed_ms       REAL,                        -- upload-to-hint time on the server
    created          TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- One scored entry: a hand (draw to 100) or a turn (Tableaux). Undo marks it undone.
CREATE TABLE IF NOT EXISTS rounds (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
    number   INTEGER NOT NULL,                    -- 1, 2, ... per table (undone ones keep theirs)
    kind     TEXT    NOT NULL,                    -- hand: domino | blocked; turn: play | pass; manual
    -- typed by hand, points from a photo, or recorded by the live camera (companion/follow.py)
    source   TEXT    NOT NULL DEFAULT 'hand' CHECK (source IN ('hand', 'photo', 'camera')),
    photo_id INTEGER REFERENCES photos(id),
    note     TEXT    NOT NULL DEFAULT '',
    undone   INTEGER NOT NULL DEFAULT 0,
    created  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- Every scored event: points to one player in one round (negative for a Tableaux pass).
CREATE TABLE IF NOT EXISTS score_events (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    round_id  INTEGER NOT NULL REFERENCES rounds(id) ON DELETE CASCADE,
    player_id INTEGER NOT NULL REFERENCES players(id),
    points    INTEGER NOT NULL
);

-- Each player's own hand (draw to 100, Tableaux), private to the phone that sits in that seat,
-- and the reading of the table's latest photo with that hand (legal moves, hint).
CREATE TABLE IF NOT EXISTS hands (
    player_id     INTEGER PRIMARY KEY REFERENCES players(id) ON DELETE CASCADE,
    table_id      INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
    hand_json     TEXT    NOT NULL DEFAULT '[]',  -- ["3-5", "6-6", ...]
    photo_id      INTEGER,                        -- the photo analysis_json read (NULL: read again)
    analysis_json TEXT    NOT NULL DEFAULT '{}',
    updated       TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- The phone that holds a seat: a hash (SHA-256, hex) of the random seat token kept in that
-- phone's HttpOnly cookie. Only that phone may read or set the seat's hand; a row per held seat.
CREATE TABLE IF NOT EXISTS seats (
    player_id  INTEGER PRIMARY KEY REFERENCES players(id) ON DELETE CASCADE,
    table_id   INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
    token_hash TEXT    NOT NULL,
    taken      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE INDEX IF NOT EXISTS idx_hands_table ON hands(table_id);
CREATE INDEX IF NOT EXISTS idx_seats_table ON seats(table_id);
CREATE INDEX IF NOT EXISTS idx_players_table ON players(table_id);
CREATE INDEX IF NOT EXISTS idx_photos_table ON photos(table_id);
CREATE INDEX IF NOT EXISTS idx_rounds_table ON rounds(table_id);
CREATE INDEX IF NOT EXISTS idx_events_round ON score_events(round_id);

-- The first answer to a request sent with an Idempotency-Key (score entries, photos), so a
-- retry after a lost answer gets that answer again instead of a second entry.
CREATE TABLE IF NOT EXISTS idempotency (
    table_id  INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
    key       TEXT    NOT NULL,                   -- chosen by the client, e.g. a UUID
    route     TEXT    NOT NULL,                   -- rounds | photos
    status    INTEGER NOT NULL,                   -- HTTP status of the first answer
    body_json TEXT    NOT NULL,                   -- its JSON body
    created   TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (table_id, key)
);

"""SQLite storage for the companion, in the Flask instance folder (flaskr pattern).

One connection per request (``get_db``), closed at teardown. The schema
(``companion/schema.sql``) is applied on first use and by ``flask --app companion.app init-db``;
it is idempotent, so a server restart keeps every table, player, round and scored event.
Writes go through ``transaction()``: all of a request's rows are stored or none.
"""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources

import click
from flask import Flask, current_app, g
from flask.cli import with_appcontext


def connect(path: str, timeout: float = 5.0) -> sqlite3.Connection:
    """Open the database at ``path`` (rows as ``sqlite3.Row``, foreign keys on, WAL journal).

    ``isolation_level=None`` puts the connection in autocommit mode; :func:`transaction`
    issues ``BEGIN IMMEDIATE``/``COMMIT`` explicitly, so concurrent writers queue for up to
    ``timeout`` seconds; after that SQLite raises ``OperationalError: database is locked``,
    which the application answers with 503 and ``Retry-After`` (:func:`is_busy`).
    """
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def init_schema(conn: sqlite3.Connection) -> None:
    """Create the tables that do not exist yet (never drops data)."""
    sql = resources.files("companion").joinpath("schema.sql").read_text(encoding="utf-8")
    conn.executescript(sql)
    # columns added after the first release: add them to older databases
    cols = {r[1] for r in conn.execute("PRAGMA table_info(photos)")}
    if "hand_json" not in cols:
        conn.execute("ALTER TABLE photos ADD COLUMN hand_json TEXT NOT NULL DEFAULT '[]'")
    if "rendered" not in cols:
        conn.execute("ALTER TABLE photos ADD COLUMN rendered INTEGER NOT NULL DEFAULT 0")
    cols = {r[1] for r in conn.execute("PRAGMA table_info(tables)")}
    if "hand_from" not in cols:
        conn.execute("ALTER TABLE tables ADD COLUMN hand_from INTEGER NOT NULL DEFAULT 0")
    if "next_id" not in cols:
        conn.execute("ALTER TABLE tables ADD COLUMN next_id INTEGER")
    _allow_camera_rounds(conn)


def _allow_camera_rounds(conn: sqlite3.Connection) -> None:
    """Older databases refuse ``rounds.source = 'camera'`` (their CHECK predates the live
    camera): rebuild the table with the new CHECK, keeping every row and id (SQLite cannot
    change a CHECK in place; the rebuild follows its "making other kinds of table schema
    changes" recipe, foreign keys off so score events keep their rounds)."""
    row = conn.execute(
        "SELECT sql FROM sqlite_master WHERE type='table' AND name='rounds'"
    ).fetchone()
    if row is None or "'camera'" in row[0]:
        return
    old = "CHECK (source IN ('hand', 'photo'))"
    if old not in row[0]:
        return
    new_sql = row[0].replace(old, "CHECK (source IN ('hand', 'photo', 'camera'))")
    new_sql = new_sql.replace("CREATE TABLE rounds", "CREATE TABLE rounds_new", 1)
    conn.execute("PRAGMA foreign_keys = OFF")
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(new_sql)
            conn.execute("INSERT INTO rounds_new SELECT * FROM rounds")
            conn.execute("DROP TABLE rounds")
            conn.execute("ALTER TABLE rounds_new RENAME TO rounds")
            conn.execute("CREATE INDEX IF NOT EXISTS idx_rounds_table ON rounds(table_id)")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    finally:
        conn.execute("PRAGMA foreign_keys = ON")


def get_db() -> sqlite3.Connection:
    """The request's connection to ``app.config['DATABASE']``, opened on first use.

    ``DB_MAX_MB`` (config, default None: no limit) caps the database file: past it SQLite
    answers writes "database or disk is full" (``PRAGMA max_page_count``), as a full disk
    would (507 for writes, reads go on)."""
    if "db" not in g:
        g.db = connect(
            current_app.config["DATABASE"], float(current_app.config.get("DB_BUSY_TIMEOUT", 5.0))
        )
        cap = current_app.config.get("DB_MAX_MB")
        if cap:
            page = g.db.execute("PRAGMA page_size").fetchone()[0]
            g.db.execute(f"PRAGMA max_page_count = {max(1, int(float(cap) * 2**20 // page))}")
    return g.db


def close_db(_exc: BaseException | None = None) -> None:
    """Close the request's connection (teardown handler)."""
    db = g.pop("db", None)
    if db is not None:
        db.close()


def is_busy(exc: BaseException) -> bool:
    """True for SQLite's "database is locked/busy" errors (another writer held the lock too long)."""
    return isinstance(exc, sqlite3.OperationalError) and any(
        w in str(exc).lower() for w in ("locked", "busy")
    )


#: What a write is told when the disk is full (507) or storage fails otherwise (503).
FULL_MESSAGE = (
    "the server's disk is full, so nothing was stored; free some space on the computer running "
    "the companion (old photos in its instance folder, other files), then try again; tables "
    "can still be read"
)
STORAGE_MESSAGE = (
    "the server cannot write to its storage right now (a disk error or a read-only folder), so "
    "nothing was stored; check the computer running the companion, then try again; tables can "
    "still be read"
)
_SQLITE_FULL, _SQLITE_IOERR, _SQLITE_READONLY, _SQLITE_CANTOPEN = 13, 10, 8, 14


def storage_status(exc: BaseException) -> int | None:
    """The HTTP status for a storage failure: 507 when the disk is full (SQLite ``SQLITE_FULL``,
    ``OSError`` ``ENOSPC``/``EDQUOT``), 503 for other storage errors (SQLite I/O, read-only or
    cannot-open errors; ``EIO``, ``EROFS``), None for anything else."""
    if isinstance(exc, sqlite3.Error):
        code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
        text = str(exc).lower()
        if code == _SQLITE_FULL or "disk is full" in text:
            return 507
        if code in (_SQLITE_IOERR, _SQLITE_READONLY, _SQLITE_CANTOPEN) or any(
            w in text for w in ("disk i/o error", "readonly database", "unable to open")
        ):
            return 503
        return None
    if isinstance(exc, OSError):
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return 507
        if exc.errno in (errno.EIO, errno.EROFS):
            return 503
    return None


@contextmanager
def transaction(conn: sqlite3.Connection | None = None) -> Iterator[sqlite3.Connection]:
    """``with transaction() as db:`` -- commit on success, roll back on any exception (a failed
    COMMIT, e.g. on a full disk, leaves nothing stored either)."""
    db = conn if conn is not None else get_db()
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if db.in_transaction:  # SQLite rolls back by itself after some errors (a full disk)
            db.execute("ROLLBACK")
        raise
    else:
        db.execute("COMMIT")


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create the companion's tables in the instance database (keeps existing data)."""
    conn = connect(current_app.config["DATABASE"])
    try:
        init_schema(conn)
    finally:
        conn.close()
    click.echo(f"Initialised the database at {current_app.config['DATABASE']}.")


def init_app(app: Flask) -> None:
    """Register teardown and the CLI command; create the schema if the file is new.

    The database file (and its ``-wal``/``-shm`` companions) is readable by the owner only.
    """
    from .guard import private_file

    app.teardown_appcontext(close_db)
    app.cli.add_command(init_db_command)
    path = app.config["DATABASE"]
    if path != ":memory:":
        private_file(path, create=True)
    conn = connect(path)
    try:
        init_schema(conn)
    finally:
        conn.close()
    if path != ":memory:":
        for suffix in ("", "-wal", "-shm"):
            private_file(path + suffix)

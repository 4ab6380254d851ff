"""Persistence as an event log: one row per game (its setup and seats) and one row per move.

A game is ``(setup, moves)``: the engine rebuilds any position by replaying the stored move texts,
so nothing else needs saving. ``(game_id, idx)`` is the primary key of ``moves``: two writers
racing for the same move index get one success and one :class:`MoveConflict`. The server stores
moves in batches (:meth:`Store.append_batch`, one transaction each) and acknowledges a move only
after the commit of its batch.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from tracklayer.server.guard import sanitise
from tracklayer.server.notify import notify_sql

if TYPE_CHECKING:
    from sqlalchemy.engine.interfaces import DBAPIConnection
    from sqlalchemy.pool import ConnectionPoolEntry

log = logging.getLogger("tracklayer.server")
metadata = MetaData()

games = Table(
    "games", metadata,
    Column("id", String(32), primary_key=True),
    Column("game", String(64), nullable=False),
    Column("variant", String(64), nullable=True),
    Column("setup", Text, nullable=False),  # JSON: game, variant, players, seed, options
    Column("seats", Text, nullable=False),  # JSON: [{name, kind, bot, token}]
    Column("spectator_token", String(64), nullable=False, unique=True),
    Column("table_token", String(64), nullable=True, unique=True),  # hot-seat: every human seat
    Column("status", String(16), nullable=False, default="open"),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    # --- lobby (links never lost, matchmaking; migration 0004) ---
    Column("creator_token", String(64), nullable=True, unique=True),  # reads every link of the game
    Column("private", Boolean, nullable=True),  # True: not listed; False: listed with a watch link; None: older game
    Column("fill_at", Float, nullable=True),  # a waiting game's open seats go to bots at this time (quick play)
    Column("quick", String(80), nullable=True),  # quick-play pool "game/players" a waiting game belongs to
    # --- end lobby ---
)

moves = Table(
    "moves", metadata,
    Column("game_id", String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("idx", Integer, primary_key=True, autoincrement=False),
    Column("text", Text, nullable=False),
    Column("created_at", Float, nullable=False),
)


class MoveConflict(Exception):
    """Another writer already stored the move with this index."""


@dataclass
class GameRecord:
    id: str
    game: str
    variant: str | None
    setup: dict[str, Any]
    seats: list[dict[str, Any]]
    spectator_token: str
    table_token: str | None
    status: str = "open"
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    moves: list[str] = field(default_factory=list)
    creator_token: str | None = None
    private: bool | None = None
    fill_at: float | None = None
    quick: str | None = None


def normalise_url(url: str) -> str:
    """``postgresql://`` and ``postgres://`` use psycopg 3; anything else goes to SQLAlchemy as is."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def default_database_url() -> str:
    """A SQLite file in the user's data directory (created on first run, for its owner only: the file
    holds every game's seat tokens)."""
    from platformdirs import user_data_dir

    folder = Path(user_data_dir("tracklayer", appauthor=False))
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    _owner_only(folder, 0o700)  # tracklayer's own folder: tightened if it was made readable to others
    return f"sqlite:///{folder / 'tracklayer.sqlite3'}"


def _owner_only(path: Path, mode: int) -> None:
    """Take the group's and others' permissions off ``path`` (a warning if that is not possible)."""
    try:
        current = path.stat().st_mode & 0o777
        if current & 0o077:
            path.chmod(current & mode)
            log.warning("%s was readable by other users (%o): made %o (it holds seat tokens)", path, current,
                        current & mode)
    except OSError as exc:
        log.warning("%s is readable by other users and could not be made private: %s", path, exc)


def secure_sqlite_file(path: str) -> None:
    """The SQLite file (and its WAL and shared-memory files) readable by its owner only, before SQLite
    opens it: a missing folder is made 0700, a missing file is made empty with 0600 (SQLite reads an
    empty file as an empty database and gives the -wal and -shm files the database file's
    permissions), and an existing file that others may read is tightened to 0600. Folders that exist
    are left as they are (the file may live in a shared one such as /srv)."""
    file = Path(path)
    file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        os.close(os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        return
    except FileExistsError:
        pass
    for each in (file, Path(path + "-wal"), Path(path + "-shm"), Path(path + "-journal")):
        if each.exists():
            _owner_only(each, 0o600)


def make_engine(url: str) -> Engine:
    url = normalise_url(url)
    if url.startswith("sqlite"):
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:" and not path.startswith("file:"):
            secure_sqlite_file(path)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(conn: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
            cur = conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=FULL")  # a committed move survives a crash
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest revision (Alembic migrations shipped in the package)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":  # several servers starting at once migrate one after the other
            conn.exec_driver_sql("SELECT pg_advisory_xact_lock(746172)")
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


class Store:
    """Synchronous storage (the server calls it from worker threads)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        migrate(self.engine)
        # PostgreSQL: every stored move is announced (NOTIFY, delivered only on commit) to the other
        # server processes on this database (tracklayer.server.fanout); SQLite serves one process
        self.notify = self.engine.dialect.name == "postgresql"

    def close(self) -> None:
        self.engine.dispose()

    def create_game(self, rec: GameRecord) -> None:
        with self.engine.begin() as conn:
            conn.execute(insert(games).values(
                id=rec.id, game=rec.game, variant=rec.variant, setup=json.dumps(rec.setup),
                seats=json.dumps(rec.seats), spectator_token=rec.spectator_token, table_token=rec.table_token,
                status=rec.status, created_at=rec.created_at, updated_at=rec.updated_at,
                creator_token=rec.creator_token, private=rec.private, fill_at=rec.fill_at, quick=rec.quick))

    def append_move(self, game_id: str, idx: int, text: str, status: str | None = None) -> None:
        """Store move ``idx``; :class:`MoveConflict` if that index is already taken."""
        now = time.time()
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(moves).values(game_id=game_id, idx=idx, text=text, created_at=now))
                values: dict[str, Any] = {"updated_at": now}
                if status is not None:
                    values["status"] = status
                conn.execute(update(games).where(games.c.id == game_id).values(**values))
                if self.notify:
                    conn.exec_driver_sql(*notify_sql([(game_id, idx, text)]))
        except IntegrityError as exc:
            raise MoveConflict(f"move {idx} of game {game_id} is already stored") from exc

    def append_batch(self, items: list[tuple[str, int, str, str | None]]) -> list[bool]:
        """Store several moves (of different games) in one transaction: one commit, one fsync.

        Returns, per item, True if stored and False if its index was already taken (the others
        are stored all the same). A batch is one multi-row INSERT, one UPDATE of the games and the
        COMMIT, whatever its size, in SQL written here rather than compiled per batch size: the
        server's writer thread needs the GIL back after every statement and waits for it while the
        event loop is busy, so statements per row made a 20-move batch take ~20 ms under load. A
        taken index (another server process, or a stale copy) fails the INSERT as a whole, and the
        batch is then stored one move at a time to tell which moves lost.
        """
        if not items:
            return []
        now = time.time()
        keys = [(game_id, idx) for game_id, idx, _, _ in items]
        first = {key: k for k, key in reversed(list(enumerate(keys)))}
        fresh = [first[key] == k for k, key in enumerate(keys)]  # a key twice in one batch: the first wins
        rows = [(game_id, idx, text, now) for (game_id, idx, text, _), ok in zip(items, fresh, strict=True) if ok]
        status = {game_id: st for (game_id, _, _, st), ok in zip(items, fresh, strict=True) if ok and st is not None}
        ids = list(dict.fromkeys(row[0] for row in rows))
        p = "?" if self.engine.dialect.paramstyle == "qmark" else "%s"
        values = ", ".join([f"({p}, {p}, {p}, {p})"] * len(rows))
        insert_sql = f"INSERT INTO moves (game_id, idx, text, created_at) VALUES {values}"
        cases = " ".join([f"WHEN {p} THEN {p}"] * len(status))
        update_sql = (f"UPDATE games SET updated_at = {p}"
                      + (f", status = CASE id {cases} ELSE status END" if status else "")
                      + f" WHERE id IN ({', '.join([p] * len(ids))})")
        try:
            with self.engine.begin() as conn:
                conn.exec_driver_sql(insert_sql, tuple(v for row in rows for v in row))
                conn.exec_driver_sql(update_sql, (now, *(v for kv in status.items() for v in kv), *ids))
                if self.notify:
                    conn.exec_driver_sql(*notify_sql([row[:3] for row in rows]))
            return fresh
        except IntegrityError:
            out = []
            for (game_id, idx, text, st), ok in zip(items, fresh, strict=True):
                try:
                    if not ok:
                        raise MoveConflict(f"move {idx} of game {game_id} is twice in one batch")
                    self.append_move(game_id, idx, text, st)
                    out.append(True)
                except MoveConflict:
                    out.append(False)
            return out

    def take_back(self, game_id: str, keep: int, stored: int, status: str) -> None:
        """Delete the moves from index ``keep`` on (an undo), in one transaction with the game's status,
        so that no restart replays them. ``stored``: how many moves the caller holds; if the database
        holds another number (a move stored meanwhile by another process) nothing is deleted and
        :class:`MoveConflict` says so. Other processes hear of it as index -2 on the moves channel and
        reload the game (``fanout.py``)."""
        with self.engine.begin() as conn:
            count = conn.execute(select(func.count()).select_from(moves).where(moves.c.game_id == game_id)).scalar()
            if count != stored:
                raise MoveConflict(f"game {game_id} has {count} stored moves, not {stored}")
            conn.execute(delete(moves).where(moves.c.game_id == game_id, moves.c.idx >= keep))
            conn.execute(update(games).where(games.c.id == game_id).values(status=status, updated_at=time.time()))
            if self.notify:
                conn.exec_driver_sql(*notify_sql([(game_id, -2, "")]))

    def set_status(self, game_id: str, status: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(games).where(games.c.id == game_id).values(status=status, updated_at=time.time()))

    def _record(self, row: Any, move_texts: list[str]) -> GameRecord:
        return GameRecord(id=row.id, game=row.game, variant=row.variant,
                          setup=_stored_json(row.setup, row.id, "setup"),
                          seats=_stored_json(row.seats, row.id, "seats"),
                          spectator_token=row.spectator_token, table_token=row.table_token, status=row.status,
                          created_at=row.created_at, updated_at=row.updated_at, moves=move_texts,
                          creator_token=row.creator_token, private=row.private, fill_at=row.fill_at, quick=row.quick)

    def load_game(self, game_id: str) -> GameRecord | None:
        with self.engine.connect() as conn:
            if conn.dialect.name == "postgresql":
                # the row and its moves from one snapshot: by default each statement sees the commits made
                # before it, so another process's fill and first move committed between the two reads
                # would pair a waiting row with a move (or a status with a shorter or longer history)
                conn.execution_options(isolation_level="REPEATABLE READ")
            row = conn.execute(select(games).where(games.c.id == game_id)).first()
            if row is None:
                return None
            texts = conn.execute(select(moves.c.text).where(moves.c.game_id == game_id)
                                 .order_by(moves.c.idx)).scalars().all()
        return self._record(row, list(texts))

    def load_moves(self, game_id: str) -> list[str]:
        with self.engine.connect() as conn:
            return list(conn.execute(select(moves.c.text).where(moves.c.game_id == game_id)
                                     .order_by(moves.c.idx)).scalars().all())

    def load_moves_since(self, game_id: str, start: int) -> list[tuple[int, str]]:
        """``(idx, text)`` of the moves from index ``start`` on: what another process stored since."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(moves.c.idx, moves.c.text)
                                .where(moves.c.game_id == game_id, moves.c.idx >= start)
                                .order_by(moves.c.idx)).all()
        return [(r.idx, r.text) for r in rows]

    def list_games(self, limit: int = 200, statuses: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
        """Newest first, with the move count; no tokens and no seeds."""
        counts = (select(moves.c.game_id, func.count().label("n")).group_by(moves.c.game_id).subquery())
        query = (select(games.c.id, games.c.game, games.c.variant, games.c.seats, games.c.status,
                        games.c.created_at, games.c.updated_at, func.coalesce(counts.c.n, 0).label("n"),
                        games.c.private, games.c.spectator_token)
                 .select_from(games.outerjoin(counts, counts.c.game_id == games.c.id))
                 .where(games.c.private.is_not(True))  # private games are not listed
                 .order_by(games.c.updated_at.desc()).limit(limit))
        if statuses:
            query = query.where(games.c.status.in_(statuses))
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        out = []
        for r in rows:
            try:  # one row the server cannot show must not hide the others: it is left out (and logged)
                seats = _stored_json(r.seats, r.id, "seats")
                entry, _ = sanitise({"id": r.id, "game": r.game, "variant": r.variant, "status": r.status,
                                     "moves": int(r.n), "created_at": float(r.created_at),
                                     "updated_at": float(r.updated_at),
                                     "seats": [{"name": str(s["name"]), "kind": str(s["kind"])} for s in seats]})
                if r.private is False:  # a public game: anyone may watch it (the spectator view hides every secret)
                    entry["watch"] = f"/game/{r.id}#{r.spectator_token}"
            except Exception as exc:
                log.error("game %s left out of the list: its stored row cannot be read (%s)", r.id,
                          type(exc).__name__)
                continue
            out.append(entry)
        return out

    def unfinished_ids(self) -> list[str]:
        with self.engine.connect() as conn:
            return list(conn.execute(select(games.c.id).where(games.c.status != "over")).scalars().all())


def _stored_json(text: str, game_id: str, column: str) -> Any:
    """A JSON column of a stored game, with every string made valid Unicode: rows written before names
    were checked at the door may hold unpaired surrogates, which no answer could encode."""
    value, changed = sanitise(json.loads(text))
    if changed:
        log.warning("game %s: stored %s hold text that is not valid Unicode; shown with U+FFFD", game_id, column)
    return value

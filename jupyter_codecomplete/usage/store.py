"""The usage store: one SQLite file in the user's Jupyter data directory.

- **Off the event loop.** Every statement runs on the store's own worker thread (one per store, so
  one connection and writes in order); the server awaits :meth:`UsageStore.record` and
  :meth:`UsageStore.rows`. The commands call the ``*_sync`` methods directly.
- **Two tabs, two servers.** WAL journal, a busy timeout, one row per suggestion id written with an
  upsert (the last report of a suggestion wins), migrations inside ``BEGIN IMMEDIATE``.
- **Schema versioned** by ``PRAGMA user_version``: :data:`MIGRATIONS` are applied in order; a file
  made by a newer version is read but never written.
- **Bounded.** Rows older than ``max_age_days`` are deleted; past ``max_bytes`` the oldest rows go
  (and their pages are given back: ``auto_vacuum = INCREMENTAL``).
- **Never in the way.** A corrupt, locked or unwritable file costs the events, not the editor: one
  warning per kind of trouble in the log, then quiet.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from ..protocol import UsageEvent

T = TypeVar("T")

FILE_NAME = "usage.sqlite3"

# Each entry brings the schema from version i to i + 1.
MIGRATIONS: tuple[str, ...] = (
    # 1: one row per suggestion shown
    """
    CREATE TABLE events (
        id TEXT PRIMARY KEY,
        shown_at REAL NOT NULL,
        model TEXT, style TEXT, language TEXT,
        trigger TEXT NOT NULL,
        latency_ms REAL NOT NULL,
        length INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        accept_kind TEXT,
        accepted_chars INTEGER NOT NULL DEFAULT 0,
        typed_chars INTEGER NOT NULL DEFAULT 0,
        kept_30s INTEGER, kept_5m INTEGER,
        text_hash TEXT, line INTEGER, col INTEGER,
        updated_at REAL NOT NULL
    );
    """,
    # 2: where the cursor was (the gate learns from it), samples for eval, the time index
    """
    ALTER TABLE events ADD COLUMN line_kind TEXT NOT NULL DEFAULT 'code';
    ALTER TABLE events ADD COLUMN sample TEXT;
    CREATE INDEX events_shown_at ON events (shown_at);
    """,
    # 3: how fast the user was typing before the request (the gate's rhythm)
    """
    ALTER TABLE events ADD COLUMN typing_ms REAL;
    """,
    # 4: how long the user paused before taking it, and whether it was asked after a hold (the
    # gate's learned pauses)
    """
    ALTER TABLE events ADD COLUMN accept_pause_ms REAL;
    ALTER TABLE events ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
    """,
    # 5: what was still there when the document closed before the 30 s window ended
    """
    ALTER TABLE events ADD COLUMN kept_at_close INTEGER;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)

COLUMNS = (
    "id",
    "shown_at",
    "model",
    "style",
    "language",
    "trigger",
    "line_kind",
    "typing_ms",
    "latency_ms",
    "length",
    "outcome",
    "accept_kind",
    "accepted_chars",
    "typed_chars",
    "accept_pause_ms",
    "held",
    "kept_30s",
    "kept_5m",
    "kept_at_close",
    "text_hash",
    "line",
    "col",
    "sample",
)
KEPT_COLUMNS = ("kept_30s", "kept_5m", "kept_at_close")
_UPSERT = (
    f"INSERT INTO events ({', '.join(COLUMNS)}, updated_at) VALUES ({', '.join('?' * (len(COLUMNS) + 1))}) "
    "ON CONFLICT(id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in COLUMNS[1:] if c not in KEPT_COLUMNS)
    # a later report without the kept figures does not erase them
    + "".join(f", {c} = coalesce(excluded.{c}, {c})" for c in KEPT_COLUMNS)
    + ", updated_at = excluded.updated_at"
)
# The columns a summary reads (never the sample).
SUMMARY_COLUMNS = tuple(c for c in COLUMNS if c != "sample")


def default_usage_path() -> str:
    """``<jupyter data dir>/codecomplete/usage.sqlite3``."""
    from jupyter_core.paths import jupyter_data_dir

    return os.path.join(jupyter_data_dir(), "codecomplete", FILE_NAME)


class UsageStoreError(Exception):
    """The store cannot be used (corrupt, newer schema, not writable)."""


class UsageStore:
    """The usage events of one user; safe to share between tabs, servers and the commands."""

    def __init__(
        self,
        path: str | None = None,
        *,
        max_bytes: int = 32 * 1024 * 1024,
        max_age_days: float = 180.0,
        busy_timeout: float = 2.0,
        log: logging.Logger | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = path or default_usage_path()
        self.max_bytes = max_bytes
        self.max_age_days = max_age_days
        self.busy_timeout = busy_timeout
        self.log = log or logging.getLogger("jupyter_codecomplete.usage")
        self.clock = clock
        self.problem: str | None = None  # why the store is not usable, for the stats route
        self._conn: sqlite3.Connection | None = None
        self._read_only = False
        self._broken = False
        self._warned: set[str] = set()
        self._writes = 0
        self._lock = threading.Lock()  # the *_sync methods may be called from any thread
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None

    # --- the server's side: awaited, on the store's thread ------------------------------------

    async def _run(self, fn: Callable[[], T]) -> T:
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="codecomplete-usage")
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn)

    async def record(self, events: Sequence[UsageEvent]) -> int:
        """Store (or update) these events; how many were written (0 when the store is unusable)."""
        return await self._run(lambda: self.record_sync(events))

    async def rows(self, since_ms: float | None = None) -> list[dict[str, Any]]:
        return await self._run(lambda: self.rows_sync(since_ms))

    async def query(self, fn: Callable[[list[dict[str, Any]]], T], since_ms: float | None = None) -> T:
        """``fn(rows)`` on the store's thread (an aggregate of many rows stays off the event loop)."""
        return await self._run(lambda: fn(self.rows_sync(since_ms)))

    def close(self) -> None:
        if self._executor is not None:
            self._executor.submit(self._close_conn)
            self._executor.shutdown(wait=True)
            self._executor = None
        else:
            self._close_conn()

    # --- synchronous API (the commands, the tests, the worker thread) -------------------------

    def record_sync(self, events: Iterable[UsageEvent]) -> int:
        with self._lock:
            now = self.clock()
            params = [(*_values(e), now) for e in events]
            if not params:
                return 0
            conn = self._connection()
            if conn is None or self._read_only:
                return 0
            try:
                with _transaction(conn):
                    conn.executemany(_UPSERT, params)
                self._writes += 1
                if self._writes % 50 == 1:
                    self._prune(conn)
            except sqlite3.OperationalError as exc:
                self._trouble(exc)
                return 0
            except sqlite3.DatabaseError as exc:
                self._corrupt(exc)
                return 0
            return len(params)

    def rows_sync(self, since_ms: float | None = None) -> list[dict[str, Any]]:
        """The stored events (without samples), oldest first."""
        with self._lock:
            conn = self._connection()
            if conn is None:
                return []
            sql = f"SELECT {', '.join(SUMMARY_COLUMNS)} FROM events"
            args: tuple[Any, ...] = ()
            if since_ms is not None:
                sql += " WHERE shown_at >= ?"
                args = (since_ms,)
            try:
                cur = conn.execute(sql + " ORDER BY shown_at", args)
                rows = [dict(zip(SUMMARY_COLUMNS, r, strict=True)) for r in cur.fetchall()]
            except sqlite3.OperationalError as exc:
                self._trouble(exc)
                return []
            except sqlite3.DatabaseError as exc:
                self._corrupt(exc)
                return []
            for row in rows:
                row["held"] = bool(row["held"])  # stored as 0 / 1
            return rows

    def samples_sync(self, limit: int = 1000) -> list[dict[str, Any]]:
        """Events that carry a sample (kept for ``eval`` when the user asked for it), newest first."""
        with self._lock:
            conn = self._connection()
            if conn is None:
                return []
            cur = conn.execute(
                "SELECT id, language, outcome, accepted_chars, kept_5m, sample FROM events "
                "WHERE sample IS NOT NULL ORDER BY shown_at DESC LIMIT ?",
                (limit,),
            )
            keys = ("id", "language", "outcome", "accepted_chars", "kept_5m", "sample")
            return [dict(zip(keys, r, strict=True)) for r in cur.fetchall()]

    def schema_version(self) -> int | None:
        with self._lock:
            conn = self._connection()
            if conn is None:
                return None
            return int(conn.execute("PRAGMA user_version").fetchone()[0])

    def size_bytes(self) -> int:
        """Bytes the rows use (pages in use, not free pages)."""
        with self._lock:
            conn = self._connection()
            return 0 if conn is None else _used_bytes(conn)

    def prune_sync(self) -> None:
        with self._lock:
            conn = self._connection()
            if conn is not None and not self._read_only:
                try:
                    self._prune(conn)
                except sqlite3.OperationalError as exc:
                    self._trouble(exc)

    def _close_conn(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # --- inside ---------------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection | None:
        if self._conn is not None:
            return self._conn
        if self._broken:
            return None
        try:
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            conn = sqlite3.connect(
                self.path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False
            )
        except (OSError, sqlite3.Error) as exc:
            self._give_up("unwritable", f"cannot open {self.path}: {exc}")
            return None
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")  # takes effect on a new file only
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            self._migrate(conn)
        except UsageStoreError as exc:
            conn.close()
            self._give_up("schema", str(exc))
            return None
        except sqlite3.OperationalError as exc:
            conn.close()
            self._trouble(exc)  # locked: try again next time
            return None
        except sqlite3.DatabaseError as exc:
            conn.close()
            self._corrupt(exc)
            return None
        self._conn = conn
        self.problem = None
        try:
            self._prune(conn)
        except sqlite3.OperationalError as exc:
            self._trouble(exc)
        return conn

    def _migrate(self, conn: sqlite3.Connection) -> None:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            # a newer jupyter_codecomplete made it: read what we know, write nothing
            self._read_only = True
            self._warn(
                "newer",
                "codecomplete: %s has usage schema %d, newer than this version's %d: "
                "usage is read but not recorded",
                self.path,
                version,
                SCHEMA_VERSION,
            )
            return
        if version == SCHEMA_VERSION:
            return
        with _transaction(conn):
            # another server may have migrated while we waited for the lock
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            for step in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[step].split(";"):
                    if statement.strip():
                        conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _prune(self, conn: sqlite3.Connection) -> None:
        """Delete rows older than the age bound, then the oldest until under the size bound."""
        cutoff_ms = (self.clock() - self.max_age_days * 86400) * 1000
        with _transaction(conn):
            conn.execute("DELETE FROM events WHERE shown_at < ?", (cutoff_ms,))
        for _ in range(20):
            used = _used_bytes(conn)
            if used <= self.max_bytes:
                break
            (count,) = conn.execute("SELECT count(*) FROM events").fetchone()
            if not count:
                break
            # enough to land at about 80 % of the bound
            drop = max(1, min(count, int(count * (1 - 0.8 * self.max_bytes / used)) + 1))
            with _transaction(conn):
                conn.execute(
                    "DELETE FROM events WHERE rowid IN (SELECT rowid FROM events ORDER BY shown_at LIMIT ?)",
                    (drop,),
                )
            conn.execute("PRAGMA incremental_vacuum")

    def _trouble(self, exc: sqlite3.OperationalError) -> None:
        """A locked or read-only database: these events are lost, the next ones are tried."""
        text = str(exc)
        self.problem = f"{self.path}: {text}"
        kind = "locked" if "locked" in text or "busy" in text else "operational"
        self._warn(
            kind,
            "codecomplete: usage events not recorded (%s: %s); the editor is not affected",
            self.path,
            text,
        )

    def _corrupt(self, exc: sqlite3.DatabaseError) -> None:
        self._give_up(
            "corrupt",
            f"{self.path} is not a usable SQLite database ({exc}); usage is not recorded until the file "
            "is moved away or deleted",
        )

    def _give_up(self, kind: str, message: str) -> None:
        self._broken = True
        self.problem = message
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self._warn(kind, "codecomplete: %s", message)

    def _warn(self, kind: str, fmt: str, *args: Any) -> None:
        if kind in self._warned:
            self.log.debug(fmt, *args)
            return
        self._warned.add(kind)
        self.log.warning(fmt, *args)


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction, taking the write lock at once (waiting up to the busy timeout)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _used_bytes(conn: sqlite3.Connection) -> int:
    (pages,) = conn.execute("PRAGMA page_count").fetchone()
    (free,) = conn.execute("PRAGMA freelist_count").fetchone()
    (size,) = conn.execute("PRAGMA page_size").fetchone()
    return int((pages - free) * size)


def _values(e: UsageEvent) -> tuple[Any, ...]:
    return (
        e.id,
        e.shown_at,
        e.model,
        e.style,
        e.language,
        e.trigger,
        e.line_kind,
        e.typing_ms,
        e.latency_ms,
        e.length,
        e.outcome,
        e.accept_kind,
        e.accepted_chars,
        e.typed_chars,
        e.accept_pause_ms,
        int(e.held),
        e.kept_30s,
        e.kept_5m,
        e.kept_at_close,
        e.text_hash,
        e.line,
        e.column,
        e.sample,
    )

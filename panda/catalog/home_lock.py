"""Many Panda processes on one home: writers take turns, readers never fail (DESIGN §10).

DuckDB lets one process write a database file, and while it does no other process can even open the
file. Panda puts a home-level lock in front of it:

- **Writers** (run, ingest, jobs, reindex, research ingest) hold an exclusive `flock` on
  `catalog/writer.lock` for as long as their catalog is open. A second writer waits, says once that it
  waits and for whom (the holder writes its pid, command and start time into the lock file), and gives
  up after `PANDA_LOCK_TIMEOUT` seconds (default 600) with `HomeBusyError`, which names the holder.
  The lock is re-entrant inside one process (DuckDB shares one instance per file in a process, so
  several `Catalog` objects of one process are one writer).
- **Readers** (search, stats, facts, notebooks) never open the live file. They read a published
  snapshot, `catalog/snapshot/panda.duckdb`: every writer publishes one when it closes (a checkpointed
  copy, renamed into place), and a reader that finds no writer and a stale snapshot (a writer killed
  before publishing) refreshes it first under a shared lock. A reader that starts while a writer runs
  reads the snapshot of the last finished writer: a consistent state, never a half-written one.
- The lock is an OS lock: a writer killed with -9 releases it at once.

Sharding (DESIGN §9) gives each shard its own home, so each has its own lock; nothing here assumes
one lock per machine. Left out: what readers and writers do with the catalog (store.py).
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from panda.config import lock_timeout_s
from panda.errors import HomeBusyError

log = logging.getLogger(__name__)

LOCK_NAME = "writer.lock"
SNAPSHOT_DIR = "snapshot"
POLL_SECONDS = 0.2


def _say(message: str) -> None:
    print(f"panda: {message}", file=sys.stderr, flush=True)


@dataclass
class _Held:
    fd: int
    count: int


_registry: dict[str, _Held] = {}
_registry_guard = threading.Lock()


def _holder(lock_path: Path) -> str:
    try:
        data = json.loads(lock_path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return "another Panda process"
    return f"pid {data.get('pid', '?')} ({data.get('command', '?')}, since {data.get('since', '?')})"


def holds_writer_lock(catalog_dir: Path) -> bool:
    return str(catalog_dir.resolve()) in _registry


def acquire_writer(catalog_dir: Path, timeout: float | None = None,
                   announce: Callable[[str], None] = _say) -> float:
    """Take (or re-enter) the home's writer lock; returns the seconds waited. Raises HomeBusyError."""
    catalog_dir.mkdir(parents=True, exist_ok=True)
    key = str(catalog_dir.resolve())
    with _registry_guard:
        if key in _registry:
            _registry[key].count += 1
            return 0.0
    timeout = lock_timeout_s() if timeout is None else timeout
    lock_path = catalog_dir / LOCK_NAME
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    started = time.monotonic()
    announced = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            waited = time.monotonic() - started
            if waited >= timeout:
                os.close(fd)
                raise HomeBusyError(f"the home {catalog_dir.parent} is being written by {_holder(lock_path)}; "
                                    f"gave up after waiting {waited:.0f} s (PANDA_LOCK_TIMEOUT={timeout:g}). "
                                    "Run again when it has finished.") from None
            if not announced:
                announce(f"waiting for the home lock: {_holder(lock_path)} is writing {catalog_dir.parent} "
                         f"(giving up after {timeout:g} s)")
                announced = True
            time.sleep(POLL_SECONDS)
    waited = time.monotonic() - started
    if announced:
        announce(f"home lock acquired after {waited:.1f} s")
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps({"pid": os.getpid(), "command": " ".join(sys.argv[:3])[:120],
                              "since": datetime.now(UTC).isoformat(timespec="seconds")}).encode(), 0)
    with _registry_guard:
        _registry[key] = _Held(fd, 1)
    return waited


def release_writer(catalog_dir: Path, database: Path | None) -> None:
    """Leave the lock; the last holder in this process publishes the reader snapshot, then unlocks."""
    key = str(catalog_dir.resolve())
    with _registry_guard:
        held = _registry.get(key)
        if held is None:
            return
        held.count -= 1
        if held.count > 0:
            return
        del _registry[key]
    try:
        if database is not None and database.exists():
            publish_snapshot(database)
    except (OSError, duckdb.Error) as exc:  # the snapshot is a convenience: readers refresh a stale one
        log.warning("could not publish the reader snapshot of %s: %s", database, exc)
    finally:
        os.ftruncate(held.fd, 0)
        fcntl.flock(held.fd, fcntl.LOCK_UN)
        os.close(held.fd)


def snapshot_path(database: Path) -> Path:
    return database.parent / SNAPSHOT_DIR / database.name


def _stamp(database: Path) -> dict[str, int]:
    wal = database.with_name(database.name + ".wal")
    st = database.stat()
    return {"mtime_ns": st.st_mtime_ns, "size": st.st_size, "wal": wal.stat().st_size if wal.exists() else 0}


def snapshot_is_current(database: Path) -> bool:
    target = snapshot_path(database)
    stamp_file = target.with_suffix(".json")
    if not target.exists() or not stamp_file.exists() or not database.exists():
        return False
    try:
        return bool(json.loads(stamp_file.read_text(encoding="utf-8")).get("source") == _stamp(database))
    except (OSError, ValueError):
        return False


def publish_snapshot(database: Path) -> Path:
    """Copy the (closed, or read-only attachable) database to the snapshot path, atomically."""
    target = snapshot_path(database)
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    temp.unlink(missing_ok=True)
    stamp = _stamp(database)
    if stamp["wal"]:  # a writer died before checkpointing: let DuckDB replay the log into a fresh copy
        con = duckdb.connect(str(temp))
        try:
            con.execute(f"ATTACH '{database}' AS live (READ_ONLY)")
            name = con.execute("SELECT current_database()").fetchone()[0]  # type: ignore[index]
            con.execute(f"COPY FROM DATABASE live TO {name}")
            con.execute("DETACH live")
            con.execute("CHECKPOINT")
        finally:
            con.close()
    else:
        shutil.copyfile(database, temp)
    os.replace(temp, target)
    tmp_stamp = target.with_name(f".{target.stem}.{os.getpid()}.json.tmp")
    tmp_stamp.write_text(json.dumps({"source": stamp, "published_at": datetime.now(UTC).isoformat()}), encoding="utf-8")
    os.replace(tmp_stamp, target.with_suffix(".json"))
    return target


def reader_database(database: Path, wait_seconds: float | None = None,
                    announce: Callable[[str], None] = _say) -> Path:
    """The file a reader should open read-only: the snapshot, refreshed first when no writer runs.

    Waits for a writer only when no snapshot exists at all (then up to the writer timeout).
    """
    catalog_dir = database.parent
    catalog_dir.mkdir(parents=True, exist_ok=True)
    target = snapshot_path(database)
    lock_path = catalog_dir / LOCK_NAME
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        started = time.monotonic()
        limit = (lock_timeout_s() if wait_seconds is None else wait_seconds)
        announced = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                if target.exists():
                    announce(f"{_holder(lock_path)} is writing this home: reading the snapshot its last "
                             "writer published")
                    return target
                if time.monotonic() - started >= limit:
                    raise HomeBusyError(f"the home {catalog_dir.parent} is being written by {_holder(lock_path)} "
                                        "and has no reader snapshot yet; try again when it has finished") from None
                if not announced:
                    announce(f"waiting for {_holder(lock_path)} to finish its first write of this home")
                    announced = True
                time.sleep(POLL_SECONDS)
                continue
            try:
                if database.exists() and not snapshot_is_current(database):
                    publish_snapshot(database)
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
            return target
    finally:
        os.close(fd)

"""The home's writer lock and reader snapshot (catalog/home_lock.py): writers take turns, a second one waits and
then gives up naming the holder, a killed holder frees the lock at once, readers read the last published snapshot."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from panda.catalog import home_lock
from panda.catalog.home_lock import (
    acquire_writer,
    holds_writer_lock,
    publish_snapshot,
    reader_database,
    release_writer,
    snapshot_is_current,
    snapshot_path,
)
from panda.config import Settings, lock_timeout_s
from panda.errors import HomeBusyError

HOLDER = """
import sys, time
from pathlib import Path
from panda.catalog.home_lock import acquire_writer
acquire_writer(Path(sys.argv[1]))
print("held", flush=True)
time.sleep(120)
"""


@pytest.fixture
def holder(tmp_path: Path):
    """Another process holding the writer lock of tmp_path/catalog until killed."""
    catalog_dir = tmp_path / "catalog"
    process = subprocess.Popen([sys.executable, "-c", HOLDER, str(catalog_dir)], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    yield catalog_dir, process
    process.kill()
    process.wait()


def test_the_lock_is_re_entrant_in_one_process(tmp_path: Path):
    catalog_dir = tmp_path / "catalog"
    assert acquire_writer(catalog_dir, timeout=0) < 0.1
    assert acquire_writer(catalog_dir, timeout=0) == 0.0  # a second Catalog of the same process re-enters
    release_writer(catalog_dir, None)
    assert holds_writer_lock(catalog_dir)  # still held by the first
    release_writer(catalog_dir, None)
    assert not holds_writer_lock(catalog_dir)
    release_writer(catalog_dir, None)  # releasing a lock not held is harmless


def test_a_second_writer_waits_then_gives_up_naming_the_holder(holder):
    catalog_dir, process = holder
    said: list[str] = []
    started = time.monotonic()
    with pytest.raises(HomeBusyError, match=rf"pid {process.pid} .*gave up after waiting"):
        acquire_writer(catalog_dir, timeout=0.6, announce=said.append)
    assert time.monotonic() - started >= 0.6
    assert len(said) == 1 and said[0].startswith("waiting for the home lock: pid") and "0.6 s" in said[0]
    assert not holds_writer_lock(catalog_dir)


def test_a_holder_killed_with_sigkill_frees_the_lock_at_once(holder):
    catalog_dir, process = holder
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert acquire_writer(catalog_dir, timeout=5) < 1.0
    release_writer(catalog_dir, None)


def test_a_reader_reads_the_last_snapshot_while_a_writer_runs(tmp_path: Path, holder):
    catalog_dir, _ = holder
    database = catalog_dir / "panda.duckdb"
    con = duckdb.connect(str(database))  # what an earlier writer left (the holder has not opened it)
    con.execute("CREATE TABLE t AS SELECT 1 AS x")
    con.close()
    said: list[str] = []
    with pytest.raises(HomeBusyError, match="has no reader snapshot yet"):
        reader_database(database, wait_seconds=0.3, announce=said.append)
    publish_snapshot(database)
    assert reader_database(database, wait_seconds=0.3, announce=said.append) == snapshot_path(database)
    assert "reading the snapshot its last writer published" in said[-1]
    snapshot = duckdb.connect(str(snapshot_path(database)), read_only=True)
    assert snapshot.execute("SELECT x FROM t").fetchall() == [(1,)]
    snapshot.close()


def test_a_stale_snapshot_is_refreshed_by_the_first_reader_when_no_writer_runs(tmp_path: Path):
    database = tmp_path / "catalog" / "panda.duckdb"
    database.parent.mkdir()
    con = duckdb.connect(str(database))
    con.execute("CREATE TABLE t AS SELECT 1 AS x")
    con.close()
    publish_snapshot(database)
    assert snapshot_is_current(database)
    con = duckdb.connect(str(database))  # a writer killed before publishing its change
    con.execute("INSERT INTO t VALUES (2)")
    con.close()
    assert not snapshot_is_current(database)
    target = reader_database(database, wait_seconds=0)
    assert snapshot_is_current(database)
    snapshot = duckdb.connect(str(target), read_only=True)
    assert snapshot.execute("SELECT list_sort(list(x)) FROM t").fetchone() == ([1, 2],)
    snapshot.close()


def test_the_wait_comes_from_panda_lock_timeout(monkeypatch):
    monkeypatch.setenv("PANDA_LOCK_TIMEOUT", "7.5")
    assert lock_timeout_s() == 7.5 and Settings().lock_timeout_s == 7.5
    monkeypatch.setenv("PANDA_LOCK_TIMEOUT", "soon")  # a typo keeps the default rather than stopping the run
    assert lock_timeout_s() == 600.0
    monkeypatch.delenv("PANDA_LOCK_TIMEOUT")
    assert home_lock.lock_timeout_s() == 600.0

"""Rewrite a closed DuckDB file into a fresh one, so rows deleted from it leave no bytes behind (user deletion:
Catalog.compact). Below store.py, which calls it; left out: when to compact (the deletion job decides).
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb


def compact_database(path: Path) -> None:
    """Rewrite a closed DuckDB file into a fresh one, so deleted rows leave no bytes behind."""
    fresh = path.with_name(path.name + ".compact")
    if fresh.exists():
        fresh.unlink()
    con = duckdb.connect(str(fresh))
    try:
        con.execute(f"ATTACH '{path}' AS old (READ_ONLY)")
        con.execute(f"COPY FROM DATABASE old TO {_current_db(con)}")
        con.execute("DETACH old")
        con.execute("CHECKPOINT")
    finally:
        con.close()
    os.replace(fresh, path)
    wal = path.with_name(path.name + ".wal")
    if wal.exists():
        wal.unlink()


def _current_db(con: duckdb.DuckDBPyConnection) -> str:
    row = con.execute("SELECT current_database()").fetchone()
    assert row is not None
    return str(row[0])

"""Reading a shard's catalog partition back into the home's catalog (the SQL of sharding.py).

A partition is a copy of the home's catalog that one shard wrote (sharding.py). `attached`
opens partitions read-only inside the home's connection, under aliases `shard_0`, `shard_1`, …; the
functions here read or copy from them:
- `known_vectors`: the embeddings a shard computed for its users' documents (the reduce reuses them);
- `feedback_changes`: a user's verdict on a turn of an earlier run, which no turn record re-derives;
- `copy_new_rows`: observability rows (ids unique) that the home lacks;
- `replace_user_rows`: every row of the listed users, for work whose result is wholly per user
  (ingest: messages, sessions, threads, their documents and postings): the home's rows of those users
  are replaced by the partition's, which started as a copy of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from panda.catalog.store import Catalog

OBSERVABILITY_TABLES = ("llm_calls", "system_events", "retrieval_operations")
USER_KEYED_TABLES = ("messages", "sessions", "threads")  # rows of one user, by user_id


def _quoted(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


@contextmanager
def attached(catalog: Catalog, paths: list[Path]) -> Iterator[list[str]]:
    """The partitions attached read-only as shard_0, shard_1, …; detached after (outside any transaction)."""
    aliases: list[str] = []
    try:
        for k, path in enumerate(paths):
            catalog.con.execute(f"ATTACH {_quoted(path)} AS shard_{k} (READ_ONLY)")
            aliases.append(f"shard_{k}")
        yield aliases
    finally:
        for alias in aliases:
            catalog.con.execute(f"DETACH {alias}")


def known_vectors(catalog: Catalog, alias: str, users: list[str]) -> dict[str, np.ndarray]:
    rows = catalog.con.execute(f"""SELECT search_text, embedding FROM {alias}.documents
                                   WHERE embedding IS NOT NULL AND list_contains(?, owner_user)""", [users]).fetchall()
    return {text: np.asarray(vector, dtype=np.float32) for text, vector in rows}


def feedback_changes(catalog: Catalog, alias: str) -> list[tuple[str, str, str | None]]:
    rows = catalog.con.execute(f"""SELECT s.id, s.user_feedback_status, s.rejection_detected_in
                                   FROM {alias}.turn_index s JOIN turn_index t ON t.id = s.id
                                   WHERE s.user_feedback_status IS DISTINCT FROM t.user_feedback_status""").fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


def _count(catalog: Catalog, table: str) -> int:
    return int(catalog.con.execute(f"SELECT count(*) FROM {table}").fetchone()[0])  # type: ignore[index]


def copy_new_rows(catalog: Catalog, alias: str, tables: tuple[str, ...] = OBSERVABILITY_TABLES) -> Counter[str]:
    """Rows of `tables` in the partition whose id the home lacks (call inside a transaction)."""
    copied: Counter[str] = Counter()
    for table in tables:
        before = _count(catalog, table)
        catalog.con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM {alias}.{table} "
                            f"WHERE id NOT IN (SELECT id FROM {table})")
        copied[table] += _count(catalog, table) - before
    return copied


def replace_user_rows(catalog: Catalog, alias: str, users: list[str]) -> Counter[str]:
    """The home's rows of `users` become the partition's (call inside a transaction). Returns rows written."""
    con = catalog.con
    written: Counter[str] = Counter()
    catalog.touch(None)  # the in-memory index reloads
    old = [r[0] for r in con.execute("SELECT id FROM documents WHERE list_contains(?, owner_user)", [users]).fetchall()]
    new = [r[0] for r in con.execute(f"SELECT id FROM {alias}.documents WHERE list_contains(?, owner_user)",
                                     [users]).fetchall()]
    con.execute("DELETE FROM postings WHERE list_contains(?, doc_id)", [old])
    con.execute("DELETE FROM documents WHERE list_contains(?, id)", [old])
    con.execute(f"INSERT INTO documents BY NAME SELECT * FROM {alias}.documents WHERE list_contains(?, id)", [new])
    con.execute(f"INSERT INTO postings BY NAME SELECT * FROM {alias}.postings WHERE list_contains(?, doc_id)", [new])
    written["documents"] = len(new)
    for table in (*USER_KEYED_TABLES, "users"):
        key = "id" if table == "users" else "user_id"
        con.execute(f"DELETE FROM {table} WHERE list_contains(?, {key})", [users])
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM {alias}.{table} WHERE list_contains(?, {key})", [users])
        written[table] = int(con.execute(f"SELECT count(*) FROM {table} WHERE list_contains(?, {key})",  # type: ignore[index]
                                         [users]).fetchone()[0])
    return written

"""The DuckDB catalog: the only code in Panda that writes SQL.

`Catalog` opens (or creates) catalog/panda.duckdb, applies migrations, and offers typed methods for
documents (with BM25 postings and embeddings of one width per catalog, `embedding_dim`) and the turn index.
The catalog is derived from the vault: `panda reindex` can drop and rebuild it. Beside it in catalog/: what a
search may see (filters.py), the observability tables' writers (observability.py), synthetic corpora for the
benchmarks (synthetic.py). Left out: scoring (memory/scoring.py) and reading markdown (documents/).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from panda.catalog.compaction import compact_database
from panda.catalog.filters import SearchFilters, partition_key
from panda.catalog.home_lock import acquire_writer, holds_writer_lock, reader_database, release_writer
from panda.catalog.migrations import migrate, pending
from panda.catalog.observability import Observability
from panda.documents.model import Document, utc
from panda.language.text import term_frequencies

DOC_COLUMNS = (
    "id", "kind", "title", "primary_topic", "keywords", "intent", "content_types", "scope", "quality",
    "importance", "owner_user", "session_id", "turn_number", "usage_count", "reference_count",
    "validation_count", "validation_success", "created_at", "modified_at", "expires_at", "valid_at",
    "invalid_at", "links", "source_urls", "doc_path",
)


COUNTER_COLUMNS = ("usage_count", "reference_count", "validation_count", "validation_success")
EMBEDDING_DIM_SETTING = "embedding_dim"  # catalog_settings key: the width of every vector in the catalog



class Catalog(Observability):
    def __init__(self, path: Path | str | None = None, read_only: bool = False,
                 lock_timeout: float | None = None) -> None:
        """Open the catalog at `path` (None: an in-memory database, for tests).

        A writable file catalog holds the home's writer lock (catalog/home_lock.py) until `close()`;
        readers should use `Catalog.open_reader`, which reads the published snapshot instead.
        """
        target = ":memory:"
        self._lock_dir: Path | None = None
        self.snapshot_of: Path | None = None  # set on readers: the live file this snapshot copies
        if path is not None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            target = str(path)
            if not read_only:
                acquire_writer(Path(path).parent, lock_timeout)
                self._lock_dir = Path(path).parent
        self.path = path
        self.read_only = read_only
        # Counters belong to the catalog; a re-upserted document keeps ours when its vault copy may lag
        # (a shard's partition: sharding.py). Elsewhere the vault copies are written back at once.
        self.counters_authoritative = False
        self.generation = 0  # bumped on every change to documents; the in-memory index follows it
        self._changes: list[tuple[int, frozenset[str] | None]] = []
        self.counter_seq = 0  # counter increments, which the index applies without reloading
        self._counter_log: list[tuple[int, list[str], str, int]] = []
        self._dim: int | None = None  # embedding_dim, read on the first vector written
        try:
            self.con = duckdb.connect(target, read_only=read_only)
            self.con.execute("SET TimeZone = 'UTC'")
            if not read_only:
                migrate(self.con)
        except BaseException:
            self._release()
            raise

    @classmethod
    def open_reader(cls, path: Path | str, wait_seconds: float | None = None) -> Catalog:
        """A read-only catalog that never fails because a writer is busy: the last published snapshot
        (refreshed first when no writer runs). Inside a process that writes this home it is the live
        catalog (one DuckDB instance per process); on a home with no catalog yet it creates one."""
        path = Path(path)
        if holds_writer_lock(path.parent) or not path.exists():
            return cls(path)
        reader = cls(reader_database(path, wait_seconds), read_only=True)
        reader.snapshot_of = path
        return reader

    @property
    def is_snapshot(self) -> bool:
        return self.snapshot_of is not None

    def _release(self) -> None:
        if self._lock_dir is not None:
            lock_dir, self._lock_dir = self._lock_dir, None
            release_writer(lock_dir, Path(self.path) if self.path is not None else None)

    def compact(self) -> None:
        """Rewrite the database file so deleted rows leave no bytes behind (user deletion). In place:
        objects holding this Catalog keep working; a connection obtained earlier via `.con` does not."""
        if self.path is None:
            return
        self.con.execute("CHECKPOINT")
        self.con.close()
        compact_database(Path(self.path))
        self.con = duckdb.connect(str(self.path))
        self.con.execute("SET TimeZone = 'UTC'")
        self.touch(None)

    def touch(self, keys: Iterable[str] | None) -> None:
        """Record that documents of these index partitions changed (None: any of them)."""
        self.generation += 1
        self._changes.append((self.generation, None if keys is None else frozenset(keys)))
        if len(self._changes) > 1000:
            self._changes = [(self.generation, None)]

    def changes_since(self, generation: int) -> tuple[int, set[str] | None]:
        """(current generation, partitions changed after `generation`; None when unknown or everything)."""
        if generation >= self.generation:
            return self.generation, set()
        if not self._changes or self._changes[0][0] > generation + 1:
            return self.generation, None
        keys: set[str] = set()
        for gen, changed in self._changes:
            if gen > generation:
                if changed is None:
                    return self.generation, None
                keys |= changed
        return self.generation, keys

    def counter_changes_since(self, seq: int) -> tuple[int, list[tuple[list[str], str, int]]]:
        return self.counter_seq, [(ids, column, by) for n, ids, column, by in self._counter_log if n > seq]

    def pending_migrations(self) -> list[str]:
        return pending(self.con)

    def close(self) -> None:
        """Close the connection; a writer checkpoints, and the last writer of the process publishes the
        reader snapshot and releases the home lock."""
        try:
            if self._lock_dir is not None:
                self.con.execute("CHECKPOINT")
        except duckdb.Error:
            pass
        finally:
            self.con.close()
            self._release()

    def transaction(self) -> _Transaction:
        return _Transaction(self)

    # ---- documents -----------------------------------------------------------------------------
    def upsert_document(self, doc: Document, embedding: Sequence[float] | np.ndarray | None) -> None:
        self.upsert_documents([doc], None if embedding is None else [embedding])

    def upsert_documents(self, docs: Sequence[Document], embeddings: Sequence[Any] | None) -> None:
        if not docs:
            return
        ids = [d.id for d in docs]
        if self.counters_authoritative:  # the vault's copies may lag (a shard writes none back): keep ours
            kept = {r[0]: r[1:] for r in self.con.execute(f"SELECT id, {', '.join(COUNTER_COLUMNS)} FROM documents "
                                                          "WHERE list_contains(?, id)", [ids]).fetchall()}
            docs = [d.model_copy(update=dict(zip(COUNTER_COLUMNS, kept[d.id], strict=True))) if d.id in kept else d
                    for d in docs]
        before = self.con.execute("SELECT DISTINCT owner_user, scope FROM documents WHERE list_contains(?, id)",
                                  [ids]).fetchall()
        self.touch({partition_key(o, s) for o, s in before} | {partition_key(d.owner_user, d.scope) for d in docs})
        self.con.execute("DELETE FROM postings WHERE list_contains(?, doc_id)", [ids])
        self.con.execute("DELETE FROM documents WHERE list_contains(?, id)", [ids])
        rows, postings = [], []
        for i, doc in enumerate(docs):
            data = doc.model_dump(include=set(DOC_COLUMNS))
            text = doc.search_text()
            tf = term_frequencies(text)
            vector = None
            if embeddings is not None and embeddings[i] is not None:
                vector = [float(x) for x in embeddings[i]]
                self.check_dim(doc.id, len(vector))
            rows.append([data[c] for c in DOC_COLUMNS] + [text, sum(tf.values()), vector])
            postings += [(term, doc.id, count) for term, count in tf.items()]
        placeholders = ", ".join("?" for _ in range(len(DOC_COLUMNS) + 3))
        columns = ", ".join(DOC_COLUMNS) + ", search_text, doc_length, embedding"
        self.con.executemany(f"INSERT INTO documents ({columns}) VALUES ({placeholders})", rows)
        if postings:
            self.con.executemany("INSERT INTO postings VALUES (?, ?, ?)", postings)

    def embedding_dim(self) -> int | None:
        """The width of this catalog's vectors (recorded with the first; None: no vector yet)."""
        value = self.setting(EMBEDDING_DIM_SETTING)
        return int(value) if value else None

    def check_dim(self, doc_id: str, width: int) -> None:
        """One width per catalog: the first vector records it, another width is refused (a second embedder's
        vectors would be compared with the first's queries)."""
        if self._dim is None:
            self._dim = self.embedding_dim()
            if self._dim is None:
                self.set_setting(EMBEDDING_DIM_SETTING, str(width))
                self._dim = width
        if width != self._dim:
            raise ValueError(f"document {doc_id}: embedding has {width} dims, this catalog's vectors have {self._dim} "
                             "(re-embed everything with `panda reindex` to change the embedder)")

    def clear_derived(self) -> None:
        """Empty every table the vault can rebuild (reindex); observability logs are kept."""
        for table in ("postings", "documents", "turn_index", "turn_uses", "turn_references", "counter_sync",
                      "messages", "sessions", "threads"):
            self.con.execute(f"DELETE FROM {table}")
        self.con.execute("DELETE FROM catalog_settings WHERE key = ?", [EMBEDDING_DIM_SETTING])
        self._dim = None
        self.touch(None)

    def delete_document(self, doc_id: str) -> None:
        before = self.con.execute("SELECT owner_user, scope FROM documents WHERE id = ?", [doc_id]).fetchall()
        self.touch({partition_key(o, s) for o, s in before})
        self.con.execute("DELETE FROM postings WHERE doc_id = ?", [doc_id])
        self.con.execute("DELETE FROM documents WHERE id = ?", [doc_id])

    def current_documents(self, kind: str, owner_user: str, primary_topic: str) -> list[dict[str, Any]]:
        """Documents of a kind, owner and topic that nothing has invalidated (e.g. research to supersede)."""
        return self._dicts(f"""SELECT {', '.join(DOC_COLUMNS)} FROM documents WHERE kind = ? AND owner_user = ?
                               AND primary_topic = ? AND invalid_at IS NULL ORDER BY created_at""",
                           [kind, owner_user, primary_topic])

    def get_document(self, doc_id: str) -> dict[str, Any] | None:
        rows = self._dicts(f"SELECT {', '.join(DOC_COLUMNS)} FROM documents WHERE id = ?", [doc_id])
        return rows[0] if rows else None

    def find_by_path(self, doc_path: str) -> dict[str, Any] | None:
        rows = self._dicts(f"SELECT {', '.join(DOC_COLUMNS)} FROM documents WHERE doc_path = ? LIMIT 1", [doc_path])
        return rows[0] if rows else None

    def setting(self, key: str) -> str | None:
        """A value from catalog_settings; None if unset (or a read-only catalog older than the table)."""
        try:
            row = self.con.execute("SELECT value FROM catalog_settings WHERE key = ?", [key]).fetchone()
        except duckdb.CatalogException:
            return None
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        self.con.execute("INSERT OR REPLACE INTO catalog_settings VALUES (?, ?)", [key, value])

    def count_documents(self) -> int:
        return int(self.con.execute("SELECT count(*) FROM documents").fetchone()[0])  # type: ignore[index]

    def bm25_candidates(self, terms: list[str], filters: SearchFilters, limit: int,
                        k1: float = 1.2, b: float = 0.75) -> list[tuple[str, float]]:
        """Okapi BM25 over the postings table, restricted by `filters`."""
        if not terms:
            return []
        where, params = filters.where()
        unique = sorted(set(terms))
        marks = ", ".join("?" for _ in unique)
        # One pass over the matching postings (term IN (...) can use the term index). The corpus BM25
        # counts (documents, mean length, document frequency) is the one the searcher may read, before the
        # other filters: another user's documents never move her scores (nor leak their words through them).
        visible, visible_params = filters.visible()
        sql = f"""
            WITH stats AS (SELECT count(*)::DOUBLE AS n, coalesce(avg(doc_length), 1)::DOUBLE AS avgdl
                           FROM documents d WHERE {visible}),
            matched AS (SELECT term, doc_id, tf FROM postings p JOIN documents d ON d.id = p.doc_id
                        WHERE term IN ({marks}) AND {visible}),
            df AS (SELECT term, count(*)::DOUBLE AS df FROM matched GROUP BY term),
            hits AS (
                SELECT m.doc_id, sum(ln(1 + (s.n - df.df + 0.5) / (df.df + 0.5))
                       * (m.tf * (? + 1)) / (m.tf + ? * (1 - ? + ? * d.doc_length / s.avgdl))) AS score
                FROM matched m JOIN df USING (term) JOIN documents d ON d.id = m.doc_id, stats s
                WHERE {where}
                GROUP BY m.doc_id)
            SELECT doc_id, score FROM hits ORDER BY score DESC, doc_id LIMIT ?"""
        rows = self.con.execute(sql, [*visible_params, *unique, *visible_params, k1, k1, b, b, *params, limit]).fetchall()
        return [(r[0], float(r[1])) for r in rows]

    def vector_candidates(self, vector: Sequence[float], filters: SearchFilters, limit: int) -> list[tuple[str, float]]:
        where, params = filters.where()
        sql = f"""SELECT d.id, list_cosine_similarity(d.embedding, ?::FLOAT[]) AS sim
                  FROM documents d WHERE d.embedding IS NOT NULL AND {where}
                  ORDER BY sim DESC, d.id LIMIT ?"""
        rows = self.con.execute(sql, [[float(x) for x in vector], *params, limit]).fetchall()
        return [(r[0], float(r[1])) for r in rows]

    def candidate_rows(self, ids: list[str], vector: Sequence[float] | None) -> list[dict[str, Any]]:
        """Metadata, text head and cosine similarity for the candidate ids."""
        if not ids:
            return []
        sim = ("list_cosine_similarity(embedding, ?::FLOAT[])" if vector is not None else "0.0")
        params: list[Any] = [[float(x) for x in vector]] if vector is not None else []
        marks = ", ".join("?" for _ in ids)
        sql = (f"SELECT {', '.join(DOC_COLUMNS)}, search_text, coalesce({sim}, 0.0) AS cosine "
               f"FROM documents WHERE id IN ({marks})")
        return self._dicts(sql, [*params, *ids])

    def increment_counters(self, ids: Iterable[str], column: str, by: int = 1) -> None:
        """Add `by` to a counter; the documents are queued in counter_sync in the same transaction, so
        their vault files get the catalog's values written back exactly once (`sync_counters`)."""
        if column not in ("reference_count", "usage_count", "validation_count", "validation_success"):
            raise ValueError(f"not a counter column: {column}")
        id_list = list(dict.fromkeys(ids))
        if id_list and by:
            self.con.execute(f"UPDATE documents SET {column} = {column} + ? WHERE list_contains(?, id)", [by, id_list])
            self.queue_counter_sync(id_list)
            self.counter_seq += 1
            self._counter_log.append((self.counter_seq, id_list, column, by))
            if len(self._counter_log) > 10_000:
                self._counter_log = []
                self.touch(None)  # too much to replay: the index reloads

    def queue_counter_sync(self, ids: list[str]) -> None:
        """Queue documents whose counters changed, for the vault write-back (in the caller's transaction)."""
        self.con.execute("INSERT INTO counter_sync SELECT id FROM documents WHERE list_contains(?, id) "
                         "ON CONFLICT DO NOTHING", [ids])

    def counters_to_sync(self) -> list[dict[str, Any]]:
        """Documents whose vault files still need the catalog's counter values (see increment_counters)."""
        return self._dicts("""SELECT d.id, d.doc_path, d.usage_count, d.reference_count, d.validation_count,
                                     d.validation_success
                              FROM counter_sync s JOIN documents d ON d.id = s.doc_id ORDER BY d.doc_path""")

    def counters_synced(self, ids: list[str]) -> None:
        if ids:
            self.con.execute("DELETE FROM counter_sync WHERE list_contains(?, doc_id)", [ids])
        self.con.execute("DELETE FROM counter_sync WHERE doc_id NOT IN (SELECT id FROM documents)")

    def add_turn_references(self, turn_id: str, user_id: str, doc_ids: Sequence[str]) -> list[str]:
        """Record the documents a turn's searches returned; returns the ids not recorded before (the
        ones whose reference count this turn may raise: once per turn, whatever re-runs)."""
        ids = list(dict.fromkeys(doc_ids))
        if not ids:
            return []
        known = {r[0] for r in self.con.execute("SELECT doc_id FROM turn_references WHERE turn_id = ?",
                                                [turn_id]).fetchall()}
        fresh = [i for i in ids if i not in known]
        if fresh:
            self.con.executemany("INSERT INTO turn_references VALUES (?, ?, ?)", [[turn_id, user_id, i] for i in fresh])
        return fresh

    def journal_applied(self, name: str) -> bool:
        return bool(self.con.execute("SELECT count(*) FROM applied_journals WHERE name = ?", [name]).fetchone()[0])  # type: ignore[index]

    def mark_journal_applied(self, name: str) -> None:
        self.con.execute("INSERT INTO applied_journals VALUES (?, ?) ON CONFLICT DO NOTHING", [name, datetime.now(UTC)])

    def upsert_turn(self, row: dict[str, Any], used_documents: Sequence[str] = ()) -> None:
        """Insert or replace a turn_index row and the documents the turn used (turn_uses, for calibration)."""
        columns = list(row)
        self.con.execute("DELETE FROM turn_index WHERE id = ?", [row["id"]])
        self.con.execute(
            f"INSERT INTO turn_index ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})",
            [row[c] for c in columns],
        )
        self.con.execute("DELETE FROM turn_uses WHERE turn_id = ?", [row["id"]])
        if used_documents:
            self.con.executemany("INSERT INTO turn_uses VALUES (?, ?, ?, ?, ?)",
                                 [[row["id"], row["user_id"], doc_id, row.get("validation_outcome"), row.get("created_at")]
                                  for doc_id in dict.fromkeys(used_documents)])

    def set_feedback(self, turn_id: str, status: str, detected_in: str | None) -> None:
        """The user's verdict on a turn's answer; a rejected turn's document carries the content type
        'rejected' (ranked lower, memory/search.py) — only that column changes, counters stay as they are."""
        self.con.execute("UPDATE turn_index SET user_feedback_status = ?, rejection_detected_in = ? WHERE id = ?",
                         [status, detected_in, turn_id])
        rows = self.con.execute("SELECT owner_user, scope FROM documents WHERE id = ?", [turn_id]).fetchall()
        self.touch({partition_key(o, s) for o, s in rows})
        self.con.execute("""UPDATE documents SET content_types = CASE
                                WHEN ? <> 'rejected' THEN list_filter(content_types, lambda t: t <> 'rejected')
                                WHEN list_contains(content_types, 'rejected') THEN content_types
                                ELSE list_append(content_types, 'rejected') END
                            WHERE id = ?""", [status, turn_id])

    def turn_verdicts(self, turn_ids: list[str]) -> dict[str, tuple[str | None, str | None]]:
        """{turn id: (validation outcome, user feedback)} for the turns among `turn_ids`."""
        if not turn_ids:
            return {}
        rows = self.con.execute("SELECT id, validation_outcome, user_feedback_status FROM turn_index "
                                "WHERE list_contains(?, id)", [turn_ids]).fetchall()
        return {r[0]: (r[1], r[2]) for r in rows}

    def finished_input_keys(self, keys: list[str]) -> set[str]:
        if not keys:
            return set()
        rows = self.con.execute("SELECT input_key FROM turn_index WHERE list_contains(?, input_key)", [keys]).fetchall()
        return {r[0] for r in rows}

    def max_turn_number(self, user_id: str) -> int:
        row = self.con.execute("SELECT max(turn_number) FROM turn_index WHERE user_id = ?", [user_id]).fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def turns(self, user_id: str | None = None) -> list[dict[str, Any]]:
        if user_id is None:
            return self._dicts("SELECT * FROM turn_index ORDER BY user_id, turn_number")
        return self._dicts("SELECT * FROM turn_index WHERE user_id = ? ORDER BY turn_number", [user_id])

    def table_count(self, table: str) -> int:
        if table not in ("documents", "postings", "turn_index", "llm_calls", "retrieval_operations", "system_events"):
            raise ValueError(f"unknown table {table}")
        return int(self.con.execute(f"SELECT count(*) FROM {table}").fetchone()[0])  # type: ignore[index]

    def table_rows(self, table: str, columns: str) -> list[dict[str, Any]]:
        """Every row of one of the catalog's own tables (the doctor compares them with a rebuilt catalog's);
        `columns` is "*" or a plain comma-separated list of column names."""
        known = {row[0] for row in self.con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        names = [c.strip() for c in columns.split(",")]
        if table not in known or not (names == ["*"] or all(n.isidentifier() for n in names)):
            raise ValueError(f"not a catalog table and columns: {table} ({columns})")
        return self._dicts(f"SELECT {', '.join(names)} FROM {table}")

    # ---- helpers -------------------------------------------------------------------------------
    def _dicts(self, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        cursor = self.con.execute(sql, params or [])
        names = [d[0] for d in cursor.description]
        out = []
        for row in cursor.fetchall():
            record = dict(zip(names, row, strict=True))
            for key, value in record.items():
                if isinstance(value, datetime):
                    record[key] = utc(value)
            out.append(record)
        return out


class _Transaction:
    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def __enter__(self) -> duckdb.DuckDBPyConnection:
        self.catalog.con.execute("BEGIN TRANSACTION")
        return self.catalog.con

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.catalog.con.execute("ROLLBACK" if exc_type else "COMMIT")
        if exc_type:
            self.catalog.touch(None)  # what the in-memory index saw of this transaction never happened

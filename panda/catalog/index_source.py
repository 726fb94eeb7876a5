"""What the in-memory search index (memory/index.py) loads from the catalog: every document's ranking columns and
its BM25 postings, by partition (the global scope, or one owner). The SQL lives here, with the rest of the
catalog's; left out: what the index does with the rows (memory/index.py).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

from panda.catalog.filters import GLOBAL_PARTITION, NO_OWNER_PARTITION
from panda.catalog.store import Catalog

KEY_SQL = (f"CASE WHEN d.scope = 'global' THEN '{GLOBAL_PARTITION}' "
           f"ELSE coalesce(d.owner_user, '{NO_OWNER_PARTITION}') END")


def _where(keys: list[str] | None) -> tuple[str, list[Any]]:
    """The partition filter: every document (None) or those of `keys`."""
    return ("", []) if keys is None else (f"WHERE {KEY_SQL} IN (SELECT unnest(?::VARCHAR[]))", [keys])


def partition_rows(catalog: Catalog, keys: list[str] | None, text_chars: int) -> Any:
    """One Arrow row per document of the partitions `keys` (None: all), ordered by partition and id; the
    embeddings come apart, from partition_vectors."""
    where, params = _where(keys)
    return _arrow(catalog, f"""
        SELECT {KEY_SQL} AS key, d.id, d.kind, d.scope, d.session_id, d.primary_topic, d.content_types, d.keywords,
               coalesce(d.quality, 0.0) AS quality, coalesce(epoch(d.expires_at), 'inf'::DOUBLE) AS expires,
               coalesce(epoch(d.invalid_at), 'inf'::DOUBLE) AS invalid, coalesce(d.doc_length, 0) AS length,
               d.embedding IS NOT NULL AS has_vector, coalesce(d.title, '') AS title,
               coalesce(d.doc_path, '') AS doc_path, left(coalesce(d.search_text, ''), {int(text_chars)}) AS text,
               coalesce(d.importance, 0.0) AS importance, coalesce(epoch(d.created_at), 'nan'::DOUBLE) AS created,
               coalesce(d.turn_number, -1) AS position,
               d.reference_count, d.usage_count, d.validation_count, d.validation_success
        FROM documents d {where} ORDER BY key, d.id""", params)


def partition_vectors(catalog: Catalog, keys: list[str] | None, batch_rows: int) -> Iterator[Any]:
    """The embeddings of the partitions `keys` (None: all) as Arrow record batches of `batch_rows` rows (key, id,
    embedding; no order), streamed: a million 768-float vectors read in one sorted table with every other column,
    then copied, were killed for memory on a 24 GB machine (stop 48). Read each batch before the connection runs
    anything else."""
    where, params = _where(keys)
    where = f"{where} AND d.embedding IS NOT NULL" if where else "WHERE d.embedding IS NOT NULL"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        reader = catalog.con.execute(f"SELECT {KEY_SQL} AS key, d.id, d.embedding FROM documents d {where}",
                                     params).to_arrow_reader(batch_rows)
    yield from reader


def partition_postings(catalog: Catalog, keys: list[str] | None) -> Any:
    """Per partition and term: the rows (positions in partition_rows' order) holding it and their term frequencies."""
    where, params = _where(keys)
    return _arrow(catalog, f"""
        WITH docs AS (SELECT {KEY_SQL} AS key, d.id,
                             (row_number() OVER (PARTITION BY {KEY_SQL} ORDER BY d.id) - 1)::INTEGER AS row
                      FROM documents d {where})
        SELECT docs.key, p.term, list(docs.row ORDER BY docs.row) AS rows, list(p.tf ORDER BY docs.row) AS tfs
        FROM postings p JOIN docs ON docs.id = p.doc_id GROUP BY docs.key, p.term""", params)


def _arrow(catalog: Catalog, sql: str, params: list[Any]) -> Any:
    """Run a query on the catalog's own connection (it sees the open transaction) into an Arrow table.

    execute() rather than the relation API: a caller may have left a result unfetched on the connection,
    which execute() replaces and sql() refuses. Its extra copy only costs at index build time."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return catalog.con.execute(sql, params).to_arrow_table()

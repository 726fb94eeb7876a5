"""Searches made by a reader are journalled and counted once by the next writer, even if it is killed between
its commit and the journal file's removal (catalog/journal.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from panda.catalog.journal import apply_pending, pending_dir, write_retrieval
from panda.catalog.store import Catalog
from panda.documents.model import Document


def _entry(ids: list[str]) -> dict:
    return {"user_id": "ann", "session_id": None, "turn_id": None, "query": "where is the cat",
            "retrieval_type": "memory.search", "candidates": 3, "result_ids": ids, "retrieval_ms": 1.5,
            "context_tokens": 12, "created_at": datetime(2026, 3, 1, tzinfo=UTC).isoformat()}


def _catalog(tmp_path: Path) -> Catalog:
    catalog = Catalog(tmp_path / "catalog" / "panda.duckdb")
    catalog.upsert_documents([Document(id="m1", owner_user="ann", scope="user", body="the cat sleeps on the sofa"),
                              Document(id="m2", owner_user="ann", scope="user", body="the dog barks")], None)
    return catalog


def _references(catalog: Catalog) -> dict[str, int]:
    return {row["id"]: row["reference_count"] for row in catalog.table_rows("documents", "id, reference_count")}


def test_a_journalled_retrieval_is_applied_once_and_its_file_removed(tmp_path: Path):
    catalog = _catalog(tmp_path)
    database = Path(catalog.path)
    written = write_retrieval(database, _entry(["m1"]))
    assert written.parent == pending_dir(database) and written.name.startswith("retrieval-")
    assert apply_pending(catalog) == 1
    assert _references(catalog) == {"m1": 1, "m2": 0}
    assert catalog.table_count("retrieval_operations") == 1
    assert not written.exists()
    assert apply_pending(catalog) == 0  # nothing left
    catalog.close()


def test_a_writer_killed_before_removing_the_file_does_not_count_it_twice(tmp_path: Path):
    catalog = _catalog(tmp_path)
    database = Path(catalog.path)
    entry = {**_entry(["m1", "m2"]), "id": "r1"}
    write_retrieval(database, entry)
    assert apply_pending(catalog) == 1
    again = write_retrieval(database, entry)  # the same file, as if the unlink never happened
    assert apply_pending(catalog) == 0
    assert not again.exists()
    assert _references(catalog) == {"m1": 1, "m2": 1}
    assert catalog.table_count("retrieval_operations") == 1
    catalog.close()


def test_a_read_only_catalog_applies_nothing(tmp_path: Path):
    catalog = _catalog(tmp_path)
    database = Path(catalog.path)
    catalog.close()
    write_retrieval(database, _entry(["m1"]))
    reader = Catalog.open_reader(database, wait_seconds=0)
    assert apply_pending(reader) == 0
    reader.close()
    assert len(list(pending_dir(database).glob("retrieval-*.json"))) == 1  # left for the next writer

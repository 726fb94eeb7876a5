"""Retrievals made while another process writes the home: journalled, applied once by the next writer.

A reader (catalog/home_lock.py) searches the snapshot and cannot write the catalog, but a search still
counts: it leaves `catalog/pending/retrieval-<id>.json` (written atomically). Every writer applies the
pending files when it opens the home — the retrieval row, the reference counts and the file's name in
`applied_journals`, in one transaction — then deletes them. A writer killed between the commit and the
delete finds the name already applied next time and only deletes the file: each search counts once.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from panda.documents.atomic import atomic_write_json

PENDING_DIR = "pending"


def pending_dir(database: Path) -> Path:
    return database.parent / PENDING_DIR


def write_retrieval(database: Path, record: dict[str, Any]) -> Path:
    """Journal one retrieval made against the snapshot of `database`."""
    record = {**record, "id": record.get("id") or uuid.uuid4().hex}
    target = pending_dir(database) / f"retrieval-{record['id']}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_json(target, record)
    return target


def apply_pending(catalog: Any) -> int:
    """Apply every journalled retrieval to a writable catalog (once each). Returns how many were applied."""
    if catalog.path is None or catalog.read_only:
        return 0
    folder = pending_dir(Path(catalog.path))
    applied = 0
    for path in sorted(folder.glob("retrieval-*.json")) if folder.exists() else []:
        if not catalog.journal_applied(path.name):
            record = json.loads(path.read_text(encoding="utf-8"))
            with catalog.transaction():
                catalog.record_retrieval_entry(record)
                catalog.increment_counters(record["result_ids"], "reference_count")
                catalog.mark_journal_applied(path.name)
            applied += 1
        path.unlink(missing_ok=True)
    return applied

"""The queue of research turns whose global knowledge is published after the batch (research/publication.py):
a turn is queued in its commit transaction, read in order, and marked published once its notes are indexed.
The SQL lives here; left out: what publishing writes (research/publication.py).
"""

from __future__ import annotations

from datetime import datetime

from panda.catalog.store import Catalog


def enqueue(catalog: Catalog, turn_id: str, user_id: str, turn_dir: str, queued_at: datetime) -> None:
    """Queue a turn once (a replayed commit queues nothing twice)."""
    catalog.con.execute("INSERT INTO knowledge_queue VALUES (?, ?, ?, ?, NULL) ON CONFLICT DO NOTHING",
                        [turn_id, user_id, turn_dir, queued_at])


def pending(catalog: Catalog) -> list[tuple[str, str, datetime]]:
    """(turn id, turn folder, queued at) of every unpublished turn, oldest first."""
    rows = catalog.con.execute("SELECT turn_id, turn_dir, queued_at FROM knowledge_queue WHERE published_at IS NULL "
                               "ORDER BY queued_at, turn_id").fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


def mark_published(catalog: Catalog, turn_ids: list[str]) -> None:
    catalog.con.execute("UPDATE knowledge_queue SET published_at = now() WHERE list_contains(?, turn_id)", [turn_ids])

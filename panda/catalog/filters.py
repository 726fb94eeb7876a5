"""What a search may see: `SearchFilters` as a SQL WHERE clause, and which in-memory partition a document is in.

A searcher sees her own documents and global ones (DESIGN §10; privacy/visibility.py says the same for files).
Used by the catalog's candidate queries (store.py) and by the in-memory index (memory/index.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

GLOBAL_PARTITION = "\x00global"  # the in-memory index's partition of scope-global documents
NO_OWNER_PARTITION = "\x00none"  # documents with no owner and no global scope


def partition_key(owner: str | None, scope: str | None) -> str:
    """Which partition of memory/index.py a document belongs to: global ones together, else by owner."""
    if scope == "global":
        return GLOBAL_PARTITION
    return owner if owner is not None else NO_OWNER_PARTITION


@dataclass(frozen=True)
class SearchFilters:
    """Which documents a search may see. `user_id` sees its own documents plus global ones."""

    user_id: str | None = None
    session_id: str | None = None
    session_prefix: str | None = None  # e.g. 'alice:conv-26-s' = every session of one thread
    scope: str | None = None
    content_types: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    topic_prefix: str | None = None
    min_quality: float = 0.0
    include_expired: bool = False
    include_invalid: bool = False
    now: datetime | None = None
    created_before: datetime | None = None  # as-of searches: documents that did not exist yet are left out
    created_after: datetime | None = None  # seed 001 time_range: only what was written since

    def visible(self) -> tuple[str, list[Any]]:
        """The corpus the searcher may read (DESIGN §10): her own documents and global ones."""
        if self.user_id is None:
            return "TRUE", []
        return "(d.owner_user = ? OR d.scope = 'global')", [self.user_id]

    def where(self) -> tuple[str, list[Any]]:
        visible, params = self.visible()
        clauses: list[str] = [visible]
        if self.session_id is not None:
            clauses.append("d.session_id = ?")
            params.append(self.session_id)
        if self.session_prefix is not None:
            clauses.append("starts_with(d.session_id, ?)")
            params.append(self.session_prefix)
        if self.scope is not None:
            clauses.append("d.scope = ?")
            params.append(self.scope)
        if self.content_types:
            clauses.append("len(list_intersect(d.content_types, ?)) > 0")
            params.append(list(self.content_types))
        if self.kinds:
            clauses.append("list_contains(?, d.kind)")
            params.append(list(self.kinds))
        if self.topic_prefix:
            clauses.append("(d.primary_topic = ? OR starts_with(d.primary_topic, ?) OR starts_with(?, d.primary_topic || '.'))")
            params += [self.topic_prefix, self.topic_prefix + ".", self.topic_prefix]
        if self.min_quality > 0:
            clauses.append("d.quality >= ?")
            params.append(self.min_quality)
        now = self.now or datetime.now(UTC)
        if not self.include_expired:  # knowledge notes are returned expired too, marked "may be outdated" (seed 003)
            clauses.append("(d.expires_at IS NULL OR d.expires_at > ? OR d.kind = 'note')")
            params.append(now)
        if not self.include_invalid:
            clauses.append("(d.invalid_at IS NULL OR d.invalid_at > ?)")
            params.append(now)
        if self.created_before is not None:
            clauses.append("(d.created_at IS NULL OR d.created_at <= ?)")
            params.append(self.created_before)
        if self.created_after is not None:
            clauses.append("d.created_at >= ?")
            params.append(self.created_after)
        return " AND ".join(clauses), params

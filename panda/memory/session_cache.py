"""Seed 004's session cache: the open session's recent messages, in memory, per process.

gather's session route and every cross-session turn start from the open session's last messages. The
cache keeps them per catalog session id, stamped with the session's last_message_at: a read whose
stamp matches is a hit (no catalog query), otherwise a miss that loads and stores. Writes go through:
ingest_messages (the one path by which messages reach the catalog, turns' own included) refreshes the
entries of the sessions it touched, so the next turn of a batch in the same session hits. A session
that ended (the gap passed) is dropped, recorded as a `cache_invalidated` event by the caller. Bounded
(LRU over sessions, last `per_session` messages each); nothing here is durable — the catalog is.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass
class _Entry:
    last_message_at: datetime | None
    rows: list[dict[str, Any]]


class SessionCache:
    def __init__(self, max_sessions: int = 512, per_session: int = 20) -> None:
        self.max_sessions, self.per_session = max_sessions, per_session
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self.hits = self.misses = 0

    @staticmethod
    def key(session_id: str) -> str:
        """Example: key('alice:s1-s0001') -> 'session:alice:s1-s0001' (recorded as retrieval cache_key)."""
        return f"session:{session_id}"

    def get(self, session_id: str, last_message_at: datetime | None, before: datetime, limit: int) -> list[dict[str, Any]] | None:
        """The session's last `limit` messages at or before `before`, or None (a miss) when the cache does not
        hold the session as the catalog has it now (`last_message_at`)."""
        entry = self._entries.get(session_id)
        if entry is None or entry.last_message_at != last_message_at or limit > self.per_session:
            self.misses += 1
            return None
        self._entries.move_to_end(session_id)
        self.hits += 1
        return [r for r in entry.rows if r["created_at"] <= before][-limit:]

    def put(self, session_id: str, rows: list[dict[str, Any]], last_message_at: datetime | None) -> None:
        self._entries[session_id] = _Entry(last_message_at, sorted(rows, key=lambda r: (r["created_at"], r["id"]))
                                           [-self.per_session:])
        self._entries.move_to_end(session_id)
        while len(self._entries) > self.max_sessions:
            self._entries.popitem(last=False)

    def refresh(self, session_id: str, rows: list[dict[str, Any]]) -> None:
        """Write-through: the session's newest messages as the catalog now has them (only sessions held)."""
        if session_id in self._entries:
            last = max((r["created_at"] for r in rows), default=None)
            self.put(session_id, rows, last)

    def holds(self, session_id: str) -> bool:
        return session_id in self._entries

    def invalidate(self, session_id: str) -> bool:
        """Drop a session (it ended); True when it was held."""
        return self._entries.pop(session_id, None) is not None

"""Memory for assistants: the operations `panda serve` offers over MCP and HTTP, each acting as exactly one user.

`MemoryService` reads through a read-only home on the published snapshot (catalog/home_lock.py), so a read never
waits for a running batch nor fails because one writes; when a writer publishes a new snapshot the next request
reopens it (the embedder is loaded once). Reads go through the same rules as the pipeline: memory.search ranks only
what the user may read, memory.retrieve refuses another user's document (privacy/visibility.py), and a document the
user may not read is "not found", exactly like one that does not exist. `remember` is memory.save: a near-duplicate
of what the user already has is not saved twice, the note is the user's own (scope new, the policy's TTL until
promotion), and it waits for the home's writer lock like any writer (HomeBusyError after $PANDA_LOCK_TIMEOUT).

Input is checked before anything runs (`ServeError` with an HTTP status: 400 for a bad query, id, limit or time,
404 for a document not found, 503 while the home is busy). Calls are serialised (one DuckDB connection, one
embedder, two cores), except a `remember` waiting for the writer lock: reads are answered meanwhile.
"""

from __future__ import annotations

import re
import threading
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from panda.catalog.home_lock import snapshot_path
from panda.config import Settings
from panda.documents.model import parse_time
from panda.errors import HomeBusyError
from panda.home import Home
from panda.language.facts import holding
from panda.language.text import tokenize
from panda.memory.embeddings import Embedder, SentenceEmbedder
from panda.memory.search import SearchRequest
from panda.runtime import embedder_choice, open_home

MAX_QUERY_CHARS = 2000
MAX_TEXT_CHARS = 4000
MAX_LIMIT = 50
DOC_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")


class ServeError(Exception):
    """A request the service refuses; `status` is the HTTP status the API answers with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _text(value: Any, name: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ServeError(400, f"{name} must be a non-empty string")
    if len(value) > limit:
        raise ServeError(400, f"{name} is longer than {limit} characters")
    if "\x00" in value:
        raise ServeError(400, f"{name} holds a NUL character")
    return value.strip()


def _limit(value: Any, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_LIMIT:
        raise ServeError(400, f"limit must be an integer from 1 to {MAX_LIMIT}")
    return value


def _time(value: Any, name: str = "as_of") -> datetime | None:
    if value in (None, ""):
        return None
    try:
        return parse_time(value) if isinstance(value, str) and len(value) <= 40 else _bad_time(name)
    except ValueError:
        return _bad_time(name)


def _bad_time(name: str) -> datetime:
    raise ServeError(400, f"{name} must be an ISO 8601 time, e.g. 2026-03-01T12:00:00Z")


def entry_dict(entry: Any) -> dict[str, Any]:
    return {"key": entry.key, "value": entry.value, "learned_at": _iso(entry.learned_at),
            "valid_until": _iso(entry.invalid_at), "source": entry.source}


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


@dataclass
class _Opened:
    home: Home
    stamp: tuple[int, int] | None
    lifetime: ExitStack  # closes the home


class MemoryService:
    """The serve operations over one home. Thread-safe (calls are serialised)."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self._embedder = embedder
        self._opened: _Opened | None = None
        self._lock = threading.RLock()

    # ---- lifetime --------------------------------------------------------------------------------------------
    def embedder(self) -> Embedder:
        with self._lock:  # loaded once, whichever call comes first
            if self._embedder is None:
                with open_home(self.settings, read_only=True) as probe:  # the embedder the home keeps
                    chosen = embedder_choice(self.settings, probe.catalog)
                self._embedder = SentenceEmbedder(chosen.embedding_model, dim=chosen.embedding_dim)
            return self._embedder

    def _snapshot_stamp(self) -> tuple[int, int] | None:
        try:
            st = snapshot_path(self.settings.catalog_path).stat()
        except FileNotFoundError:
            return None
        return st.st_ino, st.st_mtime_ns

    def reader(self) -> Home:
        """The read-only home, reopened when a writer has published a newer snapshot since."""
        stamp = self._snapshot_stamp()
        if self._opened is None or self._opened.stamp != stamp or stamp is None:
            self.close()
            lifetime = ExitStack()
            home = lifetime.enter_context(open_home(self.settings, embedder=self.embedder(), read_only=True))
            self._opened = _Opened(home, self._snapshot_stamp(), lifetime)
        return self._opened.home

    def close(self) -> None:
        with self._lock:
            if self._opened is not None:
                self._opened.lifetime.close()
                self._opened = None

    # ---- reads -----------------------------------------------------------------------------------------------
    def search_memory(self, user_id: str, query: Any, limit: Any = None, as_of: Any = None) -> list[dict[str, Any]]:
        text, count, when = _text(query, "query", MAX_QUERY_CHARS), _limit(limit, 10), _time(as_of)
        with self._lock:
            home = self.reader()
            found = home.memory.search(SearchRequest(text, user_id=user_id, limit=count, as_of=when,
                                                     retrieval_type="serve.search"))
        return [{"id": r.id, "kind": r.kind, "title": r.title, "topic": r.primary_topic, "score": round(r.score, 4),
                 "snippet": r.snippet, "doc_path": r.doc_path, "created_at": _iso(r.created_at),
                 "possibly_outdated": r.possibly_outdated, "superseded": r.superseded} for r in found]

    def get_facts(self, user_id: str, as_of: Any = None) -> list[dict[str, Any]]:
        when = _time(as_of)
        with self._lock:
            entries = self.reader().vault.memory_file(user_id, "fact").entries
        return [entry_dict(e) for e in holding(entries, when)]

    def get_preferences(self, user_id: str) -> list[dict[str, Any]]:
        with self._lock:
            entries = self.reader().vault.memory_file(user_id, "preference").entries
        return [entry_dict(e) for e in holding(entries)]

    def read_document(self, user_id: str, doc_id: Any) -> dict[str, Any]:
        if not isinstance(doc_id, str) or not DOC_ID.match(doc_id) or ".." in doc_id:
            raise ServeError(400, "id must be a document id: letters, digits, '_', '.', ':' or '-' (at most 128)")
        with self._lock:
            doc = self.reader().memory.retrieve(doc_id=doc_id, user_id=user_id)
        if doc is None:  # missing, or another user's: the same answer
            raise ServeError(404, f"no document {doc_id}")
        return {"id": doc.id, "kind": doc.kind, "title": doc.title, "topic": doc.primary_topic, "scope": doc.scope,
                "created_at": _iso(doc.created_at), "doc_path": doc.doc_path, "body": doc.body}

    def recent_turns(self, user_id: str, limit: Any = None) -> list[dict[str, Any]]:
        count = _limit(limit, 10)
        with self._lock:
            rows = self.reader().catalog.turns(user_id)
        rows = sorted(rows, key=lambda r: r["turn_number"], reverse=True)[:count]
        return [{"turn_id": r["id"], "turn_number": r["turn_number"], "created_at": _iso(r.get("created_at")),
                 "session_id": r.get("session_id"), "topic": r.get("topic"), "outcome": r.get("validation_outcome"),
                 "summary": r.get("strategy_summary"), "doc_path": r.get("doc_path")} for r in rows]

    # ---- the one write ---------------------------------------------------------------------------------------
    def remember(self, user_id: str, text: Any, now: datetime | None = None) -> dict[str, Any]:
        """memory.save for the user: skipped when the user already has it (near-duplicate), else a note of scope
        new. Waits its turn for the writer lock."""
        content = _text(text, "text", MAX_TEXT_CHARS)
        when = now or datetime.now(UTC)
        embedder = self.embedder()
        try:
            # The wait for the writer lock happens outside the service lock: reads go on while a batch runs.
            with open_home(self.settings, embedder=embedder) as home, self._lock:
                same = home.memory.duplicate_of(content, user_id, when)
                if same is not None:
                    return {"saved": False, "id": same, "reason": "already in memory; not saved twice"}
                doc = home.memory.prepare_save(content, doc_type="memory", topic="user.memory",
                                               keywords=tokenize(content)[:5], user_id=user_id, scope="new",
                                               now=when, source="serve.remember")
                home.memory.save(doc)
                home.catalog.record_event("remember", "document", doc.id, {"user_id": user_id}, when)
        except HomeBusyError as exc:
            raise ServeError(503, str(exc)) from exc
        return {"saved": True, "id": doc.id, "scope": doc.scope, "expires_at": _iso(doc.expires_at)}


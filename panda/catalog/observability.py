"""Writers of the observability tables: llm_calls, retrieval_operations, system_events (seed 004's fields).

`Observability` is mixed into `Catalog` (store.py), whose connection it writes through; `call_cost` prices a
call from the policy's USD per million tokens. These are logs, not memory: reindex keeps them.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from panda.documents.model import parse_time

RETRIEVAL_DETAILS = ("thread_id", "turn_type", "sessions_searched", "threads_searched", "summaries_retrieved",
                     "messages_in_context", "cache_hit", "cache_key", "classification_ms", "total_ms")


def call_cost(model: str | None, prompt_tokens: int | None, completion_tokens: int | None,
              prices: dict[str, tuple[float, float]] | None) -> float:
    """USD for one call. Example: ('gpt-4o-mini', 1000, 500, {'gpt-4o-mini': (0.15, 0.60)}) -> 0.00045."""
    rate = (prices or {}).get(model or "")
    if rate is None:
        return 0.0
    return round(((prompt_tokens or 0) * rate[0] + (completion_tokens or 0) * rate[1]) / 1_000_000, 8)


def new_row_id() -> str:
    return uuid.uuid4().hex


class Observability:
    """The observability writers of a `Catalog` (needs its `con` and `_dicts`)."""

    con: Any
    _dicts: Callable[..., list[dict[str, Any]]]

    def record_llm_calls(self, rows: list[dict[str, Any]], prices: dict[str, tuple[float, float]] | None = None) -> None:
        """LLM calls, with completed_at = started_at + latency (the event clock) and cost_usd from `prices`
        (model -> USD per million prompt and completion tokens; a model not listed is local and costs 0)."""
        if not rows:
            return
        columns = ("id", "user_id", "session_id", "turn_id", "phase", "role", "model", "prompt_version",
                   "prompt_tokens", "completion_tokens", "latency_ms", "batch_size", "started_at", "status",
                   "error_message", "recorded_at", "thread_id", "message_id", "completed_at", "cost_usd")
        recorded = datetime.now(UTC)
        values = []
        for r in rows:
            started, latency = r.get("started_at"), float(r.get("latency_ms") or 0.0)
            derived = {"recorded_at": recorded,
                       "completed_at": started + timedelta(milliseconds=latency) if isinstance(started, datetime) else None,
                       "cost_usd": call_cost(r.get("model"), r.get("prompt_tokens"), r.get("completion_tokens"), prices)}
            values.append([r.get("id") or new_row_id() if c == "id" else derived[c] if c in derived else r.get(c)
                           for c in columns])
        self.con.executemany(
            f"INSERT INTO llm_calls ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})", values)

    def record_retrieval(self, *, user_id: str | None, session_id: str | None, turn_id: str | None, query: str,
                         retrieval_type: str, candidates: int, result_ids: list[str], retrieval_ms: float,
                         context_tokens: int, created_at: datetime | None = None, record_id: str | None = None,
                         details: dict[str, Any] | None = None) -> None:
        """One retrieval. created_at: when it happened (the turn's input time); recorded_at: the wall clock.
        `details`: seed 004's classification and cache fields (RETRIEVAL_DETAILS), where the caller knows them."""
        recorded = datetime.now(UTC)
        extra = {k: v for k, v in (details or {}).items() if k in RETRIEVAL_DETAILS and v is not None}
        columns = ["id", "user_id", "session_id", "turn_id", "query", "retrieval_type", "candidates", "results",
                   "result_ids", "retrieval_ms", "context_tokens", "created_at", "recorded_at", *extra]
        self.con.execute(
            f"INSERT INTO retrieval_operations ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)}) "
            "ON CONFLICT DO NOTHING",
            [record_id or new_row_id(), user_id, session_id, turn_id, query, retrieval_type, candidates, len(result_ids),
             result_ids, retrieval_ms, context_tokens, created_at or recorded, recorded, *extra.values()],
        )

    def record_retrieval_entry(self, entry: dict[str, Any], record_id: str | None = None) -> None:
        """A retrieval in its dict form (memory/search.py `retrieval_entry`: what turns and the reader journal
        keep) written with `record_retrieval`; `created_at` may be ISO text."""
        created = entry.get("created_at")
        self.record_retrieval(
            user_id=entry.get("user_id"), session_id=entry.get("session_id"), turn_id=entry.get("turn_id"),
            query=entry["query"], retrieval_type=entry["retrieval_type"], candidates=int(entry["candidates"]),
            result_ids=list(entry["result_ids"]), retrieval_ms=float(entry["retrieval_ms"]),
            context_tokens=int(entry["context_tokens"]),
            created_at=created if isinstance(created, datetime) else parse_time(created),
            record_id=record_id or entry.get("id"), details=entry)

    def record_event(self, event_type: str, entity_type: str | None = None, entity_id: str | None = None,
                     data: dict[str, Any] | None = None, created_at: datetime | None = None,
                     user_id: str | None = None) -> None:
        """One system event. created_at: when it happened (input time or the job's --now); recorded_at: wall clock."""
        recorded = datetime.now(UTC)
        user = user_id or (data or {}).get("user_id")
        self.con.execute(
            """INSERT INTO system_events (id, event_type, entity_type, entity_id, data, created_at, recorded_at, user_id)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
            [new_row_id(), event_type, entity_type, entity_id, json.dumps(data or {}, default=str),
             created_at or recorded, recorded, user],
        )

    def llm_usage_by_phase(self) -> list[dict[str, Any]]:
        return self._dicts("""SELECT phase, count(*) AS calls, sum(prompt_tokens) AS prompt_tokens,
                              sum(completion_tokens) AS completion_tokens, avg(latency_ms) AS avg_latency_ms,
                              sum(CASE WHEN status = 'ok' THEN 0 ELSE 1 END) AS failures
                              FROM llm_calls GROUP BY phase ORDER BY phase""")

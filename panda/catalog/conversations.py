"""Catalog SQL for conversations: threads, sessions and messages (seed 004).

Kept beside store.py so all SQL stays in panda/catalog/. Message text is also indexed as a
`documents` row (kind 'message') by the ingest path, so memory.search sees it with everything else.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from panda.catalog.store import Catalog


class Conversations:
    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.con = catalog.con

    def link_llm_calls(self, turn_id: str, session_id: str | None, thread_id: str | None,
                       message_id: str | None) -> None:
        """Give a turn's recorded LLM calls its catalog session, thread and the message that asked."""
        self.con.execute("UPDATE llm_calls SET session_id = ?, thread_id = ?, message_id = ? WHERE turn_id = ?",
                         [session_id, thread_id, message_id, turn_id])

    def known_message_ids(self, ids: list[str]) -> set[str]:
        if not ids:
            return set()
        rows = self.con.execute("SELECT id FROM messages WHERE list_contains(?, id)", [ids]).fetchall()
        return {r[0] for r in rows}

    def external_ids(self, ids: list[str]) -> list[str | None]:
        """The dataset's own id (dia_id, session:turn, message_id) of each message id, in order; None if unknown."""
        if not ids:
            return []
        rows = self.con.execute("SELECT id, external_id FROM messages WHERE list_contains(?, id)", [ids]).fetchall()
        known = dict(rows)
        return [known.get(i) for i in ids]

    def indexed_texts(self, user_id: str) -> dict[str, str]:
        """A user's messages by dataset id (external_id) → the text their documents are indexed with."""
        rows = self.con.execute("""SELECT m.external_id, d.search_text FROM messages m JOIN documents d ON d.id = m.id
                                   WHERE m.user_id = ? AND m.external_id IS NOT NULL""", [user_id]).fetchall()
        return {str(e): str(t or "") for e, t in rows}

    def upsert_messages(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        cols = ("id", "user_id", "thread_id", "session_id", "role", "author", "content", "created_at", "metadata",
                "enrichment_status", "enriched_at", "external_id", "doc_path")
        ids = [r["id"] for r in rows]
        enriched = dict(self.con.execute("SELECT id, enriched_at FROM messages WHERE list_contains(?, id) "
                                         "AND enriched_at IS NOT NULL", [ids]).fetchall())
        rows = [{**r, "enriched_at": r.get("enriched_at") or enriched.get(r["id"])} for r in rows]  # a re-index keeps it
        self.con.execute("DELETE FROM messages WHERE list_contains(?, id)", [ids])
        self.con.executemany(f"INSERT INTO messages ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
                             [[json.dumps(r[c]) if c == "metadata" else r.get(c) for c in cols] for r in rows])

    def upsert_session(self, row: dict[str, Any]) -> None:
        self.con.execute("DELETE FROM sessions WHERE id = ?", [row["id"]])
        cols = list(row)
        self.con.execute(f"INSERT INTO sessions ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
                         [row[c] for c in cols])

    def refresh_thread(self, user_id: str, thread_id: str, external_id: str) -> None:
        """Recompute a thread's aggregates from its sessions (its summary, from the vault, is kept)."""
        kept = self.con.execute("SELECT summary, summary_updated_at FROM threads WHERE id = ?", [thread_id]).fetchall()
        summary, updated = kept[0] if kept else (None, None)
        self.con.execute("DELETE FROM threads WHERE id = ?", [thread_id])
        # Seed 004's thread fields: title = the thread's id as the input named it, primary topic = its
        # sessions' most common one, categories and entities = theirs, updated_at = the last message.
        self.con.execute("""
            INSERT INTO threads (id, user_id, external_id, created_at, last_message_at, total_sessions, total_messages,
                                 topics, summary, summary_updated_at, title, updated_at, primary_topic, categories,
                                 entities)
            SELECT ?, ?, ?, min(started_at), max(last_message_at), count(*), sum(total_messages),
                   list_distinct(flatten(list(topics))), ?, ?, ?, max(last_message_at), mode(primary_topic),
                   list_sort(list_distinct(list(category) FILTER (WHERE category IS NOT NULL))),
                   list_distinct(flatten(list(coalesce(entities, []::VARCHAR[]))))[1:20]
            FROM sessions WHERE thread_id = ?""", [thread_id, user_id, external_id, summary, updated, external_id,
                                                   thread_id])

    def drop_thread(self, thread_id: str) -> None:
        self.con.execute("DELETE FROM threads WHERE id = ?", [thread_id])

    def thread_summaries(self, user_id: str, exclude_thread_id: str, topic: str | None,
                         limit: int = 5, entities: list[str] | None = None) -> list[dict[str, Any]]:
        """The user's other threads that have a summary: those whose topics hold `topic` (or its first part)
        or whose entities hold one the message names first, then the most recent (seed 004's cross-thread
        retrieval: `topics ?| … OR entities @> …`)."""
        topics = [t for t in dict.fromkeys([topic or "", (topic or "").split(".")[0]]) if t]
        named = [e.lower() for e in entities or []]
        return self.catalog._dicts(
            """SELECT id, external_id, summary, summary_updated_at, last_message_at, created_at FROM threads
               WHERE user_id = ? AND id <> ? AND summary IS NOT NULL AND trim(summary) <> ''
               ORDER BY CASE WHEN list_has_any(coalesce(topics, []::VARCHAR[]), ?::VARCHAR[])
                               OR list_has_any(list_transform(coalesce(entities, []::VARCHAR[]), lambda x: lower(x)),
                                               ?::VARCHAR[]) THEN 0 ELSE 1 END,
                        last_message_at DESC NULLS LAST, id
               LIMIT ?""", [user_id, exclude_thread_id, topics, named, limit])

    def known_entities(self, user_id: str, limit: int = 500) -> list[str]:
        """The entities enrichment found in the user's sessions (seed 004), most recent sessions first."""
        rows = self.con.execute(
            """SELECT e FROM (SELECT unnest(entities) AS e, last_message_at FROM sessions WHERE user_id = ?)
               GROUP BY e ORDER BY max(last_message_at) DESC NULLS LAST, e LIMIT ?""", [user_id, limit]).fetchall()
        return [r[0] for r in rows if r[0]]

    def set_thread_summary(self, thread_id: str, summary: str, at: datetime | None) -> None:
        self.con.execute("UPDATE threads SET summary = ?, summary_updated_at = ? WHERE id = ?", [summary, at, thread_id])

    def pending_enrichment(self, user_id: str | None = None, limit: int | None = None,
                           users: list[str] | None = None) -> list[dict[str, Any]]:
        sql = ("SELECT id, user_id, thread_id, session_id, role, author, content, created_at, doc_path FROM messages "
               "WHERE enrichment_status IN ('pending', 'failed')")
        params: list[Any] = []
        if user_id:
            sql += " AND user_id = ?"
            params.append(user_id)
        if users is not None:
            sql += " AND list_contains(?, user_id)"
            params.append(users)
        sql += " ORDER BY user_id, thread_id, created_at, id"
        if limit:
            sql += f" LIMIT {int(limit)}"
        return self.catalog._dicts(sql, params)

    def set_enrichment(self, message_id: str, status: str, metadata: dict[str, Any] | None,
                       enriched_at: datetime | None) -> None:
        if metadata is None:
            self.con.execute("UPDATE messages SET enrichment_status = ? WHERE id = ?", [status, message_id])
        else:
            self.con.execute("UPDATE messages SET enrichment_status = ?, metadata = ?, enriched_at = ? WHERE id = ?",
                             [status, json.dumps(metadata), enriched_at, message_id])

    def recent_messages(self, session_id: str, before: datetime, limit: int) -> list[dict[str, Any]]:
        return list(reversed(self.catalog._dicts(
            """SELECT id, role, author, content, created_at, doc_path FROM messages
               WHERE session_id = ? AND created_at <= ? ORDER BY created_at DESC, id DESC LIMIT ?""",
            [session_id, before, limit])))

    def latest_session(self, user_id: str, thread_id: str, before: datetime) -> dict[str, Any] | None:
        rows = self.catalog._dicts(
            """SELECT * FROM sessions WHERE user_id = ? AND thread_id = ? AND started_at <= ?
               ORDER BY number DESC LIMIT 1""", [user_id, thread_id, before])
        return rows[0] if rows else None

    def session(self, session_id: str) -> dict[str, Any] | None:
        rows = self.catalog._dicts("SELECT * FROM sessions WHERE id = ?", [session_id])
        return rows[0] if rows else None

    def sessions_of_thread(self, thread_id: str) -> list[dict[str, Any]]:
        return self.catalog._dicts("SELECT * FROM sessions WHERE thread_id = ? ORDER BY number", [thread_id])

    def counts(self) -> dict[str, int]:
        out = {}
        for table in ("threads", "sessions", "messages"):
            out[table] = int(self.con.execute(f"SELECT count(*) FROM {table}").fetchone()[0])  # type: ignore[index]
        return out

    def status_counts(self) -> dict[str, int]:
        rows = self.con.execute("SELECT enrichment_status, count(*) FROM messages GROUP BY 1").fetchall()
        return {r[0]: int(r[1]) for r in rows}

    def session_of_message(self, user_id: str, external_id: str) -> str | None:
        """The catalog session ('user:thread-sNNNN') holding a message, e.g. a turn's query 'turn_x:q'."""
        row = self.con.execute("SELECT session_id FROM messages WHERE user_id = ? AND external_id = ? LIMIT 1",
                               [user_id, external_id]).fetchone()
        return str(row[0]) if row else None

    def refresh_users(self, user_ids: list[str]) -> None:
        """Seed 004's users rows, recomputed from threads, sessions and messages (idempotent)."""
        if not user_ids:
            return
        self.con.execute("""
            INSERT OR REPLACE INTO users (id, created_at, updated_at, total_threads, total_sessions, total_messages,
                                          last_active_at)
            SELECT u.id, coalesce(old.created_at, m.first_at), now(), coalesce(t.n, 0), coalesce(s.n, 0),
                   coalesce(m.n, 0), m.last_at
            FROM (SELECT unnest(?::VARCHAR[]) AS id) u
            LEFT JOIN users old ON old.id = u.id
            LEFT JOIN (SELECT user_id, count(*) AS n FROM threads GROUP BY 1) t ON t.user_id = u.id
            LEFT JOIN (SELECT user_id, count(*) AS n FROM sessions GROUP BY 1) s ON s.user_id = u.id
            LEFT JOIN (SELECT user_id, count(*) AS n, min(created_at) AS first_at, max(created_at) AS last_at
                       FROM messages GROUP BY 1) m ON m.user_id = u.id""", [user_ids])

    def thread_and_message(self, user_id: str, external_id: str) -> tuple[str | None, str | None]:
        """The catalog thread and message id of a message known by its external id (a turn's 'turn_x:q')."""
        row = self.con.execute("SELECT thread_id, id FROM messages WHERE user_id = ? AND external_id = ? LIMIT 1",
                               [user_id, external_id]).fetchone()
        return (str(row[0]), str(row[1])) if row else (None, None)

    def usage_stats(self, since: datetime, until: datetime, user_id: str | None = None,
                    clock: str = "event") -> dict[str, Any]:
        """Seed 004 get_usage_stats over a time window: LLM calls, retrievals, messages, events.

        `clock` 'event' windows by when things happened (a turn's input time, a job's --now); 'recorded'
        by when Panda wrote them (wall clock). Both are stored on every row (README, Observability)."""
        if clock not in ("event", "recorded"):
            raise ValueError(f"clock must be 'event' or 'recorded', not {clock!r}")
        user = " AND user_id = ?" if user_id else ""
        p = [since, until] + ([user_id] if user_id else [])
        def at(event_column: str) -> str:
            return event_column if clock == "event" else "recorded_at"

        llm = self.catalog._dicts(f"""
            SELECT phase AS operation, count(*) AS calls, coalesce(sum(prompt_tokens), 0) AS input_tokens,
                   coalesce(sum(completion_tokens), 0) AS output_tokens, round(avg(latency_ms), 1) AS avg_latency_ms,
                   count(*) FILTER (WHERE status <> 'ok') AS errors
            FROM llm_calls WHERE {at('started_at')} >= ? AND {at('started_at')} < ?{user} GROUP BY 1 ORDER BY 1""", p)
        retrieval = self.catalog._dicts(f"""
            SELECT retrieval_type, count(*) AS retrievals, round(avg(retrieval_ms), 1) AS avg_ms,
                   round(avg(context_tokens), 1) AS avg_context_tokens, round(avg(results), 1) AS avg_results
            FROM retrieval_operations WHERE {at('created_at')} >= ? AND {at('created_at')} < ?{user} GROUP BY 1 ORDER BY 1""", p)
        messages = self.catalog._dicts(f"""
            SELECT role, enrichment_status, count(*) AS messages FROM messages
            WHERE created_at >= ? AND created_at < ?{user} GROUP BY 1, 2 ORDER BY 1, 2""", p)
        suggested = self.catalog._dicts(f"""
            SELECT json_extract_string(metadata, '$.suggested_topic') AS topic, count(*) AS messages FROM messages
            WHERE created_at >= ? AND created_at < ?{user} AND json_extract_string(metadata, '$.suggested_topic') IS NOT NULL
            GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20""", p)  # seed 004's suggested_topic: what the vocabulary lacks
        events = self.catalog._dicts(f"""
            SELECT event_type, count(*) AS events FROM system_events
            WHERE {at('created_at')} >= ? AND {at('created_at')} < ?{user}
            GROUP BY 1 ORDER BY 1""", p)
        totals = self.catalog._dicts(f"""
            SELECT count(*) AS total_calls, coalesce(sum(prompt_tokens), 0) AS total_input_tokens,
                   coalesce(sum(completion_tokens), 0) AS total_output_tokens,
                   round(coalesce(sum(cost_usd), 0), 6) AS total_cost_usd, round(avg(latency_ms), 1) AS avg_latency_ms,
                   count(*) FILTER (WHERE status <> 'ok') AS error_count
            FROM llm_calls WHERE {at('started_at')} >= ? AND {at('started_at')} < ?{user}""", p)[0]
        cache = self.catalog._dicts(f"""
            SELECT count(*) AS total_retrievals, count(*) FILTER (WHERE cache_hit) AS cache_hits,
                   count(*) FILTER (WHERE cache_key IS NOT NULL) AS cache_lookups,
                   round(avg(total_ms), 1) AS avg_retrieval_ms, round(avg(context_tokens), 1) AS avg_context_tokens
            FROM retrieval_operations WHERE {at('created_at')} >= ? AND {at('created_at')} < ?{user}""", p)[0]
        lookups = cache["cache_lookups"] or 0
        return {"since": since.isoformat(), "until": until.isoformat(), "user_id": user_id, "clock": clock,
                # seed 004 get_usage_stats: the totals, then the breakdowns Panda adds
                "totals": {"llm": totals, "retrieval": cache,
                           "cache_hit_rate": round(cache["cache_hits"] / lookups, 4) if lookups else 0.0},
                "llm": llm, "retrieval": retrieval, "messages": messages, "suggested_topics": suggested,
                "events": events}

"""Catalog SQL for the scheduled jobs (panda/jobs/): archival, aging, promotion, calibration, deletion.

Kept beside store.py so all SQL stays in panda/catalog/. The jobs decide what changes (pure rules in
panda/jobs/rules.py) and write the vault first; these methods bring the derived catalog in line.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Any

from panda.catalog.filters import partition_key
from panda.catalog.store import DOC_COLUMNS, Catalog

# Tables with a user_id column, in the order user deletion clears them.
USER_TABLES = ("turn_uses", "turn_index", "messages", "sessions", "threads", "llm_calls", "retrieval_operations",
               "source_extractions", "knowledge_queue")


class Maintenance:
    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.con = catalog.con

    # ---- archival ------------------------------------------------------------------------------
    def archive_turn(self, turn_id: str, summary_json: str, old_folder: str, new_path: str) -> None:
        """Mark a turn archived with its summary; every document of its folder (context.md, research.md)
        follows the folder to its new place."""
        new_folder = new_path.rsplit("/", 1)[0]
        self.con.execute("UPDATE turn_index SET archived = TRUE, summary_json = ?, doc_path = ? WHERE id = ?",
                         [summary_json, new_path, turn_id])
        self.con.execute("UPDATE documents SET doc_path = ? || substr(doc_path, ?) WHERE starts_with(doc_path, ?)",
                         [new_folder, len(old_folder) + 1, old_folder + "/"])

    def turn_row(self, turn_id: str) -> dict[str, Any] | None:
        rows = self.catalog._dicts("SELECT * FROM turn_index WHERE id = ?", [turn_id])
        return rows[0] if rows else None

    # ---- aging and summarisation ---------------------------------------------------------------
    def sessions(self, user_id: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM sessions" + (" WHERE user_id = ?" if user_id else "") + " ORDER BY user_id, thread_id, number"
        return self.catalog._dicts(sql, [user_id] if user_id else [])

    def message_documents_of_session(self, session_id: str) -> list[dict[str, Any]]:
        return self.catalog._dicts(
            "SELECT id, reference_count, usage_count FROM documents WHERE kind = 'message' AND session_id = ?",
            [session_id])

    def drop_session_messages(self, session_id: str) -> None:
        """Remove a session's messages and their documents (they were replaced by its summary)."""
        self.catalog.touch(None)
        self.con.execute("""DELETE FROM postings WHERE doc_id IN
                            (SELECT id FROM documents WHERE kind = 'message' AND session_id = ?)""", [session_id])
        self.con.execute("DELETE FROM documents WHERE kind = 'message' AND session_id = ?", [session_id])
        self.con.execute("DELETE FROM messages WHERE session_id = ?", [session_id])

    def drop_session(self, session_id: str) -> None:
        self.catalog.touch(None)
        self.drop_session_messages(session_id)
        self.con.execute("""DELETE FROM postings WHERE doc_id IN
                            (SELECT id FROM documents WHERE kind = 'session_summary' AND session_id = ?)""", [session_id])
        self.con.execute("DELETE FROM documents WHERE kind = 'session_summary' AND session_id = ?", [session_id])
        self.con.execute("DELETE FROM sessions WHERE id = ?", [session_id])

    def threads(self, user_id: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM threads" + (" WHERE user_id = ?" if user_id else "") + " ORDER BY user_id, id"
        return self.catalog._dicts(sql, [user_id] if user_id else [])

    # ---- promotion, expiry, calibration ----------------------------------------------------------
    def standalone_documents(self) -> list[dict[str, Any]]:
        """Documents that are whole files with their own frontmatter scope (memories and notes)."""
        return self.catalog._dicts(
            f"""SELECT {', '.join(DOC_COLUMNS)} FROM documents
                WHERE NOT contains(doc_path, '#')
                  AND kind NOT IN ('context', 'session_summary', 'thread_summary', 'research', 'webpage', 'note')
                ORDER BY id""")

    def all_documents(self) -> list[dict[str, Any]]:
        return self.catalog._dicts(f"SELECT {', '.join(DOC_COLUMNS)}, freshness FROM documents ORDER BY id")

    def validation_totals(self) -> dict[str, tuple[int, int]]:
        """Per document: (turns that used it with APPROVE/RETRY/FAIL, of which APPROVE and not rejected by the user)."""
        rows = self.con.execute("""
            SELECT u.doc_id, count(*) FILTER (WHERE u.outcome IN ('APPROVE', 'RETRY', 'FAIL')),
                   count(*) FILTER (WHERE u.outcome = 'APPROVE' AND coalesce(t.user_feedback_status, '') <> 'rejected')
            FROM turn_uses u LEFT JOIN turn_index t ON t.id = u.turn_id GROUP BY u.doc_id""").fetchall()
        return {r[0]: (int(r[1]), int(r[2])) for r in rows}

    def usage_totals(self) -> dict[str, int]:
        rows = self.con.execute("SELECT doc_id, count(*) FROM turn_uses GROUP BY doc_id").fetchall()
        return {r[0]: int(r[1]) for r in rows}

    def set_counters(self, doc_id: str, counters: dict[str, int]) -> None:
        allowed = ("usage_count", "validation_count", "validation_success", "reference_count")
        sets = [f"{k} = ?" for k in counters if k in allowed]
        if sets:
            self.con.execute(f"UPDATE documents SET {', '.join(sets)} WHERE id = ?",
                             [v for k, v in counters.items() if k in allowed] + [doc_id])
            self.catalog.queue_counter_sync([doc_id])
            rows = self.con.execute("SELECT owner_user, scope FROM documents WHERE id = ?", [doc_id]).fetchall()
            self.catalog.touch({partition_key(o, s) for o, s in rows})  # the index reloads that partition only

    def set_freshness(self, values: list[tuple[str, float]]) -> None:
        if values:
            self.con.executemany("UPDATE documents SET freshness = ? WHERE id = ?", [[v, i] for i, v in values])

    def record_extraction(self, domain: str, url: str | None, extraction_type: str, success: bool,
                          confidence: float | None, user_id: str | None, at: datetime,
                          record_id: str | None = None) -> None:
        """One extraction outcome; a `record_id` derived from the work makes a repeat a no-op (exactly once)."""
        self.con.execute("INSERT INTO source_extractions VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                         [record_id or uuid.uuid4().hex, domain, url, extraction_type, success, confidence, user_id, at])

    def extraction_rollup(self) -> list[dict[str, Any]]:
        return self.catalog._dicts("""
            SELECT domain, count(*) AS extractions, count(*) FILTER (WHERE success) AS successes,
                   coalesce(avg(confidence) FILTER (WHERE success), 0.0) AS mean_confidence
            FROM source_extractions GROUP BY domain ORDER BY domain""")

    def source_reliability(self) -> dict[str, dict[str, Any]]:
        return {r["domain"]: r for r in self.catalog._dicts("SELECT * FROM source_reliability")}

    def reliability_by_domain(self) -> dict[str, float]:
        """Domain -> rolled-up reliability (what source ranking and research quality read)."""
        return {d: float(r["reliability"]) for d, r in self.source_reliability().items()}

    def upsert_reliability(self, row: dict[str, Any]) -> None:
        self.con.execute("DELETE FROM source_reliability WHERE domain = ?", [row["domain"]])
        self.con.execute("INSERT INTO source_reliability VALUES (?, ?, ?, ?, ?, ?)",
                         [row["domain"], row["extractions"], row["successes"], row["mean_confidence"],
                          row["reliability"], row["updated_at"]])

    # ---- user deletion -------------------------------------------------------------------------
    # Every method takes all casings of the user id (jobs/deletion.py user_casings) and the user's turn
    # ids: rows the pipeline wrote without a user (a job's LLM call, a reader's journalled search) are
    # found by turn or session instead.
    def user_ids_like(self, user_id: str) -> set[str]:
        """User ids in the catalog equal to `user_id` ignoring case."""
        found: set[str] = set()
        for table in (*USER_TABLES, "turn_references"):
            found |= {r[0] for r in self.con.execute(
                f"SELECT DISTINCT user_id FROM {table} WHERE lower(user_id) = lower(?)", [user_id]).fetchall()}
        found |= {r[0] for r in self.con.execute(
            "SELECT DISTINCT owner_user FROM documents WHERE lower(owner_user) = lower(?)", [user_id]).fetchall()}
        found |= {r[0] for r in self.con.execute("SELECT id FROM users WHERE lower(id) = lower(?)", [user_id]).fetchall()}
        return found

    def _user_where(self, table: str, users: list[str], turn_ids: list[str]) -> tuple[str, list[Any]]:
        clause, params = "list_contains(?, user_id)", [users]
        if table in ("llm_calls", "retrieval_operations", "turn_references", "turn_uses"):
            clause += " OR list_contains(?, turn_id)"
            params.append(turn_ids)
        if table in ("llm_calls", "retrieval_operations"):
            clause += " OR len(list_filter(?, lambda u: starts_with(session_id, u || ':'))) > 0"
            params.append(users)
        if table == "source_extractions":  # a turn's extraction rows carry no user, their ids name the turn
            clause += " OR len(list_filter(?, lambda t: starts_with(id, t || ':'))) > 0"
            params.append(turn_ids)
        return clause, params

    def user_row_counts(self, users: list[str], turn_ids: list[str] | None = None) -> dict[str, int]:
        counts = {}
        for table in (*USER_TABLES, "turn_references"):
            where, params = self._user_where(table, users, turn_ids or [])
            counts[table] = int(self.con.execute(f"SELECT count(*) FROM {table} WHERE {where}", params).fetchone()[0])  # type: ignore[index]
        counts["documents"] = int(self.con.execute("SELECT count(*) FROM documents WHERE list_contains(?, owner_user)",  # type: ignore[index]
                                                   [users]).fetchone()[0])
        counts["users"] = int(self.con.execute("SELECT count(*) FROM users WHERE list_contains(?, id)",  # type: ignore[index]
                                               [users]).fetchone()[0])
        return counts

    def export_user(self, users: list[str], turn_ids: list[str] | None = None) -> dict[str, list[dict[str, Any]]]:
        """Every catalog row of one user, as JSON-able dicts (the deletion backup)."""
        out = {}
        for table in (*USER_TABLES, "turn_references"):
            where, params = self._user_where(table, users, turn_ids or [])
            out[table] = self.catalog._dicts(f"SELECT * FROM {table} WHERE {where}", params)
        out["documents"] = self.catalog._dicts(
            f"SELECT {', '.join(DOC_COLUMNS)}, search_text FROM documents WHERE list_contains(?, owner_user)", [users])
        out["users"] = self.catalog._dicts("SELECT * FROM users WHERE list_contains(?, id)", [users])
        return out

    def delete_user_rows(self, users: list[str], turn_ids: list[str], document_ids: list[str],
                         event_ids: list[str]) -> None:
        """Delete a user's rows everywhere, plus the listed documents (derived notes) and events."""
        self.catalog.touch(None)
        owned = [r[0] for r in self.con.execute("SELECT id FROM documents WHERE list_contains(?, owner_user)",
                                                [users]).fetchall()]
        gone = sorted(set(owned) | set(document_ids) | set(turn_ids))
        self.con.execute("DELETE FROM postings WHERE list_contains(?, doc_id)", [gone])
        self.con.execute("DELETE FROM documents WHERE list_contains(?, id)", [gone])
        self.con.execute("DELETE FROM counter_sync WHERE list_contains(?, doc_id)", [gone])
        for table in (*USER_TABLES, "turn_references"):
            where, params = self._user_where(table, users, turn_ids)
            self.con.execute(f"DELETE FROM {table} WHERE {where}", params)
        self.con.execute("DELETE FROM users WHERE list_contains(?, id)", [users])
        if event_ids:
            self.con.execute("DELETE FROM system_events WHERE list_contains(?, id)", [event_ids])

    def events_mentioning(self, users: list[str], needles: list[str]) -> list[str]:
        """Ids of system_events of these users, or whose entity or data mentions any needle (case-insensitive)."""
        lowered = [n.lower() for n in needles] + [f'"{u.lower()}"' for u in users]
        rows = self.con.execute("""
            SELECT id FROM system_events
            WHERE list_contains(?, user_id)
               OR len(list_filter(?, lambda n: starts_with(lower(entity_id), n))) > 0
               OR len(list_filter(?, lambda n: contains(lower(data), n))) > 0""",
            [users, lowered, lowered]).fetchall()
        return [r[0] for r in rows]

    def documents_mentioning(self, needles: list[str]) -> list[dict[str, Any]]:
        """Documents (any owner) whose indexed text contains any needle."""
        if not needles:
            return []
        return self.catalog._dicts(
            f"SELECT {', '.join(DOC_COLUMNS)} FROM documents WHERE len(list_filter(?, lambda n: contains(search_text, n))) > 0",
            [needles])

    def record_deletion(self, subject_hash: str, at: datetime, backup_path: str, counts: dict[str, int]) -> None:
        self.con.execute("INSERT INTO deletion_audit VALUES (?, ?, ?, ?, ?)",
                         [uuid.uuid4().hex, subject_hash, at, backup_path, json.dumps(counts)])

    def deletion_audit(self) -> list[dict[str, Any]]:
        return self.catalog._dicts("SELECT * FROM deletion_audit ORDER BY executed_at")

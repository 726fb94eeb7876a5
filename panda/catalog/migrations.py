"""Catalog schema as named migrations, applied in order and recorded in `_migrations`.

Like llm's migrations.py: each migration is a function with a stable name; `pending()` lists what
would run without running it. Never edit a migration that has shipped; add a new one.
"""

from __future__ import annotations

from collections.abc import Callable

import duckdb

from panda.language.text import term_frequencies

EMBEDDING_DIM = 384  # m001's fixed width; m014 makes the column a list of any width (the embedder's, recorded)

Migration = Callable[[duckdb.DuckDBPyConnection], None]


def m001_documents(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(f"""
        CREATE TABLE documents (
            id VARCHAR PRIMARY KEY, kind VARCHAR NOT NULL, title VARCHAR, primary_topic VARCHAR,
            keywords VARCHAR[], intent VARCHAR, content_types VARCHAR[], scope VARCHAR,
            quality DOUBLE, importance DOUBLE, owner_user VARCHAR, session_id VARCHAR, turn_number INTEGER,
            usage_count INTEGER DEFAULT 0, reference_count INTEGER DEFAULT 0,
            validation_count INTEGER DEFAULT 0, validation_success INTEGER DEFAULT 0,
            created_at TIMESTAMPTZ, modified_at TIMESTAMPTZ, expires_at TIMESTAMPTZ,
            valid_at TIMESTAMPTZ, invalid_at TIMESTAMPTZ,
            links VARCHAR[], source_urls VARCHAR[], doc_path VARCHAR,
            search_text VARCHAR, doc_length INTEGER, embedding FLOAT[{EMBEDDING_DIM}]
        )""")
    con.execute("CREATE INDEX idx_documents_owner ON documents(owner_user)")
    con.execute("CREATE INDEX idx_documents_path ON documents(doc_path)")
    con.execute("CREATE TABLE postings (term VARCHAR NOT NULL, doc_id VARCHAR NOT NULL, tf INTEGER NOT NULL)")
    con.execute("CREATE INDEX idx_postings_term ON postings(term)")


def m002_turn_index(con: duckdb.DuckDBPyConnection) -> None:
    # Seed 000's canonical turn_index plus archival, revision and input-tracking columns.
    con.execute("""
        CREATE TABLE turn_index (
            id VARCHAR PRIMARY KEY, user_id VARCHAR NOT NULL, turn_number INTEGER NOT NULL,
            session_id VARCHAR, topic VARCHAR, intent VARCHAR, validation_outcome VARCHAR,
            strategy_summary VARCHAR, quality_score DOUBLE,
            user_feedback_status VARCHAR DEFAULT 'neutral', rejection_detected_in VARCHAR,
            created_at TIMESTAMPTZ, keywords VARCHAR, doc_path VARCHAR,
            archived BOOLEAN DEFAULT FALSE, summary_json VARCHAR, revision_count INTEGER DEFAULT 0,
            input_key VARCHAR UNIQUE, source_file VARCHAR, source_line INTEGER
        )""")
    for column in ("session_id", "topic", "validation_outcome", "created_at", "user_feedback_status"):
        con.execute(f"CREATE INDEX idx_turn_{column} ON turn_index({column})")


def m003_observability(con: duckdb.DuckDBPyConnection) -> None:
    # Seed 004's observability tables, adapted: ids are text, users are Panda user ids.
    con.execute("""
        CREATE TABLE llm_calls (
            id VARCHAR PRIMARY KEY, user_id VARCHAR, session_id VARCHAR, turn_id VARCHAR,
            phase VARCHAR NOT NULL, role VARCHAR, model VARCHAR NOT NULL, prompt_version VARCHAR,
            prompt_tokens INTEGER, completion_tokens INTEGER, latency_ms DOUBLE, batch_size INTEGER,
            started_at TIMESTAMPTZ, status VARCHAR, error_message VARCHAR
        )""")
    con.execute("""
        CREATE TABLE retrieval_operations (
            id VARCHAR PRIMARY KEY, user_id VARCHAR, session_id VARCHAR, turn_id VARCHAR,
            query VARCHAR, retrieval_type VARCHAR, candidates INTEGER, results INTEGER,
            result_ids VARCHAR[], retrieval_ms DOUBLE, context_tokens INTEGER, created_at TIMESTAMPTZ
        )""")
    con.execute("""
        CREATE TABLE system_events (
            id VARCHAR PRIMARY KEY, event_type VARCHAR NOT NULL, entity_type VARCHAR, entity_id VARCHAR,
            data VARCHAR, created_at TIMESTAMPTZ
        )""")
    con.execute("CREATE INDEX idx_llm_calls_phase ON llm_calls(phase)")
    con.execute("CREATE INDEX idx_events_type ON system_events(event_type)")


def m004_conversations(con: duckdb.DuckDBPyConnection) -> None:
    # Seed 004's users → threads → sessions → messages (user ids are Panda's names; metadata is JSON text).
    con.execute("""
        CREATE TABLE threads (
            id VARCHAR PRIMARY KEY, user_id VARCHAR NOT NULL, external_id VARCHAR NOT NULL,
            created_at TIMESTAMPTZ, last_message_at TIMESTAMPTZ, total_sessions INTEGER, total_messages INTEGER,
            summary VARCHAR, summary_updated_at TIMESTAMPTZ, topics VARCHAR[], status VARCHAR DEFAULT 'active'
        )""")
    con.execute("""
        CREATE TABLE sessions (
            id VARCHAR PRIMARY KEY, thread_id VARCHAR NOT NULL, user_id VARCHAR NOT NULL, number INTEGER NOT NULL,
            started_at TIMESTAMPTZ, last_message_at TIMESTAMPTZ, total_messages INTEGER, summary VARCHAR,
            summary_generated_at TIMESTAMPTZ, topics VARCHAR[], importance DOUBLE DEFAULT 0.5,
            status VARCHAR DEFAULT 'active', doc_path VARCHAR
        )""")
    con.execute("""
        CREATE TABLE messages (
            id VARCHAR PRIMARY KEY, user_id VARCHAR NOT NULL, thread_id VARCHAR NOT NULL, session_id VARCHAR NOT NULL,
            role VARCHAR NOT NULL, author VARCHAR, content VARCHAR NOT NULL, created_at TIMESTAMPTZ,
            metadata VARCHAR DEFAULT '{}', enrichment_status VARCHAR DEFAULT 'pending', enriched_at TIMESTAMPTZ,
            external_id VARCHAR, doc_path VARCHAR
        )""")
    con.execute("CREATE INDEX idx_messages_session ON messages(session_id, created_at)")
    con.execute("CREATE INDEX idx_messages_thread ON messages(thread_id, created_at)")
    con.execute("CREATE INDEX idx_messages_status ON messages(enrichment_status)")
    con.execute("CREATE INDEX idx_sessions_thread ON sessions(thread_id, number)")


def m005_evaluation(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("""
        CREATE TABLE eval_runs (
            run_id VARCHAR PRIMARY KEY, dataset VARCHAR NOT NULL, source VARCHAR, mode VARCHAR NOT NULL,
            backend VARCHAR, model VARCHAR, started_at TIMESTAMPTZ, finished_at TIMESTAMPTZ, items INTEGER,
            metrics VARCHAR
        )""")
    con.execute("""
        CREATE TABLE eval_items (
            run_id VARCHAR NOT NULL, item_id VARCHAR NOT NULL, conversation VARCHAR, category VARCHAR,
            question VARCHAR, gold VARCHAR, prediction VARCHAR, f1 DOUBLE, em DOUBLE, abstention_expected BOOLEAN,
            abstained BOOLEAN, recall VARCHAR, context_tokens INTEGER, latency_ms DOUBLE,
            PRIMARY KEY (run_id, item_id)
        )""")


def m006_maintenance(con: duckdb.DuckDBPyConnection) -> None:
    # Scheduled jobs: which documents each turn used (trust calibration), source extraction log and its
    # per-domain roll-up (seed 000 source reliability), deletion audit, stored content-type freshness.
    con.execute("""
        CREATE TABLE turn_uses (
            turn_id VARCHAR NOT NULL, user_id VARCHAR NOT NULL, doc_id VARCHAR NOT NULL, outcome VARCHAR,
            created_at TIMESTAMPTZ, PRIMARY KEY (turn_id, doc_id)
        )""")
    con.execute("CREATE INDEX idx_turn_uses_doc ON turn_uses(doc_id)")
    con.execute("""
        CREATE TABLE source_extractions (
            id VARCHAR PRIMARY KEY, domain VARCHAR NOT NULL, url VARCHAR, extraction_type VARCHAR NOT NULL,
            success BOOLEAN NOT NULL, confidence DOUBLE, user_id VARCHAR, created_at TIMESTAMPTZ
        )""")
    con.execute("""
        CREATE TABLE source_reliability (
            domain VARCHAR PRIMARY KEY, extractions INTEGER, successes INTEGER, mean_confidence DOUBLE,
            reliability DOUBLE, updated_at TIMESTAMPTZ
        )""")
    con.execute("""
        CREATE TABLE deletion_audit (
            id VARCHAR PRIMARY KEY, subject_hash VARCHAR NOT NULL, executed_at TIMESTAMPTZ, backup_path VARCHAR,
            counts VARCHAR
        )""")
    con.execute("ALTER TABLE documents ADD COLUMN freshness DOUBLE")


def m007_exactly_once(con: duckdb.DuckDBPyConnection) -> None:
    # Exactly-once counters (DESIGN §10): the documents each turn referenced (once per turn), documents
    # whose vault counters still need the catalog's values written back, reader journals already applied.
    # Observability keeps two clocks: created_at is when it happened (the input's time), recorded_at when
    # Panda wrote it (wall clock).
    con.execute("""
        CREATE TABLE turn_references (
            turn_id VARCHAR NOT NULL, user_id VARCHAR NOT NULL, doc_id VARCHAR NOT NULL, PRIMARY KEY (turn_id, doc_id)
        )""")
    con.execute("CREATE TABLE counter_sync (doc_id VARCHAR PRIMARY KEY)")
    con.execute("CREATE TABLE applied_journals (name VARCHAR PRIMARY KEY, applied_at TIMESTAMPTZ)")
    for table in ("llm_calls", "retrieval_operations", "system_events"):
        con.execute(f"ALTER TABLE {table} ADD COLUMN recorded_at TIMESTAMPTZ")
    con.execute("ALTER TABLE system_events ADD COLUMN user_id VARCHAR")


def m008_mindcore_observability(con: duckdb.DuckDBPyConnection) -> None:
    # Seed 004's remaining fields: llm_calls context, completion and cost; retrieval_operations'
    # classification and cache fields; the users table with its aggregated counts (refreshed from
    # threads/sessions/messages by Conversations.refresh_users, never edited by hand).
    for column, kind in (("thread_id", "VARCHAR"), ("message_id", "VARCHAR"), ("completed_at", "TIMESTAMPTZ"),
                         ("cost_usd", "DOUBLE")):
        con.execute(f"ALTER TABLE llm_calls ADD COLUMN {column} {kind}")
    for column, kind in (("thread_id", "VARCHAR"), ("turn_type", "VARCHAR"), ("sessions_searched", "INTEGER DEFAULT 0"),
                         ("threads_searched", "INTEGER DEFAULT 0"), ("summaries_retrieved", "INTEGER DEFAULT 0"),
                         ("messages_in_context", "INTEGER DEFAULT 0"), ("cache_hit", "BOOLEAN DEFAULT FALSE"),
                         ("cache_key", "VARCHAR"), ("classification_ms", "DOUBLE"), ("total_ms", "DOUBLE")):
        con.execute(f"ALTER TABLE retrieval_operations ADD COLUMN {column} {kind}")
    con.execute("""
        CREATE TABLE users (
            id VARCHAR PRIMARY KEY, created_at TIMESTAMPTZ, updated_at TIMESTAMPTZ, total_threads INTEGER DEFAULT 0,
            total_sessions INTEGER DEFAULT 0, total_messages INTEGER DEFAULT 0, last_active_at TIMESTAMPTZ
        )""")


def m009_eval_judge(con: duckdb.DuckDBPyConnection) -> None:
    # LoCoMo's J: an LLM judge's CORRECT/WRONG per answered item, with its reason.
    con.execute("ALTER TABLE eval_items ADD COLUMN judge_label VARCHAR")
    con.execute("ALTER TABLE eval_items ADD COLUMN judge_reason VARCHAR")


def m010_session_lifecycle(con: duckdb.DuckDBPyConnection) -> None:
    # Seed 004's session and thread fields; status follows active -> ended -> summarized (transcript.lifecycle).
    for column, kind in (("ended_at", "TIMESTAMPTZ"), ("primary_topic", "VARCHAR"), ("category", "VARCHAR"),
                         ("entities", "VARCHAR[]"), ("outcome", "VARCHAR"), ("sentiment", "VARCHAR")):
        con.execute(f"ALTER TABLE sessions ADD COLUMN {column} {kind}")
    for column, kind in (("title", "VARCHAR"), ("updated_at", "TIMESTAMPTZ"), ("primary_topic", "VARCHAR"),
                         ("categories", "VARCHAR[]"), ("entities", "VARCHAR[]")):
        con.execute(f"ALTER TABLE threads ADD COLUMN {column} {kind}")


def m011_knowledge_queue(con: duckdb.DuckDBPyConnection) -> None:
    # Global knowledge a research turn learned, published after its batch in (queued_at, turn_id) order
    # (research/publication.py); the row is written in the turn's commit transaction.
    con.execute("""
        CREATE TABLE knowledge_queue (
            turn_id VARCHAR PRIMARY KEY, user_id VARCHAR NOT NULL, turn_dir VARCHAR NOT NULL,
            queued_at TIMESTAMPTZ NOT NULL, published_at TIMESTAMPTZ
        )""")


def m012_user_preferences(con: duckdb.DuckDBPyConnection) -> None:
    # Seed 004's user_preferences table, as a view: preferences.md is the truth and every entry is a
    # `preference` document (documents/vault.entry_document; preference_type is its one keyword).
    # The entry's own line is the last line of search_text (Document.search_text: title and tags, then body).
    con.execute("""
        CREATE VIEW user_preferences AS
        WITH p AS (SELECT *, regexp_extract(search_text, '[^\\n]*$') AS line FROM documents WHERE kind = 'preference')
        SELECT id, owner_user AS user_id, coalesce(keywords[1], 'general') AS preference_type,
               CASE WHEN contains(line, ': ') THEN split_part(line, ': ', 1) END AS key,
               CASE WHEN contains(line, ': ') THEN substr(line, strpos(line, ': ') + 2) ELSE line END AS value,
               session_id AS source_session_id, quality AS confidence, valid_at AS learned_at,
               invalid_at, invalid_at IS NULL OR invalid_at > now() AS is_active
        FROM p""")


def m013_catalog_settings(con: duckdb.DuckDBPyConnection) -> None:
    # Facts about the catalog itself, e.g. which embedder made its vectors (runtime.check_embedder).
    con.execute("CREATE TABLE catalog_settings (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)")


def m014_embedding_any_dim(con: duckdb.DuckDBPyConnection) -> None:
    # The vector width is the embedder's (384 for all-MiniLM-L6-v2, 768 or a Matryoshka cut for EmbeddingGemma),
    # recorded in catalog_settings.embedding_dim (Catalog.upsert_documents keeps one width per catalog). DuckDB
    # cannot alter a column of a table with indexes: they are dropped and made again around the change.
    con.execute("DROP INDEX IF EXISTS idx_documents_owner")
    con.execute("DROP INDEX IF EXISTS idx_documents_path")
    con.execute("ALTER TABLE documents ALTER COLUMN embedding TYPE FLOAT[]")
    con.execute("CREATE INDEX idx_documents_owner ON documents(owner_user)")
    con.execute("CREATE INDEX idx_documents_path ON documents(doc_path)")
    if con.execute("SELECT count(*) FROM documents WHERE embedding IS NOT NULL").fetchone()[0]:  # type: ignore[index]
        con.execute(f"INSERT OR REPLACE INTO catalog_settings VALUES ('embedding_dim', '{EMBEDDING_DIM}')")


def m015_postings_undoubled(con: duckdb.DuckDBPyConnection) -> None:
    # The stemmer undoubles a last consonant ("running" -> "run", language/text.stem): each document's postings are
    # made again from its search text, so an older catalog's terms meet a newer query's. A document keeps its length
    # (stemming changes terms, not their count).
    con.execute("DELETE FROM postings")
    rows = con.execute("SELECT id, search_text FROM documents").fetchall()
    postings = [(term, doc_id, count) for doc_id, text in rows for term, count in term_frequencies(text or "").items()]
    if postings:
        con.executemany("INSERT INTO postings VALUES (?, ?, ?)", postings)


MIGRATIONS: list[tuple[str, Migration]] = [
    ("m001_documents", m001_documents),
    ("m002_turn_index", m002_turn_index),
    ("m003_observability", m003_observability),
    ("m004_conversations", m004_conversations),
    ("m005_evaluation", m005_evaluation),
    ("m006_maintenance", m006_maintenance),
    ("m007_exactly_once", m007_exactly_once),
    ("m008_mindcore_observability", m008_mindcore_observability),
    ("m009_eval_judge", m009_eval_judge),
    ("m010_session_lifecycle", m010_session_lifecycle),
    ("m011_knowledge_queue", m011_knowledge_queue),
    ("m012_user_preferences", m012_user_preferences),
    ("m013_catalog_settings", m013_catalog_settings),
    ("m014_embedding_any_dim", m014_embedding_any_dim),
    ("m015_postings_undoubled", m015_postings_undoubled),
]


def applied(con: duckdb.DuckDBPyConnection) -> set[str]:
    con.execute("CREATE TABLE IF NOT EXISTS _migrations (name VARCHAR PRIMARY KEY, applied_at TIMESTAMPTZ)")
    return {row[0] for row in con.execute("SELECT name FROM _migrations").fetchall()}


def pending(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Names of migrations not yet applied (read-only apart from creating the bookkeeping table)."""
    done = applied(con)
    return [name for name, _ in MIGRATIONS if name not in done]


def migrate(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Apply pending migrations in order, each in its own transaction. Returns their names."""
    done = applied(con)
    ran = []
    for name, fn in MIGRATIONS:
        if name in done:
            continue
        con.execute("BEGIN")
        try:
            fn(con)
            con.execute("INSERT INTO _migrations VALUES (?, now())", [name])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        ran.append(name)
    return ran

"""Conversation ingest: logged messages → session transcripts, catalog rows, facts and preferences.

Users → threads (the input's conversation id) → sessions (cut at a 30-minute gap) → messages, as in
seed 004, with the input's timestamps, never the clock. Order of work, for crash safety: transcripts
are written first (vault = truth), then one catalog transaction indexes the new messages (and any
message a crashed run left on disk but not in the catalog), then preferences and facts from
deterministic patterns. LLM enrichment is separate (conversations/enrich.py) and marks what it could not do
as failed, to be retried. Re-ingesting a file adds nothing: ids are derived from the input.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from panda.catalog.conversations import Conversations
from panda.conversations import emotion
from panda.conversations.learned import Learned, from_statement, record
from panda.conversations.messages import MessageInput, assign_ids
from panda.conversations.sessions import ThreadState, sessionize
from panda.conversations.summaries import read_thread_summary
from panda.documents.atomic import atomic_write_text
from panda.documents.model import Document
from panda.documents.paths import validate_name
from panda.documents.transcript import SessionTranscript, TranscriptMessage
from panda.home import Home
from panda.language.facts import extract_statements
from panda.language.vocabulary import SENTIMENT_INTENSITY
from panda.memory import scoring
from panda.memory.embeddings import embed_documents

log = logging.getLogger(__name__)


@dataclass
class IngestReport:
    read: int = 0
    new: int = 0
    already_known: int = 0
    recovered: int = 0
    sessions_touched: int = 0
    threads: int = 0
    facts_recorded: int = 0
    malformed_lines: int = 0
    seconds: float = 0.0
    enrichment: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def thread_dir(ctx: Home, user_id: str, thread: str) -> Path:
    return ctx.vault.layout.user_dir(user_id) / "threads" / validate_name(thread, "session_id")


def catalog_thread_id(user_id: str, thread: str) -> str:
    """Example: catalog_thread_id('alice', 'chat') -> 'alice:chat'; its sessions are 'alice:chat-s0001', ..."""
    return f"{user_id}:{thread}"


def catalog_session_id(transcript: SessionTranscript) -> str:
    return f"{transcript.user_id}:{transcript.session_id}"


def transcript_rel_path(ctx: Home, transcript: SessionTranscript) -> str:
    """Where a transcript lives: its thread folder, or archive/YYYY-MM/{user}/threads/{thread}/ once archived."""
    if transcript.archived_month:
        path = (ctx.vault.layout.home / "archive" / validate_name(transcript.archived_month, "month")
                / validate_name(transcript.user_id, "user_id") / "threads" / validate_name(transcript.thread_id, "thread")
                / transcript.file_name)
        return ctx.vault.layout.relative(path)
    return ctx.vault.layout.relative(thread_dir(ctx, transcript.user_id, transcript.thread_id) / transcript.file_name)


def load_thread(ctx: Home, user_id: str, thread: str) -> dict[int, SessionTranscript]:
    """Every session of a thread by number: active and compressed ones in the thread folder, archived ones."""
    folder = thread_dir(ctx, user_id, thread)
    paths = sorted(folder.glob("session_*.md")) if folder.exists() else []
    paths += sorted(ctx.vault.home.glob(f"archive/*/{validate_name(user_id, 'user_id')}/threads/{thread}/session_*.md"))
    out = {}
    for path in paths:
        transcript = SessionTranscript.parse(path.read_text(encoding="utf-8"))
        out[transcript.number] = transcript
    return out


def summary_document_id(session_key: str) -> str:
    """Stable id of a session's summary document. Example: summary_document_id('alice:chat-s0001') -> 'sum_…'."""
    return "sum_" + hashlib.sha1(session_key.encode()).hexdigest()[:16]


def summary_document(transcript: SessionTranscript, rel_path: str) -> Document:
    """The searchable document of a session summary (its own id; counters kept through compression)."""
    counters = transcript.summary_counters
    types = ["summary", "session_summary"] + (["archived"] if transcript.stage == "archived" else [])
    when = transcript.last_time or transcript.first_time or datetime.fromtimestamp(0, UTC)
    return Document(
        id=summary_document_id(catalog_session_id(transcript)), kind="session_summary",
        title=f"Session {transcript.number} of {transcript.thread_id}", primary_topic="conversation.summary",
        keywords=[transcript.thread_id], intent="conversational", content_types=types, scope="user", quality=0.6,
        importance=0.15, owner_user=transcript.user_id, session_id=catalog_session_id(transcript), created_at=when,
        reference_count=int(counters.get("reference_count", 0)), usage_count=int(counters.get("usage_count", 0)),
        validation_count=int(counters.get("validation_count", 0)),
        validation_success=int(counters.get("validation_success", 0)),
        doc_path=f"{rel_path}#summary", body=transcript.summary or "",
    )


def vehemence(metadata: dict[str, Any], text: str = "", from_words: bool = False) -> float:
    """Seed 001 vehemence: urgency = enrichment's importance, sentiment intensity by its label; risk from
    the words (conversations/emotion.py). Without enrichment, urgency and sentiment are the seed's defaults (0.3,
    0) for a message — the word rules moved LoCoMo recall@10 down by 0.002 on both halves, so they stay
    out of message ranking — and come from the words for a turn's query (`from_words`).

    Example: {'importance': 0.8, 'sentiment': 'negative'} -> 0.8*0.5 + 0.7*0.3 = 0.61; {} and 'Hi' -> 0.15;
    {} and 'I think I was scammed' -> 0.15 + 0.6*0.2 = 0.27; the same from_words with 'I need help
    immediately' added -> 0.9*0.5 + 0 + 0.6*0.2 = 0.57.
    """
    risk = emotion.risk_of(text)
    if "importance" not in metadata:
        if not from_words:
            return scoring.vehemence_score(None, 0.0, risk)
        return scoring.vehemence_score(emotion.urgency_of(text), emotion.sentiment_of(text), risk)
    return scoring.vehemence_score(float(metadata["importance"]),
                                   SENTIMENT_INTENSITY.get(str(metadata.get("sentiment", "neutral")), 0.0), risk)


def message_document(transcript: SessionTranscript, message: TranscriptMessage, rel_path: str,
                     context: str = "", position: int | None = None) -> Document:
    """The searchable catalog document of one message (counters kept in its transcript metadata).

    `position` (1-based place in its session) is kept as turn_number: search reads a message's
    neighbours by it (memory/conversation_signals.py). keywords[0] is the message's author."""
    meta = message.metadata
    topics = list(meta.get("topics", []))
    counters = meta.get("counters", {})
    return Document(
        id=message.id, kind="message", title=" ".join(message.content.split()[:12])[:120],
        primary_topic="conversation." + topics[0] if topics else "conversation",
        keywords=[message.author, *topics][:6], intent="conversational", content_types=["message", message.role],
        scope="user", quality=0.5, importance=round(vehemence(meta, message.content), 4), owner_user=transcript.user_id,
        session_id=catalog_session_id(transcript), turn_number=position, created_at=message.timestamp,
        reference_count=int(counters.get("reference_count", 0)), usage_count=int(counters.get("usage_count", 0)),
        validation_count=int(counters.get("validation_count", 0)),
        validation_success=int(counters.get("validation_success", 0)),
        doc_path=f"{rel_path}#{message.id}", body=f"{message.author}: {message.content}",
        extra={"search_context": context} if context else {},
    )


def context_before(transcript: SessionTranscript, index: int, turns: int) -> str:
    """The `turns` messages before message `index` in its session, as indexed context (pure)."""
    if turns <= 0:
        return ""
    previous = transcript.messages[max(0, index - turns):index]
    return "\n".join(f"{m.author}: {m.content}" for m in previous)


def session_profile(messages: list[Any]) -> dict[str, Any]:
    """Seed 004's session fields from its messages' enrichment (pure): the most common topic, category and
    sentiment, the entities named (first 10). The outcome is not the messages' to say: session_outcome.

    Example: topics [pets], [pets, food], [food, pets] -> primary_topic 'pets'.
    """
    def common(values: list[str]) -> str | None:
        return Counter(values).most_common(1)[0][0] if values else None

    metas = [m.metadata for m in messages]
    entities = list(dict.fromkeys(str(e.get("value")) for md in metas for e in md.get("entities", [])
                                  if isinstance(e, dict) and e.get("value")))[:10]
    return {"primary_topic": common([t for md in metas for t in md.get("topics", [])]),
            "category": common([str(md["category"]) for md in metas if md.get("category")]),
            "sentiment": common([str(md["sentiment"]) for md in metas if md.get("sentiment")]),
            "entities": entities}


def session_outcome(transcript: SessionTranscript) -> str | None:
    """Seed 004's session outcome: 'ongoing' while the session is open, then what the summarisation judged
    with the summary (resolved, escalated, abandoned, ongoing, transferred); None for a session that ended
    without one (nothing worth summarising, or a summary from before outcomes were judged)."""
    return "ongoing" if transcript.lifecycle == "active" else transcript.outcome


def catalog_rows(transcript: SessionTranscript, rel_path: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The sessions row and messages rows of one transcript (pure)."""
    sid = catalog_session_id(transcript)
    tid = catalog_thread_id(transcript.user_id, transcript.thread_id)
    msgs = transcript.messages
    session = {"id": sid, "thread_id": tid, "user_id": transcript.user_id, "number": transcript.number,
               "started_at": transcript.first_time, "last_message_at": transcript.last_time,
               "total_messages": transcript.message_count, "summary": transcript.summary,
               "summary_generated_at": transcript.summary_generated_at,
               "topics": sorted({t for m in msgs for t in m.metadata.get("topics", [])}),
               "importance": max((vehemence(m.metadata, m.content) for m in msgs), default=0.15), "status": transcript.lifecycle,
               "doc_path": rel_path, "ended_at": transcript.ended_at, "outcome": session_outcome(transcript),
               **session_profile(msgs)}
    rows = [{"id": m.id, "user_id": transcript.user_id, "thread_id": tid, "session_id": sid, "role": m.role,
             "author": m.author, "content": m.content, "created_at": m.timestamp,
             "metadata": {k: v for k, v in m.metadata.items() if k != "counters"},  # counters: documents table
             "enrichment_status": m.status, "enriched_at": None, "external_id": m.external_id,
             "doc_path": f"{rel_path}#{m.id}"} for m in msgs]
    return session, rows


def index_transcripts(ctx: Home, transcripts: list[SessionTranscript],
                      changed: set[str] | None = None, with_summaries: bool = False) -> int:
    """Upsert sessions, messages, threads and message documents of these transcripts in one transaction.

    `changed` limits the (embedded) documents to those message ids; None re-indexes every message and
    summary. A message's indexed context is only the turns before it, so new or enriched messages never
    change the documents of the others. `with_summaries` re-indexes the session summary documents too.
    """
    conv = Conversations(ctx.catalog)
    docs: list[Document] = []
    sessions, messages, threads = [], [], set()
    for transcript in transcripts:
        rel = transcript_rel_path(ctx, transcript)
        if transcript.summary and (changed is None or with_summaries):
            docs.append(summary_document(transcript, rel))
        session, rows = catalog_rows(transcript, rel)
        sessions.append(session)
        messages += rows
        # Messages of pipeline turns are searchable through the turn's own context document already.
        turns = ctx.policy.retrieval.message_context_turns
        docs += [message_document(transcript, m, rel, context_before(transcript, i, turns), position=i + 1)
                 for i, m in enumerate(transcript.messages)
                 if "turn_id" not in m.metadata and (changed is None or m.id in changed)]
        threads.add((transcript.user_id, transcript.thread_id))
    vectors = list(embed_documents(ctx.memory.embedder, docs)) if docs else []
    with ctx.catalog.transaction():
        for session in sessions:
            conv.upsert_session(session)
        conv.upsert_messages(messages)
        ctx.catalog.upsert_documents(docs, vectors)
        for user_id, thread in sorted(threads):
            conv.refresh_thread(user_id, catalog_thread_id(user_id, thread), thread)
            summary = read_thread_summary(ctx.vault.layout, user_id, thread)
            if summary is not None:
                conv.set_thread_summary(catalog_thread_id(user_id, thread), summary.text, summary.generated_at)
        conv.refresh_users(sorted({user_id for user_id, _ in threads}))
    for session in sessions:  # write-through: a held session's cached messages follow the catalog
        if ctx.session_cache.holds(session["id"]):
            ctx.session_cache.refresh(session["id"], [
                {k: m[k] for k in ("id", "role", "author", "content", "created_at", "doc_path")}
                for m in messages if m["session_id"] == session["id"]])
    return len(messages)


def ingest_messages(ctx: Home, messages: list[MessageInput], recorded_at: datetime | None = None,
                    extract_facts: bool = True) -> IngestReport:
    started = time.perf_counter()
    report = IngestReport(read=len(messages))
    conv = Conversations(ctx.catalog)
    with_ids = assign_ids(messages)
    known = conv.known_message_ids([i for i, _ in with_ids])
    report.already_known = sum(1 for i, _ in with_ids if i in known)
    groups: dict[tuple[str, str], list[tuple[str, MessageInput]]] = defaultdict(list)
    for mid, msg in with_ids:
        if mid not in known:
            groups[(msg.user_id, msg.thread_id)].append((mid, msg))
    to_index: list[SessionTranscript] = []
    changed: set[str] = set()  # fresh and recovered message ids: the only documents to (re)embed
    started_sessions: list[tuple[SessionTranscript, int]] = []
    learned: dict[str, list[Learned]] = defaultdict(list)
    for (user_id, thread), items in groups.items():
        items.sort(key=lambda pair: pair[1].timestamp)  # stable: equal times keep input order
        transcripts = load_thread(ctx, user_id, thread)
        compressed = {i for t in transcripts.values() for i in t.compressed_ids}
        report.already_known += sum(1 for mid, _ in items if mid in compressed)
        items = [(mid, m) for mid, m in items if mid not in compressed]  # aged into a summary: not new
        on_disk = {m.id: n for n, t in transcripts.items() for m in t.messages}
        recovered = {on_disk[mid] for mid, _ in items if mid in on_disk}
        report.recovered += sum(1 for mid, _ in items if mid in on_disk)
        fresh = [(mid, m) for mid, m in items if mid not in on_disk]
        last = max(transcripts) if transcripts else 0
        state = ThreadState(last, transcripts[last].messages[-1].timestamp if last and transcripts[last].messages else None)
        numbers = sessionize([m.timestamp for _, m in fresh], state, ctx.policy.sessions.gap_minutes)
        opened = sorted(n for n in set(numbers) if n not in transcripts)
        for (mid, msg), number in zip(fresh, numbers, strict=True):
            transcript = transcripts.setdefault(number, SessionTranscript(user_id, thread, number))
            transcript.thread_title = transcript.thread_title or msg.thread_title or None
            transcript.messages.append(TranscriptMessage(
                id=mid, role=msg.role, author=msg.author, timestamp=msg.timestamp, content=msg.content,
                external_id=msg.external_id, metadata=dict(msg.extra),
                status="pending"))  # a turn's messages too: `panda run --enrich` or `panda enrich` (seed 004)
        if extract_facts:  # fresh and recovered messages alike: a crashed run may not have got this far
            session_of = {m.id: catalog_session_id(t) for t in transcripts.values() for m in t.messages}
            for mid, msg in items:
                if msg.role != "user":
                    continue
                for i, statement in enumerate(extract_statements(msg.content, msg.speaker or "user"), 1):
                    learned[user_id].append(from_statement(statement, f"{statement.kind[:4]}_{mid[4:]}_{i}",
                                                           msg.timestamp, mid, session_id=session_of.get(mid)))
        changed.update(mid for mid, _ in items)
        touched = sorted(set(numbers) | recovered)
        folder = thread_dir(ctx, user_id, thread)
        for number in set(numbers):
            transcript = transcripts[number]
            atomic_write_text(folder / transcript.file_name, transcript.render())
        to_index += [transcripts[n] for n in touched]
        started_sessions += [(transcripts[n], n) for n in opened]
        report.new += len(fresh)
        report.sessions_touched += len(touched)
    report.threads = len(groups)
    if to_index:
        index_transcripts(ctx, to_index, changed)
    for transcript, _number in started_sessions:  # seed 004 observability: session lifecycle events
        ctx.catalog.record_event("session_started", "session", catalog_session_id(transcript),
                                 {"thread": transcript.thread_id}, transcript.messages[0].timestamp)
    stamp = recorded_at or datetime.now(UTC)
    for user_id, statements in learned.items():
        docs = record(ctx.vault, user_id, statements, stamp, ctx.policy.write.log_changes)
        ctx.memory.index(docs)
        report.facts_recorded += len(docs)
    report.seconds = round(time.perf_counter() - started, 3)
    ctx.catalog.record_event("ingest", "batch", None, report.as_dict(), stamp)
    return report

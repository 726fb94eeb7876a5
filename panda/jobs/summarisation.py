"""Summarisation job (seed 004): session summaries when sessions end, thread summaries from them.

A session has ended when its last message is more than the session gap (30 minutes) before the job's
clock. Every ended session without an up-to-date summary gets one NERVES request; all of them go to
the backend as one batch (chunks of 64), and so do the thread summaries that follow. A summary is
written to the transcript's frontmatter (the truth), mirrored to Logs/Sessions/{user}/{thread}/, and
indexed: the sessions/threads rows (retrieval routing reads them) and a session_summary document
with its own id. A reply that does not parse leaves the session for the next run.
`summarise_sessions` is shared with the aging job, which needs a summary before it compresses.

Seed 004's session lifecycle: a session is `active` until the job finds its gap passed, which writes
`ended_at` (its last message's time) to the transcript and a `session_ended` event; a summary makes it
`summarized` (`summary_generated` event). The status is read from the transcript (`lifecycle`), so a
reindex gives the same rows.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pydantic import ValidationError

from panda.conversations.ingest import catalog_session_id, catalog_thread_id, index_transcripts, transcript_rel_path
from panda.conversations.summaries import ThreadSummary, read_thread_summary, write_session_note, write_thread_summary
from panda.documents.atomic import atomic_write_text
from panda.documents.transcript import SessionTranscript
from panda.jobs.common import JobReport, JobRun
from panda.llm.backend import ChatRequest
from panda.llm.prompts import load_prompt
from panda.llm.roles import NERVES, sampling_for
from panda.llm.schemas import SessionSummary, Summary

CHUNK = 64
INPUT_WORDS = 700  # what a session contributes to its prompt (the 135M model's context is small)
SCHEMAS: dict[str, type[Summary]] = {"session": SessionSummary, "thread": Summary}  # the reply's schema by kind
THREAD_SESSIONS = 10  # seed 004: a thread summary is built from its last 10 session summaries


def session_text(transcript: SessionTranscript, max_words: int = INPUT_WORDS) -> str:
    """'Author: content' lines of the messages worth summarising, keeping the end of long sessions (pure).

    Example: two messages 'Ann: hi' and 'Bob: hello' -> 'Ann: hi\\nBob: hello'; 'Ann: hi' enriched with
    should_summarize False is left out while another message is marked (seed 004: the summary reads the messages
    marked for it, and every message when none is).
    """
    marked = [m for m in transcript.messages if summarisable(m)] or transcript.messages
    lines = [f"{m.author}: {' '.join(m.content.split())}" for m in marked]
    out: list[str] = []
    budget = max_words
    for line in reversed(lines):
        n = len(line.split())
        if n > budget:
            if not out:
                out.append(" ".join(line.split()[:max_words]))
            break
        out.append(line)
        budget -= n
    return "\n".join(reversed(out))


def thread_text(sessions: list[SessionTranscript]) -> str:
    """What a thread summary is written from: its last THREAD_SESSIONS session summaries, oldest first (pure).

    Example: sessions 1..12 summarised 's1'..'s12' -> 'Session 3: s3' ... 'Session 12: s12', one a line."""
    return "\n".join(f"Session {t.number}: {t.summary}" for t in sessions[-THREAD_SESSIONS:])


def has_ended(transcript: SessionTranscript, now: Any, gap_minutes: int) -> bool:
    """An active session whose last message is older than the session gap (seed 004: active -> ended)."""
    last = transcript.last_time
    return transcript.stage == "active" and bool(transcript.messages) and last is not None \
        and now - last > timedelta(minutes=gap_minutes)


def needs_summary(transcript: SessionTranscript, now: Any, gap_minutes: int) -> bool:
    """A session that has ended and whose summary is missing or older than its last message. Every ended session
    gets one (seed 004 summarises all messages of a session none of whose messages is marked should_summarize)."""
    if not has_ended(transcript, now, gap_minutes):
        return False
    last = transcript.last_time
    assert last is not None
    return transcript.summary is None or transcript.summary_generated_at is None \
        or transcript.summary_generated_at < last


def summarisable(message: Any) -> bool:
    """Seed 004's should_summarize for one message: False only when its enrichment said so."""
    return message.metadata.get("should_summarize", True) is not False


def _request(job: JobRun, kind: str, text: str, user_id: str, session_id: str | None) -> ChatRequest:
    template = load_prompt("summarize")
    limit = max(20, int(job.ctx.policy.retention.summary_token_limit * 0.7))  # ~0.75 words a token
    return ChatRequest(role=NERVES, messages=template.render(kind=kind, limit=limit, text=text),
                       sampling=sampling_for(NERVES, job.ctx.policy.llm, job.ctx.policy.retention.summary_token_limit + 40),
                       schema=SCHEMAS[kind].model_json_schema(), phase=f"summarize_{kind}", prompt_version=template.id,
                       user_id=user_id, session_id=session_id)


def generate(job: JobRun, requests: list[ChatRequest], kind: str) -> list[Summary | None]:
    """Run requests in batches; the parsed reply of each, or None when it did not parse or its summary is empty."""
    out: list[Summary | None] = []
    backend = job.backend()
    for start in range(0, len(requests), CHUNK):
        chunk = requests[start:start + CHUNK]
        results = backend.generate(chunk)
        calls = []
        for request, result in zip(chunk, results, strict=True):
            reply, status, error = None, "ok", result.error
            if result.error:
                status = "error"
            else:
                try:
                    parsed = SCHEMAS[kind].model_validate_json(result.text)
                    reply = parsed.model_copy(update={"summary": parsed.summary.strip()}) if parsed.summary.strip() else None
                except ValidationError as exc:
                    status, error = "parse_error", str(exc.errors()[0]["msg"])
            out.append(reply)
            calls.append({"user_id": request.user_id, "session_id": request.session_id, "turn_id": None,
                          "phase": request.phase, "role": NERVES, "model": result.model or backend.model_for(NERVES),
                          "prompt_version": request.prompt_version, "prompt_tokens": result.prompt_tokens,
                          "completion_tokens": result.completion_tokens, "latency_ms": result.latency_ms,
                          "batch_size": len(chunk), "started_at": job.now, "status": status, "error_message": error})
        job.ctx.catalog.record_llm_calls(calls, job.ctx.policy.llm.prices_usd_per_million)
    return out


def summarise_sessions(job: JobRun, transcripts: list[SessionTranscript]) -> list[SessionTranscript]:
    """Give each transcript a fresh summary (written to disk and indexed). Returns those that got one."""
    if not transcripts:
        return []
    requests = [_request(job, "session", session_text(t), t.user_id, catalog_session_id(t)) for t in transcripts]
    done = []
    for transcript, reply in zip(transcripts, generate(job, requests, "session"), strict=True):
        if not isinstance(reply, SessionSummary):
            continue
        transcript.summary, transcript.summary_generated_at, transcript.outcome = reply.summary, job.now, reply.outcome
        rel = transcript_rel_path(job.ctx, transcript)
        atomic_write_text(job.ctx.vault.layout.resolve_relative(rel), transcript.render())
        write_session_note(job.ctx.vault.layout, transcript, rel)
        done.append(transcript)
    for start in range(0, len(done), CHUNK):
        index_transcripts(job.ctx, done[start:start + CHUNK], changed=set(), with_summaries=True)
    return done


def summarise_threads(job: JobRun, threads: set[tuple[str, str]], report: JobReport) -> None:
    """Thread summaries from the (most recent) session summaries of each thread."""
    from panda.conversations.ingest import load_thread

    work: list[tuple[str, str, list[SessionTranscript]]] = []
    for user_id, thread in sorted(threads):
        sessions = [t for _, t in sorted(load_thread(job.ctx, user_id, thread).items()) if t.summary]
        if sessions:
            work.append((user_id, thread, sessions))
    if job.dry_run or not work:
        return
    requests = [_request(job, "thread", thread_text(sessions), user_id, None) for user_id, thread, sessions in work]
    from panda.catalog.conversations import Conversations

    conv = Conversations(job.ctx.catalog)
    for (user_id, thread, sessions), reply in zip(work, generate(job, requests, "thread"), strict=True):
        if reply is None:
            report.change("thread_summaries_failed", f"{user_id}/{thread}: reply did not parse; retried next run")
            continue
        write_thread_summary(job.ctx.vault.layout, user_id, thread, ThreadSummary(reply.summary, job.now, len(sessions)))
        conv.set_thread_summary(catalog_thread_id(user_id, thread), reply.summary, job.now)


def mark_ended(job: JobRun, transcripts: list[SessionTranscript]) -> None:
    """active -> ended: the transcript records when it ended (its last message), once, with an event; the
    sessions rows follow (a summary that then fails to parse leaves them `ended`)."""
    marked = []
    for transcript in transcripts:
        if transcript.ended_at is None and transcript.last_time is not None:
            transcript.ended_at = transcript.last_time
            rel = transcript_rel_path(job.ctx, transcript)
            atomic_write_text(job.ctx.vault.layout.resolve_relative(rel), transcript.render())
            job.ctx.catalog.record_event("session_ended", "session", catalog_session_id(transcript),
                                         {"last_message_at": transcript.ended_at.isoformat()}, job.now,
                                         user_id=transcript.user_id)
            marked.append(transcript)
    for start in range(0, len(marked), CHUNK):
        index_transcripts(job.ctx, marked[start:start + CHUNK], changed=set())


def run(job: JobRun) -> JobReport:
    ctx = job.ctx
    report = JobReport("summarisation", job.now, job.dry_run)
    gap = ctx.policy.sessions.gap_minutes
    due = []
    transcripts = list(ctx.vault.iter_transcripts())
    for transcript in transcripts:
        report.count("sessions_checked")
        if needs_summary(transcript, job.now, gap):
            due.append(transcript)
    threads: set[tuple[str, str]] = set()
    for transcript in due:
        report.change("session_summaries", f"{catalog_session_id(transcript)}: summarise {len(transcript.messages)} messages")
        threads.add((transcript.user_id, transcript.thread_id))
    # A thread whose summary file is missing although sessions are summarised (a killed run) is redone.
    for transcript in transcripts:
        key = (transcript.user_id, transcript.thread_id)
        if transcript.summary and key not in threads and read_thread_summary(ctx.vault.layout, *key) is None:
            threads.add(key)
    for user_id, thread in sorted(threads):
        report.change("thread_summaries", f"{catalog_thread_id(user_id, thread)}: summarise its sessions")
    if job.dry_run:
        return report.finish(ctx)
    # Every session that ended is marked so, summary or not (small talk ends too; it just gets no summary).
    mark_ended(job, [t for t in transcripts if t.ended_at is None and has_ended(t, job.now, gap)])
    done = summarise_sessions(job, due)
    for transcript in done:
        ctx.catalog.record_event("summary_generated", "session", catalog_session_id(transcript),
                                 {"messages": len(transcript.messages)}, job.now, user_id=transcript.user_id)
    failed = len(due) - len(done)
    if failed:
        report.notes.append(f"{failed} session summaries did not parse; they are retried by the next run")
    summarise_threads(job, threads, report)
    return report.finish(ctx)

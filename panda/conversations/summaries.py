"""Session and thread summaries on disk (seed 004): Logs/Sessions/{user}/{thread}/.

A session's summary lives in its transcript's frontmatter (the truth the catalog is rebuilt from) and
is mirrored as a readable note, Logs/Sessions/{user}/{thread}/session_NNNN.md, linking back to the
transcript. A thread's summary, built from its session summaries, lives in thread.md in the same
folder. Left out: producing summaries (jobs/summarisation.py) and SQL (catalog/).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import frontmatter

from panda.documents.atomic import atomic_write_text
from panda.documents.model import iso, parse_time
from panda.documents.paths import VaultLayout, validate_name
from panda.documents.transcript import SessionTranscript


@dataclass(frozen=True)
class ThreadSummary:
    text: str
    generated_at: datetime | None
    sessions: int


def summaries_dir(layout: VaultLayout, user_id: str, thread: str) -> Path:
    return layout.inside(layout.home / "Logs" / "Sessions" / validate_name(user_id, "user_id")
                         / validate_name(thread, "thread"))


def thread_summary_path(layout: VaultLayout, user_id: str, thread: str) -> Path:
    return summaries_dir(layout, user_id, thread) / "thread.md"


def read_thread_summary(layout: VaultLayout, user_id: str, thread: str) -> ThreadSummary | None:
    path = thread_summary_path(layout, user_id, thread)
    if not path.exists():
        return None
    post = frontmatter.loads(path.read_text(encoding="utf-8"))
    return ThreadSummary(text=post.content.split("\n", 2)[-1].strip() if post.content.startswith("# ") else post.content,
                         generated_at=parse_time(post.metadata.get("generated_at")),
                         sessions=int(str(post.metadata.get("sessions", 0))))


def write_thread_summary(layout: VaultLayout, user_id: str, thread: str, summary: ThreadSummary) -> str:
    path = thread_summary_path(layout, user_id, thread)
    post = frontmatter.Post(f"# Thread {thread}\n\n{summary.text.strip()}", artifact_type="thread_summary",
                            user_id=user_id, thread_id=thread, sessions=summary.sessions,
                            generated_at=iso(summary.generated_at))
    atomic_write_text(path, frontmatter.dumps(post, sort_keys=False) + "\n")
    return layout.relative(path)


def write_session_note(layout: VaultLayout, transcript: SessionTranscript, transcript_rel: str) -> str:
    """The readable copy of a session summary, with a link to the transcript it summarises."""
    path = summaries_dir(layout, transcript.user_id, transcript.thread_id) / transcript.file_name
    depth = len(layout.relative(path).split("/")) - 1
    link = "../" * depth + transcript_rel
    started = transcript.first_time
    post = frontmatter.Post(
        f"# Session {transcript.number} · {transcript.thread_id}\n\n{(transcript.summary or '').strip()}\n\n"
        f"[Transcript]({link})", artifact_type="session_summary", user_id=transcript.user_id,
        thread_id=transcript.thread_id, session_id=transcript.session_id, started_at=iso(started),
        last_message_at=iso(transcript.last_time), messages=transcript.message_count,
        generated_at=iso(transcript.summary_generated_at))
    atomic_write_text(path, frontmatter.dumps(post, sort_keys=False) + "\n")
    return layout.relative(path)

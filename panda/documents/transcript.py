"""Session transcripts: users/{user}/threads/{thread}/session_0001.md, one per session.

Readable in Obsidian as a chat log; each message is a heading (author and time), a hidden HTML
comment carrying its id, role and enrichment as JSON, and the text. `render()` and `parse()` are
inverse, so the catalog's messages can be rebuilt from these files alone.

    ### Caroline · 2023-05-08T13:56:00Z
    <!-- panda:message {"id": "msg_…", "role": "user", "status": "completed", "metadata": {…}} -->
    I went to a LGBTQ support group yesterday …

Left out: deciding sessions (conversations/sessions.py) and writing files (conversations/ingest.py).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import frontmatter

from panda.documents.escaping import escape, unescape_line
from panda.documents.model import iso, parse_time

_META = re.compile(r"^<!-- panda:message (\{.*\}) -->$")
_HEAD = re.compile(r"^### (.+?) · (\S+)$")


def _is_marker(line: str) -> bool:
    return bool(_HEAD.match(line) or _META.match(line))


def _unescape(line: str) -> str:
    return unescape_line(line, _is_marker)


@dataclass
class TranscriptMessage:
    id: str
    role: str
    author: str
    timestamp: datetime
    content: str
    status: str = "pending"  # enrichment: pending | completed | failed | skipped (a pipeline turn)
    metadata: dict[str, Any] = field(default_factory=dict)
    external_id: str | None = None

    def render(self) -> str:
        meta = {"id": self.id, "role": self.role, "status": self.status, "metadata": self.metadata}
        if self.external_id:
            meta["external_id"] = self.external_id
        body = escape(self.content, _is_marker)  # marker-like content lines stay content
        return f"### {self.author} · {iso(self.timestamp)}\n<!-- panda:message {json.dumps(meta, ensure_ascii=False)} -->\n{body}"


@dataclass
class SessionTranscript:
    user_id: str
    thread_id: str
    number: int
    messages: list[TranscriptMessage] = field(default_factory=list)
    summary: str | None = None
    summary_generated_at: datetime | None = None
    # Aging (seed 001): 'active' -> 'compressed' (messages replaced by the summary) -> 'archived' (moved).
    stage: str = "active"
    compressed_at: datetime | None = None
    compressed_ids: list[str] = field(default_factory=list)  # ids of the messages the summary replaced
    started_at: datetime | None = None  # kept from the messages, which compression removes
    last_message_at: datetime | None = None
    summary_counters: dict[str, int] = field(default_factory=dict)  # reference/usage counts kept on compression
    archived_month: str | None = None  # archive/YYYY-MM/... once archived
    ended_at: datetime | None = None  # set by the summarisation job when the session gap has passed
    outcome: str | None = None  # seed 004's session outcome, judged with its summary (resolved, ongoing, ...)
    thread_title: str | None = None  # the conversation's title in an imported export

    @property
    def lifecycle(self) -> str:
        """Seed 004's session status: active -> ended -> summarized, then aging's compressed/archived."""
        if self.stage != "active":
            return self.stage
        return "summarized" if self.summary else "ended" if self.ended_at else "active"

    @property
    def session_id(self) -> str:
        return f"{self.thread_id}-s{self.number:04d}"

    @property
    def file_name(self) -> str:
        return f"session_{self.number:04d}.md"

    def ids(self) -> set[str]:
        return {m.id for m in self.messages}

    @property
    def first_time(self) -> datetime | None:
        return self.messages[0].timestamp if self.messages else self.started_at

    @property
    def last_time(self) -> datetime | None:
        return self.messages[-1].timestamp if self.messages else self.last_message_at

    @property
    def message_count(self) -> int:
        return len(self.messages) + len(self.compressed_ids)

    def compress(self, summary: str, at: datetime) -> None:
        """Replace the messages by `summary`, keeping their ids, times and reference counts (seed 001)."""
        self.started_at, self.last_message_at = self.first_time, self.last_time
        for message in self.messages:
            for key, value in message.metadata.get("counters", {}).items():
                self.summary_counters[key] = self.summary_counters.get(key, 0) + int(value)
        self.compressed_ids += [m.id for m in self.messages]
        self.messages = []
        self.summary = summary
        self.stage, self.compressed_at = "compressed", at

    def render(self) -> str:
        started, ended = self.first_time, self.last_time
        topics = sorted({t for m in self.messages for t in m.metadata.get("topics", [])})
        meta: dict[str, Any] = {"artifact_type": "session", "user_id": self.user_id, "thread_id": self.thread_id,
                "session_id": self.session_id, "session_number": self.number, "started_at": iso(started),
                "last_message_at": iso(ended), "message_count": self.message_count, "topics": topics,
                "summary": self.summary}
        if self.summary_generated_at:
            meta["summary_generated_at"] = iso(self.summary_generated_at)
        if self.ended_at:
            meta["ended_at"] = iso(self.ended_at)
        if self.outcome:
            meta["outcome"] = self.outcome
        if self.stage != "active":
            meta.update(stage=self.stage, compressed_at=iso(self.compressed_at), compressed_ids=self.compressed_ids,
                        summary_counters=self.summary_counters)
        elif self.summary_counters:  # an active session's summary is searchable too: its counts must survive
            meta["summary_counters"] = self.summary_counters
        if self.archived_month:
            meta["archived_month"] = self.archived_month
        if self.thread_title:
            meta["thread_title"] = self.thread_title
        name = " ".join(self.thread_title.split()) if self.thread_title else self.thread_id
        title = f"# Session {self.number} · {name} · {started.date().isoformat() if started else '-'}"
        parts = [title]
        if self.stage != "active":
            summary = escape(self.summary or "", _is_marker)
            parts.append(f"## Summary ({self.stage}, {len(self.compressed_ids)} messages)\n\n{summary}")
        body = "\n\n".join([*parts, *(m.render() for m in self.messages)])
        return frontmatter.dumps(frontmatter.Post(body, **meta), sort_keys=False) + "\n"

    @classmethod
    def parse(cls, text: str) -> SessionTranscript:
        post = frontmatter.loads(text)
        m = post.metadata
        number = int(str(m["session_number"]))
        summary = m.get("summary")
        transcript = cls(user_id=str(m["user_id"]), thread_id=str(m["thread_id"]), number=number,
                         summary=str(summary) if summary else None,
                         summary_generated_at=parse_time(m.get("summary_generated_at")),
                         stage=str(m.get("stage", "active")), compressed_at=parse_time(m.get("compressed_at")),
                         compressed_ids=[str(i) for i in _list(m.get("compressed_ids"))],
                         started_at=parse_time(m.get("started_at")) if m.get("stage") else None,
                         last_message_at=parse_time(m.get("last_message_at")) if m.get("stage") else None,
                         summary_counters={str(k): int(v) for k, v in _dict(m.get("summary_counters")).items()},
                         archived_month=str(m["archived_month"]) if m.get("archived_month") else None,
                         ended_at=parse_time(m.get("ended_at")),
                         outcome=str(m["outcome"]) if m.get("outcome") else None,
                         thread_title=str(m["thread_title"]) if m.get("thread_title") else None)
        current: TranscriptMessage | None = None
        lines: list[str] = []
        pending_head: tuple[str, str] | None = None

        def flush() -> None:
            if current is not None:
                current.content = "\n".join(_unescape(line) for line in lines).strip()
                transcript.messages.append(current)

        for line in post.content.splitlines():
            head = _HEAD.match(line)
            if head:
                pending_head = (head.group(1), head.group(2))
                continue
            meta = _META.match(line)
            if meta and pending_head is not None:
                flush()
                data = json.loads(meta.group(1))
                current = TranscriptMessage(id=data["id"], role=data["role"], author=pending_head[0],
                                            timestamp=parse_time(pending_head[1]),  # type: ignore[arg-type]
                                            content="", status=data.get("status", "pending"),
                                            metadata=data.get("metadata", {}), external_id=data.get("external_id"))
                lines, pending_head = [], None
                continue
            if pending_head is not None:  # a heading that was not ours: it is content
                lines.append(f"### {pending_head[0]} · {pending_head[1]}")
                pending_head = None
            if current is not None:
                lines.append(line)
        flush()
        return transcript


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def transcript_entry(text: str, doc_id: str, kind: str) -> str:
    """The text of one message (by id) or the summary of a session transcript's markdown; '' when not there."""
    transcript = SessionTranscript.parse(text)
    if kind == "session_summary":
        return transcript.summary or ""
    return next((m.content for m in transcript.messages if m.id == doc_id), "")

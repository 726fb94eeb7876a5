"""Logged conversation messages: the ingest input format and stable message ids.

A line is either a message — `{"user_id", "session_id", "timestamp", "role": "user"|"assistant",
"content", optional "speaker", "message_id"}` — or a turn of the `panda run` format that also
carries `"assistant"` (the logged reply), which becomes two messages. The input's session_id is the
thread (the conversation); Panda cuts threads into sessions itself. Bad lines are reported with
file, line and field and skipped. Ids are derived from the input, so re-ingesting adds nothing.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from panda.documents.json_lines import json_object
from panda.documents.model import parse_time
from panda.documents.paths import validate_name
from panda.errors import InputLineError, UnsafePathError

MESSAGE_FIELDS = {"user_id", "session_id", "timestamp", "role", "content", "speaker", "message_id"}
TURN_FIELDS = {"user_id", "session_id", "turn_id", "timestamp", "query", "assistant", "expected", "stale", "abstain"}
DEFAULT_THREAD = "default"


@dataclass(frozen=True)
class MessageInput:
    user_id: str
    thread_id: str
    timestamp: datetime
    role: str
    content: str
    speaker: str = ""
    external_id: str | None = None
    source: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    thread_title: str = ""  # an export's conversation title (conversations/exports.py); kept on the transcript

    @property
    def author(self) -> str:
        return self.speaker or self.role


def message_id(msg: MessageInput, occurrence: int = 0) -> str:
    """Stable id. With an external id: hash(user, thread, external id); else hash of the content and time,
    plus how many identical messages came before it in the same input (so repeated 'thanks!' survive).

    Example: message_id(MessageInput('alice', 't1', <time>, 'user', 'hi', external_id='m1')) -> 'msg_' + 16 hex.
    """
    if msg.external_id:
        basis = f"{msg.user_id}\x1f{msg.thread_id}\x1f{msg.external_id}"
    else:
        basis = "\x1f".join([msg.user_id, msg.thread_id, msg.timestamp.isoformat(), msg.role, msg.speaker,
                             msg.content, str(occurrence)])
    return "msg_" + hashlib.sha256(basis.encode()).hexdigest()[:16]


def assign_ids(messages: list[MessageInput]) -> list[tuple[str, MessageInput]]:
    seen: Counter[tuple[str, ...]] = Counter()
    out = []
    for msg in messages:
        key = (msg.user_id, msg.thread_id, msg.timestamp.isoformat(), msg.role, msg.speaker, msg.content)
        out.append((message_id(msg, seen[key]), msg))
        seen[key] += 1
    return out


def _require_text(data: dict[str, Any], name: str, path: str, line: int) -> str:
    value = data.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InputLineError(path, line, name, "is required")
    if not isinstance(value, str | int | float):
        raise InputLineError(path, line, name, "must be a string")
    return str(value).strip()


def parse_message_line(text: str, path: str, line: int) -> list[MessageInput]:
    data = json_object(text, path, line)
    is_turn = "query" in data
    json_object(text, path, line, TURN_FIELDS if is_turn else MESSAGE_FIELDS)
    try:
        user_id = validate_name(_require_text(data, "user_id", path, line), "user_id")
    except UnsafePathError as exc:
        raise InputLineError(path, line, "user_id", str(exc)) from exc
    try:
        thread = validate_name(str(data.get("session_id") or DEFAULT_THREAD), "session_id")
    except UnsafePathError as exc:
        raise InputLineError(path, line, "session_id", str(exc)) from exc
    raw_time = _require_text(data, "timestamp", path, line)
    try:
        timestamp = parse_time(raw_time)
    except ValueError as exc:
        raise InputLineError(path, line, "timestamp", f"not an ISO 8601 time: {raw_time!r}") from exc
    assert timestamp is not None
    source = f"{path}:{line}"
    if is_turn:
        query = _require_text(data, "query", path, line)
        turn_id = str(data["turn_id"]) if data.get("turn_id") else None
        out = [MessageInput(user_id, thread, timestamp, "user", query, "", f"{turn_id}:q" if turn_id else None, source)]
        if data.get("assistant"):
            reply = _require_text(data, "assistant", path, line)
            out.append(MessageInput(user_id, thread, timestamp, "assistant", reply, "",
                                    f"{turn_id}:a" if turn_id else None, source))
        return out
    role = _require_text(data, "role", path, line)
    if role not in ("user", "assistant"):
        raise InputLineError(path, line, "role", f"must be 'user' or 'assistant', got {role!r}")
    content = _require_text(data, "content", path, line)
    speaker = str(data.get("speaker") or "").strip()
    external = str(data["message_id"]) if data.get("message_id") not in (None, "") else None
    return [MessageInput(user_id, thread, timestamp, role, content, speaker, external, source)]


def read_messages(path: Path) -> tuple[list[MessageInput], list[InputLineError]]:
    """Every good message of a JSONL file in order, and one error per bad line."""
    messages: list[MessageInput] = []
    errors: list[InputLineError] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                messages.extend(parse_message_line(line, str(path), number))
            except InputLineError as exc:
                errors.append(exc)
    return messages, errors

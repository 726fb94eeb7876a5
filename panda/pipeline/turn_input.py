"""Reading turn JSONL files: one turn a line, bad lines reported with file, line and field.

A line is `{"user_id", "timestamp" (ISO 8601), "query", optional "session_id", "turn_id",
"assistant" (a logged reply to use instead of generating one), "expected" (an expected answer, '|' between
alternatives), "stale" (a value the user has since changed, which the reply must not give), "abstain" (true: nothing
was ever said, the reply should say so)}`.
`read_turns` never raises for a bad line: it returns the good turns and an `InputLineError` per bad
line, so one typo never stops a batch. Left out: running the turns (scheduler.py).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from panda.documents.json_lines import json_object
from panda.documents.model import parse_time
from panda.documents.paths import validate_name
from panda.errors import InputLineError, UnsafePathError

KNOWN_FIELDS = {"user_id", "session_id", "turn_id", "timestamp", "query", "assistant", "expected", "stale", "abstain"}


@dataclass(frozen=True)
class TurnInput:
    user_id: str
    timestamp: datetime
    query: str
    session_id: str | None = None
    turn_id: str | None = None
    assistant: str | None = None
    expected: str | None = None
    stale: str | None = None
    abstain: bool = False
    source_file: str = ""
    source_line: int = 0
    probe: bool = False  # an evaluation question: answered and written down, but it adds nothing to memory

    @property
    def input_key(self) -> str:
        """Stable identity of this input turn, used to skip finished turns on a re-run.

        Example: user 'alice', turn_id 't1' -> sha256('alice\\x1ft1')[:24].
        """
        basis = self.turn_id if self.turn_id else f"{self.timestamp.isoformat()}\x1f{self.query}"
        return hashlib.sha256(f"{self.user_id}\x1f{basis}".encode()).hexdigest()[:24]


def parse_turn_line(text: str, path: str, line_number: int) -> TurnInput:
    data = json_object(text, path, line_number, KNOWN_FIELDS)
    for name in ("user_id", "timestamp", "query"):
        if name not in data or data[name] in (None, ""):
            raise InputLineError(path, line_number, name, "is required")
    for name in ("user_id", "query", "session_id", "turn_id", "assistant", "expected", "stale"):
        if name in data and data[name] is not None and not isinstance(data[name], str | int):
            raise InputLineError(path, line_number, name, "must be a string")
    if "abstain" in data and not isinstance(data["abstain"], bool):
        raise InputLineError(path, line_number, "abstain", "must be true or false")
    try:
        user_id = validate_name(str(data["user_id"]), "user_id")
        session_id = validate_name(str(data["session_id"]), "session_id") if data.get("session_id") else None
    except UnsafePathError as exc:
        field = "user_id" if "user_id" in str(exc) else "session_id"
        raise InputLineError(path, line_number, field, str(exc)) from exc
    try:
        timestamp = parse_time(data["timestamp"])
    except (TypeError, ValueError) as exc:
        raise InputLineError(path, line_number, "timestamp", f"not an ISO 8601 time: {data['timestamp']!r}") from exc
    query = str(data["query"]).strip()
    if not query:
        raise InputLineError(path, line_number, "query", "is empty")
    assert timestamp is not None
    return TurnInput(
        user_id=user_id, timestamp=timestamp, query=query, session_id=session_id,
        turn_id=str(data["turn_id"]) if data.get("turn_id") not in (None, "") else None,
        assistant=str(data["assistant"]) if data.get("assistant") else None,
        expected=str(data["expected"]) if data.get("expected") not in (None, "") else None,
        stale=str(data["stale"]) if data.get("stale") not in (None, "") else None,
        abstain=bool(data.get("abstain", False)),
        source_file=path, source_line=line_number,
    )


def read_turns(path: Path) -> tuple[list[TurnInput], list[InputLineError]]:
    """All good turns of a JSONL file in file order, and one error per bad or duplicate line."""
    turns: list[TurnInput] = []
    errors: list[InputLineError] = []
    seen: dict[str, int] = {}
    name = str(path)
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                turn = parse_turn_line(line, name, number)
            except InputLineError as exc:
                errors.append(exc)
                continue
            if turn.input_key in seen:
                errors.append(InputLineError(name, number, "turn_id", f"duplicate of line {seen[turn.input_key]}"))
                continue
            seen[turn.input_key] = number
            turns.append(turn)
    return turns, errors

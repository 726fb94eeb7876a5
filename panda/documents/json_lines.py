"""One line of a JSON Lines input as a dict, or an `InputLineError` naming the file, the line and the field.

Shared by every JSONL reader (turns: pipeline/turn_input.py; messages: conversations/messages.py).
"""

from __future__ import annotations

import json
from typing import Any

from panda.errors import InputLineError


def json_object(text: str, path: str, line: int, known: set[str] | None = None) -> dict[str, Any]:
    """One JSONL line as a dict, or an InputLineError naming the line (and the first unknown field)."""
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputLineError(path, line, None, f"not valid JSON ({exc.msg} at column {exc.colno})") from exc
    if not isinstance(data, dict):
        raise InputLineError(path, line, None, "expected a JSON object")
    unknown = sorted(set(data) - known) if known is not None else []
    if unknown:
        raise InputLineError(path, line, unknown[0], f"unknown field (known: {', '.join(sorted(known or ()))})")
    return data

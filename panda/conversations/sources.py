"""Where ingested conversations come from: Panda's message JSONL, LoCoMo JSON or MemoryBank JSON.

`detect_format` looks at the file's JSON shape; `load_ingest_input` returns the messages and, for
JSONL, one error per malformed line (the loaders of the two datasets raise on a wrong shape).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from panda.conversations import locomo, memorybank
from panda.conversations.messages import read_messages


def detect_format(path: Path) -> str:
    """'locomo' (a JSON list of samples), 'memorybank' (a JSON mapping of users with history) or 'jsonl'."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return "jsonl"
    if isinstance(data, list) and data and isinstance(data[0], dict) and "conversation" in data[0]:
        return "locomo"
    if isinstance(data, dict) and data and all(isinstance(v, dict) and "history" in v for v in data.values()):
        return "memorybank"
    return "jsonl"


def load_ingest_input(path: Path, fmt: str, only: list[str] | None) -> tuple[list[Any], list[Any]]:
    """Messages and line errors from a JSONL file, a LoCoMo JSON or a MemoryBank JSON."""
    if fmt == "auto":
        fmt = detect_format(path)
    if fmt == "locomo":
        return locomo.load_messages(path, only), []
    if fmt == "memorybank":
        return memorybank.load_messages(path, only), []
    messages, errors = read_messages(path)
    return messages, errors

"""`panda import`: a ChatGPT or Claude export (conversations.json, or the zip as downloaded) or an OpenAI-style
JSONL file, streamed one conversation at a time and stored through the ingest path in batches.

Memory stays bounded by one conversation plus one batch: the JSON list is read with ijson (a C parser), never
loaded whole; a zip member is read as a stream. Each batch goes through `ingest_messages` (sessions, transcripts,
facts, preferences), so an import is idempotent and resumable like `panda ingest`: ids come from the export, a
re-run adds nothing, and a run killed at any line resumes (ingest's recovery). A conversation of the wrong shape is
skipped with an error naming it; a file that ends or breaks inside a conversation stops the import with an error
naming that conversation, after storing every complete one before it — never part of the broken one.
Left out: the formats themselves (exports.py).
"""

from __future__ import annotations

import io
import json
import re
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import IO, Any

import ijson

from panda.conversations.exports import (
    ExportError,
    ImportedConversation,
    chatgpt_conversation,
    claude_conversation,
    conversation_label,
    openai_conversation,
)
from panda.conversations.ingest import IngestReport, ingest_messages
from panda.conversations.messages import MessageInput
from panda.documents.paths import validate_name
from panda.errors import MissingInputError
from panda.home import Home

KINDS = ("chatgpt", "claude", "openai")
BATCH_MESSAGES = 2000  # messages stored per ingest call: bounded memory, few catalog transactions
MAX_ERRORS_KEPT = 200


@dataclass
class ImportReport:
    source: str = ""
    kind: str = ""
    conversations: int = 0
    conversations_skipped: int = 0  # wrong shape, or not asked for with --only
    messages_read: int = 0
    messages_left_out: int = 0  # system, tool, hidden or empty messages
    new: int = 0
    already_known: int = 0
    recovered: int = 0
    sessions_touched: int = 0
    facts_recorded: int = 0
    errors: list[str] = field(default_factory=list)
    stopped: str = ""  # why the import stopped before the end of the file (a truncated export)
    seconds: float = 0.0

    def add(self, ingest: IngestReport) -> None:
        self.new += ingest.new
        self.already_known += ingest.already_known
        self.recovered += ingest.recovered
        self.sessions_touched += ingest.sessions_touched
        self.facts_recorded += ingest.facts_recorded

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


CHATS = re.compile(r"(^|/)conversations([-_]\d+)?\.json$")  # conversations.json, or chunks of it


def _chats(name: str, kind: str) -> bool:
    return name.endswith(".jsonl") if kind == "openai" else bool(CHATS.search(name))


def export_parts(path: Path, kind: str) -> list[tuple[str, Callable[[], Any]]]:
    """Where an export keeps its chats, in order, each as (name, opener of a byte stream): the file itself; in a
    folder (the unzipped export) or a zip (as downloaded), conversations.json, or its numbered chunks, or for
    openai every .jsonl file."""
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and _chats(p.relative_to(path).as_posix(), kind))
        if not files:
            raise ExportError(f"{path}: no {'.jsonl file' if kind == 'openai' else 'conversations.json'} in this folder")
        return [(str(f), partial(f.open, "rb")) for f in files]
    if not path.is_file():
        raise MissingInputError(f"{path}: no such file")
    if not zipfile.is_zipfile(path):
        return [(str(path), partial(path.open, "rb"))]
    with zipfile.ZipFile(path) as archive:
        names = [n for n in archive.namelist() if not n.endswith("/") and "__MACOSX" not in n]
    wanted = sorted((n for n in names if _chats(n, kind)), key=lambda n: (n.count("/"), n))
    if not wanted:
        found = ", ".join(sorted(names)[:10]) or "nothing"
        what = "a .jsonl file" if kind == "openai" else "conversations.json"
        raise ExportError(f"{path}: the zip should hold {what}; it holds {found}")
    return [(f"{path}:{name}", partial(_member, path, name)) for name in wanted]


@contextmanager
def _member(path: Path, name: str) -> Iterator[IO[bytes]]:
    with zipfile.ZipFile(path) as archive, archive.open(name) as member:
        yield member


def _is_incomplete(exc: Exception) -> bool:
    return isinstance(exc, ijson.JSONError | ijson.IncompleteJSONError | UnicodeDecodeError)


def stream_json_list(opener: Callable[[], Any], source: str, start: int = 0) -> Iterator[tuple[int, Any]]:
    """Each element of the JSON list in the stream `opener()` gives, with its position (`start` + 1, ...). A stream
    that is not a list, or that ends or breaks inside an element, raises ExportError naming the element."""
    position = start
    with opener() as handle:
        head = handle.read(1 << 16)
        if not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
            raise ExportError(f"{source}: expected a JSON list of conversations (the export's conversations.json)")
        stream = io.BufferedReader(_Prefixed(head, handle)) if head else handle
        try:
            for item in ijson.items(stream, "item", use_float=True):
                position += 1
                yield position, item
        except Exception as exc:
            if not _is_incomplete(exc):
                raise
            label = _label_at(opener, position + 1 - start, position + 1)
            raise ExportError(f"{source}: the file ends or breaks inside {label} ({exc}); the {position} "
                              "conversations before it were read") from exc


class _Prefixed(io.RawIOBase):
    """A stream that gives `head` back first, then the rest of `rest` (the sniffed bytes are not lost)."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self.head, self.rest = head, rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.head:
            n = min(len(buffer), len(self.head))
            buffer[:n], self.head = self.head[:n], self.head[n:]
            return n
        data = self.rest.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def _label_at(opener: Callable[[], Any], position: int, shown: int) -> str:
    """How to name the element at `position` of a broken list (`shown`: its number in the whole export): its id
    and title as far as they were written."""
    found: dict[str, Any] = {}
    count = 0
    try:
        with opener() as handle:
            for prefix, event, value in ijson.parse(handle):
                if prefix == "item" and event == "start_map":
                    count += 1
                elif count == position and event in ("string", "number") and prefix in (
                        "item.id", "item.conversation_id", "item.uuid", "item.title", "item.name"):
                    found[prefix.split(".", 1)[1]] = value
    except Exception as exc:  # noqa: BLE001 - reading up to the break is the point
        if not _is_incomplete(exc):
            raise
    return conversation_label(shown, found) if found else f"conversation {shown}"


def read_export(path: Path, kind: str, user_id: str, now: datetime | None = None
                ) -> Iterator[ImportedConversation | ExportError]:
    """The export's conversations one at a time, each converted, or the ExportError of one that could not be;
    a broken file raises ExportError after the conversations before the break."""
    if kind not in KINDS:
        raise ValueError(f"unknown export kind {kind!r}; choose one of {', '.join(KINDS)}")
    validate_name(user_id, "user_id")
    if kind == "openai":
        yield from _read_jsonl(path, user_id, now or _file_time(path))
        return
    convert = chatgpt_conversation if kind == "chatgpt" else claude_conversation
    read = 0
    for source, opener in export_parts(path, kind):
        for position, conversation in stream_json_list(opener, source, read):
            read = position
            try:
                yield convert(conversation, user_id, position)
            except ExportError as exc:
                yield exc


def _file_time(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime, UTC)


def _read_jsonl(path: Path, user_id: str, default_time: datetime) -> Iterator[ImportedConversation | ExportError]:
    for source, opener in export_parts(path, "openai"):
        with opener() as handle:
            for number, raw in enumerate(io.TextIOWrapper(handle, encoding="utf-8", errors="replace"), start=1):
                if not raw.strip():
                    continue
                try:
                    data = json.loads(raw)
                except json.JSONDecodeError as exc:
                    yield ExportError(f"{source}:{number}: not valid JSON ({exc.msg} at column {exc.colno})")
                    continue
                try:
                    yield openai_conversation(data, user_id, number, default_time)
                except ExportError as exc:
                    yield ExportError(f"{source}:{number}: {exc}")


def wanted(conversation: ImportedConversation, only: list[str] | None) -> bool:
    """--only TITLE_OR_ID: a title (any case), the export's id, or Panda's thread id."""
    if not only:
        return True
    keys = {conversation.title.casefold(), conversation.thread_id.casefold(),
            conversation.thread_id.split("-", 1)[-1].casefold()}
    return any(o.strip().casefold() in keys for o in only)


def import_export(ctx: Home, path: Path, kind: str, user_id: str, only: list[str] | None = None,
                  batch_messages: int = BATCH_MESSAGES, now: datetime | None = None) -> ImportReport:
    """Import one export into `user_id`'s memory, in batches of about `batch_messages` messages."""
    started = time.perf_counter()
    report = ImportReport(source=str(path), kind=kind)
    batch: list[MessageInput] = []

    def store() -> None:
        if batch:
            report.add(ingest_messages(ctx, batch))
            batch.clear()

    try:
        for item in read_export(path, kind, user_id, now):
            if isinstance(item, ExportError):
                report.conversations_skipped += 1
                _keep(report, str(item))
                continue
            if not wanted(item, only):
                report.conversations_skipped += 1
                continue
            report.conversations += 1
            report.messages_read += len(item.messages)
            report.messages_left_out += item.skipped
            batch.extend(item.messages)
            if len(batch) >= batch_messages:
                store()
    except ExportError as exc:
        report.stopped = str(exc)
    store()
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _keep(report: ImportReport, error: str) -> None:
    if len(report.errors) < MAX_ERRORS_KEPT:
        report.errors.append(error)

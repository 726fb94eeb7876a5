"""Chat exports people actually have, as Panda messages: ChatGPT, Claude and OpenAI-style JSONL (pure).

Each function takes one conversation as parsed JSON and returns an `ImportedConversation`: its thread id (stable,
from the export's own id), its title and its messages, each with the export's id as external id, so importing the
same export twice adds nothing (conversations/messages.message_id). What the user did not keep or never saw stays
out, counted in `skipped`:

- **ChatGPT** (`conversations.json`): `mapping` is a tree of nodes. Edits and regenerations branch it; the
  conversation the user kept is the path from `current_node` up to the root, read root first. System, tool and
  hidden messages (`metadata.is_visually_hidden_from_conversation`, custom instructions, model context, reasoning)
  and empty parts are skipped; an image, audio or file part becomes a short placeholder ("[image]"), never its
  bytes; a code or execution block keeps its text. `create_time` is epoch seconds and may be null: the message then
  takes the last known time before it, else the conversation's.
- **Claude** (`conversations.json`): `chat_messages` in order, `sender` human/assistant, the text from `content`
  blocks of type text (else the message's `text`); tool use, tool results and thinking are skipped. An
  attachment's extracted text is kept only as a marked excerpt of at most 2,000 characters.
- **OpenAI-style JSONL**: one conversation a line, `{"messages": [{"role", "content"}], ...}`, content a string or
  a list of parts; the line's (or a message's) `created_at`/`created`/`timestamp` if any, else the caller's time.

A conversation of the wrong shape raises `ExportError` naming it (position, id and title); the caller skips it
and says so. Left out: reading files and zips, and storing (conversations/importer.py).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from panda.conversations.messages import MessageInput
from panda.documents.paths import validate_name
from panda.errors import TerminalError

EXCERPT_CHARS = 2000  # an attachment's extracted text kept beside a message
TITLE_CHARS = 200
HIDDEN_CONTENT = {"user_editable_context", "model_editable_context", "thoughts", "reasoning_recap", "system_error",
                  "tether_browsing_display", "super_widget"}
PLACEHOLDERS = {"image_asset_pointer": "[image]", "audio_asset_pointer": "[audio]", "video_container_asset_pointer":
                "[video]", "real_time_user_audio_video_asset_pointer": "[audio/video]", "file_asset_pointer": "[file]"}


class ExportError(TerminalError):
    """One conversation of an export could not be read, or the file itself; the message names it."""


@dataclass
class ImportedConversation:
    thread_id: str
    title: str
    messages: list[MessageInput] = field(default_factory=list)
    skipped: int = 0  # messages left out: system, tool, hidden, empty


def conversation_label(position: int, conversation: Any) -> str:
    """How an error names a conversation. Example: (3, {"id": "c1", "title": "Trip"}) -> 'conversation 3 (c1, "Trip")'."""
    if not isinstance(conversation, dict):
        return f"conversation {position}"
    ident = conversation.get("id") or conversation.get("conversation_id") or conversation.get("uuid") or "no id"
    title = conversation.get("title") or conversation.get("name") or ""
    return f'conversation {position} ({ident}, "{str(title)[:80]}")' if title else f"conversation {position} ({ident})"


def thread_name(prefix: str, ident: Any, fallback: str) -> str:
    """A safe, stable thread id. Example: ('chatgpt', '6773f6d5-aa', '') -> 'chatgpt-6773f6d5-aa'; an id that is not a
    safe name (or none) becomes a hash of it (or of `fallback`)."""
    text = str(ident or "").strip()
    candidate = f"{prefix}-{text}"
    if text and re.fullmatch(r"[A-Za-z0-9_@-][A-Za-z0-9._@-]{0,100}", text) and ".." not in text:
        return validate_name(candidate, "thread")
    return f"{prefix}-{hashlib.sha256((text or fallback).encode()).hexdigest()[:20]}"


def epoch_time(value: Any) -> datetime | None:
    """Epoch seconds (int, float or numeric text) or ISO 8601 text as a UTC time; None when absent or unreadable.
    Example: 1700000000 -> 2023-11-14T22:13:20Z."""
    if value is None or value == "" or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(float(value), UTC) if value > 0 else None
        except (OverflowError, OSError, ValueError):
            return None
    text = str(value).strip()
    try:
        return epoch_time(float(text))
    except ValueError:
        pass
    try:
        parsed = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def _title(value: Any) -> str:
    return " ".join(str(value or "").split())[:TITLE_CHARS]


def keep(out: ImportedConversation, user_id: str, role: str, text: str, when: datetime | None,
         last: datetime | None, external_id: str, source: str, label: Callable[[], str]) -> datetime | None:
    """Add one message to `out` if it is a user's or an assistant's and has text, else count it skipped. A message
    without a time takes `last` (the one before it, else the conversation's). Returns the time to carry on with."""
    if role not in ("user", "assistant") or not text:
        out.skipped += 1
        return last
    stamp = when or last
    if stamp is None:
        raise ExportError(f"{label()}: message {external_id} has no time and neither has the conversation")
    out.messages.append(MessageInput(user_id, out.thread_id, stamp, role, text, external_id=external_id, source=source))
    return stamp


# ---- ChatGPT ---------------------------------------------------------------------------------------------
def kept_path(mapping: dict[str, Any], current: str | None) -> list[dict[str, Any]]:
    """The nodes from the root to `current_node`: the branch the user kept. Without a current node (old exports),
    the path to the last-created leaf. A cycle or a missing parent ends the walk (never loops).

    Example: root -> a -> {b (edited away), c}, current_node c -> [root, a, c]."""
    if not mapping:
        return []
    if current not in mapping:
        leaves = [n for n in mapping.values() if isinstance(n, dict) and not n.get("children")]
        leaves.sort(key=lambda n: ((n.get("message") or {}).get("create_time") or 0, str(n.get("id"))))
        current = str(leaves[-1].get("id")) if leaves else None
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id = current
    while node_id is not None and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            break
        path.append(node)
        node_id = node.get("parent")
    return path[::-1]


def chatgpt_text(content: dict[str, Any]) -> str:
    """The visible text of one ChatGPT message content. Example: {"content_type": "multimodal_text", "parts":
    [{"content_type": "image_asset_pointer", ...}, "What is this?"]} -> '[image]\\nWhat is this?'."""
    kind = content.get("content_type", "text")
    if kind in HIDDEN_CONTENT:
        return ""
    if kind in ("code", "execution_output"):
        return str(content.get("text") or "").strip()
    if kind == "tether_quote":
        return "\n".join(str(content.get(k) or "") for k in ("title", "text")).strip()
    pieces: list[str] = []
    for part in content.get("parts") or []:
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict):
            part_kind = str(part.get("content_type") or "")
            if part_kind == "audio_transcription" and part.get("text"):
                pieces.append(str(part["text"]))
            elif part_kind in PLACEHOLDERS:
                pieces.append(PLACEHOLDERS[part_kind])
            elif isinstance(part.get("text"), str):
                pieces.append(part["text"])
            else:
                pieces.append("[attachment]")
    if not pieces and isinstance(content.get("text"), str):
        pieces.append(content["text"])
    return "\n".join(p for p in (piece.strip() for piece in pieces) if p)


def chatgpt_conversation(conversation: Any, user_id: str, position: int = 1) -> ImportedConversation:
    """One ChatGPT conversation (an element of conversations.json) as messages of `user_id`."""
    if not isinstance(conversation, dict) or not isinstance(conversation.get("mapping"), dict):
        raise ExportError(f"{conversation_label(position, conversation)}: no `mapping` object; is this a ChatGPT export?")
    ident = conversation.get("conversation_id") or conversation.get("id")
    title = _title(conversation.get("title")) or "Untitled"
    started = epoch_time(conversation.get("create_time")) or epoch_time(conversation.get("update_time"))
    out = ImportedConversation(thread_name("chatgpt", ident, json.dumps([title, conversation.get("create_time")])),
                               title)
    last = started
    for node in kept_path(conversation["mapping"], conversation.get("current_node")):
        message = node.get("message")
        if not isinstance(message, dict):
            continue  # the root and other empty nodes
        role = str((message.get("author") or {}).get("role") or "")
        metadata = message.get("metadata") or {}
        content = message.get("content") or {}
        hidden = bool(metadata.get("is_visually_hidden_from_conversation")) or message.get("weight") == 0.0
        text = "" if hidden or not isinstance(content, dict) else chatgpt_text(content)
        last = keep(out, user_id, role, text, epoch_time(message.get("create_time")), last,
                    str(message.get("id") or node.get("id")), f"chatgpt:{ident}",
                    lambda: conversation_label(position, conversation))
    return titled(out, title != "Untitled")


# ---- Claude ----------------------------------------------------------------------------------------------
def claude_text(message: dict[str, Any]) -> str:
    """The text of one Claude message: its text blocks (else `text`), then attachments' extracted text as marked
    excerpts. Example: {"text": "See file", "attachments": [{"file_name": "a.txt", "extracted_content": "hello"}]}
    -> 'See file\\n\\n[attachment a.txt, excerpt]\\nhello'."""
    blocks = message.get("content")
    texts = [str(b.get("text") or "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"] \
        if isinstance(blocks, list) else []
    body = "\n\n".join(t.strip() for t in texts if t.strip()) or str(message.get("text") or "").strip()
    excerpts = []
    for attachment in message.get("attachments") or []:
        if not isinstance(attachment, dict):
            continue
        name = " ".join(str(attachment.get("file_name") or "file").split())[:120]
        extracted = str(attachment.get("extracted_content") or "").strip()
        if extracted:
            cut = extracted[:EXCERPT_CHARS] + (" …" if len(extracted) > EXCERPT_CHARS else "")
            excerpts.append(f"[attachment {name}, excerpt]\n{cut}")
        else:
            excerpts.append(f"[attachment {name}]")
    for file in message.get("files") or []:
        if isinstance(file, dict) and file.get("file_name"):
            excerpts.append(f"[file {' '.join(str(file['file_name']).split())[:120]}]")
    return "\n\n".join(p for p in [body, *excerpts] if p)


def claude_conversation(conversation: Any, user_id: str, position: int = 1) -> ImportedConversation:
    """One Claude conversation (an element of conversations.json) as messages of `user_id`."""
    if not isinstance(conversation, dict) or not isinstance(conversation.get("chat_messages"), list):
        raise ExportError(f"{conversation_label(position, conversation)}: no `chat_messages` list; is this a Claude "
                          "export?")
    ident = conversation.get("uuid") or conversation.get("id")
    title = _title(conversation.get("name")) or "Untitled"
    last = epoch_time(conversation.get("created_at")) or epoch_time(conversation.get("updated_at"))
    out = ImportedConversation(thread_name("claude", ident, json.dumps([title, conversation.get("created_at")])), title)
    for index, message in enumerate(conversation["chat_messages"]):
        if not isinstance(message, dict):
            out.skipped += 1
            continue
        role = {"human": "user", "user": "user", "assistant": "assistant"}.get(str(message.get("sender")), "")
        last = keep(out, user_id, role, claude_text(message), epoch_time(message.get("created_at")), last,
                    str(message.get("uuid") or index), f"claude:{ident}", lambda: conversation_label(position, conversation))
    return titled(out, title != "Untitled")


# ---- OpenAI-style JSONL ------------------------------------------------------------------------------------
def openai_text(content: Any) -> str:
    """A chat message's content: a string, or a list of parts (text kept, images as '[image]')."""
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        pieces = []
        for part in content:
            if isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, dict):
                kind = str(part.get("type") or "")
                if isinstance(part.get("text"), str):
                    pieces.append(part["text"])
                elif kind.startswith(("image", "input_image")):
                    pieces.append("[image]")
                elif kind.startswith(("audio", "input_audio")):
                    pieces.append("[audio]")
                elif kind == "file":
                    pieces.append("[file]")
        return "\n".join(p.strip() for p in pieces if p.strip())
    return ""


def _line_time(data: dict[str, Any]) -> datetime | None:
    for key in ("created_at", "created", "timestamp", "time", "date"):
        if (found := epoch_time(data.get(key))) is not None:
            return found
    return None


def openai_conversation(data: Any, user_id: str, position: int, default_time: datetime) -> ImportedConversation:
    """One JSONL line `{"messages": [...], ...}` as messages of `user_id`. The thread is the line's id (`id`,
    `conversation_id`, `thread_id`), else a hash of its first messages, so re-importing finds the same thread."""
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise ExportError("no `messages` list")
    ident = data.get("conversation_id") or data.get("thread_id") or data.get("id")
    basis = json.dumps(data["messages"][:4], sort_keys=True, default=str)
    title = _title(data.get("title") or data.get("name"))
    out = ImportedConversation(thread_name("openai", ident, basis), title or "Untitled")
    last = _line_time(data) or default_time
    for index, message in enumerate(data["messages"]):
        if not isinstance(message, dict):
            raise ExportError(f"message {index + 1} is not an object")
        role = str(message.get("role") or "")
        text = openai_text(message.get("content"))
        if role not in ("user", "assistant") or not text:
            out.skipped += 1
            continue
        last = _line_time(message) or last
        out.messages.append(MessageInput(user_id, out.thread_id, last, role, text,
                                         speaker=str(message.get("name") or "").strip()[:64],
                                         external_id=str(message.get("id") or index), source=f"openai:{position}"))
    return titled(out, bool(title))


def titled(conversation: ImportedConversation, has_title: bool) -> ImportedConversation:
    """A conversation without a title takes its first user message's first line (at most 80 characters), and every
    message carries the title to its transcript."""
    if not has_title:
        first = next((m.content for m in conversation.messages if m.role == "user"), "")
        conversation.title = _title(first.split("\n")[0][:80]) or "Untitled"
    conversation.messages = [replace(m, thread_title=conversation.title) for m in conversation.messages]
    return conversation

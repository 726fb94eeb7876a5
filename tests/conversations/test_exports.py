"""Chat exports as messages (conversations/exports.py, importer.read_export): the branch the user kept, what is left
out, placeholders for media, timestamps that are missing, stable ids, and errors that name the conversation."""

from __future__ import annotations

import json
import tracemalloc
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from panda.conversations.exports import (
    EXCERPT_CHARS,
    ExportError,
    chatgpt_conversation,
    chatgpt_text,
    claude_conversation,
    epoch_time,
    kept_path,
    thread_name,
)
from panda.conversations.importer import read_export
from panda.conversations.messages import assign_ids

FIXTURES = Path(__file__).parent / "fixtures"


def _read(kind: str, name: str) -> list:
    return list(read_export(FIXTURES / name, kind, "alice"))


def test_chatgpt_keeps_the_branch_of_current_node_and_leaves_out_what_was_not_shown():
    lisbon = _read("chatgpt", "chatgpt_conversations.json")[0]
    texts = [m.content for m in lisbon.messages]
    assert texts[0] == "I live in Lisbon now. Which neighbourhoods are quiet?"
    assert not any("Pixel" in t or "Dogs love" in t for t in texts)  # the edited-away branch
    assert not any("nurse" in t or "Be brief" in t for t in texts)  # custom instructions are hidden context
    assert not any("Jardim da Estrela ..." in t for t in texts)  # the tool's browsing result
    assert [m.role for m in lisbon.messages] == ["user", "assistant", "user", "assistant", "assistant"]
    assert lisbon.skipped == 4  # system, custom instructions, tool, an empty user part
    assert lisbon.thread_id == "chatgpt-6a1f0c2e-0001-4b7e-9d1a-aa0000000001" and lisbon.title == "Moving to Lisbon"
    assert all(m.thread_title == "Moving to Lisbon" for m in lisbon.messages)
    assert [m.external_id for m in lisbon.messages] == ["n-u1", "n-a1", "n-u2", "n-a2", "n-a3"]


def test_chatgpt_media_become_placeholders_and_code_keeps_its_text():
    lisbon, knee, _ = _read("chatgpt", "chatgpt_conversations.json")
    photo = lisbon.messages[2].content
    assert photo.startswith("[image]\nI have a cat named Miso.") and "file-service" not in photo
    assert lisbon.messages[-1].content == "print('Bem-vinda a Lisboa')"
    assert knee.messages[0].content == "I work as a nurse and my knee hurts after night shifts.\n[audio]"
    assert chatgpt_text({"content_type": "multimodal_text", "parts": [{"content_type": "file_asset_pointer"}]}) == "[file]"
    assert chatgpt_text({"content_type": "thoughts", "thoughts": [{"content": "secret"}]}) == ""


def test_chatgpt_missing_times_take_the_last_known_one_else_the_conversations():
    lisbon, knee, _ = _read("chatgpt", "chatgpt_conversations.json")
    assert lisbon.messages[2].timestamp == lisbon.messages[1].timestamp  # null create_time: the message before it
    # the conversation has no create_time and its first message none either: the update_time
    assert knee.messages[0].timestamp == datetime(2024, 6, 1, 10, 0, tzinfo=UTC)
    bare = {"id": "x", "title": "t", "mapping": {"r": {"id": "r", "parent": None, "children": [], "message": {
        "id": "m", "author": {"role": "user"}, "create_time": None, "content": {"content_type": "text", "parts": ["hi"]}}}},
        "current_node": "r"}
    with pytest.raises(ExportError, match=r'conversation 7 \(x, "t"\): message m has no time'):
        chatgpt_conversation(bare, "alice", 7)


def test_kept_path_never_loops_and_without_current_node_takes_the_newest_leaf():
    mapping = {"a": {"id": "a", "parent": "b", "children": ["b"]}, "b": {"id": "b", "parent": "a", "children": ["a"]}}
    assert [n["id"] for n in kept_path(mapping, "a")] == ["b", "a"]
    tree = {"r": {"id": "r", "parent": None, "children": ["x", "y"]},
            "x": {"id": "x", "parent": "r", "children": [], "message": {"create_time": 5}},
            "y": {"id": "y", "parent": "r", "children": [], "message": {"create_time": 9}}}
    assert [n["id"] for n in kept_path(tree, None)] == ["r", "y"]


def test_claude_text_blocks_attachment_excerpts_and_skipped_blocks():
    garden, nurse = _read("claude", "claude_conversations.json")
    first = garden.messages[0].content
    assert first.startswith("I live in Porto and I love growing tomatoes.")
    assert "[attachment soil-test.txt, excerpt]\npH 6.4" in first
    reply = garden.messages[1].content
    assert reply == "Porto's climate suits tomatoes. Add compost for the nitrogen."  # no thinking, no tool use
    assert garden.messages[2].content == "Here is the plan\n\n[file garden-plan.png]"
    assert garden.messages[2].timestamp == garden.messages[1].timestamp  # created_at null
    assert nurse.title == "I work as a nurse at Santo António hospital."  # no name: the first user line
    assert nurse.skipped == 1 and len(nurse.messages) == 1  # an empty assistant message
    long = claude_conversation({"uuid": "u", "name": "n", "created_at": "2024-01-01T00:00:00Z", "chat_messages": [
        {"uuid": "m", "sender": "human", "text": "see", "attachments": [{"file_name": "big.txt",
                                                                         "extracted_content": "x" * 9000}]}]}, "alice")
    assert len(long.messages[0].content) < EXCERPT_CHARS + 100 and long.messages[0].content.endswith("x …")


def test_openai_jsonl_lines_parts_and_errors_naming_the_line():
    items = _read("openai", "openai_chats.jsonl")
    first, picture, broken, wrong = items
    assert first.thread_id == "openai-chat-001" and [m.role for m in first.messages] == ["user", "assistant"]
    assert first.messages[0].timestamp == datetime.fromtimestamp(1730000000, UTC)
    assert picture.messages[0].content == "What is in this picture?\n[image]" and "base64" not in picture.messages[0].content
    assert str(broken).endswith("openai_chats.jsonl:3: not valid JSON (Expecting ',' delimiter at column 1)")
    assert str(wrong).endswith("openai_chats.jsonl:4: no `messages` list")
    again = _read("openai", "openai_chats.jsonl")[1]
    assert again.thread_id == picture.thread_id  # a line without an id: the same thread from its content


def test_ids_are_stable_and_a_second_read_gives_the_same_messages():
    once = [m for c in _read("chatgpt", "chatgpt_conversations.json") for m in c.messages]
    twice = [m for c in _read("chatgpt", "chatgpt_conversations.json") for m in c.messages]
    assert [i for i, _ in assign_ids(once)] == [i for i, _ in assign_ids(twice)]
    assert len({i for i, _ in assign_ids(once)}) == len(once)


def test_unsafe_ids_become_hashes_and_times_read_every_way():
    assert thread_name("claude", "../../etc", "f").startswith("claude-") and "/" not in thread_name("claude", "../x", "f")
    assert thread_name("chatgpt", None, "basis") == thread_name("chatgpt", "", "basis")
    assert epoch_time("1700000000") == epoch_time(1700000000) == datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
    assert epoch_time("2024-04-02T09:15:00Z") == datetime(2024, 4, 2, 9, 15, tzinfo=UTC)
    assert epoch_time(None) is None and epoch_time("soon") is None and epoch_time(-5) is None


def test_the_export_zip_is_read_as_downloaded(tmp_path: Path):
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(FIXTURES / "chatgpt_conversations.json", "conversations.json")
        z.writestr("chat.html", "<html></html>")
        z.writestr("user.json", "{}")
    assert [c.title for c in read_export(archive, "chatgpt", "alice")] == ["Moving to Lisbon", "Knee rehab",
                                                                             "Weekend plans"]
    empty = tmp_path / "other.zip"
    with zipfile.ZipFile(empty, "w") as z:
        z.writestr("notes.txt", "hi")
    with pytest.raises(ExportError, match=r"the zip should hold conversations.json; it holds notes.txt"):
        list(read_export(empty, "chatgpt", "alice"))


def test_a_truncated_export_names_the_conversation_it_breaks_in(tmp_path: Path):
    text = (FIXTURES / "claude_conversations.json").read_text(encoding="utf-8")
    cut = tmp_path / "conversations.json"
    cut.write_text(text[: text.index("I work as a nurse")], encoding="utf-8")
    read = []
    with pytest.raises(ExportError, match=r'ends or breaks inside conversation 2 \(3b2f7c10-2222-4c2a-8e5e-bb0000000002\)'):
        for item in read_export(cut, "claude", "alice"):
            read.append(item)
    assert [c.title for c in read] == ["Planning a garden"]


def test_a_file_that_is_not_a_list_of_conversations_is_refused(tmp_path: Path):
    other = tmp_path / "conversations.json"
    other.write_text(json.dumps({"conversations": []}), encoding="utf-8")
    with pytest.raises(ExportError, match="expected a JSON list of conversations"):
        list(read_export(other, "chatgpt", "alice"))
    wrong = tmp_path / "claude.json"
    wrong.write_text(json.dumps([{"uuid": "c", "name": "n"}]), encoding="utf-8")
    errors = list(read_export(wrong, "claude", "alice"))
    assert len(errors) == 1 and 'conversation 1 (c, "n"): no `chat_messages` list' in str(errors[0])


def _write_big_export(path: Path, megabytes: int) -> int:
    """A ChatGPT export of about `megabytes` MB, written conversation by conversation."""
    filler = "We talked about the harbour, the trains and the weather again. " * 40
    count = 0
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        while out.tell() < megabytes * 1_000_000:
            mapping = {"r": {"id": "r", "message": None, "parent": None, "children": ["u0"]}}
            for i in range(20):
                role = "user" if i % 2 == 0 else "assistant"
                mapping[f"u{i}"] = {"id": f"u{i}", "parent": "r" if i == 0 else f"u{i - 1}", "children": [f"u{i + 1}"],
                                    "message": {"id": f"c{count}-{i}", "author": {"role": role},
                                                "create_time": 1700000000 + count * 100 + i,
                                                "content": {"content_type": "text", "parts": [f"{i} {filler}"]}}}
            mapping["u19"]["children"] = []
            out.write(("," if count else "") + json.dumps({"id": f"conv-{count}", "title": f"Chat {count}",
                                                          "create_time": 1700000000 + count * 100,
                                                          "current_node": "u19", "mapping": mapping}))
            count += 1
        out.write("]")
    return count


def test_a_50_mb_export_streams_in_bounded_memory(tmp_path: Path):
    path = tmp_path / "conversations.json"
    written = _write_big_export(path, 50)
    assert path.stat().st_size >= 50_000_000
    tracemalloc.start()
    try:
        conversations = messages = 0
        for item in read_export(path, "chatgpt", "alice"):
            conversations += 1
            messages += len(item.messages)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert conversations == written and messages == written * 20
    assert peak < 8_000_000, f"peak {peak / 1e6:.1f} MB: the export was held in memory"  # one conversation is ~0.05 MB


def test_an_unzipped_export_folder_and_chunked_conversations_files_are_read_in_order(tmp_path: Path):
    conversations = json.loads((FIXTURES / "chatgpt_conversations.json").read_text(encoding="utf-8"))
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "conversations-000.json").write_text(json.dumps(conversations[:2]), encoding="utf-8")
    (folder / "conversations-001.json").write_text(json.dumps(conversations[2:]), encoding="utf-8")
    (folder / "user.json").write_text("{}", encoding="utf-8")
    assert [c.title for c in read_export(folder, "chatgpt", "alice")] == ["Moving to Lisbon", "Knee rehab",
                                                                            "Weekend plans"]
    archive = tmp_path / "chunked.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(folder / "conversations-001.json", "export/conversations-001.json")
        z.write(folder / "conversations-000.json", "export/conversations-000.json")
    assert [c.title for c in read_export(archive, "chatgpt", "alice")][0] == "Moving to Lisbon"
    (folder / "conversations-001.json").write_text(json.dumps(conversations[2:])[:200], encoding="utf-8")
    with pytest.raises(ExportError, match=r'conversations-001.json: the file ends or breaks inside conversation 3 '):
        list(read_export(folder, "chatgpt", "alice"))

"""`panda import` end to end over a temporary home: threads, sessions, facts and titles from real export shapes;
a re-run adds nothing; an interrupted import resumes; a truncated export keeps every complete conversation and
nothing of the broken one; `panda check` stays clean."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from panda import cli
from panda.conversations import importer
from panda.conversations.importer import import_export
from panda.doctor import check_home
from panda.documents.transcript import SessionTranscript

FIXTURES = Path(__file__).parent / "fixtures"


def _transcripts(home: Path, user: str) -> list[SessionTranscript]:
    return [SessionTranscript.parse(p.read_text(encoding="utf-8"))
            for p in sorted((home / "users" / user / "threads").glob("*/session_*.md"))]


def test_a_chatgpt_export_becomes_threads_sessions_and_facts_once(ctx):
    report = import_export(ctx, FIXTURES / "chatgpt_conversations.json", "chatgpt", "alice")
    assert (report.conversations, report.messages_read, report.new, report.errors, report.stopped) == (3, 9, 9, [], "")
    transcripts = _transcripts(ctx.vault.home, "alice")
    assert {t.thread_id for t in transcripts} == {f"chatgpt-6a1f0c2e-000{i}-4b7e-9d1a-aa000000000{i}" for i in (1, 2, 3)}
    assert {t.thread_title for t in transcripts} == {"Moving to Lisbon", "Knee rehab", "Weekend plans"}
    lisbon = next(t for t in transcripts if t.thread_title == "Moving to Lisbon")
    assert "\n# Session 1 · Moving to Lisbon · 2024-05-01\n" in lisbon.render()
    facts = {(e.key, e.value) for e in ctx.vault.memory_file("alice", "fact").entries}
    assert {("residence", "Lisbon"), ("pet", "cat named Miso"), ("job", "nurse")} <= facts
    assert ("pet", "dog named Pixel") not in facts  # said only on the branch the user edited away
    likes = {e.value for e in ctx.vault.memory_file("alice", "preference").entries}
    assert "hiking in the mountains" in likes
    again = import_export(ctx, FIXTURES / "chatgpt_conversations.json", "chatgpt", "alice")
    assert (again.new, again.already_known, again.facts_recorded) == (0, 9, 0)
    assert len(_transcripts(ctx.vault.home, "alice")) == len(transcripts)
    report = check_home(ctx)
    assert report.ok, report.markdown()


def test_claude_and_openai_exports_land_in_their_own_threads(ctx):
    claude = import_export(ctx, FIXTURES / "claude_conversations.json", "claude", "bob")
    openai = import_export(ctx, FIXTURES / "openai_chats.jsonl", "openai", "bob")
    assert (claude.conversations, claude.new) == (2, 4)
    assert (openai.conversations, openai.new, openai.conversations_skipped, len(openai.errors)) == (2, 4, 2, 2)
    threads = {t.thread_id for t in _transcripts(ctx.vault.home, "bob")}
    assert {"claude-3b2f7c10-1111-4c2a-8e5e-bb0000000001", "openai-chat-001"} <= threads and len(threads) == 4
    facts = {(e.key, e.value) for e in ctx.vault.memory_file("bob", "fact").entries}
    assert ("residence", "Porto") in facts and ("pet", "cat named Miso") in facts
    assert not (ctx.vault.home / "users" / "alice").exists()  # bob's export is bob's memory only


def test_only_picks_conversations_by_title_or_id(ctx):
    report = import_export(ctx, FIXTURES / "chatgpt_conversations.json", "chatgpt", "alice",
                           only=["knee REHAB", "6a1f0c2e-0003-4b7e-9d1a-aa0000000003"])
    assert (report.conversations, report.conversations_skipped) == (2, 1)
    assert {t.thread_title for t in _transcripts(ctx.vault.home, "alice")} == {"Knee rehab", "Weekend plans"}


def test_an_import_interrupted_between_batches_resumes_and_counts_each_message_once(ctx, monkeypatch):
    calls = {"n": 0}
    real = importer.ingest_messages

    def dies_after_first_batch(home, messages, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt  # as if the process were stopped here
        return real(home, messages, *args, **kwargs)

    monkeypatch.setattr(importer, "ingest_messages", dies_after_first_batch)
    with pytest.raises(KeyboardInterrupt):
        import_export(ctx, FIXTURES / "chatgpt_conversations.json", "chatgpt", "alice", batch_messages=2)
    monkeypatch.setattr(importer, "ingest_messages", real)
    resumed = import_export(ctx, FIXTURES / "chatgpt_conversations.json", "chatgpt", "alice", batch_messages=2)
    assert resumed.already_known == 5 and resumed.new == 4  # the first conversation's batch was stored
    assert len(ctx.catalog.table_rows("messages", "id")) == 9


def test_a_truncated_export_stores_the_complete_conversations_and_nothing_of_the_broken_one(ctx, tmp_path):
    text = (FIXTURES / "chatgpt_conversations.json").read_text(encoding="utf-8")
    cut = tmp_path / "conversations.json"
    cut.write_text(text[: text.index("I love hiking")], encoding="utf-8")
    report = import_export(ctx, cut, "chatgpt", "alice")
    assert "inside conversation 3 (6a1f0c2e-0003-4b7e-9d1a-aa0000000003, \"Weekend plans\")" in report.stopped
    assert report.conversations == 2 and report.new == 7
    assert "Weekend plans" not in {t.thread_title for t in _transcripts(ctx.vault.home, "alice")}
    assert check_home(ctx).ok


def test_the_cli_imports_a_zip_and_exits_1_on_a_broken_file(tmp_path, capsys):
    home = tmp_path / "home"
    archive = tmp_path / "claude-export.zip"
    shutil.make_archive(str(archive.with_suffix("")), "zip", FIXTURES, "claude_conversations.json")
    (tmp_path / "z").mkdir()
    renamed = tmp_path / "z" / "conversations.json"
    shutil.copy(FIXTURES / "claude_conversations.json", renamed)
    shutil.make_archive(str(archive.with_suffix("")), "zip", tmp_path / "z")
    code = cli.main(["import", "claude", str(archive), "--user", "carol", "--home", str(home), "--backend", "scripted",
                     "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["new"] == 4 and out["enrichment"]["completed"] >= 1
    broken = tmp_path / "broken.json"
    broken.write_text(renamed.read_text(encoding="utf-8")[:300], encoding="utf-8")
    code = cli.main(["import", "claude", str(broken), "--user", "carol", "--home", str(home), "--backend", "scripted"])
    err = capsys.readouterr().err
    assert code == 1 and "stopped:" in err and "inside conversation 1 (3b2f7c10-1111" in err
    code = cli.main(["import", "claude", str(tmp_path / "missing.json"), "--user", "carol", "--home", str(home)])
    assert code == 2 and "missing.json does not exist" in capsys.readouterr().err
    code = cli.main(["import", "claude", str(renamed), "--user", "../etc", "--home", str(home)])
    assert code == 2 and "not a safe name" in capsys.readouterr().err

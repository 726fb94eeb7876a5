"""`panda jobs delete-user alice --confirm`: no trace of alice anywhere in the home or the catalog."""

from __future__ import annotations

import json
import shutil
import tarfile
from datetime import UTC, datetime, timedelta

import pytest

from panda.catalog.maintenance import Maintenance
from panda.errors import ConfirmationRequired
from panda.memory.search import SearchRequest
from tests.conftest import SHARED_DATA
from tests.jobs.conftest import job, say, turns

ALICE = ("zebraquartz7781", "Marigoldvane", "ALICE-PLANT-5521")  # unique strings planted in alice's memory
BOB = ("onyxheron4410",)
T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)


def _turn(user: str, n: int, when: datetime, query: str) -> str:
    return json.dumps({"user_id": user, "session_id": f"{user}-chat", "turn_id": f"{user}{n}",
                       "timestamp": when.isoformat(), "query": query})


def _occurrences(home, needles, catalog) -> list[str]:
    """Every file under the home whose bytes contain a needle, and every catalog cell that does."""
    hits = []
    for path in home.rglob("*"):
        if path.is_file() and path.suffix != ".duckdb":
            data = path.read_bytes()
            hits += [f"{path}: {n}" for n in needles if n.encode() in data]
    catalog.con.execute("CHECKPOINT")
    database = home / "catalog" / "panda.duckdb"
    data = database.read_bytes()
    for n in needles:  # where in the file, and what is around it: what a failure needs to be understood
        if (at := data.find(n.encode())) >= 0:
            hits.append(f"{database} (bytes): {n} at offset {at} of {len(data)}: {data[max(0, at - 80):at + 80]!r}")
    con = catalog.con
    tables = con.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()
    for (table,) in tables:
        for n in needles:
            count = con.execute(f"SELECT count(*) FROM {table} t WHERE contains(lower(t::VARCHAR), lower(?))", [n]).fetchone()[0]
            if count:
                hits.append(f"catalog {table}: {n} x{count}")
    return hits


def test_delete_user_leaves_no_trace_and_keeps_bob(ctx, tmp_path):
    lines = [
        _turn("alice", 1, T0, f"I adopted a parrot called {ALICE[0]} and I live in {ALICE[1]}."),
        _turn("bob", 1, T0, f"My telescope is nicknamed {BOB[0]}."),
        _turn("alice", 2, T0 + timedelta(days=1), f"What is {ALICE[0]} eating? Remember {ALICE[2]}."),
        _turn("bob", 2, T0 + timedelta(days=1), f"Where did I put {BOB[0]}?"),
    ]
    turns(ctx, tmp_path, lines)
    say(ctx, "alice", "diary", T0 + timedelta(days=2), f"Note to self: {ALICE[2]} is the locker code.", "Noted.")
    say(ctx, "bob", "diary", T0 + timedelta(days=2), f"{BOB[0]} needs a new lens.", "Noted.")
    doc = ctx.memory.prepare_save(f"Parrots like {ALICE[0]} enjoy millet", doc_type="memory", topic="pet.parrot",
                                  keywords=[], user_id="alice", scope="user", now=T0)
    doc.usage_count, doc.validation_success, doc.validation_count = 12, 5, 5
    ctx.memory.save(doc)
    later = T0 + timedelta(days=40)
    job(ctx, "summarisation", later)
    job(ctx, "promotion", later)  # alice's memory becomes a global note (planted string inside, no user id)
    job(ctx, "archival", later)  # alice's turns move to archive/2026-03/alice/
    assert ctx.catalog.get_document(doc.id)["scope"] == "global"
    ctx.memory.search(SearchRequest(ALICE[0], user_id="alice", now=later))  # a retrieval row with alice's query
    changes = ctx.vault.home / "Logs" / "Changes" / "2026-04.md"
    changes.write_text(f"- 2026-04-11 users/alice/turns/turn_000001 updated\n- 2026-04-11 saved {BOB[0]} note\n")
    assert _occurrences(ctx.vault.home, ALICE, ctx.catalog)

    with pytest.raises(ConfirmationRequired):
        job(ctx, "delete-user", later, user="alice")
    dry = job(ctx, "delete-user", later, dry_run=True, user="alice")
    assert dry.counts["folders_removed"] >= 3 and dry.counts["derived_notes_removed"] == 1
    assert (ctx.vault.home / "users" / "alice").exists()

    report = job(ctx, "delete-user", later, user="alice", confirm=True)
    assert report.changed == dry.changed
    assert _occurrences(ctx.vault.home, [*ALICE, "users/alice"], ctx.catalog) == []
    assert not (ctx.vault.home / "users" / "alice").exists()
    maintenance = Maintenance(ctx.catalog)
    assert all(v == 0 for v in maintenance.user_row_counts(["alice"]).values())
    events = ctx.catalog.con.execute("SELECT entity_id, data FROM system_events").fetchall()
    assert not [e for e in events if "alice" in f"{e[0]} {e[1]}"]  # not even her id in the event log
    audit = maintenance.deletion_audit()
    assert len(audit) == 1 and "alice" not in json.dumps(audit, default=str)

    backup = report.notes[0].split("backup written to ")[1]
    from pathlib import Path

    assert ctx.vault.home.resolve() not in Path(backup).resolve().parents
    with tarfile.open(backup) as tar:  # the backup (outside the home) can restore what was removed
        names = tar.getnames()
        assert "catalog_rows.json" in names and any(n.startswith("users/alice/") for n in names)

    # bob is untouched: files, catalog rows, search.
    assert len(_occurrences(ctx.vault.home, BOB, ctx.catalog)) >= 3
    assert BOB[0] in changes.read_text() and "alice" not in changes.read_text()
    assert ctx.memory.search(SearchRequest(f"{BOB[0]} lens", user_id="bob", now=later, record=False))
    assert {r["user_id"] for r in ctx.catalog.turns()} == {"bob"}
    assert job(ctx, "delete-user", later, user="alice", confirm=True).changed == 0  # idempotent


PAGES = SHARED_DATA / "webpages"
PLANT = {"ingest": "ingestplantqv", "turn": "turnplantqv", "research": "zebraquartzia", "save": "saveplantqv",
         "upper": "upperplantqv"}


@pytest.mark.skipif(not (PAGES / "manifest.json").exists(), reason="../shared/data/webpages is absent")
def test_delete_user_forgets_what_every_write_path_wrote(ctx, tmp_path):
    """Unique strings go in through ingest, `panda run` turns, research turns, memory.save, promotion to
    global, summaries, archival and aging (and a second casing of the id); after deletion no file of the
    home and no byte of the database holds them or the user id, bob keeps his memory, `panda check` is clean."""
    from panda.research.corpus import ingest_corpus

    crawl = tmp_path / "crawl"
    crawl.mkdir()
    for name in ("bettycrocker.com.pineapple.html", "manifest.json"):
        shutil.copy(PAGES / name, crawl / name)
    ingest_corpus(ctx, crawl, T0 - timedelta(days=1))
    turns(ctx, tmp_path, [_turn("bob", 1, T0, "Pineapple upside-down cake: what is the best recipe?")], "bob.jsonl")
    turns(ctx, tmp_path, [
        _turn("alice", 1, T0, f"My parrot {PLANT['turn']} talks a lot. I love parrots."),
        _turn("alice", 2, T0 + timedelta(hours=1), f"Pineapple {PLANT['research']} cake: what is the best recipe?"),
        _turn("alice", 3, T0 + timedelta(hours=2), f"Pineapple upside-down cake {PLANT['research']}: best recipe?"),
        _turn("Alice", 1, T0 + timedelta(hours=3), f"Remember {PLANT['upper']} for me."),
    ], "alice.jsonl")
    say(ctx, "alice", "diary", T0, f"The shed code is {PLANT['ingest']}.", "Noted.", "Thanks.")
    say(ctx, "bob", "diary", T0, f"{BOB[0]} needs a new lens.", "Noted.")
    doc = ctx.memory.prepare_save(f"Parrots like {PLANT['save']} millet", doc_type="memory", topic="pet.parrot",
                                  keywords=[], user_id="alice", scope="user", now=T0)
    doc.usage_count, doc.validation_success, doc.validation_count = 12, 5, 5
    ctx.memory.save(doc)
    alice_turn = ctx.catalog.turns("alice")[0]["id"]
    ctx.catalog.record_retrieval(user_id=None, session_id=None, turn_id=alice_turn, query=f"what about {PLANT['turn']}",
                                 retrieval_type="memory", candidates=1, result_ids=[alice_turn],
                                 retrieval_ms=1.0, context_tokens=10)
    ctx.catalog.record_event("note", "turn", alice_turn, {"said": PLANT["turn"]})
    home = ctx.vault.home
    research = home / "Knowledge" / "Research"
    shared_note = research / "pineapple_upside.md"
    # her question never enters bob's shared note (issue 44: topic and findings only); her topic names its own note
    assert PLANT["research"] not in shared_note.read_text() and (research / "pineapple_zebraquartzia.md").exists()
    for name, days in (("summarisation", 40), ("promotion", 40), ("archival", 40), ("aging", 100)):
        job(ctx, name, T0 + timedelta(days=days), check=name != "promotion")
    assert ctx.catalog.get_document(doc.id)["scope"] == "global"  # promoted: the plant now lives in Knowledge/Facts
    assert any((home / "archive").glob("*/alice/turn_*")) and any((home / "archive").glob("*/Alice/turn_*"))
    bob_turn = next((home / "archive").glob("*/bob/turn_000001/context.md"))  # the link the issue found
    bob_turn.write_text(bob_turn.read_text() + "\nSee [alice: turnplantqv](../../alice/turn_000001/context.md)\n")
    needles = [*PLANT.values(), "alice"]
    assert {n for n in needles if _occurrences(home, [n], ctx.catalog)} == set(needles)

    report = job(ctx, "delete-user", T0 + timedelta(days=100), user="ALICE", confirm=True)
    assert report.counts["knowledge_notes_removed"] >= 1 and report.counts["knowledge_notes_rewritten"] >= 1
    assert _occurrences(home, needles, ctx.catalog) == []
    assert not (research / "pineapple_zebraquartzia.md").exists()
    from panda.privacy.forget import note_hashes
    from panda.privacy.provenance import provenance_hash

    kept = ctx.vault.read_document("Knowledge/Research/pineapple_upside.md")  # bob's note, without alice's update
    assert note_hashes(kept) == {provenance_hash(ctx.catalog.turns("bob")[0]["id"])} and "13x9-inch pan" in kept.body
    assert "See (deleted)" in bob_turn.read_text()  # her title went with the link
    assert ctx.memory.search(SearchRequest(f"{BOB[0]} lens", user_id="bob", now=T0 + timedelta(days=100), record=False))
    assert {r["user_id"] for r in ctx.catalog.turns()} == {"bob"}

"""Research turns end to end (scripted backend): webpage cache, research.md/json, Knowledge notes,
Meta indexes, change log; a second turn on the topic appends; a later one reuses the cache."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import frontmatter
import pytest

from panda.memory.search import SearchRequest
from tests.conftest import SHARED_DATA
from tests.jobs.conftest import ingest_pages, turns

PAGES = SHARED_DATA / "webpages"
SAMPLE = Path(__file__).resolve().parents[2] / "data" / "samples" / "turns.jsonl"
pytestmark = pytest.mark.skipif(not (PAGES / "manifest.json").exists(), reason="../shared/data/webpages is absent")
TEMPLATE_KEYS = {"artifact_type", "topic", "subtopic", "created", "modified", "source", "source_urls", "confidence",
                 "status", "tags", "related", "expires"}


def _links_resolve(home: Path, path: Path) -> list[str]:
    """Relative markdown links and [[wiki-links]] of a note that do not resolve in the vault."""
    text = path.read_text()
    broken = []
    for target in re.findall(r"\]\(((?!https?:|file:)[^)#]+)\)", text):
        if not (path.parent / target).resolve().exists():
            broken.append(target)
    stems = {p.stem for p in home.rglob("*.md")}
    broken += [w for w in re.findall(r"\[\[([^\]|]+)\]\]", text) if w not in stems]
    return broken


def test_research_turns_cache_notes_indexes_and_reuse(ctx, tmp_path):
    ingest_pages(ctx, tmp_path, "bettycrocker.com.pineapple.html", "parallels.com.desktop.html",
                 "pcgamer.com.darkest.html")
    lines = [line for line in SAMPLE.read_text().splitlines() if '"dave"' in line]
    assert len(lines) == 3
    report = turns(ctx, tmp_path, lines[:1], "d1.jsonl")
    assert report.outcomes == {"APPROVE": 1}
    home = ctx.vault.home
    turn1 = ctx.vault.turn_dir("dave", 1)
    caches = sorted((turn1 / "webpage_cache").iterdir())
    assert caches and all({"manifest.json", "page_content.md", "extracted_data.json"} <= {p.name for p in c.iterdir()}
                          for c in caches)
    betty = next(c for c in caches if c.name.startswith("bettycrocker_com"))
    manifest = json.loads((betty / "manifest.json").read_text())
    assert manifest["url"].startswith("https://www.bettycrocker.com/") and manifest["extracted"] and manifest["summary"]
    extracted = json.loads((betty / "extracted_data.json").read_text())
    assert extracted["claims"] and all(c["url"] == manifest["url"] for c in extracted["claims"])
    research = json.loads((turn1 / "research.json").read_text())
    assert research["topic"] == "pineapple.upside" and research["pages"] and research["quality"]["completeness"] == 1.0
    assert "[context.md](context.md)" in (turn1 / "research.md").read_text()  # backlink to the turn that used it
    assert "[research.md](research.md)" in (turn1 / "context.md").read_text()  # and the turn links its research

    note = home / "Knowledge" / "Research" / "pineapple_upside.md"
    meta = frontmatter.loads(note.read_text()).metadata
    assert TEMPLATE_KEYS <= set(meta) and meta["artifact_type"] == "research" and meta["status"] == "active"
    assert meta["expires"] == "2026-09-01"  # 180 days
    from panda.research.knowledge import note_importance

    row = ctx.catalog.con.execute("SELECT importance FROM documents WHERE doc_path = ?",
                                  ["Knowledge/Research/pineapple_upside.md"]).fetchone()
    assert row is not None and row[0] == meta["importance"] == note_importance(research["query"])  # not the constant
    assert _links_resolve(home, note) == []
    indexes = {p.name: p.read_text() for p in (home / "Meta" / "Indexes").glob("*_index.md")}
    assert set(indexes) == {"topic_index.md", "tag_index.md", "product_index.md", "recent_index.md"}
    assert "[[pineapple_upside]]" in indexes["topic_index.md"] and "[[pineapple_upside]]" in indexes["recent_index.md"]
    for index in (home / "Meta" / "Indexes").glob("*_index.md"):
        assert _links_resolve(home, index) == []
    log = (home / "Logs" / "Changes" / "2026-03-05.md").read_text()
    from panda.privacy.provenance import provenance_hash

    assert "created research [[pineapple_upside]]" in log and provenance_hash("turn_dave_000001") in log
    assert "users/" not in log and "dave" not in log  # global: provenance is an opaque hash

    site = json.loads((home / "site_knowledge" / "bettycrocker.com.json").read_text())
    assert site["visits"] == 1 and site["extractions"] == site["successes"] == 1 and site["turns"] == [provenance_hash("turn_dave_000001")]

    turns(ctx, tmp_path, lines[1:2], "d2.jsonl")  # same topic, same day: notes appended, cache reused
    text = note.read_text()
    assert text.count("## Update 2026-03-05") == 1 and "dave" not in frontmatter.loads(text).metadata.get("tags", [])
    log = (home / "Logs" / "Changes" / "2026-03-05.md").read_text()
    assert "updated research [[pineapple_upside]]" in log
    update = log.split("updated research [[pineapple_upside]]", 1)[1].split("\n- ", 1)[0]
    assert "```diff" in update and "+## Update 2026-03-05" in update  # the change audit: what the update added
    first = ctx.catalog.get_document(research["pages"] and json.loads((turn1 / "metadata.json").read_text())["research"]["doc_id"])
    assert first["invalid_at"] is not None  # superseded by the second turn's research, file kept
    assert (turn1 / "research.md").exists()

    turns(ctx, tmp_path, lines[2:], "d3.jsonl")  # two weeks later: static page, still fresh -> from the cache
    turn3 = ctx.vault.turn_dir("dave", 3)
    reused = json.loads(next((turn3 / "webpage_cache").glob("bettycrocker_com*/manifest.json")).read_text())
    assert reused["reused_from"].startswith("users/dave/turns/turn_00000")
    assert "from the webpage cache" in (turn3 / "context.md").read_text()
    assert note.read_text().count("## Update") == 2 and _links_resolve(home, note) == []
    site = json.loads((home / "site_knowledge" / "bettycrocker.com.json").read_text())
    assert site["visits"] == 3 and site["extractions"] == 1  # turns 2 and 3 read it from the cache
    section2 = (turn3 / "context.md").read_text().split("## §3")[0]
    assert "### Followed links" in section2 and "research.md" in section2  # gather followed prior turns' links
    cached = section2.split("### From the webpage cache", 1)[1].split("###", 1)[0]  # cache-first, the seed's order
    levels = re.findall(r"^- \[[^\]]* · (summary|data|passage)\]", cached, re.M)
    assert levels and levels[0] == "summary" and levels == sorted(levels, key=["summary", "data", "passage"].index)
    assert "bettycrocker" in cached and "webpage_cache/" not in section2.split("### Followed links", 1)[1]

    from panda.jobs.reindex import reindex

    reindex(ctx)
    assert ctx.catalog.get_document(research["pages"] and json.loads((turn3 / "metadata.json").read_text())["research"]["doc_id"])
    found = ctx.memory.search(SearchRequest("pineapple upside-down cake", user_id="erin", now=datetime(2026, 3, 21, tzinfo=UTC),
                              record=False))
    assert any(r.kind == "note" for r in found)  # knowledge notes are global: another user finds them


def test_a_product_page_grows_a_price_history(ctx, tmp_path):
    ingest_pages(ctx, tmp_path, "tomshardware.com.rtx.html")
    ask = '{{"user_id": "erin", "session_id": "e{n}", "turn_id": "e{n}", "timestamp": "2026-0{m}-02T09:00:00Z", "query": "RTX 3080 graphics card: where to buy it and what price?"}}'
    turns(ctx, tmp_path, [ask.format(n=1, m=3)], "e1.jsonl")
    products = list((ctx.vault.home / "Knowledge" / "Products").glob("*.md"))
    assert len(products) == 1 and f"[[{products[0].stem}]]" in (ctx.vault.home / "Meta" / "Indexes" / "product_index.md").read_text()
    turns(ctx, tmp_path, [ask.format(n=2, m=4)], "e2.jsonl")  # a month later: prices are stale -> revisited
    text = products[0].read_text()
    rows = [line for line in text.splitlines() if line.startswith("| 2026-")]
    assert len(rows) == 2 and rows[0].startswith("| 2026-03-02") and rows[1].startswith("| 2026-04-02")
    assert frontmatter.loads(text).metadata["artifact_type"] == "product"
    second = json.loads(next((ctx.vault.turn_dir("erin", 2) / "webpage_cache").glob("*/manifest.json")).read_text())
    assert second["reused_from"] is None and "pricing" in second["content_types"]  # volatile: visited again


def test_relative_links_and_reliability_weight():
    from panda.memory.links import relative_links
    from panda.research.search import reliability_weight

    assert relative_links("[r](research.md) [w](https://x.com/a.md) [c](../t/context.md#s2) [r2](research.md)") == \
        ["research.md", "../t/context.md"]
    assert reliability_weight(0.9) == 0.95 and reliability_weight(None) == 0.75


def test_a_research_turn_sends_no_pii(ctx, tmp_path):
    ingest_pages(ctx, tmp_path, "bettycrocker.com.pineapple.html")
    query = ("Pineapple upside-down cake recipe for my party? My name is Zoe Quartermaine, I live in Tulsa, "
             "email zoe.q@example.net or call 918-555-0199")
    line = json.dumps({"user_id": "zoe", "session_id": "z1", "timestamp": "2026-03-06T10:00:00Z", "query": query})
    turns(ctx, tmp_path, [line], "z.jsonl")
    folder = ctx.vault.turn_dir("zoe", 1)
    sent = json.loads((folder / "research.json").read_text())["query_sent"]
    planted = ("Zoe", "Quartermaine", "Tulsa", "zoe.q", "example.net", "918", "555-0199")
    assert "pineapple" in sent.lower() and not [p for p in planted if p in sent]
    logged = [r[0] for r in ctx.catalog.con.execute(
        "SELECT query FROM retrieval_operations WHERE retrieval_type = 'research.search'").fetchall()]
    assert logged and not [p for q in logged for p in planted if p in q]
    research_log = (folder / "toolresults.md").read_text().split("research.search", 1)[1]
    assert not [p for p in planted if p in research_log.split("```", 2)[1]]


def test_page_intelligence_sees_the_original_query_when_the_analysis_rephrased_it():
    from panda.llm.prompts import load_prompt

    template = load_prompt("page_intelligence")
    variables = {"question": "pineapple upside-down cake recipe", "title": "T", "domain": "d", "text": "Bake 45 min."}
    asked = template.render(**variables, original_query="What's the best pineapple cake for my mum's birthday?")
    assert "The user asked: What's the best pineapple cake for my mum's birthday?" in asked[-1]["content"]
    same = template.render(**variables, original_query="pineapple upside-down cake recipe")
    assert "The user asked" not in same[-1]["content"]


def test_log_changes_false_writes_notes_but_no_change_log(tmp_path, embedder):
    """Seed 003's write.log_changes switch, set in memory_config.yaml; and a turn below the significance
    threshold leaves no Context/Turns lesson."""
    from panda.config import Settings, load_policy
    from panda.llm.scripted import ScriptedBackend
    from panda.llm.scripted_replies import schema_responder
    from panda.runtime import open_home

    home = tmp_path / "home"
    policy_path = home / "Meta" / "Config" / "memory_config.yaml"
    load_policy(home)
    policy_path.write_text(policy_path.read_text().replace("log_changes: true", "log_changes: false")
                           .replace("significant_turn_quality: 0.8", "significant_turn_quality: 1.0"))
    backend = ScriptedBackend(responder=schema_responder)
    ctx = open_home(Settings(home=home, backend="scripted"), embedder=embedder, backend=backend)
    assert ctx.policy.write.log_changes is False
    ingest_pages(ctx, tmp_path, "bettycrocker.com.pineapple.html")
    lines = [line for line in SAMPLE.read_text().splitlines() if '"dave"' in line]
    assert turns(ctx, tmp_path, lines[:1], "d1.jsonl").outcomes == {"APPROVE": 1}
    assert list((home / "Knowledge").rglob("*.md"))  # the notes are written
    assert not (home / "Logs" / "Changes").exists() or not list((home / "Logs" / "Changes").glob("*.md"))
    assert not list(home.glob("Context/Turns/*.md"))  # below the policy's significance: no lesson
    ctx.catalog.close()


def test_a_significant_research_turn_leaves_a_public_lesson_in_context_turns(ctx, tmp_path):
    """Seed 003: significant context goes to Context/Turns — here as the turn's public lesson (no user data)."""
    from panda.doctor import check_home

    ingest_pages(ctx, tmp_path, "bettycrocker.com.pineapple.html")
    lines = [line.replace('"dave"', '"dave.smith"') for line in SAMPLE.read_text().splitlines() if '"dave"' in line]
    assert turns(ctx, tmp_path, lines[:1], "d1.jsonl").outcomes == {"APPROVE": 1}
    [lesson] = list((ctx.vault.home / "Context" / "Turns").glob("*.md"))
    text = lesson.read_text()
    assert "Pineapple upside-down cake" in text and "**Outcome:** APPROVE" in text and "research.search" in text
    assert "bettycrocker.com" in text and "[[pineapple_upside" in text  # pages read, the Knowledge note it fed
    assert "dave" not in text.lower() and "users/" not in text
    row = ctx.catalog.con.execute("SELECT scope, content_types FROM documents WHERE doc_path = ?",
                                  [ctx.vault.layout.relative(lesson)]).fetchone()
    assert row == ("global", ["context"])
    assert "created context" in next((ctx.vault.home / "Logs" / "Changes").glob("*.md")).read_text()
    report = check_home(ctx)
    assert report.ok, report.findings


def test_stale_prices_on_a_fresh_page_are_refreshed_alone(ctx, tmp_path):
    """Seed 002's selective refresh: ten days on, the page's text is fresh but its prices are not; the page
    is re-read for prices only (phase page_prices), its claims kept; past research_days it is read whole."""
    ingest_pages(ctx, tmp_path, "tomshardware.com.rtx.html")
    ask = ('{{"user_id": "erin", "session_id": "e{n}", "timestamp": "{when}", '
           '"query": "RTX 3080 graphics card: where to buy it and what price?"}}')
    from panda.llm.scripted import ScriptedBackend
    from panda.llm.scripted_replies import schema_responder
    from panda.pipeline.scheduler import run_batch
    from panda.pipeline.turn_input import read_turns

    backend = ScriptedBackend(responder=schema_responder)

    def turns(ctx, tmp_path, lines, name):
        (tmp_path / name).write_text("\n".join(lines) + "\n")
        return run_batch(read_turns(tmp_path / name)[0], ctx, backend)

    turns(ctx, tmp_path, [ask.format(n=1, when="2026-03-02T09:00:00Z")], "e1.jsonl")
    first = next((ctx.vault.turn_dir("erin", 1) / "webpage_cache").glob("tomshardware*"))
    before = len(backend.history)
    turns(ctx, tmp_path, [ask.format(n=2, when="2026-03-12T09:00:00Z")], "e2.jsonl")
    phases = [r.phase for batch in backend.history[before:] for r in batch]
    assert "page_prices" in phases and "page_intelligence" not in phases
    second = next((ctx.vault.turn_dir("erin", 2) / "webpage_cache").glob("tomshardware*"))
    manifest = json.loads((second / "manifest.json").read_text())
    assert manifest["refresh"] == "prices" and manifest["prices_at"].startswith("2026-03-12")
    assert manifest["captured_at"] == json.loads((first / "manifest.json").read_text())["captured_at"]
    assert manifest["refreshed_from"] == ctx.vault.layout.relative(first)
    old, new = (json.loads((d / "extracted_data.json").read_text()) for d in (first, second))
    assert new["claims"] == old["claims"] and new["products"] and all(p["price"] for p in new["products"])
    before = len(backend.history)
    turns(ctx, tmp_path, [ask.format(n=3, when="2026-10-01T09:00:00Z")], "e3.jsonl")  # past research_days
    assert "page_intelligence" in [r.phase for batch in backend.history[before:] for r in batch]


def test_a_users_personal_sentence_never_titles_a_shared_note_and_check_flags_one_that_does(ctx, tmp_path):
    """Issue 44: the research turn's question carried a birth date and an IBAN before the product question; the shared
    notes take their words from the topic and the findings, and the lesson states the task without the person."""
    from panda.doctor import check_home

    ingest_pages(ctx, tmp_path, "bettycrocker.com.pineapple.html")
    line = json.dumps({"user_id": "erin", "session_id": "e1", "turn_id": "e1", "timestamp": "2026-03-05T10:00:00Z",
                       "query": "I was born on 14 February 1987 and my account number is NO93 8601 1117 947. "
                                "Pineapple upside-down cake: what is the best recipe?"})
    turns(ctx, tmp_path, [line], "e1.jsonl")
    shared = [p for root in ("Knowledge", "Context", "Logs/Changes") for p in (ctx.vault.home / root).rglob("*.md")]
    assert shared
    for path in shared:
        text = path.read_text(encoding="utf-8")
        assert "born on" not in text and "account number" not in text and "NO93" not in text, path
    report = check_home(ctx, compare_catalog=False)
    assert report.ok, report.findings
    note = next((ctx.vault.home / "Knowledge" / "Research").glob("*.md"))
    note.write_text(note.read_text(encoding="utf-8").replace("subtopic: pineapple upside",
                                                             "subtopic: I was born on and my account number is"),
                    encoding="utf-8")
    flagged = check_home(ctx, compare_catalog=False)
    assert any("repeats what user 'erin' wrote" in f for f in flagged.findings.get("privacy", []))


def test_the_shared_notes_job_repairs_notes_an_older_panda_wrote(ctx, tmp_path):
    from datetime import UTC, datetime

    from panda.doctor import check_home
    from panda.jobs.registry import run_job

    ingest_pages(ctx, tmp_path, "bettycrocker.com.pineapple.html")
    line = json.dumps({"user_id": "erin", "session_id": "e1", "turn_id": "e1", "timestamp": "2026-03-05T10:00:00Z",
                       "query": "I was born on 14 February 1987 and my account number is NO93 8601 1117 947. "
                                "Pineapple upside-down cake: what is the best recipe?"})
    turns(ctx, tmp_path, [line], "e1.jsonl")
    note = next((ctx.vault.home / "Knowledge" / "Research").glob("*.md"))
    old = "I was born on and my account number is . Pineapple upside-down cake: what is the best recipe?"
    note.write_text(note.read_text(encoding="utf-8").replace("subtopic: pineapple upside", f"subtopic: '{old}'")
                    + f"\n## Update 2026-03-06 · `t_x`\n\n**Query:** {old}\n", encoding="utf-8")
    changes = next((ctx.vault.home / "Logs" / "Changes").glob("*.md"))
    changes.write_text(changes.read_text(encoding="utf-8") + f"\n  + subtopic: {old}\n", encoding="utf-8")
    assert not check_home(ctx, compare_catalog=False).ok
    report = run_job("shared-notes", ctx, datetime(2026, 3, 7, tzinfo=UTC))
    assert report.counts["research_notes_repaired"] == 1 and report.counts["change_log_lines_dropped"] >= 1
    for path in [note, changes]:
        assert "born on" not in path.read_text(encoding="utf-8")
    assert check_home(ctx, compare_catalog=False).ok
    again = run_job("shared-notes", ctx, datetime(2026, 3, 8, tzinfo=UTC))
    assert not again.changes  # idempotent

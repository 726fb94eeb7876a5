"""The web corpus over the 40 real pages in ../shared/data/webpages, and research.search's PII scrubbing."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime

import pytest

from panda.memory.search import SearchRequest
from panda.research.extract import ExtractionError, extract_page, markdown_to_text, strip_boilerplate
from tests.conftest import SHARED_DATA

PAGES = SHARED_DATA / "webpages"
NOW = datetime(2026, 11, 1, tzinfo=UTC)
pytestmark = pytest.mark.skipif(not (PAGES / "manifest.json").exists(), reason="../shared/data/webpages is absent")


def _norm(text: str) -> str:
    return " ".join(text.split())


def test_extraction_keeps_95_percent_of_expected_phrases_and_leaks_at_most_5_percent():
    manifest = json.loads((PAGES / "manifest.json").read_text())
    found = leaked = expected = unexpected = 0
    for entry in manifest["pages"]:
        page = extract_page((PAGES / entry["filename"]).read_bytes(), entry["source_url"])
        text = _norm(page.text)
        expected += len(entry["expected_phrases"])
        unexpected += len(entry["unexpected_phrases"])
        found += sum(_norm(p) in text for p in entry["expected_phrases"])
        leaked += sum(_norm(p) in text for p in entry["unexpected_phrases"])
    assert expected == 119 and unexpected == 119
    assert found / expected >= 0.95, (found, expected)
    assert leaked / unexpected <= 0.05, (leaked, unexpected)


def test_metadata_and_pure_helpers():
    page = extract_page((PAGES / "pcgamer.com.darkest.html").read_bytes(),
                        "https://www.pcgamer.com/through-the-darkest-of-times-review/")
    assert page.domain == "pcgamer.com" and page.author == "Luke Kemp" and page.date == "2020-02-11"
    assert page.title.startswith("Through the Darkest of Times review") and page.language == "en"
    assert strip_boilerplate("Great review of the game.\n\n© 2020 Acme. All Rights Reserved") == "Great review of the game."
    long_paragraph = "All rights reserved " + "word " * 80  # long paragraphs are article text, never cut
    assert strip_boilerplate(long_paragraph) == long_paragraph.strip()
    assert markdown_to_text("## Tips\n- **Use** [pots](http://x)") == "Tips\nUse pots"
    for bad in (b"", b"   ", b"<html><body></body></html>"):
        with pytest.raises(ExtractionError):
            extract_page(bad, "https://example.com/x")


def test_ingest_corpus_indexes_pages_skips_bad_ones_and_is_idempotent(ctx, tmp_path):
    from panda.catalog.maintenance import Maintenance
    from panda.research.corpus import ingest_corpus

    folder = tmp_path / "crawl"
    folder.mkdir()
    for name in ("pcgamer.com.darkest.html", "chip.de.beef.html", "bettycrocker.com.pineapple.html"):
        shutil.copy(PAGES / name, folder / name)  # a temporary crawl snapshot, deleted with tmp_path
    shutil.copy(PAGES / "manifest.json", folder / "manifest.json")
    (folder / "empty.html").write_bytes(b"")
    (folder / "broken.html").write_bytes(b"\x00\xff<<<div <p>>" * 20)
    (folder / "nav-only.htm").write_bytes(b"<html><body><nav><a href='/'>Home</a></nav></body></html>")

    report = ingest_corpus(ctx, folder, NOW)
    assert report.pages == 6 and report.indexed == 3 and len(report.skipped) == 3
    assert report.languages == {"en": 2, "de": 1}  # the German page is indexed like the others
    notes = sorted(p.relative_to(ctx.vault.home).as_posix() for p in (ctx.vault.home / "Web").rglob("*.md"))
    assert any(n.startswith("Web/pcgamer.com/through_the_darkest_of_times_review") for n in notes)
    note = (ctx.vault.home / notes[[i for i, n in enumerate(notes) if "pcgamer" in n][0]]).read_text()
    assert note.startswith("---\n") and "source_urls:\n- https://www.pcgamer.com/" in note and "author: Luke Kemp" in note

    hits = ctx.memory.search(SearchRequest("Paintbucket Games review", user_id="bob", now=NOW, record=False))
    assert hits[0].kind == "webpage" and "pcgamer.com" in hits[0].doc_path
    rollup = {r["domain"]: r for r in Maintenance(ctx.catalog).extraction_rollup()}
    assert rollup["pcgamer.com"]["successes"] == 1 and rollup["local"]["extractions"] == 3

    again = ingest_corpus(ctx, folder, NOW)
    assert again.indexed == 0 and again.unchanged == 3

    from panda.jobs.reindex import reindex

    reindex(ctx)
    assert ctx.memory.search(SearchRequest("Paintbucket Games review", user_id="bob", now=NOW, record=False))[0].id == hits[0].id


def test_pii_never_reaches_a_research_query(ctx, tmp_path):
    from panda.conversations.learned import from_statement, record
    from panda.language.facts import Statement
    from panda.research.corpus import ingest_corpus
    from panda.research.search import research_search

    folder = tmp_path / "crawl"
    folder.mkdir()
    shutil.copy(PAGES / "bettycrocker.com.pineapple.html", folder / "bettycrocker.com.pineapple.html")
    shutil.copy(PAGES / "manifest.json", folder / "manifest.json")
    ingest_corpus(ctx, folder, NOW)
    record(ctx.vault, "alice", [from_statement(Statement("fact", "name", "Alice Moreau"), "fact_n", NOW, "t")], NOW)

    sent: list[str] = []
    original = ctx.memory.search

    def provider(request):  # what the search provider receives
        sent.append(request.query)
        return original(request)

    ctx.memory.search = provider
    queries = [
        "Pineapple upside-down cake recipe? I'm 34 and live in Lyon, email alice.moreau@example.org",
        "Alice Moreau wants a pineapple cake recipe, call +33 6 12 34 56 78",
        "My name is Alice Moreau. What pan for pineapple upside-down cake? My card is 4111 1111 1111 1111",
    ]
    for query in queries:
        found = research_search(ctx, query, "alice", NOW)
        assert "pineapple" in found.query_sent.lower() and found.removed
        assert found.results and "bettycrocker.com" in found.results[0].doc_path
    planted = ("34", "Lyon", "alice.moreau", "example.org", "Alice", "Moreau", "+33", "12 34 56 78", "4111")
    assert len(sent) == 3 and not [p for p in planted for q in sent if p in q]
    logged = [r[0] for r in ctx.catalog.con.execute("SELECT query FROM retrieval_operations").fetchall()]
    assert len(logged) == 3 and not [p for p in planted for q in logged if p in q]


def test_relevance_floor_keeps_the_cake_page_and_drops_unrelated_ones(ctx, tmp_path):
    """A cake question finds the cake recipe and neither the Mezcal restaurant nor Parallels Desktop;
    a question no page answers finds nothing (research.relevance_floor)."""
    from panda.research.corpus import ingest_corpus
    from panda.research.search import research_search

    folder = tmp_path / "crawl"
    folder.mkdir()
    for name in ("bettycrocker.com.pineapple.html", "metrotimes.com-Mezcal.html", "parallels.com.desktop.html",
                 "plantcaretoday.com.bougainvillea.html"):
        shutil.copy(PAGES / name, folder / name)
    shutil.copy(PAGES / "manifest.json", folder / "manifest.json")
    now = datetime(2026, 5, 1, tzinfo=UTC)
    ingest_corpus(ctx, folder, now)
    cake = research_search(ctx, "How do I bake a pineapple upside-down cake for my party?", "alice", now, record=False)
    assert [r.doc_path.split("/")[1] for r in cake.results] == ["bettycrocker.com"]
    question = "How do I bake a pineapple upside-down cake for my party?"
    assert len(ctx.memory.search(SearchRequest(question, kinds=["webpage"], now=now, record=False))) == 1  # every search floors pages
    policy = ctx.memory.policy
    ctx.memory.policy = policy.model_copy(update={"research": policy.research.model_copy(update={"relevance_floor": 0.0})})
    assert len(ctx.memory.search(SearchRequest(question, kinds=["webpage"], now=now, record=False))) == 4  # no floor: all candidates
    ctx.memory.policy = policy
    assert research_search(ctx, "How big should a Syrian hamster's cage be?", "alice", now, record=False).results == []


def test_structural_boilerplate_removal_and_no_inline_script():
    from panda.research.extract import code_like, link_density, structural_clean

    page = "Intro text about the cake and the oven.\n\n- [Home](/)\n- [Recipes](/r)\n\n© 2020 Acme"
    assert structural_clean(page) == "Intro text about the cake and the oven."
    assert structural_clean("## [Gousto has changed my life](https://x/r/1)\n\nGreat food.") == \
        "## Gousto has changed my life\n\nGreat food."  # a linked heading is the page's outline, kept
    assert structural_clean("See [the study](https://x) for how we measured the fat in each sample.") == \
        "See the study for how we measured the fat in each sample."  # prose with a link stays, unwrapped
    assert link_density("[Home](/) news") == (0.5, 1)
    assert code_like("(function() { document.addEventListener('load', f); })();")
    assert not code_like("Bake for 30 minutes; cool (about 10 minutes) before serving = done.")
    fenced = "Run this:\n\n```\nconst x = () => { window.alert(1); };\n```"
    assert "window.alert" in structural_clean(fenced)  # code an article shows is content
    betty = extract_page((PAGES / "bettycrocker.com.pineapple.html").read_bytes(),
                         "https://www.bettycrocker.com/recipes/pineapple-upside-down-cake/")
    assert "addEventListener" not in betty.markdown and "JSON.parse" not in betty.text
    assert "Heat oven to 350°F" in betty.text

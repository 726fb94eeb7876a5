"""Cache-first context (seed 002 §5): the webpage cache of earlier turns, in the seed's priority order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from panda.config import Policy
from panda.documents.budgets import estimate_tokens
from panda.documents.paths import VaultLayout
from panda.research import cache
from panda.research.cache_first import best_passage, cached_items, data_text, summary_text, turn_folder

T = datetime(2026, 3, 2, 9, tzinfo=UTC)
PAGE = ("# RTX 3080 review\n\nThe card runs quietly under load and the fans stop at idle. " * 3 +
        "Our benchmark: the RTX 3080 reached 144 fps at 1440p in Cyberpunk with DLSS enabled. " +
        "Shipping was slow and the box arrived dented. " * 3)
FINDINGS = {"summary": "A review of the RTX 3080 graphics card.", "answerable_questions": ["How fast is the RTX 3080?"],
            "claims": ["The RTX 3080 is quiet under load."],
            "products": [{"name": "RTX 3080", "price": "$699", "vendor": "Newegg", "specs": ["10 GB GDDR6X"]}]}


def overlap(query: str):
    """A relevance function for tests: the share of the query's words a text holds."""
    words = set(query.lower().split())
    return lambda texts: [len(words & set(t.lower().split())) / len(words) for t in texts]


def entry(home: Path, user: str, turn: int, url: str, when: datetime, findings=FINDINGS, page: str = PAGE) -> Path:
    turn_path = home / "users" / user / "turns" / f"turn_{turn:06d}"
    return cache.write_entry(turn_path, url, "RTX 3080 review", url.split("/")[2], page, findings, when,
                             {"id": "web_1", "doc_path": "Web/x/y.md"}, "1")


def test_pure_parts_of_the_priority_order():
    assert turn_folder("users/dave/turns/turn_000001/research.md") == "users/dave/turns/turn_000001"
    assert turn_folder("archive/2026-01/dave/turn_000001/context.md#s2") == "archive/2026-01/dave/turn_000001"
    assert turn_folder("Web/a/b.md") is None and turn_folder("Knowledge/Research/turn_000001.md") is None
    assert summary_text({"title": "T", "summary": "S.", "answerable_questions": ["Q?"]}) == "T: S. Answers: Q?"
    data = {"products": FINDINGS["products"], "claims": [{"text": "Quiet."}]}
    assert data_text(data, None) == "RTX 3080 — $699 (Newegg), 10 GB GDDR6X; Quiet."
    assert data_text(data, T).endswith("[read 2026-03-02; prices may have changed]")
    assert data_text({"claims": [{"text": "Quiet."}]}, T) == "Quiet."  # no price, nothing to go stale
    passage = best_passage(" ".join(PAGE.split()), overlap("benchmark fps 1440p cyberpunk"))
    assert "144 fps" in passage and len(passage.split()) == 60


def test_summaries_first_then_data_then_passages_within_the_budget(tmp_path):
    home, policy = tmp_path / "home", Policy()
    layout = VaultLayout(home)
    entry(home, "dave", 1, "https://www.tomshardware.com/rtx", T)
    entry(home, "dave", 2, "https://www.pcgamer.com/cake", T,
          {"summary": "A cake recipe.", "answerable_questions": [], "claims": ["Bake at 180 C."], "products": []},
          "Mix the flour and bake the cake at 180 C for forty minutes. " * 5)
    paths = ["users/dave/turns/turn_000001/context.md", "users/dave/turns/turn_000002/research.md"]
    query = overlap("how fast is the rtx 3080 benchmark fps")
    items = cached_items(layout, paths, "dave", T + timedelta(days=1), policy, 1000, query)
    assert [(i.level, i.domain) for i in items] == [
        ("summary", "www.tomshardware.com"), ("summary", "www.pcgamer.com"),  # every page's summary first ...
        ("data", "www.tomshardware.com"), ("data", "www.pcgamer.com"),  # ... then extracted data ...
        ("passage", "www.tomshardware.com"), ("passage", "www.pcgamer.com")]  # ... then passages; best page first
    assert "$699 (Newegg)" in items[2].text and not items[2].stale and "144 fps" in items[4].text
    assert items[0].source_file == "manifest.json" and items[4].source_file == "page_content.md"
    small = cached_items(layout, paths, "dave", T + timedelta(days=1), policy, 40, query)
    assert [i.level for i in small][:2] == ["summary", "summary"] and "passage" not in [i.level for i in small]
    assert sum(estimate_tokens(i.text) for i in small) <= 40  # a small budget goes to the first priorities
    assert cached_items(layout, paths, "dave", T, policy, 0, query) == []


def test_stale_prices_are_marked_and_only_the_owner_reads_her_cache(tmp_path):
    home, policy = tmp_path / "home", Policy()
    layout = VaultLayout(home)
    entry(home, "dave", 1, "https://www.tomshardware.com/rtx", T)
    entry(home, "dave", 3, "https://www.tomshardware.com/rtx", T + timedelta(days=2),
          {**FINDINGS, "products": [{"name": "RTX 3080", "price": "$649", "vendor": "Newegg", "specs": []}]})
    paths = ["users/dave/turns/turn_000001/context.md", "users/dave/turns/turn_000003/context.md"]
    later = T + timedelta(days=2 + policy.freshness.time_sensitive_half_life_days + 1)
    items = cached_items(layout, paths, "dave", later, policy, 1000, overlap("rtx 3080 price"))
    data = [i for i in items if i.level == "data"]
    assert len(data) == 1 and "$649" in data[0].text  # one URL, read from its newest capture
    assert data[0].stale and "[read 2026-03-04; prices may have changed]" in data[0].text
    assert cached_items(layout, paths, "erin", later, policy, 1000, overlap("rtx 3080 price")) == []  # not hers
    next((home / "users" / "dave" / "turns" / "turn_000003" / "webpage_cache").glob("*/manifest.json")).unlink()
    items = cached_items(layout, paths, "dave", T + timedelta(days=1), policy, 1000, overlap("rtx 3080 price"))
    assert {i.folder.split("/")[3] for i in items} == {"turn_000001"}  # an entry without its manifest is incomplete

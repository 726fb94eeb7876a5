"""Seed 002 §4: evergreen and time-sensitive research findings are kept apart, and one priced page no longer
makes a whole research document time-sensitive (on main before this, `decay` was decided by any priced page)."""

from __future__ import annotations

from datetime import UTC, datetime

from panda.research.documents import research_document, research_json, split_findings, time_sensitive

NOW = datetime(2026, 5, 1, tzinfo=UTC)


def _page(url: str, claims: list[str], products: list[dict], priced: bool, summary: str = "") -> dict:
    return {"url": url, "title": url.rsplit("/", 1)[-1], "domain": "example.com", "cache": f"webpage_cache/{url[-3:]}",
            "reused": False, "query_sent": "mirrorless camera for travel",
            "manifest": {"summary": summary or f"About {url}", "content_types": ["pricing"] if priced else []},
            "extracted": {"claims": [{"text": c, "url": url} for c in claims],
                          "products": [{**p, "url": url} for p in products]}}


def test_a_finding_is_time_sensitive_by_what_it_states():
    assert time_sensitive("The X100 costs $299 at Acme") and time_sensitive("Sold out until June")
    assert time_sensitive("Now 1 299 kr hos Elkjøp") and time_sensitive("In stock at two shops")
    assert not time_sensitive("The X100 has a 24 MP sensor and weighs 480 g")
    evergreen, volatile = split_findings(_page("https://example.com/x1", ["Weather-sealed body"], [
        {"name": "X100", "price": "$299", "vendor": "Acme", "specs": ["24 MP"]}], priced=True)["extracted"])
    assert [f["text"] for f in evergreen] == ["Weather-sealed body", "**X100** (sold by Acme) — 24 MP"]
    assert [f["text"] for f in volatile] == ["**X100**: $299 at Acme"]


def test_one_priced_page_leaves_the_research_evergreen_and_the_prices_apart():
    pages = [_page("https://example.com/rev", ["The X100 has a 24 MP sensor"], [], priced=False),
             _page("https://example.com/buy", ["The X100 is $299 this week"],
                   [{"name": "X100", "price": "$299", "vendor": "Acme", "specs": []}], priced=True)]
    data = research_json("t1", "Which travel camera?", "shopping.camera", "transactional", pages,
                         {"completeness": 1.0, "source_quality": 0.5, "overall": 0.8}, NOW, None)
    assert data["decay"] == "evergreen"
    assert [f["text"] for f in data["findings"]["time_sensitive"]] == ["The X100 is $299 this week", "**X100**: $299 at Acme"]
    doc = research_document(data, "dave", "s1", 1, "res_1", 180, ["camera"])
    body = doc.body
    evergreen, volatile = body.index("## Evergreen findings"), body.index("## Time-sensitive findings")
    assert evergreen < body.index("24 MP sensor") < volatile < body.index("$299 this week") < body.index("## Pages read")
    assert "read 2026-05-01" in body and doc.content_types == ["research"]
    only_prices = research_json("t2", "X100 price?", "shopping.camera", "transactional", [
        _page("https://example.com/buy", [], [{"name": "X100", "price": "$299", "vendor": "", "specs": []}], priced=True)],
        {"completeness": 1.0, "source_quality": 0.5, "overall": 0.8}, NOW, None)
    assert only_prices["findings"]["evergreen"] == [] and only_prices["decay"] == "time-sensitive"
    a_summary = research_json("t3", "X100?", "shopping.camera", "informational", [
        _page("https://example.com/s", [], [], priced=False, summary="The X100 sells for $299 in most shops")],
        {"completeness": 1.0, "source_quality": 0.5, "overall": 0.8}, NOW, None)
    assert a_summary["decay"] == "time-sensitive" and len(a_summary["findings"]["time_sensitive"]) == 1

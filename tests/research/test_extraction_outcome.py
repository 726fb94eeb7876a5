"""Seed 000's source reliability success criteria: >= 2 items, the goal's required fields, the validator's pass."""

from __future__ import annotations

import pytest

from panda.research.extraction_outcome import asks_for_prices, finalise, outcome, page_items


def test_criteria_one_by_one():
    assert asks_for_prices("RTX 3080: where to buy it and what price?") and not asks_for_prices("How long does it bake?")
    assert page_items({"claims": ["Bake 35 min.", " "], "products": [{"name": "Pan", "price": ""}]}) == (2, False, True)
    assert page_items(None) == (0, False, False)
    assert outcome(3, False, True, False, "APPROVE", 0.9) == (True, pytest.approx((0.75 + 1 + 0.9) / 3, abs=1e-4))
    assert outcome(1, False, True, False, "APPROVE", 0.9)[0] is False  # one item is not enough
    assert outcome(3, False, True, True, "APPROVE", 0.9)[0] is False  # a price question needs a priced product
    assert outcome(3, True, True, True, "APPROVE", 0.9)[0] is True
    ok, confidence = outcome(3, False, True, False, "REVISE", 0.9)  # the validator flagged a conflict
    assert ok is False and confidence == pytest.approx((0.75 + 1) / 3, abs=1e-4)


def test_finalise_settles_each_page_and_keeps_old_rows():
    rows = [{"domain": "a.com", "items": 4, "priced": True, "claimed": True},
            {"domain": "b.com", "items": 0, "priced": False, "claimed": False},
            {"domain": "c.com", "success": True, "confidence": 0.8}]
    out = finalise(rows, "What price is the RTX 3080?", "APPROVE", 0.6)
    assert [(r["success"], r["confidence"]) for r in out] == [(True, pytest.approx(0.8667, abs=1e-4)),
                                                            (False, 0.0), (True, 0.8)]


def test_a_research_turn_logs_settled_extractions(ctx, tmp_path):
    from tests.conftest import SHARED_DATA
    from tests.jobs.conftest import ingest_pages, turns

    pages = SHARED_DATA / "webpages"
    if not (pages / "manifest.json").exists():
        pytest.skip("../shared/data/webpages is absent")
    ingest_pages(ctx, tmp_path, "bettycrocker.com.pineapple.html")
    line = ('{"user_id": "dave", "timestamp": "2026-03-05T10:00:00Z", '
            '"query": "Pineapple upside-down cake: what is the best recipe?"}')
    assert turns(ctx, tmp_path, [line], "d.jsonl").outcomes == {"APPROVE": 1}
    rows = ctx.catalog.con.execute("SELECT domain, success, confidence FROM source_extractions "
                                   "WHERE extraction_type = 'page_intelligence'").fetchall()
    betty = [r for r in rows if r[0] == "bettycrocker.com"]
    assert betty and betty[0][1] is True and 0.5 < betty[0][2] <= 1.0 and betty[0][2] != 0.8

"""Seed 000's source reliability success criteria for one page extraction (pure).

An extraction succeeds when (1) at least two items were extracted (claims and products), (2) the
fields the goal needs are present — a price question needs a product with a name and a price, any
other question a claim — and (3) the turn's validator passed it (APPROVE; a REVISE, RETRY or FAIL flags
a conflict). Its confidence is the mean of the three criteria's degrees: items (up to 4 counts
fully), required fields (0 or 1) and the validator's quality score (for a page that gave something). These rows roll up per domain
into source_reliability (jobs/calibration.py). The outcome is final when the turn is saved: the
validator's verdict is the last criterion.
"""

from __future__ import annotations

from typing import Any

PRICE_WORDS = frozenset("price prices pricing cost costs cheap cheapest deal deals buy buying sale budget $".split())


def asks_for_prices(question: str) -> bool:
    """Example: 'RTX 3080: where to buy it and what price?' -> True; 'How long does it bake?' -> False."""
    words = set(question.lower().replace("?", " ").replace(",", " ").split())
    return bool(words & PRICE_WORDS) or "$" in question


def page_items(findings: dict[str, Any] | None) -> tuple[int, bool, bool]:
    """(items extracted, a product with name and price, a claim) of a Page Intelligence reply."""
    if not findings:
        return 0, False, False
    claims = [c for c in findings.get("claims", []) if str(c).strip()]
    products = [p for p in findings.get("products", []) if str(p.get("name", "")).strip()]
    priced = any(str(p.get("price", "")).strip() for p in products)
    return len(claims) + len(products), priced, bool(claims)


def outcome(items: int, priced: bool, claimed: bool, wants_prices: bool, decision: str,
            quality: float) -> tuple[bool, float]:
    """(success, confidence). Example: 3 items, a claim, not a price question, APPROVE at 0.9 ->
    (True, (0.75 + 1 + 0.9) / 3 = 0.883); 1 item -> (False, ...); REVISE -> (False, ...)."""
    fields = priced if wants_prices else claimed
    passed = decision == "APPROVE"
    success = items >= 2 and fields and passed
    confidence = (min(items, 4) / 4 + (1.0 if fields else 0.0) + (quality if passed and items else 0.0)) / 3
    return success, round(confidence, 4)


def finalise(extractions: list[dict[str, Any]], question: str, decision: str, quality: float) -> list[dict[str, Any]]:
    """The turn's extraction rows with success and confidence by the criteria above."""
    wants = asks_for_prices(question)
    out = []
    for e in extractions:
        if "items" not in e:  # written before these criteria: as it was
            out.append(e)
            continue
        success, confidence = outcome(e["items"], e["priced"], e["claimed"], wants, decision, quality)
        out.append({**e, "success": success, "confidence": confidence})
    return out

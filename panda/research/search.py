"""research.search: the research tool over the web corpus, with PII scrubbed from the outbound query.

The query is scrubbed first (seed 001 categories from the policy, plus the user's own identifying
facts), and only the scrubbed text goes to the search provider — the corpus search here, a live
search API when one is configured. The LLM phases keep the original query. The retrieval is recorded
with the scrubbed query, so no log holds the personal details either. Pages are ranked by relevance
weighted by their domain's reliability (source_reliability, rolled up by the calibration job). Pages
not about the query at all never come back from memory.search (`research.relevance_floor`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from panda.home import Home
from panda.memory.search import SearchRequest, SearchResult
from panda.privacy.pii import scrub, without_placeholders
from panda.privacy.terms import user_private_terms


@dataclass
class ResearchResults:
    query_sent: str
    removed: dict[str, int] = field(default_factory=dict)
    results: list[SearchResult] = field(default_factory=list)


def research_search(ctx: Home, query: str, user_id: str | None, now: datetime, limit: int = 5,
                    turn_id: str | None = None, record: bool = True,
                    deferred: list[dict[str, Any]] | None = None) -> ResearchResults:
    terms = user_private_terms(ctx.vault, user_id) if user_id else []
    cleaned = scrub(query, ctx.policy.privacy.pii_categories, terms)
    if not without_placeholders(cleaned.text).strip():
        return ResearchResults(query_sent="", removed=cleaned.removed)
    from dataclasses import replace

    results = ctx.memory.search(SearchRequest(without_placeholders(cleaned.text), kinds=["webpage"], user_id=user_id, now=now,
                                              limit=limit * 2, turn_id=turn_id, record=record, deferred=deferred,
                                              retrieval_type="research.search"))
    reliability = ctx.run_reliability()
    ranked = sorted((replace(r, score=round(r.score * reliability_weight(reliability.get(_domain(r.doc_path))), 6))
                     for r in results), key=lambda r: (-r.score, r.id))
    return ResearchResults(query_sent=cleaned.text, removed=cleaned.removed, results=ranked[:limit])


def reliability_weight(reliability: float | None) -> float:
    """Source ranking by domain reliability: unknown domains count as 0.5. Example: 0.9 -> 0.95; None -> 0.75."""
    return 0.5 + 0.5 * (0.5 if reliability is None else reliability)


def _domain(doc_path: str) -> str:
    parts = doc_path.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "Web" else ""

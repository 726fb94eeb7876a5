"""research.search: the research tool over the web corpus, with PII scrubbed from the outbound query.

The query is scrubbed first (seed 001 categories from the policy, plus the user's own identifying
facts), and only the scrubbed text goes to the search provider — the corpus search here, a live
search API when one is configured. The LLM phases keep the original query. The retrieval is recorded
with the scrubbed query, so no log holds the personal details either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from panda.memory.search import SearchResult
from panda.pipeline.state import PipelineContext
from panda.privacy.pii import scrub
from panda.privacy.terms import user_private_terms


@dataclass
class ResearchResults:
    query_sent: str
    removed: dict[str, int] = field(default_factory=dict)
    results: list[SearchResult] = field(default_factory=list)


def research_search(ctx: PipelineContext, query: str, user_id: str | None, now: datetime, limit: int = 5,
                    turn_id: str | None = None, record: bool = True) -> ResearchResults:
    terms = user_private_terms(ctx.vault, user_id) if user_id else []
    cleaned = scrub(query, ctx.policy.privacy.pii_categories, terms)
    if not cleaned.text.strip():
        return ResearchResults(query_sent="", removed=cleaned.removed)
    results = ctx.memory.search(cleaned.text, kinds=["webpage"], user_id=None, now=now, limit=limit,
                                turn_id=turn_id, record=record)
    return ResearchResults(query_sent=cleaned.text, removed=cleaned.removed, results=results)

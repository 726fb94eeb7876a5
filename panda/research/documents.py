"""research.md and research.json of a turn (seed 002 §4): the full detail behind context.md's summary.

Built from the turn's research.search runs (pages, webpage-cache entries, Page Intelligence
findings). The research document is a `Document` (kind 'research') so it is indexed and rebuilt by
reindex like any other: topic hierarchy, intent, quality (completeness: pages with findings; source
quality: the domains' reliability), scope user (it belongs to the turn; Knowledge notes are the shared
form), expiry after 180 days.
Seed 002 §4, evergreen vs time-sensitive: the findings are kept apart — summaries, claims, product
names, specs and vendors are evergreen; prices, availability and stock (a product's price, a claim
that states one) are time-sensitive, listed under their own heading with the date they were read. The
document decays as evergreen when it holds any evergreen finding (one priced page no longer makes a
whole research document time-sensitive) and as time-sensitive when prices are all it holds.
New research on a topic supersedes the user's earlier research on it: the old document gets
invalid_at and superseded_by; its files are never rewritten otherwise.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from panda.documents.model import Document, iso


def research_id(input_key: str) -> str:
    return f"res_{input_key[:16]}"


def quality(pages: list[dict[str, Any]], reliability: dict[str, float]) -> dict[str, float]:
    """Completeness = share of pages with extracted findings; source quality = mean domain reliability (0.5 unknown).

    Example: 2 pages, one extracted, domains at 0.9 and unknown -> {'completeness': 0.5, 'source_quality': 0.7}.
    """
    if not pages:
        return {"completeness": 0.0, "source_quality": 0.0, "overall": 0.0}
    completeness = sum(1 for p in pages if p["manifest"].get("extracted")) / len(pages)
    source = sum(reliability.get(p["domain"], 0.5) for p in pages) / len(pages)
    return {"completeness": round(completeness, 3), "source_quality": round(source, 3),
            "overall": round(0.6 * completeness + 0.4 * source, 3)}


# A finding that states a price, a stock level or availability: what goes stale in days, not months.
_VOLATILE = re.compile(r"[$€£¥₹]\s?\d|\d\s?(?:USD|EUR|GBP|NOK|SEK|DKK|CHF|kr)\b|\b(?:prices?|priced|costs?|in stock|"
                       r"out of stock|sold out|back in stock|availab(?:le|ility)|discount(?:ed)?|on sale|deal)\b", re.I)


def time_sensitive(text: str) -> bool:
    """Example: 'The X100 costs $299 at Acme' -> True; 'The X100 has a 24 MP sensor' -> False."""
    return bool(_VOLATILE.search(text))


def split_findings(page: dict[str, Any]) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """(evergreen, time-sensitive) findings of one page: claims by what they state, products split into their
    name/specs/vendor (evergreen) and their price (time-sensitive) (pure)."""
    evergreen: list[dict[str, str]] = []
    volatile: list[dict[str, str]] = []
    for claim in page["claims"]:
        (volatile if time_sensitive(claim["text"]) else evergreen).append({"text": claim["text"], "url": claim["url"]})
    for product in page["products"]:
        specs = ", ".join(product.get("specs", []))
        sold_by = f" (sold by {product['vendor']})" if product.get("vendor") else ""
        at = f" at {product['vendor']}" if product.get("vendor") else ""
        if specs or sold_by:  # a name alone says nothing that lasts
            evergreen.append({"text": f"**{product['name']}**{sold_by}{' — ' + specs if specs else ''}",
                              "url": product["url"]})
        if product.get("price"):
            volatile.append({"text": f"**{product['name']}**: {product['price']}{at}", "url": product["url"]})
    return evergreen, volatile


def research_json(turn_id: str, query: str, topic: str, intent: str, pages: list[dict[str, Any]],
                  scores: dict[str, float], created: datetime, supersedes: str | None) -> dict[str, Any]:
    out = [{"url": p["url"], "title": p["title"], "domain": p["domain"], "cache": p["cache"], "reused": p["reused"],
            "summary": p["manifest"].get("summary", ""), "claims": p["extracted"].get("claims", []),
            "products": p["extracted"].get("products", [])} for p in pages]
    evergreen, volatile = [], []
    for page in out:
        e, v = split_findings(page)
        if page["summary"] and not e and not v:  # a page with no claim or product: its summary is the finding
            (v if time_sensitive(page["summary"]) else e).append({"text": page["summary"], "url": page["url"]})
        evergreen += e
        volatile += v
    priced_pages = any("pricing" in p["manifest"].get("content_types", []) for p in pages)
    decay = "evergreen" if evergreen or not (volatile or priced_pages) else "time-sensitive"
    return {
        "turn_id": turn_id, "query": query, "query_sent": pages[0]["query_sent"] if pages else "", "topic": topic,
        "intent": intent, "created": iso(created), "decay": decay, "quality": scores, "supersedes": supersedes,
        "findings": {"evergreen": evergreen, "time_sensitive": volatile}, "pages": out,
    }


def research_document(data: dict[str, Any], user_id: str, session_id: str | None, turn_number: int, doc_id: str,
                      ttl_days: int, keywords: list[str]) -> Document:
    created = datetime.fromisoformat(str(data["created"]).replace("Z", "+00:00"))
    types = ["research"] + (["pricing"] if data["decay"] == "time-sensitive" else [])
    findings = data.get("findings") or {"evergreen": [], "time_sensitive": []}
    lines = [f"# Research: {data['query']}", "", f"**Query sent (PII removed):** {data['query_sent'] or '-'}",
             f"**Decay:** {data['decay']} · **Completeness:** {data['quality']['completeness']:.2f} · "
             f"**Source quality:** {data['quality']['source_quality']:.2f}", "",
             "## Evergreen findings", "", "_Specs, vendors, general facts: they decay slowly._", ""]
    lines += [f"- {f['text']} ([source]({f['url']}))" for f in findings["evergreen"]] or ["- (none)"]
    lines += ["", "## Time-sensitive findings", "",
              f"_Prices, availability, stock: read {created.date().isoformat()}; refresh them before relying on them._", ""]
    lines += [f"- {f['text']} ([source]({f['url']}))" for f in findings["time_sensitive"]] or ["- (none)"]
    lines += ["", "## Pages read", ""]
    for page in data["pages"]:
        lines.append(f"### [{page['title']}]({page['url']})")
        lines.append(page["summary"] or "_No summary._")
        slug = page["cache"].rsplit("/", 1)[-1]
        lines += [f"- Cached: [{slug}](webpage_cache/{slug}/manifest.json)"
                  + (" (reused from an earlier turn)" if page["reused"] else ""), ""]
    lines += ["## Used by", "", "- [context.md](context.md) — the turn that ran this research"]
    if data.get("supersedes"):
        lines.append(f"- Supersedes `{data['supersedes']}`")
    return Document(
        id=doc_id, kind="research", title=f"Research: {data['query']}"[:120], primary_topic=data["topic"] or "general",
        keywords=keywords[:8], intent=data["intent"] or "informational", content_types=types, scope="user",
        quality=min(1.0, max(0.0, float(data["quality"]["overall"]))), owner_user=user_id, session_id=session_id,
        turn_number=turn_number, created_at=created, expires_at=created + timedelta(days=ttl_days),  # seed 003: 180 d
        source_urls=[p["url"] for p in data["pages"]], body="\n".join(lines),
        extra={"artifact_type": "research", "decay": data["decay"], "quality_detail": data["quality"],
               "supersedes": data.get("supersedes"), "turn_id": data["turn_id"]},
    )

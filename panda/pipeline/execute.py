"""Phase execute (§4): run the planner's tool requests — memory.search, memory.save, memory.retrieve,
research.search.

Memory tools are deterministic library calls: the MIND planner decides, the tools run, results
accumulate in §4 and in toolresults.md. research.search scrubs PII from its query, finds pages in the
web corpus, reuses fresh webpage-cache entries of earlier turns and sends every other page to Page
Intelligence (MIND, one batch), writing this turn's webpage_cache/. memory.save only stages
the document; the save phase writes it with the rest of the turn, so a crashed turn leaves nothing
half-saved. Staged ids are derived from the input, so a resumed turn saves the same ids again. A
message that only asks (a question revealing no fact or preference) has nothing to remember: its
memory.save is refused with that reason in §4 (the 0.5B planner saved "budget you gave me for a laptop"
from "Remind me what budget I gave you").
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from panda.home import Home
from panda.language.text import tokenize
from panda.llm.roles import MIND
from panda.llm.schemas import PageFindings, PagePrices, SearchToolFilters, ToolRequest
from panda.memory.search import SearchRequest
from panda.pipeline import guards
from panda.pipeline.gather import relative_link
from panda.pipeline.llm_step import ask_batch
from panda.pipeline.state import Step, TurnState
from panda.pipeline.statements import reveals_something
from panda.research.extract import markdown_to_text
from panda.research.extraction_outcome import page_items


def run_tool(state: TurnState, ctx: Home, request: ToolRequest) -> dict[str, Any]:
    entry: dict[str, Any] = {"tool": request.tool, "argument": request.argument, "topic": request.topic}
    if request.tool == "memory.search":
        exclude = {state.turn_id} | {d.id for d in state.staged_docs}
        f = request.filters or SearchToolFilters()
        results = ctx.memory.search(SearchRequest(request.argument, user_id=state.user_id, now=state.input.timestamp, limit=5,
                                    query_topic=request.topic, turn_id=state.turn_id, exclude_ids=exclude,
                                    deferred=state.retrievals, content_types=f.content_types or None, scope=f.scope,
                                    min_quality=f.min_quality, include_expired=f.include_expired,
                                    topic_filter=request.topic if f.topic_as_filter else None,
                                    time_range=f.time_range))
        entry["results"] = [{"id": r.id, "kind": r.kind, "title": r.title, "doc_path": r.doc_path,
                             "score": r.score, "snippet": r.snippet, "created_at": r.created_at.isoformat(),
                             "superseded": r.superseded} for r in results]
        entry["summary"] = f"{len(results)} result(s)"
    elif request.tool == "memory.save":
        from panda.language.facts import near_duplicate
        from panda.language.text import is_question

        if guards.active(ctx, "question_not_saved", MIND) and is_question(state.query) and not reveals_something(state):
            entry["summary"] = ("not saved: the message asks and tells nothing new to remember "
                                f"({guards.mark('question_not_saved')})")
            return entry

        same = next((d.id for d in state.staged_docs if near_duplicate(d.body, request.argument)), None) \
            or ctx.memory.duplicate_of(request.argument, state.user_id, state.input.timestamp)
        if same is not None:
            entry["saved_id"] = same
            entry["summary"] = f"already in memory as {same}; not saved twice"
            return entry
        doc_type = save_doc_type(request.topic)
        doc = ctx.memory.prepare_save(
            request.argument, doc_type=doc_type, topic=request.topic, keywords=tokenize(request.argument)[:5],
            user_id=state.user_id, scope="new", now=state.input.timestamp, session_id=state.input.session_id,
            doc_id=f"mem_{state.input.input_key[:12]}_{len(state.staged_docs) + 1}", source=state.turn_id,
        )
        state.staged_docs.append(doc)
        entry["saved_id"] = doc.id
        entry["summary"] = f"saved {doc.id} (scope new, expires {doc.expires_at})"
    else:
        found = ctx.memory.retrieve(doc_id=request.argument.strip(), doc_path=request.argument.strip(),
                                    user_id=state.user_id)
        if found is None:
            entry["summary"] = "not found"
        else:
            entry["summary"] = f"retrieved {found.id}"
            entry["results"] = [{"id": found.id, "kind": found.kind, "title": found.title, "doc_path": found.doc_path,
                                 "snippet": " ".join(found.body.split()[:80])}]
    return entry


def save_doc_type(topic: str) -> str:
    """memory.save's doc_type (seed 000: preference | memory | site_knowledge), from the planner's topic:
    "user.preference…" -> preference, "site.<domain>" -> site_knowledge, anything else -> memory.
    (The planner names a topic, not a type: one field fewer for the 0.5B model to get wrong.)"""
    if topic.startswith("user.preference"):
        return "preference"
    return "site_knowledge" if topic.startswith("site.") else "memory"


def format_entry(state: TurnState, ctx: Home, entry: dict[str, Any]) -> str:
    serves = f" · serves {entry['goal']}" if entry.get("goal") else ""
    lines = [f"- **{entry['tool']}** `{entry['argument']}`{serves} → {entry['summary']}"]
    for r in entry.get("results", []):
        link = relative_link(ctx.vault.home, state.turn_path, r["doc_path"]) if r.get("doc_path") else ""
        lines.append(f"  - [{r['title'] or r['id']}]({link}) · {r['kind']} — {' '.join(r['snippet'].split()[:25])}")
    return "\n".join(lines)


def request_key(argument: str) -> str:
    """A tool request's argument as a digest, case and spacing aside (pure). Example: request_key('Biscuit  hamster')
    == request_key('biscuit hamster')."""
    return hashlib.sha256(" ".join(argument.split()).lower().encode()).hexdigest()[:16]


def research_query(argument: str, resolved_query: str) -> str:
    """The planner's search text plus the user's words (original and resolved query) it left out, so a
    vague argument still finds pages.

    Example: research_query('buy the best recipe', 'Pineapple upside-down cake: which pan?') ->
    'buy the best recipe Pineapple upside-down cake: which pan?' (PII is scrubbed afterwards).
    """
    have = set(tokenize(argument))
    extra = [w for w in resolved_query.split() if any(t not in have for t in tokenize(w))]
    return " ".join([argument, *extra]).strip()


@dataclass
class _Page:
    url: str
    title: str
    domain: str
    doc_id: str
    doc_path: str
    markdown: str
    cached: Path | None


def run_research(state: TurnState, ctx: Home, request: ToolRequest) -> Step[dict[str, Any]]:
    """research.search: PII-scrubbed query -> pages -> cache-first visit -> Page Intelligence (one batch)."""
    from panda.research import cache
    from panda.research.search import research_search

    now = state.input.timestamp
    text = research_query(request.argument, f"{state.query} {state.resolved_query}")
    found = research_search(ctx, text, state.user_id, now, limit=ctx.policy.research.pages_per_search,
                            turn_id=state.turn_id, deferred=state.retrievals)
    # what the planner asked, as a digest only (it may hold PII; the log keeps the scrubbed query): plan.nothing_new
    entry: dict[str, Any] = {"tool": request.tool, "argument": found.query_sent, "asked": request_key(request.argument),
                             "topic": request.topic, "pii_removed": found.removed, "results": []}
    pages = []
    for result in found.results:
        doc = ctx.vault.read_document(result.doc_path)
        url = (doc.source_urls or [f"file:{doc.id}"])[0]
        cached = cache.find_cached(ctx.vault, state.user_id, url, now, ctx.policy, exclude=state.turn_path)
        pages.append(_Page(url, doc.title, str(doc.extra.get("domain") or "local"), doc.id, result.doc_path, doc.body,
                           cached))
    # Seed 002's selective refresh: a page whose text is fresh and only its prices stale is re-read for
    # prices alone (a smaller reply); its summary and claims stay as cached.
    stale: dict[str, Path] = {}
    for p in pages:
        found_stale = None if p.cached is not None else \
            cache.find_cached(ctx.vault, state.user_id, p.url, now, ctx.policy, exclude=state.turn_path, prices_only=True)
        if found_stale is not None:
            stale[p.url] = found_stale
    to_price = [p for p in pages if p.url in stale]
    to_read = [p for p in pages if p.cached is None and p.url not in stale]
    words = ctx.policy.research.page_words
    prices = yield from ask_batch(state, ctx, phase="page_prices", role=MIND, prompt="page_prices", schema=PagePrices,
                                  variables=[{"products": ", ".join(pr.get("name", "") for pr in cache.read_extracted(
                                      stale[p.url]).get("products", [])) or "(none)", "title": p.title, "domain": p.domain,
                                              "text": " ".join(markdown_to_text(p.markdown).split()[:words])}
                                             for p in to_price])
    repriced = dict(zip([p.url for p in to_price], prices, strict=True))
    findings = yield from ask_batch(state, ctx, phase="page_intelligence", role=MIND, prompt="page_intelligence",
                                    schema=PageFindings, variables=[
                                        {"question": state.resolved_query, "original_query": state.query,
                                         "title": p.title, "domain": p.domain,
                                         "text": " ".join(markdown_to_text(p.markdown).split()[:words])}
                                        for p in to_read])
    parsed = dict(zip([p.url for p in to_read], findings, strict=True))
    for page in pages:
        if page.cached is not None:
            folder = cache.reuse_entry(state.turn_path, page.cached, ctx.vault)
        elif page.url in repriced:
            fresh = repriced[page.url]
            old = cache.read_extracted(stale[page.url])
            products = [p.model_dump() for p in fresh.products] if fresh is not None else \
                [{k: v for k, v in p.items() if k != "url"} for p in old.get("products", [])]  # unparsed: keep the old
            folder = cache.refresh_prices(state.turn_path, stale[page.url], ctx.vault, products, now)
        else:
            reply = parsed[page.url]
            data = reply.model_dump() if reply is not None else None
            folder = cache.write_entry(state.turn_path, page.url, page.title, page.domain, page.markdown, data, now,
                                       {"id": page.doc_id, "doc_path": page.doc_path},
                                       state.prompt_versions.get("page_intelligence"))
            items, priced, claimed = page_items(data)  # success and confidence are settled at save (seed 000)
            state.extractions.append({"domain": page.domain, "url": page.url, "type": "page_intelligence",
                                      "success": False, "confidence": 0.0, "items": items, "priced": priced,
                                      "claimed": claimed})
        manifest = cache.read_manifest(folder)
        state.research.append({"url": page.url, "title": page.title, "domain": page.domain, "doc_id": page.doc_id,
                               "cache": ctx.vault.layout.relative(folder), "reused": page.cached is not None,
                               "manifest": manifest, "extracted": cache.read_extracted(folder),
                               "query_sent": found.query_sent, "topic": request.topic})
        entry["results"].append({"id": page.doc_id, "kind": "webpage", "title": page.title, "doc_path": page.doc_path,
                                 "snippet": manifest.get("summary", "")})
    reused = sum(1 for p in pages if p.cached is not None)
    entry["summary"] = f"{len(pages)} page(s), {reused} from the webpage cache"
    return entry


def run(state: TurnState, ctx: Home, requests: list[ToolRequest], iteration: int,
        goals: list[str] | None = None) -> Step[str]:
    """Execute one iteration's requests; append them to §4 (each with the goal it serves) and return the text."""
    entries = []
    for request in requests:
        if request.tool in ("research.search", "internet.research"):  # seed 000 calls it internet.research
            entries.append((yield from run_research(state, ctx, request)))
        else:
            entries.append(run_tool(state, ctx, request))
    for i, entry in enumerate(entries):
        entry["iteration"] = iteration
        entry["attempt"] = state.doc.attempt
        if goals:
            entry["goal"] = goals[min(i, len(goals) - 1)]
    state.tool_log.extend(entries)
    text = f"#### Iteration {iteration}\n" + "\n".join(format_entry(state, ctx, e) for e in entries)
    state.doc.write("4", text)
    return text

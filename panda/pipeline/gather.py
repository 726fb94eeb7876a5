"""Phase gather (§2, MIND 0.5): retrieve once, routed by needs_retrieval, then synthesise.

Routing (seed 004), from the analysis of §0:
- none — nothing is retrieved;
- session_only — the last messages of the current session (same thread, within the session gap);
- cross_session — those, plus memory.search over this thread's other sessions;
- cross_thread — those, plus memory.search over everything the user may see (turn history,
  memories, messages of other threads, global knowledge) and the user's preferences and facts
  (seed 003: always include relevant preferences).
On every route that searches, each data need the analysis names (turn_history, preferences, facts,
memory, research) gets its own small search over the kinds that hold it, so a need the general search
ranked out is still met; and the user's known entities (seed 004 enrichment) that the message names put
the other threads holding them first among the thread summaries (the seed's `entities @> …`).
The analysis's route is widened to cross_thread when it cannot find anything by construction: a
session_only or cross_session route in a session that has nothing before this turn (a new thread's
first question), and a recall question, which asks for a personal detail stated anywhere before (the
0.5B model routed "What hobby did I tell you about?", the first message of a new session, to
session_only and answered "I don't know"). Historical messages are replaced by their session's
summary where one exists. The route, with what
it searched, is recorded in retrieval_operations. Synthesis: the MIND role keeps what matters and
says which items it used; those are the documents whose usage and trust the save phase updates. §2
links every source with a relative markdown link (prior context.md, transcripts, memory notes,
preferences.md). A message asking for a suggestion gets the user's current diets and allergies whatever the route
(set I: a lactose-intolerant user's breakfast was suggested without them). Cache-first (seed 002 §5): the webpage
cache of the user's earlier research turns that were gathered is read before any tool runs, in the seed's priority
order (research/cache_first.py).
Over budget, NERVES compresses.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from panda.catalog.conversations import Conversations
from panda.conversations.ingest import catalog_thread_id, summary_document_id
from panda.home import Home
from panda.language.text import asks_for_a_suggestion, is_question
from panda.llm.roles import MIND, REFLEX
from panda.llm.schemas import GatherSynthesis
from panda.memory.current_facts import constraints_of
from panda.memory.links import follow_links
from panda.memory.search import SearchRequest, SearchResult, fact_result, retrieval_entry
from panda.memory.session_cache import SessionCache
from panda.pipeline import guards
from panda.pipeline.evidence import asks_after_the_user, turn_said
from panda.pipeline.llm_step import ask, fit_section
from panda.pipeline.reflect import is_clear
from panda.pipeline.state import Step, TurnState
from panda.privacy import visibility
from panda.research.cache_first import cached_items


def relative_link(home: Path, from_dir: Path, doc_path: str) -> str:
    """Example: from users/a/turns/turn_000002 to users/a/turns/turn_000001/context.md -> '../turn_000001/context.md'."""
    target = home / doc_path.split("#", 1)[0]
    return Path(os.path.relpath(target, from_dir)).as_posix()


def item_line(result: SearchResult, asked: str | None = None) -> str:
    """A gathered item as the gather prompt lists it. An earlier turn whose answer the validator FAILed shows only what
    was asked (`asked`): `make demo`'s "how long does the recipe bake it?" FAILed with "No recipe is provided …", and
    the next turn's gather summed that up as "No information available about the recipe", beside the recipe's page.

    Example: a FAILed turn, asked "Which pan does the recipe use?" -> 'context: the user asked "Which pan does the
    recipe use?" (no answer approved) (2026-03-05)'."""
    outdated = " (may be outdated)" if result.possibly_outdated else ""
    text = f'the user asked "{asked}" (no answer approved)' if asked is not None else ' '.join(result.snippet.split()[:40])
    return f"{result.kind}: {text} ({result.created_at.date().isoformat()}){outdated}"


MINIMAL_CONTEXT = 3  # seed 004 _build_minimal_context: the last 3 messages of the session


def thread_of(state: TurnState) -> str:
    from panda.conversations.messages import DEFAULT_THREAD

    return state.input.session_id or DEFAULT_THREAD


@dataclass
class SessionContext:
    """The open session's recent messages and how they were read (seed 004's session cache)."""

    messages: list[SearchResult]
    session_id: str | None = None
    cache_hit: bool = False


def recent_session_messages(state: TurnState, ctx: Home, limit: int = 6) -> SessionContext:
    """The current session's last messages: the thread's latest session, if it is still open (within the gap).
    Read through ctx.session_cache; a session found ended is dropped from it (`cache_invalidated`)."""
    conv = Conversations(ctx.catalog)
    session = conv.latest_session(state.user_id, catalog_thread_id(state.user_id, thread_of(state)), state.input.timestamp)
    gap = timedelta(minutes=ctx.policy.sessions.gap_minutes)
    if not session or not session["last_message_at"] or state.input.timestamp - session["last_message_at"] > gap:
        if session and ctx.session_cache.invalidate(session["id"]):
            ctx.catalog.record_event("cache_invalidated", "session", session["id"], {"reason": "session ended"},
                                     state.input.timestamp, user_id=state.user_id)
        return SessionContext([])
    rows = ctx.session_cache.get(session["id"], session["last_message_at"], state.input.timestamp, limit)
    hit = rows is not None
    if rows is None:
        rows = conv.recent_messages(session["id"], state.input.timestamp, ctx.session_cache.per_session)
        if session["last_message_at"] <= state.input.timestamp:  # the rows are the whole session's tail
            ctx.session_cache.put(session["id"], rows, session["last_message_at"])
        rows = rows[-limit:]
    return SessionContext([SearchResult(
        id=r["id"], kind="message", title=f"{r['author']}: {' '.join(r['content'].split()[:10])}",
        primary_topic="conversation", doc_path=r["doc_path"], score=0.0, snippet=f"{r['author']}: {r['content']}",
        quality=0.5, scope="user", created_at=r["created_at"], content_types=["message", r["role"]]) for r in rows],
        session["id"], hit)


def with_summaries(results: list[SearchResult], ctx: Home, user_id: str | None) -> list[SearchResult]:
    """Replace historical messages by their session's summary when the session has one (and `user_id` may
    read that session)."""
    conv = Conversations(ctx.catalog)
    out: list[SearchResult] = []
    summarised = {r.id for r in results if r.kind == "session_summary"}  # found by the search itself
    for r in results:
        row = ctx.catalog.get_document(r.id) if r.kind == "message" else None
        session = conv.session(row["session_id"]) if row and row.get("session_id") else None
        if session and not visibility.may_read(user_id, session["user_id"], "user"):
            session = None
        if session and session.get("summary"):
            if summary_document_id(session["id"]) not in summarised:
                summarised.add(summary_document_id(session["id"]))
                out.append(SearchResult(id=summary_document_id(session["id"]), kind="session_summary",
                                        title=f"summary of session {session['number']}", primary_topic="conversation",
                                        doc_path=f"{session['doc_path']}#summary", score=r.score,
                                        snippet=session["summary"], quality=0.6, scope="user",
                                        created_at=session["started_at"], content_types=["summary"]))
            continue
        out.append(r)
    return out


def similarity(ctx: Home, query: str, texts: list[str]) -> list[float]:
    """Cosine of each text to the query (normalised embeddings: a dot product)."""
    return [float(s) for s in np.asarray(ctx.memory.embedder.embed(texts)) @ ctx.memory.query_vector(query)]


def relevant(found: list[SearchResult]) -> list[SearchResult]:
    """What is worth putting in §2: nothing at score 0.00 (pages below the relevance floor never come back
    from memory.search), and each item once (every search leads with the facts a question asks about: the bundled
    sample's §2 listed "pet: Syrian hamster named Biscuit" three times)."""
    first = {r.id: r for r in reversed(found)}  # the first of each id wins
    return [r for r in found if r.score >= 0.005 and first.pop(r.id, None) is r]


def widened_route(route: str, query_type: str, earlier_in_session: int) -> str:
    """The route gather takes (pure). Example: ('session_only', 'question', 0) -> 'cross_thread' (nothing to
    find in an empty session); ('session_only', 'question', 4) -> 'session_only'; ('cross_session', 'recall', 4)
    -> 'cross_thread'; ('none', 'recall', 0) -> 'none' (the analysis said no retrieval at all)."""
    if route in ("session_only", "cross_session") and (earlier_in_session == 0 or query_type == "recall"):
        return "cross_thread"
    return route


_ENTITY_WORD = re.compile(r"[\w#@-]+(?:\.[\w-]+)*")


def entities_named(query: str, known: list[str]) -> list[str]:
    """The user's known entities (seed 004 enrichment) that the message names, as whole words (pure).

    Example: ('Did Biscuit like the new wheel?', ['Biscuit', 'Acme', 'it']) -> ['Biscuit']."""
    def words(text: str) -> str:
        return " " + " ".join(_ENTITY_WORD.findall(text.lower())) + " "

    said = words(query)
    return [e for e in dict.fromkeys(known) if len(e) >= 3 and words(e) in said]


# Seed 004's data needs, as the document kinds that hold them (the analysis names them; gather searches each).
NEED_KINDS = {"turn_history": ["context"], "preferences": ["preference"], "facts": ["fact"],
              "memory": ["memory", "message", "session_summary"], "research": ["research", "note", "webpage"]}


def needed_kinds(data_needs: Sequence[str]) -> list[list[str]]:
    """Example: ['facts', 'none', 'facts', 'research'] -> [['fact'], ['research', 'note', 'webpage']]."""
    return [NEED_KINDS[n] for n in dict.fromkeys(data_needs) if n in NEED_KINDS]


def other_threads(state: TurnState, ctx: Home, limit: int = 5) -> list[SearchResult]:
    """The summaries of the user's other threads (written by the summarisation job), those on the message's
    topic or naming one of its entities first, then the newest."""
    from panda.conversations.summaries import thread_summary_path

    assert state.analysis is not None
    rows = Conversations(ctx.catalog).thread_summaries(
        state.user_id, catalog_thread_id(state.user_id, thread_of(state)), state.analysis.topic, limit,
        entities=state.entities)
    layout = ctx.vault.layout
    return [SearchResult(
        id=f"thread:{r['id']}", kind="thread_summary", title=f"Thread {r['external_id']}",
        primary_topic="conversation.thread", score=0.0, snippet=r["summary"], quality=0.6, scope="user",
        doc_path=layout.relative(thread_summary_path(layout, state.user_id, r["external_id"])),
        created_at=r["summary_updated_at"] or r["last_message_at"] or r["created_at"] or state.input.timestamp,
        content_types=["summary", "thread_summary"]) for r in rows]


def constraints(ctx: Home, user_id: str, now: datetime) -> list[SearchResult]:
    """The user's current diets and allergies (current_facts.constraints_of) as search results, from their own facts."""
    rel = ctx.vault.layout.relative(ctx.vault.layout.memory_path(user_id, "fact"))
    return [fact_result(hit, rel, 1.0) for hit in constraints_of(ctx.vault.memory_file(user_id, "fact").entries, now)]


def retrieve(state: TurnState, ctx: Home, query: str) -> list[SearchResult]:
    """Everything the route asks for, de-duplicated, recent session messages first. One retrieval row per
    turn with seed 004's fields, route `none` included."""
    assert state.analysis is not None
    route = state.analysis.needs_retrieval
    started = time.perf_counter()
    # route none (greeting, closing, small talk): seed 004's minimal context, the session's last 3 messages
    session = recent_session_messages(state, ctx, limit=MINIMAL_CONTEXT if route == "none" else 6)
    if route == "none" and asks_for_something_known(state.query) and guards.active(ctx, "question_retrieves", REFLEX):
        route = "cross_thread"  # set G: "Which city do I live in?" routed to no retrieval, answered "I don't know"
    if route == "session_only" and not told_in(session.messages) and asks_for_something_known(state.query) \
            and guards.active(ctx, "question_retrieves", REFLEX):
        route = "cross_thread"  # set L: "Which vet do we take Pepper to?", the fifth question of a session of questions
    route = state.retrieval_route = widened_route(route, state.analysis.query_type, len(session.messages))
    if route != "none":
        state.entities = entities_named(state.query, Conversations(ctx.catalog).known_entities(state.user_id))
    recent = session.messages
    found: list[SearchResult] = []
    if route != "none":
        limit = ctx.policy.context.gather_candidates
        base = SearchRequest(query, user_id=state.user_id, now=state.input.timestamp, query_topic=state.analysis.topic,
                             turn_id=state.turn_id, deferred=state.retrievals, limit=limit, exclude_ids={r.id for r in recent})
        if route == "cross_session":
            found = ctx.memory.search(replace(base, kinds=["message", "session_summary"],
                                              session_prefix=catalog_thread_id(state.user_id, thread_of(state)) + "-s"))
        elif route == "cross_thread":
            found = ctx.memory.search(base)
            seen = (base.exclude_ids or set()) | {r.id for r in found}
            found += ctx.memory.search(replace(base, kinds=["preference", "fact"], limit=3, exclude_ids=seen))
        # the analysis's data needs: each kind it names gets its own small search, so a need the general
        # search ranked out (turn history beside many messages, research beside memories) is still met
        for kinds in needed_kinds(state.analysis.data_needs):
            seen = (base.exclude_ids or set()) | {r.id for r in found}
            found += ctx.memory.search(replace(base, kinds=kinds, limit=2, exclude_ids=seen))
    if asks_for_a_suggestion(state.query):  # the user's diets and allergies, whatever the searches ranked (any route;
        found += constraints(ctx, state.user_id, state.input.timestamp)  # one already found is kept once: relevant())
    results = recent + with_summaries(relevant(found), ctx, state.user_id)
    if route == "cross_thread":  # seed 004: "Related Past Conversations", the other threads' summaries
        results += other_threads(state, ctx)
    elapsed = (time.perf_counter() - started) * 1000
    entry = retrieval_entry(state.user_id, state.input.session_id, state.turn_id, query, route,
                            len(recent) + len(found), results, elapsed, state.input.timestamp)
    entry.update(retrieval_details(state, results, session, elapsed))
    state.retrievals.append(entry)  # committed with the turn (save phase), once
    return results


def retrieval_details(state: TurnState, results: list[SearchResult], session: SessionContext,
                      elapsed_ms: float) -> dict[str, Any]:
    """Seed 004's retrieval_operations fields for one gather: what was searched and how."""
    sessions = {r.doc_path.split("#", 1)[0] for r in results if r.kind in ("message", "session_summary") and r.doc_path}
    threads = {path.rsplit("/", 1)[0] for path in sessions}
    classification = sum(float(c.get("latency_ms") or 0.0) for c in state.calls if c.get("phase") == "analyze")
    return {"thread_id": catalog_thread_id(state.user_id, thread_of(state)),
            "turn_type": state.analysis.query_type if state.analysis else None,
            "sessions_searched": len(sessions), "threads_searched": len(threads),
            "summaries_retrieved": sum(1 for r in results if r.kind == "session_summary"),
            "messages_in_context": len(session.messages), "cache_hit": session.cache_hit,
            "cache_key": SessionCache.key(session.session_id) if session.session_id else None,
            "classification_ms": round(classification, 3), "total_ms": round(classification + elapsed_ms, 3)}


def route_text(state: TurnState) -> str:
    asked = state.analysis.needs_retrieval if state.analysis else "none"
    taken = state.retrieval_route or asked
    if taken == asked:
        return taken
    return f"{taken} (widened from {asked}" + (f", {guards.mark('question_retrieves')})" if asked == "none" else ")")


def told_in(messages: list[SearchResult]) -> bool:
    """Whether the user stated anything (not only asked) among a session's messages: what a session_only route reads."""
    return any("user" in m.content_types and not is_question(m.snippet.partition(": ")[2]) for m in messages)


def asks_for_something_known(query: str) -> bool:
    """A question that memory or the saved pages may answer (pure): about the user, or asking anything in a meaningful
    word (reflect.is_clear). `make demo` at stop 48: "Pineapple upside-down cake: what is the best
    recipe?" was routed to no retrieval and answered "There's no recipe for pineapple upside-down cake." beside a saved
    recipe page. Small talk stays unsearched. Example: 'Which city do I live in?' -> True; 'Pineapple upside-down
    cake: what is the best recipe?' -> True; 'How are you?' -> False; 'Hi there!' -> False."""
    return asks_after_the_user(query) or (is_question(query) and is_clear(query))


def run(state: TurnState, ctx: Home) -> Step[None]:
    assert state.analysis is not None
    a = state.analysis
    query = a.resolved_query if a.resolved_query.lower() == state.query.lower() else f"{state.query} {a.resolved_query}"
    state.gathered = retrieve(state, ctx, query)
    if state.gathered and state.retrieval_route == "none":  # the minimal context: no synthesis asked for it
        kept = any(r.kind == "fact" for r in state.gathered)  # the user's diets and allergies (retrieve)
        state.gather_summary = "Minimal context (no retrieval): the session's last messages" + \
            (" and the user's diets and allergies." if kept else ".")
        lines = [f"**Retrieval route:** {route_text(state)}", f"**Synthesis:** {state.gather_summary}", "",
                 "### Recent messages" + (", diets and allergies" if kept else "")]
        lines += [f"- {' '.join(r.snippet.split()[:60])}" for r in state.gathered]
        state.doc.write("2", "\n".join(lines))
        return
    if not state.gathered:
        reason = "the analysis routed this turn to no retrieval" if a.needs_retrieval == "none" else \
            "no prior memory matched this query"
        state.gather_summary = f"Nothing gathered: {reason}."
        state.doc.write("2", f"**Retrieval route:** {route_text(state)}\n**Synthesis:** {state.gather_summary}"
                             "\n\n### Sources\n- (none)")
        return
    policy = ctx.policy.context
    paths = [r.doc_path for r in state.gathered if r.doc_path]
    relevance = lambda texts: similarity(ctx, query, texts)  # noqa: E731
    cached = cached_items(ctx.vault.layout, paths, state.user_id, state.input.timestamp, ctx.policy,
                          policy.cache_first_tokens, relevance)
    followed = [f for f in follow_links(ctx.vault.layout, paths, policy.link_follow_depth, policy.link_follow_tokens,
                                        state.user_id, relevance=relevance)
                if "/webpage_cache/" not in f.target]  # the cache is read cache-first, in the seed's order, above
    verdicts = ctx.catalog.turn_verdicts([r.id for r in state.gathered if r.kind == "context"])
    failed = {r.id: said.query for r in state.gathered if verdicts.get(r.id, (None, None))[0] == "FAIL"
              and (said := turn_said(ctx.vault.turn_record(r.doc_path))) is not None}
    items = [item_line(r, failed.get(r.id)) for r in state.gathered] + [c.line() for c in cached] + \
        [f"linked {f.target.rsplit('/', 1)[-1]}: {f.excerpt}" for f in followed]
    reply = yield from ask(state, ctx, phase="gather", role=MIND, prompt="gather", schema=GatherSynthesis,
                           variables={"query": state.query, "items": items})
    picked = [state.gathered[i - 1] for i in dict.fromkeys(reply.relevant_items) if i <= len(state.gathered)]
    # only documents the synthesis named count as used (usage_count drives promotion); none named: none
    state.used = [r for r in picked if r.kind != "thread_summary"]
    state.gather_summary = reply.summary
    lines = [f"**Gathered for:** {a.resolved_query}", f"**Retrieval route:** {route_text(state)}",
             f"**Data needs searched:** {', '.join(n for n in a.data_needs if n in NEED_KINDS) or 'none'}"
             + (f" · **Entities named:** {', '.join(state.entities)}" if state.entities else ""),
             f"**Synthesis:** {reply.summary}", "", "### Sources"]
    used_ids = {r.id for r in state.used}
    for r in state.gathered:
        link = relative_link(ctx.vault.home, state.turn_path, r.doc_path)
        mark = "used" if r.id in used_ids else "seen"
        outdated = " · may be outdated" if r.possibly_outdated else ""
        outcome, feedback = verdicts.get(r.id, (None, None))
        verdict = f" · {outcome}" + (f", user {feedback}" if feedback and feedback != "neutral" else "") if outcome else ""
        lines.append(f"- [{r.title or r.id}]({link}) · {r.kind}{verdict} · `{r.primary_topic}` · "
                     f"{r.created_at.date().isoformat()} · score {r.score:.2f} · quality {r.quality:.2f} · {mark}{outdated}")
        lines.append(f"  > {' '.join(r.snippet.split()[:50])}")
    if cached:
        lines += ["", f"### From the webpage cache (summary, then data, then passages; ≤ {policy.cache_first_tokens} tokens)"]
        for c in cached:
            link = relative_link(ctx.vault.home, state.turn_path, f"{c.folder}/{c.source_file}")
            lines.append(f"- [{c.domain} · {c.level}]({link})" + (" · stale: re-read for current values" if c.stale else ""))
            lines.append(f"  > {' '.join(c.text.split()[:60])}")
    if followed:
        lines += ["", f"### Followed links (depth ≤ {policy.link_follow_depth}, ≤ {policy.link_follow_tokens} tokens)"]
        for f in followed:
            lines.append(f"- [{f.target.rsplit('/', 2)[-2]}/{f.target.rsplit('/', 1)[-1]}]"
                         f"({relative_link(ctx.vault.home, state.turn_path, f.target)}) · depth {f.depth}")
    body = yield from fit_section(state, ctx, "2", "\n".join(lines))
    state.doc.write("2", body)

"""Phase save (appendix, no LLM): files, catalog, preferences/facts, trust and usage counters.

Order matters for crash safety (DESIGN §2): staged memories, preferences and facts, then the turn's
files with metadata.json last (the completion marker, which lists what the catalog commit applies),
then `pipeline/commit.py`'s one transaction that makes the turn visible and counts it — exactly once.
A crash before metadata.json leaves an incomplete folder that the re-run overwrites; a crash after it
is healed by the scheduler's recovery step, which commits complete folders the catalog lacks.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from panda.conversations.ingest import ingest_messages, vehemence
from panda.conversations.learned import Learned, from_statement, record
from panda.conversations.messages import DEFAULT_THREAD, MessageInput
from panda.documents.budgets import TRUNCATION_MARK, count_words, section_budget, truncate_to_words
from panda.documents.model import Document, iso, parse_time
from panda.documents.turn_record import turn_document
from panda.home import Home
from panda.language.facts import extract_statements, normalise
from panda.pipeline.commit import commit_turn, referenced_documents, turn_search_documents
from panda.pipeline.feedback import feedback_signal
from panda.pipeline.gather import relative_link
from panda.pipeline.plan import render_plan
from panda.pipeline.state import TurnState
from panda.research.extraction_outcome import finalise
from panda.research.publication import KNOWLEDGE_FILE

APPENDIX_QUOTE_WORDS = 40  # the query and its resolved form, each; the answer keeps 50


def appendix_text(state: TurnState, budget: int = 200) -> str:
    """The Turn Summary Appendix within its word budget (seed 002: 200): the user's text is quoted short, so every
    field fits, and the whole is cut at the budget if a failure reason still makes it longer."""
    a = state.analysis
    quality = state.validation.quality if state.validation else 0.0

    def quote(text: str) -> str:
        return truncate_to_words(" ".join(text.split()), APPENDIX_QUOTE_WORDS).replace("\n", " ")

    lines = [
        f"- **Turn:** {state.turn_number} · {iso(state.input.timestamp)} · session {state.input.session_id or '-'}",
        f"- **Query:** {quote(state.query)}",
        f"- **Resolved:** {quote(state.resolved_query)}",
        f"- **Topic:** {a.topic if a else 'general'} · **Intent:** {a.intent if a else '-'}",
        f"- **Outcome:** {state.outcome} (quality {quality:.2f}){' · attempt limit reached' if state.attempts_exhausted else ''}",
        f"- **Answer:** {' '.join(state.response.split()[:50]) or '-'}",
        f"- **Used:** {', '.join(r.id for r in state.used) or '-'}",
        f"- **Saved:** {', '.join(d.id for d in state.staged_docs) or '-'}",
    ]
    if state.fail_reason:
        lines.append(f"- **Failure:** {state.fail_reason}")
    return within(budget, "\n".join(lines))


def within(budget: int, text: str) -> str:
    """`text` cut to `budget` words counting the truncation mark. Example: 300 words, budget 200 -> 200 words."""
    return text if count_words(text) <= budget else truncate_to_words(text, budget - count_words(TRUNCATION_MARK))


def metadata(state: TurnState, ctx: Home) -> dict[str, Any]:
    a = state.analysis
    rel_context = ctx.vault.layout.relative(state.turn_path / "context.md")
    strategy = "; ".join(g.description for g in state.plan.goals) if state.plan else ""
    return {
        "turn_id": state.turn_id, "user_id": state.user_id, "turn_number": state.turn_number,
        "session_id": state.input.session_id, "timestamp": iso(state.input.timestamp),
        "input_key": state.input.input_key, "input_turn_id": state.input.turn_id,
        "source_file": state.input.source_file, "source_line": state.input.source_line,
        "query": state.query, "resolved_query": state.resolved_query,
        "response": state.response,
        "expected": state.input.expected,
        "topic": a.topic if a else "general", "intent": a.intent if a else "informational",
        "keywords": list(a.keywords) if a else [], "outcome": state.outcome,
        "quality_score": state.validation.quality if state.validation else 0.0,
        "strategy_summary": strategy,
        "tools_summary": "; ".join(f"{e['tool']} `{e['argument']}` -> {e.get('summary', '')}" for e in state.tool_log
                                   if e.get("attempt") == state.doc.attempt)[:600],
        "revision_count": state.doc.revision_count(), "attempts": state.doc.attempt,
        "used_documents": [r.id for r in state.used], "saved_documents": [d.id for d in state.staged_docs],
        "fail_reason": state.fail_reason or None, "doc_path": rel_context,
        "prompt_versions": state.prompt_versions, "models": sorted({c["model"] for c in state.calls}),
        "probe": state.input.probe, "complete": True,
        "importance": round(vehemence({}, state.query, from_words=True), 4),  # seed 001 vehemence of what the user said
    }


def metrics(state: TurnState) -> dict[str, Any]:
    by_phase: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for call in state.calls:
        p = by_phase[call["phase"]]
        p["calls"] += 1
        p["prompt_tokens"] += call["prompt_tokens"] or 0
        p["completion_tokens"] += call["completion_tokens"] or 0
        p["latency_ms"] += call["latency_ms"] or 0.0
        p["failed"] += call["status"] != "ok"
    return {"llm_calls": len(state.calls), "by_phase": {k: dict(v) for k, v in by_phase.items()},
            "wall_ms": (datetime.now(UTC) - state.started_at).total_seconds() * 1000,
            "gathered": len(state.gathered), "used": len(state.used), "tool_calls": len(state.tool_log)}


def ticket_markdown(state: TurnState) -> str:
    plan = render_plan(state.plan) if state.plan else "_No plan: the turn ended before planning._"
    return (f"---\nartifact_type: ticket\nturn_id: {state.turn_id}\ncreated: {iso(state.input.timestamp)}\n---\n\n"
            f"# Ticket · {state.turn_id}\n\n**Query:** {state.query}\n\n{plan}\n\n[context](context.md)\n")


def toolresults_markdown(state: TurnState) -> str:
    blocks = [f"## {i}. {e['tool']} (attempt {e['attempt']}, iteration {e['iteration']})\n\n"
              f"```json\n{json.dumps(e, indent=2, ensure_ascii=False, default=str)}\n```"
              for i, e in enumerate(state.tool_log, 1)]
    return (f"---\nartifact_type: tool_results\nturn_id: {state.turn_id}\ncount: {len(state.tool_log)}\n---\n\n"
            f"# Tool results · {state.turn_id}\n\n" + ("\n\n".join(blocks) or "_No tools ran._") + "\n")


def learned_items(state: TurnState) -> list[Learned]:
    """What this turn revealed: structured statements in the query (deterministic patterns), then the
    analysis's free-text preferences and facts unless a structured statement already covers them.
    Ids are derived from the input, so a resumed turn records the same entries."""
    key, when, session = state.input.input_key[:12], state.input.timestamp, state.input.session_id
    items = [from_statement(s, f"{s.kind[:4]}_{key}_s{i}", when, state.turn_id, 0.8, session)
             for i, s in enumerate(extract_statements(state.query), 1)]
    covered = [normalise(i.text) for i in items]
    a = state.analysis
    if a is not None:
        for kind, values in (("preference", a.revealed_preferences), ("fact", a.revealed_facts)):
            for i, value in enumerate((v.strip() for v in values if v.strip()), 1):
                if not any(c and c in normalise(value) for c in covered):
                    items.append(Learned(kind, value, f"{kind[:4]}_{key}_{i}", when, state.turn_id, 0.7, session_id=session))
    return items


def turn_messages(meta: dict[str, Any]) -> list[MessageInput]:
    """The user's query and Panda's reply as thread messages (not separately searchable: the turn is)."""
    when = parse_time(meta["timestamp"])
    assert when is not None
    thread = meta.get("session_id") or DEFAULT_THREAD
    extra = {"turn_id": meta["turn_id"]}
    out = [MessageInput(meta["user_id"], thread, when, "user", meta["query"], "", f"{meta['turn_id']}:q",
                        meta["doc_path"], extra)]
    if meta.get("response"):
        out.append(MessageInput(meta["user_id"], thread, when, "assistant", meta["response"], "panda",
                                f"{meta['turn_id']}:a", meta["doc_path"], extra))
    return out


def record_feedback(state: TurnState, ctx: Home) -> tuple[str, str] | None:
    """Mark the previous turn rejected or accepted when this query says so; returns (status, its turn id)."""
    signal = feedback_signal(state.query) if state.turn_number >= 2 else None
    if signal is None:
        return None
    changes = {"user_feedback_status": signal, "rejection_detected_in": state.turn_id}
    previous = ctx.vault.update_turn_metadata(state.user_id, state.turn_number - 1, changes)
    if previous is None:
        return None
    ctx.catalog.set_feedback(previous["turn_id"], signal, state.turn_id)
    return signal, str(previous["turn_id"])


def research_outputs(state: TurnState, ctx: Home,
                     reliability: dict[str, float]) -> tuple[dict[str, Any], Document] | None:
    """research.json data and the research document of this turn (None when no research ran)."""
    from panda.research.documents import quality, research_document, research_id, research_json

    if not state.research:
        return None
    a = state.analysis
    topic = a.topic if a else "general"
    doc_id = research_id(state.input.input_key)
    previous = [r["id"] for r in ctx.catalog.current_documents("research", state.user_id, topic) if r["id"] != doc_id]
    data = research_json(state.turn_id, state.query, topic, a.intent if a else "informational", state.research,
                         quality(state.research, reliability), state.input.timestamp, previous[-1] if previous else None)
    doc = research_document(data, state.user_id, state.input.session_id, state.turn_number, doc_id,
                            ctx.policy.expiration.research_days, list(a.keywords) if a else [])
    doc.doc_path = ctx.vault.layout.relative(state.turn_path / "research.md")
    return data, doc


def supersede(ctx: Home, new: Document, when: datetime) -> list[Document]:
    """Mark the user's earlier research on the same topic superseded (invalid from now); files kept."""
    out = []
    for row in ctx.catalog.current_documents("research", new.owner_user or "", new.primary_topic):
        if row["id"] == new.id:
            continue
        old = ctx.vault.read_document(row["doc_path"])
        old.invalid_at = when
        old.extra["superseded_by"] = new.id
        ctx.vault.write_document(old, ctx.vault.layout.resolve_relative(row["doc_path"]))
        out.append(old)
    return out


def knowledge_of(state: TurnState, ctx: Home, data: dict[str, Any],
                 reliability: dict[str, float]) -> tuple[dict[str, Any], list[str]]:
    """What this turn's research teaches everyone, for publication after the batch (research/publication.py),
    and the notes it will feed (seed 003 write protocol; their paths are known now, for the links).

    Global files: written from `public_research` (scrubbed, provenance hashed; privacy/provenance.py)."""
    from panda.privacy.provenance import provenance_hash, public_research
    from panda.privacy.terms import user_private_terms
    from panda.research.knowledge import planned_notes
    from panda.research.publication import knowledge_record

    public = public_research(data, ctx.policy.privacy.pii_categories, user_private_terms(ctx.vault, state.user_id))
    quality = state.validation.quality if state.validation else 0.0
    significant = state.outcome == "APPROVE" and quality >= ctx.policy.context.significant_turn_quality
    lesson = {"outcome": state.outcome, "quality": round(quality, 2), "attempts": state.doc.attempt,
              "tools": [str(e["tool"]) for e in state.tool_log]} if significant else None
    record = knowledge_record(public, state.research, provenance_hash(state.turn_id), state.input.timestamp, reliability,
                              lesson)
    return record, planned_notes(ctx.vault, public)


def run(state: TurnState, ctx: Home) -> None:
    vault = ctx.vault
    feedback = record_feedback(state, ctx)
    budget = section_budget("appendix", ctx.policy.context)
    appendix = appendix_text(state, budget)
    if feedback:
        verb = "rejects" if feedback[0] == "rejected" else "accepts"
        appendix += f"\n- **Feedback:** this query {verb} the answer of {feedback[1]}"
    if state.research and not state.input.probe:  # research_outputs below writes it beside context.md
        appendix += "\n- **Research:** [research.md](research.md) (pages read, findings, the knowledge notes it fed)"
    state.doc.write("appendix", within(budget, appendix))
    meta = metadata(state, ctx)
    turn_doc = turn_document(meta, {})
    state.doc.title = f"Turn {state.turn_number} · {state.user_id}"
    state.doc.meta = {**turn_doc.frontmatter_dict(), "outcome": state.outcome, "input_key": state.input.input_key}

    probe = state.input.probe  # evaluation questions leave their files but change no memory
    new_docs: list[Document] = []
    if not probe:
        for doc in state.staged_docs:
            new_docs.append(vault.write_document(doc))
        new_docs += record(vault, state.user_id, learned_items(state), state.input.timestamp, ctx.policy.write.log_changes)

    reliability = ctx.run_reliability() if state.research and not probe else {}
    research = None if probe else research_outputs(state, ctx, reliability)
    research_files: dict[str, str | dict[str, Any]] = {}
    superseded: list[Document] = []
    if research is not None:
        data, research_doc = research
        knowledge, notes = knowledge_of(state, ctx, data, reliability)
        meta["research"] = {"doc_id": research_doc.id, "pages": len(data["pages"]), "notes": notes}
        superseded = supersede(ctx, research_doc, state.input.timestamp)
        # The turn links the global notes; they never link back.
        research_doc.body += "\n\n## Knowledge notes\n\n" + "\n".join(
            f"- [{path.rsplit('/', 1)[-1][:-3]}]({relative_link(ctx.vault.home, state.turn_path, path)})" for path in notes)
        research_files = {"research.md": research_doc.to_markdown(), "research.json": data, KNOWLEDGE_FILE: knowledge}
    # What the catalog commit applies, recorded in the completion marker so recovery applies the same.
    meta["indexed_paths"] = [d.doc_path for d in [*new_docs, *superseded] if d.doc_path]
    meta["referenced_documents"] = [] if probe else referenced_documents(state.retrievals)
    meta["retrievals"] = state.retrievals
    meta["extractions"] = finalise(state.extractions, state.query, state.validation.decision if state.validation else "FAIL",
                                   state.validation.quality if state.validation else 0.0)
    vault.write_turn_files(state.turn_path, {
        **research_files,
        "context.md": state.doc.render(),
        "query_analysis.json": {**(state.analysis.model_dump() if state.analysis else {}),
                                "original_query": state.query, "prompt": state.prompt_versions.get("analyze")},
        "ticket.md": ticket_markdown(state),
        "toolresults.md": toolresults_markdown(state),
        "metrics.json": metrics(state),
        "metadata.json": meta,
    })

    if not probe:
        ingest_messages(ctx, turn_messages(meta), recorded_at=state.input.timestamp, extract_facts=False)
    # The turn's LLM calls not yet flushed (validation's) go in with the commit, under its catalog session.
    calls, state.call_records = state.call_records, []
    commit_turn(ctx, meta, turn_search_documents(ctx, meta, state.turn_path / "context.md"), calls)

"""Phase execute (§4): run the planner's tool requests — memory.search, memory.save, memory.retrieve.

Tools are deterministic library calls, so this phase needs no LLM of its own: the MIND planner
decides, the tools run, results accumulate in §4 and in toolresults.md. memory.save only stages
the document; the save phase writes it with the rest of the turn, so a crashed turn leaves nothing
half-saved. Staged ids are derived from the input, so a resumed turn saves the same ids again.
"""

from __future__ import annotations

from typing import Any

from panda.llm.schemas import ToolRequest
from panda.memory.text import tokenize
from panda.pipeline.gather import relative_link
from panda.pipeline.state import PipelineContext, TurnState


def run_tool(state: TurnState, ctx: PipelineContext, request: ToolRequest) -> dict[str, Any]:
    entry: dict[str, Any] = {"tool": request.tool, "argument": request.argument, "topic": request.topic}
    if request.tool == "memory.search":
        exclude = {state.turn_id} | {d.id for d in state.staged_docs}
        results = ctx.memory.search(request.argument, user_id=state.user_id, now=state.input.timestamp, limit=5,
                                    query_topic=request.topic, turn_id=state.turn_id, exclude_ids=exclude)
        entry["results"] = [{"id": r.id, "kind": r.kind, "title": r.title, "doc_path": r.doc_path,
                             "score": r.score, "snippet": r.snippet} for r in results]
        entry["summary"] = f"{len(results)} result(s)"
    elif request.tool == "memory.save":
        doc_type = "preference" if request.topic.startswith("user.preference") else "memory"
        doc = ctx.memory.prepare_save(
            request.argument, doc_type=doc_type, topic=request.topic, keywords=tokenize(request.argument)[:5],
            user_id=state.user_id, scope="new", now=state.input.timestamp, session_id=state.input.session_id,
            doc_id=f"mem_{state.input.input_key[:12]}_{len(state.staged_docs) + 1}", source=state.turn_id,
        )
        state.staged_docs.append(doc)
        entry["saved_id"] = doc.id
        entry["summary"] = f"saved {doc.id} (scope new, expires {doc.expires_at})"
    else:
        found = ctx.memory.retrieve(doc_id=request.argument.strip(), doc_path=request.argument.strip())
        if found is None:
            entry["summary"] = "not found"
        else:
            entry["summary"] = f"retrieved {found.id}"
            entry["results"] = [{"id": found.id, "kind": found.kind, "title": found.title, "doc_path": found.doc_path,
                                 "snippet": " ".join(found.body.split()[:80])}]
    return entry


def format_entry(state: TurnState, ctx: PipelineContext, entry: dict[str, Any]) -> str:
    lines = [f"- **{entry['tool']}** `{entry['argument']}` → {entry['summary']}"]
    for r in entry.get("results", []):
        link = relative_link(ctx.vault.home, state.turn_path, r["doc_path"]) if r.get("doc_path") else ""
        lines.append(f"  - [{r['title'] or r['id']}]({link}) · {r['kind']} — {' '.join(r['snippet'].split()[:25])}")
    return "\n".join(lines)


def run(state: TurnState, ctx: PipelineContext, requests: list[ToolRequest], iteration: int) -> str:
    """Execute one iteration's requests; append them to §4 and return the text written."""
    entries = [run_tool(state, ctx, request) for request in requests]
    for entry in entries:
        entry["iteration"] = iteration
        entry["attempt"] = state.doc.attempt
    state.tool_log.extend(entries)
    text = f"#### Iteration {iteration}\n" + "\n".join(format_entry(state, ctx, e) for e in entries)
    state.doc.write("4", text)
    return text

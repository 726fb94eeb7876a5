"""Write-time enrichment of ingested messages, in batches through the backend (seed 004).

Every pending or failed message gets one REFLEX request, constrained to the Enrichment schema built
from the controlled vocabulary (language/vocabulary.py); all requests of a chunk go to the backend as
one batch. A reply that does not parse marks the message `failed` — it stays in the vault and the
catalog and is picked up again by the next run. Results are written to the transcript (truth) and
the catalog (message row, re-embedded document with its topics and vehemence), and the facts and
preferences the speaker stated go through conversations/learned.py.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from panda.catalog.conversations import Conversations
from panda.conversations.learned import Learned, from_statement, record
from panda.documents.atomic import atomic_write_text
from panda.documents.transcript import SessionTranscript
from panda.home import Home
from panda.language.facts import Statement, normalise
from panda.language.vocabulary import VOCABULARY_VERSION
from panda.llm.backend import Backend, ChatRequest
from panda.llm.prompts import load_prompt
from panda.llm.roles import REFLEX, sampling_for
from panda.llm.schemas import Enrichment

log = logging.getLogger(__name__)


def build_request(ctx: Home, message: dict[str, Any], recent: list[str]) -> ChatRequest:
    template = load_prompt("enrich")
    return ChatRequest(
        role=REFLEX, sampling=sampling_for(REFLEX, ctx.policy.llm, 256), schema=Enrichment.model_json_schema(),
        messages=template.render(recent=recent, speaker=message["author"] or message["role"],
                                 content=" ".join(message["content"].split()[:300])),
        phase="enrich", prompt_version=template.id, user_id=message["user_id"], session_id=message["session_id"],
    )


def enrich_pending(ctx: Home, backend: Backend, user_id: str | None = None, chunk_size: int = 256,
                   limit: int | None = None, users: list[str] | None = None) -> dict[str, int]:
    """Enrich every pending/failed message (of one user, of `users`, or all). Returns counts by outcome."""
    conv = Conversations(ctx.catalog)
    pending = conv.pending_enrichment(user_id, limit, users)
    counts = {"completed": 0, "failed": 0, "facts_recorded": 0}
    for start in range(0, len(pending), chunk_size):
        chunk = pending[start:start + chunk_size]
        requests = []
        for message in chunk:
            recent = conv.recent_messages(message["session_id"], message["created_at"], 4)
            lines = [f"{r['author']}: {' '.join(r['content'].split()[:40])}" for r in recent if r["id"] != message["id"]][-3:]
            requests.append(build_request(ctx, message, lines))
        results = backend.generate(requests)
        outcomes: dict[str, tuple[str, dict[str, Any] | None]] = {}
        calls = []
        for message, request, result in zip(chunk, requests, results, strict=True):
            status, error, metadata = "ok", None, None
            if result.error:
                status, error = "error", result.error
            else:
                try:
                    parsed = Enrichment.model_validate_json(result.text)
                    metadata = {**parsed.model_dump(), "vocabulary_version": VOCABULARY_VERSION,
                                "prompt": request.prompt_version}
                except ValidationError as exc:
                    status, error = "parse_error", str(exc.errors()[0]["msg"])
            outcomes[message["id"]] = ("completed", metadata) if metadata is not None else ("failed", None)
            calls.append({"user_id": message["user_id"], "session_id": message["session_id"], "turn_id": None,
                          "thread_id": message.get("thread_id"), "message_id": message["id"],
                          "phase": "enrich", "role": REFLEX, "model": result.model or backend.model_for(REFLEX),
                          "prompt_version": request.prompt_version, "prompt_tokens": result.prompt_tokens,
                          "completion_tokens": result.completion_tokens, "latency_ms": result.latency_ms,
                          "batch_size": len(chunk), "started_at": message["created_at"],  # event time: the message's
                          "status": status, "error_message": error})
        ctx.catalog.record_llm_calls(calls, ctx.policy.llm.prices_usd_per_million)
        counts["facts_recorded"] += apply(ctx, chunk, outcomes)
        for status, _ in outcomes.values():
            counts[status] += 1
    return counts


def grounded(value: str, content: str) -> bool:
    """A stated value counts only if its words occur in the message (a cheap hallucination check).

    Example: grounded('Denver', 'We moved to Denver!') -> True; grounded('my_name_mammal', 'Hi!') -> False.
    """
    words = normalise(value).split()
    text = f" {normalise(content)} "
    return bool(words) and all(f" {w} " in text for w in words)


def enrich_turn_messages(ctx: Home, backend: Backend, turns: list[Any]) -> dict[str, int]:
    """Seed 004's write-time enrichment of a turn batch's users' messages, as `panda ingest` does it
    (`panda run --enrich`, the turns flow's `enrich`)."""
    return enrich_pending(ctx, backend, users=sorted({t.user_id for t in turns}))


def apply(ctx: Home, chunk: list[dict[str, Any]], outcomes: dict[str, tuple[str, dict[str, Any] | None]]) -> int:
    """Write outcomes to the transcripts, then the catalog, then the stated facts. Returns facts recorded."""
    from panda.conversations.ingest import index_transcripts

    by_file: dict[str, list[str]] = defaultdict(list)
    for row in chunk:
        by_file[row["doc_path"].split("#", 1)[0]].append(row["id"])
    transcripts = []
    learned: dict[str, list[Learned]] = defaultdict(list)
    now = datetime.now(UTC)
    for rel, ids in by_file.items():
        path = ctx.vault.layout.resolve_relative(rel)
        transcript = SessionTranscript.parse(path.read_text(encoding="utf-8"))
        for message in transcript.messages:
            if message.id not in ids:
                continue
            status, metadata = outcomes[message.id]
            message.status = status
            if metadata is not None:
                counters = message.metadata.get("counters")
                message.metadata = {**metadata, **({"counters": counters} if counters else {})}
                for i, stated in enumerate(metadata.get("stated", []), 1):
                    if not grounded(stated["value"], message.content):
                        continue  # the model's claim is not in the message: not recorded as a fact
                    if stated["kind"] == "preference" and not metadata.get("contains_preference", True):
                        continue  # seed 004: contains_preference gates preference extraction
                    statement = Statement(stated["kind"], stated["attribute"], stated["value"], message.author)
                    learned[transcript.user_id].append(from_statement(
                        statement, f"{stated['kind'][:4]}_{message.id[4:]}_e{i}", message.timestamp, message.id, 0.6,
                        f"{transcript.user_id}:{transcript.session_id}"))  # the catalog's session id (ingest.py)
        atomic_write_text(path, transcript.render())
        transcripts.append(transcript)
    index_transcripts(ctx, transcripts, set(outcomes))
    conv = Conversations(ctx.catalog)
    for message_id, (status, metadata) in outcomes.items():
        conv.set_enrichment(message_id, status, metadata, now if metadata is not None else None)
    recorded = 0
    for user_id, items in learned.items():
        docs = record(ctx.vault, user_id, items, now, ctx.policy.write.log_changes)
        ctx.memory.index(docs)
        recorded += len(docs)
    return recorded

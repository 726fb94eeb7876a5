"""Asking the LLM from a phase: render a prompt, yield the request, parse the reply, retry once.

`ask` is a generator step: the scheduler collects the requests every active turn yields and sends
them to the backend as one batch. A reply that fails its schema is retried (policy.llm.parse_retries,
default 1) with a different seed; after that the turn ends FAIL with the reason (LLMReplyError).
Every attempt is recorded for llm_calls and metrics.json. `fit_section` keeps a section within its
word budget: NERVES (0.1) compresses, truncation is the last resort.
"""

from __future__ import annotations

import math
import zlib
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from panda.documents.budgets import TOKENS_PER_WORD, count_words, section_budget, truncate_to_words
from panda.errors import LLMReplyError
from panda.home import Home
from panda.llm.backend import ChatRequest, ChatResult, Sampling
from panda.llm.prompts import load_prompt
from panda.llm.roles import NERVES, sampling_for
from panda.llm.schemas import Compression
from panda.pipeline.state import Step, TurnState

M = TypeVar("M", bound=BaseModel)


def _seed(state: TurnState, phase: str, attempt: int) -> int:
    return (int(state.input.input_key[:8], 16) + zlib.crc32(phase.encode()) % 1000 + attempt * 7919) % (2**31)


def ask(state: TurnState, ctx: Home, *, phase: str, role: str, prompt: str, schema: type[M],
        variables: dict[str, object], max_tokens: int | None = None) -> Step[M]:
    template = load_prompt(prompt)
    messages = template.render(**variables)
    base = sampling_for(role, ctx.policy.llm, max_tokens)
    state.prompt_versions[phase] = template.id
    last_error = ""
    tries = 1 + ctx.policy.llm.parse_retries
    for attempt in range(tries):
        request = ChatRequest(
            role=role, messages=messages, schema=schema.model_json_schema(), phase=phase,
            sampling=Sampling(base.temperature, base.max_tokens, seed=_seed(state, phase, attempt)),
            prompt_version=template.id, user_id=state.user_id, session_id=state.input.session_id,
            turn_id=state.turn_id,
        )
        results: list[ChatResult] = yield [request]
        result = results[0]
        parsed, error = _parse(result, schema)
        last_error = error or last_error
        _record(state, ctx, phase, role, template.id, result, error)
        if parsed is not None:
            return parsed
    raise LLMReplyError(f"{state.label} failed {phase}: the {role} reply did not parse after {tries} tries: {last_error}")


def ask_batch(state: TurnState, ctx: Home, *, phase: str, role: str, prompt: str, schema: type[M],
              variables: list[dict[str, object]], max_tokens: int | None = None) -> Step[list[M | None]]:
    """Several independent requests of one phase in one yield (one batch); None where a reply did not parse.

    Used where one failure must not fail the turn (Page Intelligence on several pages)."""
    if not variables:
        return []
    template = load_prompt(prompt)
    base = sampling_for(role, ctx.policy.llm, max_tokens)
    state.prompt_versions[phase] = template.id
    requests = [ChatRequest(role=role, messages=template.render(**v), schema=schema.model_json_schema(), phase=phase,
                            sampling=Sampling(base.temperature, base.max_tokens, seed=_seed(state, f"{phase}{i}", 0)),
                            prompt_version=template.id, user_id=state.user_id, session_id=state.input.session_id,
                            turn_id=state.turn_id) for i, v in enumerate(variables)]
    results: list[ChatResult] = yield requests
    out: list[M | None] = []
    for result in results:
        parsed, error = _parse(result, schema)
        _record(state, ctx, phase, role, template.id, result, error)
        out.append(parsed)
    return out


def _parse(result: ChatResult, schema: type[M]) -> tuple[M | None, str | None]:
    """The reply parsed against its schema, or None with the reason ('error: ...' / 'parse_error: ...')."""
    if result.error:
        return None, f"error: {result.error}"
    try:
        return schema.model_validate_json(result.text), None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "reply"
        return None, f"parse_error: {where}: {first['msg']} (finish={result.finish_reason})"


def _record(state: TurnState, ctx: Home, phase: str, role: str, prompt_version: str, result: ChatResult,
            error: str | None) -> None:
    """One llm_calls row for the turn (drained by the scheduler) and for metrics.json.

    The clock rule (README, Observability): started_at is the event's time — the turn's input time, as
    for its retrievals — and the catalog adds recorded_at, the wall clock; latency_ms is measured."""
    status = "ok" if error is None else error.split(":", 1)[0]
    record = {
        "user_id": state.user_id, "session_id": state.input.session_id, "turn_id": state.turn_id,
        "phase": phase, "role": role, "model": result.model or ctx.model_for(role),
        "prompt_version": prompt_version, "prompt_tokens": result.prompt_tokens,
        "completion_tokens": result.completion_tokens, "latency_ms": result.latency_ms,
        "batch_size": result.extra.get("batch_size", 1), "started_at": state.input.timestamp, "status": status,
        "error_message": None if error is None else error.split(": ", 1)[1],
    }
    state.call_records.append(record)
    state.calls.append(record)


def fit_section(state: TurnState, ctx: Home, key: str, text: str) -> Step[str]:
    """Return `text` within the section's word budget, compressing with NERVES when it overflows."""
    limit = section_budget(key, ctx.policy.context)
    if count_words(text) <= limit:
        return text
    nerves_max = ctx.policy.llm.roles[NERVES].max_tokens
    try:
        reply = yield from ask(state, ctx, phase=f"compress_s{key}", role=NERVES, prompt="compress",
                               schema=Compression, variables={"limit": limit, "text": text},
                               max_tokens=min(nerves_max, math.ceil(limit * TOKENS_PER_WORD) + 40))
        candidate = reply.text if 0 < count_words(reply.text) < count_words(text) else text
    except LLMReplyError:
        candidate = text  # compression failing must not fail the turn; truncation still bounds it
    return truncate_to_words(candidate, limit)

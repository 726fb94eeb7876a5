"""Pipeline scheduler vs raw vLLM: completion tokens per second for the same requests.

1. Runs N single-turn users through the real pipeline (scheduler + phases + retrieval + saving) on
   the vLLM CPU engine, recording every batch the scheduler sent.
2. Replays exactly those batches (same messages, sampling, schemas, grouping) through raw
   `vllm.LLM.chat` on the same engine.
Both figures are completion tokens / wall seconds; the ratio is how much of raw vLLM the pipeline
keeps (target >= 80 %). The prefix cache is emptied before each replay: it would otherwise still hold
the pipeline's prompts and spare the replay their prefill. Also prints raw throughput for all
requests in one batch, for reference.
Usage: python benchmarks/pipeline_throughput.py [USERS]   (default 24)
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from panda.config import Settings
from panda.llm.backend import ChatRequest, ChatResult
from panda.llm.vllm_backend import VLLMBackend
from panda.pipeline.scheduler import run_batch
from panda.pipeline.turn_input import TurnInput
from panda.runtime import open_home

QUERIES = ["I just adopted a Syrian hamster. What should I feed it?", "My budget for a gaming laptop is $900.",
           "I live in Boston and love weekend hikes.", "Remind me what my sister's name is.",
           "What is a good beginner guitar?", "I prefer vegetarian recipes with lentils."]


class RecordingBackend:
    """Wraps the vLLM backend and keeps every batch the scheduler sends."""

    def __init__(self, inner: VLLMBackend) -> None:
        self.inner = inner
        self.name = inner.name
        self.batches: list[list[ChatRequest]] = []

    def model_for(self, role: str) -> str:
        return self.inner.model_for(role)

    def generate(self, requests: list[ChatRequest]) -> list[ChatResult]:
        self.batches.append(list(requests))
        return self.inner.generate(requests)

    def close(self) -> None:
        pass


def raw_chat(backend: VLLMBackend, engine, batch: list[ChatRequest]) -> int:  # type: ignore[no-untyped-def]
    from vllm import SamplingParams
    from vllm.sampling_params import StructuredOutputsParams

    params = [SamplingParams(temperature=r.sampling.temperature, max_tokens=r.sampling.max_tokens,
                             seed=None if backend._cpu else r.sampling.seed,  # as the backend does
                             structured_outputs=StructuredOutputsParams(json=r.schema) if r.schema else None)
              for r in batch]
    outputs = engine.chat([r.messages for r in batch], sampling_params=params, use_tqdm=False)
    return sum(len(o.outputs[0].token_ids) for o in outputs)


def main() -> None:
    users = int(sys.argv[1]) if len(sys.argv) > 1 else 24
    vllm_backend = VLLMBackend()
    backend = RecordingBackend(vllm_backend)
    engine = vllm_backend._engine(vllm_backend.model)
    start = datetime(2026, 3, 1, 9, tzinfo=UTC)
    turns = [TurnInput(user_id=f"user{i:03d}", timestamp=start + timedelta(minutes=i), query=QUERIES[i % len(QUERIES)],
                       turn_id=f"t{i}") for i in range(users)]
    with tempfile.TemporaryDirectory() as tmp:
        ctx = open_home(Settings(home=Path(tmp) / "home"), backend=backend)
        ctx.memory.embedder.embed(["warm up"])
        raw_chat(vllm_backend, engine, [ChatRequest(role="MIND", messages=[{"role": "user", "content": "hi"}],
                                      sampling=vllm_backend_sampling())])
        t0 = time.perf_counter()
        report = run_batch(turns, ctx, backend)
        pipeline_s = time.perf_counter() - t0
        ctx.catalog.close()
    # The replay sends the very prompts the pipeline sent: with the prefix cache still holding them it
    # would skip their prefill (most of the work on a CPU) and look faster than any first run can be.
    engine.reset_prefix_cache()
    t0 = time.perf_counter()
    raw_tokens = sum(raw_chat(vllm_backend, engine, batch) for batch in backend.batches)
    raw_s = time.perf_counter() - t0
    everything = [r for batch in backend.batches for r in batch]
    engine.reset_prefix_cache()
    t0 = time.perf_counter()
    one_batch_tokens = raw_chat(vllm_backend, engine, everything)
    one_batch_s = time.perf_counter() - t0
    pipeline_tps = report.completion_tokens / pipeline_s
    raw_tps = raw_tokens / raw_s
    print(json.dumps({
        "benchmark": "pipeline_vs_raw_vllm", "users": users, "turn_outcomes": dict(report.outcomes),
        "requests": report.llm_requests, "batches": report.llm_batches, "largest_batch": report.largest_batch,
        "pipeline": {"completion_tokens": report.completion_tokens, "seconds": round(pipeline_s, 1),
                     "tokens_per_s": round(pipeline_tps, 1)},
        "raw_same_batches": {"completion_tokens": raw_tokens, "seconds": round(raw_s, 1), "tokens_per_s": round(raw_tps, 1)},
        "pipeline_over_raw": round(pipeline_tps / raw_tps, 3),
        "raw_one_batch": {"completion_tokens": one_batch_tokens, "seconds": round(one_batch_s, 1),
                          "tokens_per_s": round(one_batch_tokens / one_batch_s, 1)},
    }, indent=2))


def vllm_backend_sampling():  # type: ignore[no-untyped-def]
    from panda.llm.backend import Sampling

    return Sampling(temperature=0.5, max_tokens=8)


if __name__ == "__main__":
    main()

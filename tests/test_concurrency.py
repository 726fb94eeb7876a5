"""Many Panda processes on one home (DESIGN §10): writers take turns, readers never fail, nothing is lost.

Real processes on a real DuckDB file: a long `panda ingest` writes while jobs (writers: they wait for the
home lock and say so), search, stats, facts and a notebook-style read (readers: the published snapshot)
run against the same home. Every process exits 0; afterwards every message is there and the search
the reader made while the ingest wrote is counted (journalled, applied by the next writer).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from panda.catalog.store import Catalog
from tests.conftest import SHARED_DATA

LOCOMO = SHARED_DATA / "locomo" / "locomo_conv0-7.json"
PAGES = SHARED_DATA / "webpages"
NOTEBOOK_READ = """
import sys
from panda.catalog.store import Catalog
catalog = Catalog.open_reader(sys.argv[1])
print(catalog.con.execute("SELECT count(*) FROM documents").fetchone()[0])
catalog.close()
"""


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "PANDA_HOME": str(home), "TOKENIZERS_PARALLELISM": "false",
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false", **extra}


def _panda(home: Path, *args: str, **extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "panda.cli", *args, "--home", str(home)], env=_env(home, **extra),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _holder_pid(home: Path) -> int | None:
    try:
        return int(json.loads((home / "catalog" / "writer.lock").read_text() or "{}").get("pid", 0)) or None
    except (OSError, ValueError):
        return None


@pytest.mark.skipif(not LOCOMO.exists(), reason="../shared/data/locomo not found")
def test_a_long_ingest_with_jobs_search_stats_facts_and_a_notebook_read(tmp_path):
    home = tmp_path / "home"
    crawl = tmp_path / "pages"
    crawl.mkdir()
    for page in sorted(PAGES.glob("*.html"))[:3]:
        (crawl / page.name).write_bytes(page.read_bytes())
    seed = _panda(home, "research", "ingest", str(crawl))  # a first writer: the home now has a snapshot
    assert seed.wait(300) == 0, seed.stderr.read() if seed.stderr else ""

    ingest = _panda(home, "ingest", str(LOCOMO), "--only", "conv-26", "--only", "conv-30", "--no-enrich")
    deadline = time.monotonic() + 120
    while _holder_pid(home) != ingest.pid and time.monotonic() < deadline and ingest.poll() is None:
        time.sleep(0.1)
    assert _holder_pid(home) == ingest.pid, "the ingest never took the home lock"
    others = {
        "promotion": _panda(home, "jobs", "promotion"),
        "search": _panda(home, "search", "Caroline adoption agency", "--user", "conv-26"),
        "stats": _panda(home, "stats", "--json"),
        "preference-decay": _panda(home, "jobs", "preference-decay"),
        "facts": _panda(home, "facts", "--user", "conv-26"),
        "notebook": subprocess.Popen([sys.executable, "-c", NOTEBOOK_READ, str(home / "catalog" / "panda.duckdb")],
                                     env=_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
    }
    results = {}
    for name, proc in others.items():
        out, err = proc.communicate(timeout=600)
        results[name] = (proc.returncode, out, err)
    ingest_out, ingest_err = ingest.communicate(timeout=600)
    assert ingest.returncode == 0, ingest_err
    failures = {k: v for k, v in results.items() if v[0] != 0}
    assert not failures, failures
    assert not [k for k, v in results.items() if "Could not set lock" in v[2] or "Traceback" in v[2]]
    # Readers read the snapshot while the ingest wrote; writers waited and said so.
    assert "reading the snapshot" in results["search"][2] or "reading the snapshot" in results["stats"][2]
    waits = [float(m) for _, _, err in results.values() for m in re.findall(r"home lock acquired after ([\d.]+) s", err)]
    assert "waiting for the home lock" in results["promotion"][2] and waits
    print(f"\nwriters waited {', '.join(f'{w:.1f} s' for w in waits)} for the ingest")  # figure for the note

    catalog = Catalog(home / "catalog" / "panda.duckdb")
    try:
        messages = catalog.con.execute("SELECT count(*) FROM messages").fetchone()[0]
        expected = sum(len(turns) for conv in json.loads(LOCOMO.read_text()) if conv["sample_id"] in ("conv-26", "conv-30")
                       for key, turns in conv["conversation"].items() if re.fullmatch(r"session_\d+", key))
        assert messages == expected
        searched = catalog.con.execute("SELECT count(*) FROM retrieval_operations WHERE query = ?",
                                       ["Caroline adoption agency"]).fetchone()[0]
        assert searched == 1  # the reader's journalled search, applied once by a later writer
        assert not list((home / "catalog" / "pending").glob("*.json"))
    finally:
        catalog.close()


def test_a_writer_gives_up_after_the_timeout_with_a_clear_message(tmp_path):
    home = tmp_path / "home"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\nfrom panda.catalog.store import Catalog\n"
        "c = Catalog(sys.argv[1])\nprint('held', flush=True)\ntime.sleep(60)\n"), str(home / "catalog" / "panda.duckdb")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(home))
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        job = _panda(home, "jobs", "promotion", PANDA_LOCK_TIMEOUT="2")
        _, err = job.communicate(timeout=300)
        assert job.returncode == 2
        assert f"pid {holder.pid}" in err and "gave up after waiting" in err and "Traceback" not in err
        assert time.monotonic() - started < 120
    finally:
        holder.kill()
        holder.wait()

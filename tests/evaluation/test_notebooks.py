"""The memory-quality notebook executes headless (nbclient) on a small home and draws its figures."""

import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from panda.evaluation.runner import run_eval
from panda.pipeline.scheduler import run_batch
from panda.pipeline.turn_input import read_turns
from tests.conftest import write_jsonl
from tests.pipeline.test_scheduler import LINES

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "memory_quality.ipynb"


def test_memory_quality_notebook_runs_and_plots(ctx, backend, embedder, tmp_path: Path, monkeypatch):
    turns, _ = read_turns(write_jsonl(tmp_path / "t.jsonl", LINES))
    run_batch(turns, ctx, backend)
    questions = write_jsonl(tmp_path / "e.jsonl", [
        '{"user_id": "u1", "timestamp": "2026-01-01T10:00:00Z", "query": "My cat is called Miso."}',
        '{"user_id": "u1", "timestamp": "2026-01-02T10:00:00Z", "query": "What is my cat called?", "expected": "Miso"}',
    ])
    run_eval("jsonl", questions, ks=[1, 5], retrieval_only=False, settings=ctx.settings, backend=backend,
             embedder=embedder, results_catalog=ctx.catalog, work_dir=tmp_path)
    ctx.catalog.close()
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    monkeypatch.setenv("PANDA_HOME", str(ctx.settings.home))
    NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}},
                   env={**os.environ}).execute()
    images = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])
              if "image/png" in o.get("data", {})]
    errors = [o for cell in notebook.cells for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    assert len(images) == 7  # one figure per section
    text = "".join(o.get("text", "") for cell in notebook.cells for o in cell.get("outputs", []))
    assert "latest evaluation run: jsonl-" in text

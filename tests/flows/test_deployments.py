"""prefect.yaml's deployments point at flows that exist and take the parameters given (no Prefect server needed)."""

import importlib
import inspect
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def deployments() -> list[dict]:
    return yaml.safe_load((ROOT / "prefect.yaml").read_text(encoding="utf-8"))["deployments"]


def test_every_deployment_names_a_flow_and_parameters_it_takes():
    for deployment in deployments():
        module, name = deployment["entrypoint"].split(":")
        flow = getattr(importlib.import_module(module.removesuffix(".py").replace("/", ".")), name)
        accepted = inspect.signature(flow.fn).parameters
        unknown = set(deployment.get("parameters") or {}) - set(accepted)
        assert not unknown, f"{deployment['name']}: {sorted(unknown)} not parameters of {name}"


def test_scheduled_turns_enrich_their_messages():
    """Seed 004 enriches every message at write time: the turn deployments do it for their turns."""
    turns = [d for d in deployments() if d["entrypoint"].startswith("flows/turns.py")]
    assert turns and all(d["parameters"].get("enrich") is True for d in turns)

"""LoCoMo's J: an LLM judge labels each answered item CORRECT or WRONG against the gold answer.

One batch through any backend (`panda eval … --judge [--judge-model M] [--judge-backend B]`), with
the judge prompt (llm/prompts/judge.yaml) and a JSON schema (label + reason); the label and reason are
stored per item (eval_items.judge_label / judge_reason) and J = the share labelled CORRECT among
items with a gold answer. Abstention items (LoCoMo category 5, LongMemEval `_abs`) have no gold and
are not judged: abstention accuracy covers them. A judge reply that does not parse leaves the item
unlabelled, reported as `judge_unparsed`. How weak a CPU judge is: README, Evaluation.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from panda.config import Policy
from panda.llm.backend import Backend, ChatRequest, Sampling
from panda.llm.prompts import load_prompt
from panda.llm.roles import MIND, sampling_for
from panda.llm.schemas import Judgement


def judge_items(items: list[dict[str, Any]], backend: Backend, policy: Policy) -> dict[str, Any]:
    """Label every item with a gold answer and a prediction, in place; returns J and counts."""
    prompt = load_prompt("judge")
    todo = [i for i in items if i.get("gold") and i.get("prediction") is not None]
    base = sampling_for(MIND, policy.llm, 120)
    requests = [ChatRequest(role=MIND, phase="judge", schema=Judgement.model_json_schema(),
                            sampling=Sampling(0.0, base.max_tokens, seed=n), prompt_version=f"judge@{prompt.version}",
                            messages=prompt.render(question=i["question"], gold=i["gold"], prediction=i["prediction"] or ""))
                for n, i in enumerate(todo)]
    results = backend.generate(requests) if requests else []
    unparsed = 0
    for item, result in zip(todo, results, strict=True):
        try:
            verdict = Judgement.model_validate_json(result.text)
        except ValidationError:
            unparsed += 1
            continue
        item["judge_label"], item["judge_reason"] = verdict.label, verdict.reason
    labelled = [i for i in todo if i.get("judge_label")]
    correct = sum(1 for i in labelled if i["judge_label"] == "CORRECT")
    return {"J": round(correct / len(labelled), 4) if labelled else None, "judged": len(labelled),
            "judge_unparsed": unparsed, "judge_model": backend.model_for(MIND)}

"""How well a model profile drives the pipeline's two gates: reflection (PROCEED/CLARIFY) and validation.

Fixed cases with the decision a careful reader would make, sent through the real prompts
(panda/llm/prompts/reflect.yaml, validate.yaml) and JSON schemas, in one batch per gate, on the vLLM
CPU engine. Prints per-case decisions, accuracy per gate and the wall time. Written to choose prompts
for the small models (issue 11); the cases are not the demo's turns.
Usage: python benchmarks/gate_decisions.py [PROFILE_OR_MODEL]   (default: small)
"""

from __future__ import annotations

import sys
import time

from panda.config import Policy
from panda.llm.backend import ChatRequest, Sampling
from panda.llm.prompts import load_prompt
from panda.llm.roles import MIND, REFLEX, sampling_for
from panda.llm.schemas import ReflectionDecision, Validation
from panda.llm.vllm_backend import VLLMBackend

REFLECT = [  # (message, resolved query, expected)
    ("How big should her cage be?", "cage size for the user's Syrian hamster", "PROCEED"),
    ("Which laptop features matter most for gaming at that budget?", "gaming laptop features under $1000", "PROCEED"),
    ("Pineapple upside-down cake: how long does it bake?", "baking time of pineapple upside-down cake", "PROCEED"),
    ("My daughter starts school on Monday.", "the user shares a family fact", "PROCEED"),
    ("What did I tell you about my knee?", "recall of the user's knee injury", "PROCEED"),
    ("Good morning!", "greeting", "PROCEED"),
    ("??", "unclear", "CLARIFY"),
    ("asdf qwer", "unclear", "CLARIFY"),
]
VALIDATE = [  # (message, context, answer, expected)
    ("What is my hamster's name?", "The user's hamster is called Biscuit.", "Your hamster is called Biscuit.", "APPROVE"),
    ("I live in Boston and love hiking.", "No prior memory matched this query.", "Noted: you live in Boston and enjoy hiking.",
     "APPROVE"),
    ("What budget did I give you?", "The user's laptop budget is under $1000.", "You said under $1000.", "APPROVE"),
    ("Where did I grow up?", "No prior memory matched this query.", "I don't know; you haven't told me.", "APPROVE"),
    ("What is my hamster's name?", "The user's hamster is called Biscuit.", "Dogs need daily walks.", "REVISE"),
    ("What budget did I give you?", "The user's laptop budget is under $1000.", "Your budget is $5000.", "REVISE"),
]


def main(model: str) -> None:
    policy = Policy()
    backend = VLLMBackend(model=model)
    reflect, validate = load_prompt("reflect"), load_prompt("validate")
    base = sampling_for(REFLEX, policy.llm, None)
    requests = [ChatRequest(role=REFLEX, phase="reflect", schema=ReflectionDecision.model_json_schema(),
                            sampling=Sampling(base.temperature, base.max_tokens, seed=i),
                            messages=reflect.render(query=q, resolved_query=r, query_type="question", purpose="answer"))
                for i, (q, r, _) in enumerate(REFLECT)]
    mind = sampling_for(MIND, policy.llm, None)
    requests += [ChatRequest(role=MIND, phase="validate", schema=Validation.model_json_schema(),
                             sampling=Sampling(mind.temperature, mind.max_tokens, seed=i),
                             messages=validate.render(query=q, context=c, goals="G1 answer the message",
                                                      tool_results="(none)", answer=a))
                 for i, (q, c, a, _) in enumerate(VALIDATE)]
    started = time.perf_counter()
    results = backend.generate(requests)
    seconds = time.perf_counter() - started
    expected = [e for *_, e in REFLECT] + [e for *_, e in VALIDATE]
    right = {"reflect": 0, "validate": 0}
    for request, result, want in zip(requests, results, expected, strict=True):
        got = ReflectionDecision.model_validate_json(result.text).decision if request.phase == "reflect" \
            else Validation.model_validate_json(result.text).decision
        right[request.phase] += got == want
        print(f"{request.phase:<9} want {want:<8} got {got:<8} {'ok' if got == want else 'WRONG'}  {result.text[:90]}")
    print(f"model {backend.model}: reflect {right['reflect']}/{len(REFLECT)}, validate {right['validate']}/{len(VALIDATE)}, "
          f"{len(requests)} requests in {seconds:.1f} s")
    backend.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "small")

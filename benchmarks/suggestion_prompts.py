"""How a model makes suggestions that respect what the user must keep clear of, under three prompt forms.

Reads answer-set JSONL files (benchmarks/data/answers/): each scored request for ideas (language/text.asks_for_ideas,
with `expected` and `stale` patterns) is paired with the same user's statements that state a diet, an allergy or a thing
avoided (language/facts.extract_statements), and sent to the VOICE role of a profile in one batch per form:
- synthesize: the real synthesize prompt (panda/llm/prompts/synthesize.yaml, its examples) with the fact and the line
  as the answer's context, as the pipeline builds it (without the pages gather finds);
- plain: a short instruction and the user's words, no examples;
- folded: the user's words folded into the request itself ("… Keep in mind that I told you: …").
A reply is right when it says one of the expected words and none of the stale ones, as answer_sets.py scores it.
Prints each reply and the count right per form. Written for issue 43 (suggestions on the 0.5B model).
Usage: python benchmarks/suggestion_prompts.py FILE.jsonl [FILE.jsonl …] [--model PROFILE_OR_MODEL]
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from panda.language.facts import extract_statements
from panda.language.metrics import abstained
from panda.language.text import asks_for_ideas, is_question, second_person, word_stems
from panda.llm.backend import ChatRequest, Sampling
from panda.llm.prompts import load_prompt
from panda.llm.roles import VOICE
from panda.llm.schemas import Response
from panda.runtime import make_backend, settings_for

CONSTRAINT_KEYS = ("diet", "allergy", "avoids")
DAY = "3 February 2026"  # the day the lines are dated in every form (the prompt needs one)


def cases(paths: list[Path]) -> list[tuple[str, str, str, str, str]]:
    """(request, the user's line, its fact, expected, stale) for every scored request for ideas whose user stated a
    constraint earlier in the same file."""
    found = []
    for path in paths:
        said: dict[str, list[tuple[str, str]]] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            turn = json.loads(line)
            query, user = turn["query"], turn["user_id"]
            if "expected" in turn and asks_for_ideas(query):
                for text, fact in said.get(user, [])[-1:]:
                    found.append((query, text, fact, turn["expected"], turn.get("stale", "")))
            elif not is_question(query):
                facts = [f"{s.attribute}: {s.value}" for s in extract_statements(query) if s.attribute in CONSTRAINT_KEYS]
                if facts:
                    said.setdefault(user, []).append((query, facts[0]))
    return found


def synthesize_form(query: str, line: str, fact: str) -> list[dict[str, str]]:
    context = f"- {fact} (told {DAY})\n- On {DAY} the user said: “{line}”"
    return load_prompt("synthesize").render(query=query, context=context, tool_results="(none)", statement=False,
                                            revise_hint="")


def plain_form(query: str, line: str, fact: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": "You give one concrete suggestion that fits what the user told you. Name the "
                                          "suggestion itself in one short sentence. Reply with JSON."},
            {"role": "user", "content": f"Request: {query}\nThe user told you: “{line}”"}]


def folded_form(query: str, line: str, fact: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": "You are a helpful assistant. Answer in one short sentence. Reply with JSON."},
            {"role": "user", "content": f"{query} Keep in mind that I told you: “{line}”"}]


FORMS: dict[str, Callable[[str, str, str], list[dict[str, str]]]] = {
    "synthesize": synthesize_form, "plain": plain_form, "folded": folded_form}


def own_words(answer: str, query: str, line: str) -> set[str]:
    """What a reply names of its own: its word stems that are neither the request's nor the user's line's, nor words of
    suggesting. Example: ('Try a banana.', 'Can you suggest a snack?', "I'm coeliac.") -> {'banana'}."""
    return word_stems(answer) - word_stems(query) - word_stems(second_person(line)) - word_stems(line) - _SUGGESTING


_SUGGESTING = frozenset(word_stems("try suggest suggestion recommend could would might good great idea option choice "
                                   "make cook have eat drink order can you your available sure enjoy like"))


def right(answer: str, expected: str, stale: str) -> bool:
    def says(pattern: str) -> bool:
        return bool(pattern) and re.search(rf"\b(?:{pattern})\b", answer, re.I) is not None
    return says(expected) and not says(stale)


def best_of(backend: Any, found: list[tuple[str, str, str, str, str]], n: int, temperature: float) -> None:
    """Each request's `n` synthesize-form replies in one batch, and the first that names something of its own and says
    no "don't know" (else the first): how often one of them is right, and how often the one chosen is."""
    requests = [ChatRequest(role=VOICE, messages=synthesize_form(q, line, fact), schema=Response.model_json_schema(),
                            phase="synthesize", sampling=Sampling(temperature, 120, seed=4321 + i * n + j))
                for i, (q, line, fact, _, _) in enumerate(found) for j in range(n)]
    replies = [_answer(r.text) for r in backend.generate(requests)]
    any_right = chosen_right = 0
    for i, (query, line, _, expected, stale) in enumerate(found):
        mine = replies[i * n:(i + 1) * n]
        chosen = next((a for a in mine if own_words(a, query, line) and not abstained(a)), mine[0])
        any_right += any(right(a, expected, stale) for a in mine)
        chosen_right += right(chosen, expected, stale)
        print(f"best-of-{n} {'OK  ' if right(chosen, expected, stale) else 'MISS'} {query[:45]:45} -> "
              f"{' '.join(chosen.split())[:110]}")
    print(f"== best of {n} at temperature {temperature}: {chosen_right} of {len(found)} right as chosen, "
          f"{any_right} with one right among the {n}\n", flush=True)


def _answer(text: str) -> str:
    try:
        return str(json.loads(text)["answer"])
    except (ValueError, KeyError, TypeError):
        return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--model", default=None, help="a profile (tiny/small/base) or a model path; default: small")
    parser.add_argument("--candidates", type=int, default=0, help="also: this many synthesize-form replies at "
                        "--temperature, the first naming something of its own chosen (best of n)")
    parser.add_argument("--temperature", type=float, default=0.8)
    args = parser.parse_args()
    found = cases(args.files)
    if not found:
        print("no scored request for ideas beside a stated constraint in these files")
        return 1
    settings = settings_for(tempfile.mkdtemp(prefix="panda-suggestions-"), model=args.model)
    backend = make_backend(settings)
    schema = Response.model_json_schema()
    try:
        for name, form in FORMS.items():
            requests = [ChatRequest(role=VOICE, messages=form(q, line, fact), schema=schema, phase="synthesize",
                                    sampling=Sampling(0.2, 120, seed=1234 + i))
                        for i, (q, line, fact, _, _) in enumerate(found)]
            score = 0
            for (query, line, _, expected, stale), result in zip(found, backend.generate(requests), strict=True):
                answer = _answer(result.text)
                ok = right(answer, expected, stale)
                score += ok
                print(f"{name:10} {'OK  ' if ok else 'MISS'} {query[:45]:45} [{line[:30]}] -> {' '.join(answer.split())[:110]}")
            print(f"== {name}: {score} of {len(found)} right, model {settings.role_models.get(VOICE, settings.model)}\n",
                  flush=True)
        if args.candidates:
            best_of(backend, found, args.candidates, args.temperature)
    finally:
        backend.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

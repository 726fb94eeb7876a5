"""Versioned prompt templates: panda/llm/prompts/{phase}.yaml rendered with jinja2 StrictUndefined.

Each file has `version`, `system`, `user` and `examples` (user/assistant pairs shown before the real
request — a 135M model needs them). An example with `when: VARIABLE` is shown only when that template
variable is true (synthesize's acknowledgement example only for a statement: shown for questions too,
the 0.5B model acknowledged questions: "Noted - you told me about your hobby."). A missing template
variable is an error, never an empty string. The system prompt and examples come first and are
identical across turns (per set of examples shown), so vLLM's prefix cache reuses them. Left out:
choosing the role or schema (the phases do).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
import yaml

PROMPT_DIR = Path(__file__).parent / "prompts"
_env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False)


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    version: str
    system: str
    user: str
    examples: tuple[tuple[str, str, str | None], ...]  # (user, assistant, when)

    @property
    def id(self) -> str:
        return f"{self.name}@{self.version}"

    def render(self, **variables: Any) -> list[dict[str, str]]:
        messages = [{"role": "system", "content": self.system.strip()}]
        for user, assistant, when in self.examples:
            if when is not None and not variables[when]:
                continue
            messages.append({"role": "user", "content": user.strip()})
            messages.append({"role": "assistant", "content": assistant.strip()})
        messages.append({"role": "user", "content": _env.from_string(self.user).render(**variables).strip()})
        return messages


@cache
def load_prompt(name: str) -> PromptTemplate:
    path = PROMPT_DIR / f"{name}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    examples = []
    for example in data.get("examples", []):
        reply = example["assistant"]
        examples.append((example["user"], reply if isinstance(reply, str) else json.dumps(reply), example.get("when")))
    return PromptTemplate(name=name, version=str(data["version"]), system=data["system"], user=data["user"],
                          examples=tuple(examples))

"""Small-model guards: every rule that overrides a model's decision, named, in one place, on per model profile.

A 0.5B model copies its few-shot examples and misjudges its own answers, so on the embedded profiles a few decisions
are taken by rule instead (each was measured on the bundled sample and the gate benchmark; the phase modules say
why). On the 7B-30B models the seeds were written for, the rules would switch the seeds' gates off, so they are on
only for the profiles `llm.guards.profiles` names (tiny, small and base by default: the 1.5B answers beside a 0.5B
validator did better with them, config.GuardPolicy; never a model given by path or name), and any one can be
switched off by name (`llm.guards.disabled`). Where a guard decides, context.md says
"guard: <name>" (§1, §5 or §6), so a reader sees who decided.
"""

from __future__ import annotations

import re

from panda.guard_names import GUARDS
from panda.home import Home
from panda.llm.model_cache import DEFAULT_PROFILE
from panda.llm.model_supply import PROFILES


def model_profile(ctx: Home, role: str) -> str | None:
    """The profile of the model a role runs on: its own (--role-model), else the run's, else the default; None for a
    model given by path or name. Example: no model set -> 'small'; '/models/qwen-7b' -> None."""
    chosen = ctx.settings.role_models.get(role) or ctx.settings.model or DEFAULT_PROFILE
    return chosen if chosen in PROFILES else None


def active(ctx: Home, name: str, role: str) -> bool:
    """Whether guard `name` decides for the model of `role` in this run."""
    assert name in GUARDS, f"unknown guard {name!r}"
    policy = ctx.policy.llm.guards
    return name not in policy.disabled and model_profile(ctx, role) in policy.profiles


def mark(name: str) -> str:
    """How context.md names a guard's decision. Example: mark('status_line_revised') -> 'guard: status_line_revised'."""
    return f"guard: {name}"


_MARK_NOTE = re.compile(r"\s*\(guard: [a-z_]+[^)]*\)")


def unmarked(text: str) -> str:
    """A verdict's issues as the model is told them, without the note naming the guard that decided: the 0.5B model
    asked to "fix" an issue ending "(guard: constraint_ignored_revised, no model call)" answered "Guard:
    constraint_ignored_revised" (set H). Example: unmarked('Say the date (guard: dated_answer, no model call)')
    -> 'Say the date'."""
    return _MARK_NOTE.sub("", text).strip()

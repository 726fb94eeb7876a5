"""LLM roles and their sampling: REFLEX 0.3, MIND 0.5, VOICE 0.2 (DESIGN §3: 0.7; config.LLMPolicy says why), NERVES 0.1.

Temperatures and token limits come from the policy (memory_config.yaml, llm.roles), so a deployment
can tune them without code changes.
"""

from __future__ import annotations

from panda.config import LLMPolicy
from panda.llm.backend import Sampling

REFLEX = "REFLEX"
MIND = "MIND"
VOICE = "VOICE"
NERVES = "NERVES"
ROLES = (REFLEX, MIND, VOICE, NERVES)


def sampling_for(role: str, policy: LLMPolicy, max_tokens: int | None = None) -> Sampling:
    """Example: sampling_for('MIND', LLMPolicy()) -> Sampling(temperature=0.5, max_tokens=320)."""
    try:
        setting = policy.roles[role]
    except KeyError as exc:
        raise KeyError(f"unknown LLM role {role!r}; known: {sorted(policy.roles)}") from exc
    return Sampling(temperature=setting.temperature, max_tokens=max_tokens or setting.max_tokens)

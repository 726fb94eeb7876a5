"""The one Backend protocol: a batch of chat requests in, the same number of results out, in order.

A `ChatRequest` carries the role (which sets temperature and token limit), the messages, an optional
JSON schema for structured output, and tags (phase, user, turn) used for the llm_calls record.
A `ChatResult` carries the text, token counts, latency and an error string when the call failed.
Parsing replies against pydantic schemas happens in the pipeline, not here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Sampling:
    temperature: float
    max_tokens: int
    seed: int | None = None


@dataclass
class ChatRequest:
    role: str  # REFLEX | MIND | VOICE | NERVES
    messages: list[dict[str, str]]
    sampling: Sampling
    schema: dict[str, Any] | None = None
    phase: str = ""
    prompt_version: str = ""
    user_id: str | None = None
    session_id: str | None = None
    turn_id: str | None = None


@dataclass
class ChatResult:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    model: str = ""
    error: str | None = None
    finish_reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None


class Backend(Protocol):
    """What every backend implements."""

    name: str

    def model_for(self, role: str) -> str:
        """The model id that serves `role` (recorded in llm_calls and context.md)."""
        ...

    def generate(self, requests: list[ChatRequest]) -> list[ChatResult]:
        """Run every request as one batch; results in input order, one per request."""
        ...

    def close(self) -> None: ...

"""A deterministic backend for tests: replies are queued with `enqueue()` or made by a responder.

Like llm's MockModel: `history` keeps every batch it was given, so tests can assert that requests of
different turns arrived in one batch. Never the default for a real run.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from panda.llm.backend import ChatRequest, ChatResult

Responder = Callable[[ChatRequest], "str | dict[str, Any]"]


class ScriptedBackend:
    name = "scripted"

    def __init__(self, responder: Responder | None = None, model: str = "scripted-model", latency_s: float = 0.0) -> None:
        self.latency_s = latency_s  # seconds each batch takes, like an engine's (tests that must act mid-run)
        self.queue: deque[str | dict[str, Any]] = deque()
        self.responder = responder
        self.model = model
        self.history: list[list[ChatRequest]] = []

    def enqueue(self, *replies: str | dict[str, Any]) -> None:
        self.queue.extend(replies)

    def model_for(self, role: str) -> str:
        return self.model

    def generate(self, requests: list[ChatRequest]) -> list[ChatResult]:
        self.history.append(list(requests))
        if self.latency_s:
            time.sleep(self.latency_s)
        results = []
        for request in requests:
            if self.queue:
                reply = self.queue.popleft()
            elif self.responder is not None:
                reply = self.responder(request)
            else:
                raise AssertionError(f"scripted backend has no reply queued for phase {request.phase!r}")
            text = reply if isinstance(reply, str) else json.dumps(reply)
            prompt_tokens = sum(len(m["content"].split()) for m in request.messages)
            results.append(ChatResult(text=text, prompt_tokens=prompt_tokens,
                                      completion_tokens=len(text.split()), latency_ms=0.1, model=self.model))
        return results

    def close(self) -> None:
        pass

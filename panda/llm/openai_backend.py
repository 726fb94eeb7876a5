"""A backend for any OpenAI-compatible server (e.g. `vllm serve`), for inference run elsewhere.

A batch is sent as concurrent requests (a thread pool), so the server's continuous batching sees
them together; results come back in input order. JSON schemas go in `response_format`
(json_schema), which vLLM's server honours. Transport errors become per-request error results.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from panda.llm.backend import ChatRequest, ChatResult


class OpenAIBackend:
    name = "openai"

    def __init__(self, base_url: str, model: str | None, api_key: str = "EMPTY",
                 role_models: dict[str, str] | None = None, concurrency: int = 32, timeout: float = 300.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model or "default"
        self.role_models = dict(role_models or {})
        self.client = httpx.Client(timeout=timeout, headers={"Authorization": f"Bearer {api_key}"}, transport=transport)
        self.concurrency = concurrency

    def model_for(self, role: str) -> str:
        return self.role_models.get(role, self.model)

    def _one(self, request: ChatRequest) -> ChatResult:
        model = self.model_for(request.role)
        body: dict[str, object] = {"model": model, "messages": request.messages,
                                   "temperature": request.sampling.temperature, "max_tokens": request.sampling.max_tokens}
        if request.sampling.seed is not None:
            body["seed"] = request.sampling.seed
        if request.schema:
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": request.phase or "reply", "schema": request.schema}}
        started = time.perf_counter()
        try:
            response = self.client.post(f"{self.base_url}/chat/completions", json=body)
            response.raise_for_status()
            data = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            return ChatResult(text="", model=model, error=f"openai backend: {exc}",
                              latency_ms=(time.perf_counter() - started) * 1000)
        choice = data["choices"][0]
        usage = data.get("usage") or {}
        return ChatResult(text=choice["message"].get("content") or "", model=data.get("model", model),
                          prompt_tokens=usage.get("prompt_tokens", 0), completion_tokens=usage.get("completion_tokens", 0),
                          latency_ms=(time.perf_counter() - started) * 1000, finish_reason=choice.get("finish_reason"))

    def generate(self, requests: list[ChatRequest]) -> list[ChatResult]:
        if not requests:
            return []
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(requests))) as pool:
            return list(pool.map(self._one, requests))

    def close(self) -> None:
        self.client.close()

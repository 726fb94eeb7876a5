import json

import httpx
import pytest

from panda.config import LLMPolicy, Settings
from panda.llm.backend import ChatRequest, Sampling
from panda.llm.openai_backend import OpenAIBackend
from panda.llm.prompts import load_prompt
from panda.llm.roles import sampling_for
from panda.llm.schemas import (
    Compression,
    GatherSynthesis,
    Ideas,
    PageFindings,
    Plan,
    QueryAnalysis,
    ReflectionDecision,
    Response,
    Summary,
    Validation,
)
from panda.runtime import make_backend


def test_openai_backend_sends_json_schema_and_keeps_order():
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append(body)
        if body["messages"][-1]["content"] == "boom":
            return httpx.Response(500, json={"error": "overloaded"})
        reply = {"answer": body["messages"][-1]["content"].upper()}
        return httpx.Response(200, json={"model": body["model"], "choices": [
            {"message": {"content": json.dumps(reply)}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 3}})

    backend = OpenAIBackend("http://server/v1", "served-model", role_models={"VOICE": "voice-model"},
                            transport=httpx.MockTransport(handler))
    requests = [ChatRequest(role="VOICE" if i == 1 else "MIND", messages=[{"role": "user", "content": text}],
                            sampling=Sampling(0.5, 50, seed=i), schema=Response.model_json_schema(), phase="synthesize")
                for i, text in enumerate(["a", "b", "boom", "d"])]
    results = backend.generate(requests)
    assert [json.loads(r.text)["answer"] if r.ok else None for r in results] == ["A", "B", None, "D"]
    assert results[2].error and "500" in results[2].error
    assert results[1].model == "voice-model" and results[0].completion_tokens == 3
    assert all(b["response_format"]["type"] == "json_schema" for b in seen)
    assert {b["temperature"] for b in seen} == {0.5}


def test_backends_come_from_a_plain_registry_with_a_clear_error():
    assert make_backend(Settings(backend="scripted")).name == "scripted"
    with pytest.raises(Exception, match="backend"):
        Settings(backend="vlm")  # type: ignore[arg-type]


def test_role_temperatures_and_prompts_render_strictly():
    policy = LLMPolicy()
    assert [sampling_for(r, policy).temperature for r in ("REFLEX", "MIND", "VOICE", "NERVES")] == [0.3, 0.5, 0.2, 0.1]
    with pytest.raises(KeyError):
        sampling_for("EYES", policy)
    template = load_prompt("analyze")
    messages = template.render(query="hi", turn_summaries=[])
    assert messages[0]["role"] == "system" and messages[-1]["content"].endswith("Message: hi")
    assert len(messages) == 2 + 2 * len(template.examples)
    import jinja2
    with pytest.raises(jinja2.UndefinedError):
        template.render(query="hi")  # a missing variable is an error, never blank


def test_every_prompt_example_is_valid_against_its_schema():
    schemas = {"analyze": QueryAnalysis, "reflect": ReflectionDecision, "gather": GatherSynthesis, "plan": Plan,
               "synthesize": Response, "suggest": Ideas, "validate": Validation, "compress": Compression,
               "summarize": Summary, "page_intelligence": PageFindings}
    for name, schema in schemas.items():
        for _, reply, _when in load_prompt(name).examples:
            schema.model_validate_json(reply)


def test_an_example_with_when_is_shown_only_when_its_variable_is_true():
    template = load_prompt("synthesize")
    common = {"query": "What hobby did I tell you about?", "context": "-", "tool_results": "(none)", "revise_hint": ""}
    question = template.render(statement=False, **common)
    statement = template.render(statement=True, **common)
    assert len(statement) == len(question) + 2
    assert not any("Noted -" in m["content"] for m in question)  # a question is never shown the acknowledgement
    assert any("Noted -" in m["content"] for m in statement)


def test_an_answer_loses_the_json_its_model_spilled_into_it_and_keeps_its_own_brackets():
    """Set Y, held out: '{"answer":"]} Chidera is studying law in Enugu."}' was shown with its "]} "."""
    assert Response.model_validate_json('{"answer":"]} Chidera is studying law in Enugu."}').answer == \
        "Chidera is studying law in Enugu."
    assert Response(answer='{ "Fine." },').answer == '"Fine."'
    assert Response(answer="[1] says so, see [2]").answer == "[1] says so, see [2]"
    assert Response(answer="(twice a week)").answer == "(twice a week)"
    with pytest.raises(ValueError, match="nothing but JSON punctuation"):
        Response(answer=" ]} ")

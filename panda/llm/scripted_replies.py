"""Deterministic, schema-valid replies for the scripted backend (tests and dry runs only).

`schema_responder` answers each phase from the request text alone: the analysis echoes the message
and takes keywords from it, plans search memory for the message, synthesis quotes the context,
validation approves. It exercises every code path without a model; it is never a real answer.
"""

from __future__ import annotations

import re
from typing import Any

from panda.language.facts import extract_statements
from panda.language.text import STOP_WORDS, words
from panda.llm.backend import ChatRequest

_TOPIC_WORDS = {"location": ("live", "moved", "city", "town"), "work": ("job", "work", "office", "boss"),
                "pets": ("dog", "cat", "hamster", "pet"), "hobbies": ("painting", "hiking", "pottery", "music"),
                "family": ("kids", "mom", "dad", "sister", "brother", "family")}

RESEARCH_CUES = ("best", "buy", "price", "review", "recipe", "how do i", "how to", "compare", "recommend")
_PRICE = re.compile(r"[$£€]\s?\d[\d,]*(?:\.\d\d)?")
_LINE = re.compile(r"^(Message|Context|Text|Limit|Resolved): ?(.*)$", re.M)


def _fields(request: ChatRequest) -> dict[str, str]:
    return {k: v.strip() for k, v in _LINE.findall(request.messages[-1]["content"])}


def schema_responder(request: ChatRequest) -> dict[str, Any]:
    f = _fields(request)
    message = f.get("Message", "")
    keywords = list(dict.fromkeys(w for w in words(message) if w.isalpha() and w not in STOP_WORDS and len(w) > 2))[:4]
    topic = ".".join(keywords[:2]) if keywords else "general"
    phase = request.phase
    if phase == "analyze":
        lower = message.lower()
        prefs = [message[:150]] if any(w in lower for w in ("i like", "i love", "i prefer")) else []
        facts = [message[:150]] if any(w in lower for w in ("i live", "i work", "my name")) else []
        return {"resolved_query": message[:200] or "empty", "query_type": "question", "purpose": "answer the user",
                "topic": topic, "keywords": keywords, "intent": "informational",
                "data_needs": ["turn_history", "memory"], "needs_retrieval": "cross_thread", "references": [],
                "revealed_preferences": prefs, "revealed_facts": facts}
    if phase == "reflect":
        return {"decision": "PROCEED", "reason": "the message is clear", "clarification_question": ""}
    if phase == "gather":
        items = re.findall(r"^\[(\d+)\] (.*)$", request.messages[-1]["content"], re.M)
        summary = " ".join(text for _, text in items[:3])[:650] or "nothing relevant"
        return {"summary": summary, "relevant_items": [int(i) for i, _ in items[:2]]}
    if phase == "plan":
        searched = "memory.search" in request.messages[-1]["content"].split("Tool results so far:")[-1]
        requests = [] if searched else [{"tool": "memory.search", "argument": message[:150] or "memory", "topic": topic}]
        if not searched and any(cue in message.lower() for cue in RESEARCH_CUES):
            requests.append({"tool": "research.search", "argument": message[:150], "topic": topic})
        return {"goals": [{"id": "G1", "description": f"answer: {message[:150]}"}],
                "todo": ["search memory", "answer"], "tool_requests": requests,
                "route": "synthesize" if searched else "execute"}
    if phase == "page_intelligence":
        return scripted_findings(request.messages[-1]["content"])
    if phase == "page_prices":
        found = scripted_findings(request.messages[-1]["content"])["products"]
        return {"products": [{"name": p["name"], "price": p["price"], "vendor": p["vendor"]} for p in found]}
    if phase == "synthesize":
        return {"answer": f"From memory: {f.get('Context', '')[:400] or 'I do not know.'}"}
    if phase == "suggest":  # a request for ideas asked again (answer_ideas)
        return {"ideas": ["Vegetable soup", "Cheese on toast", "Fruit salad"]}
    if phase == "validate":
        goals = re.findall(r"\bG[1-5]\b", f.get("Goals", "")) or ["G1"]
        return {"decision": "APPROVE", "quality": 0.8, "issues": "none",
                "goals": [{"goal": g, "decision": "APPROVE", "quality": 0.8} for g in dict.fromkeys(goals)]}
    if phase == "enrich":
        return scripted_enrichment(request.messages[-1]["content"])
    if phase == "judge":  # CORRECT when every gold word is in the generated answer
        content = request.messages[-1]["content"]
        def field(name: str) -> str:
            match = re.search(rf"^{name}: (.*)$", content, re.M)
            return match.group(1) if match else ""

        gold, answer = set(words(field("Gold answer"))), set(words(field("Generated answer")))
        found = bool(gold) and gold <= answer
        return {"label": "CORRECT" if found else "WRONG",
                "reason": "the gold answer's words are in the answer" if found else "the gold answer is missing"}
    if phase.startswith("summarize"):
        content = request.messages[-1]["content"]
        limit = int(f.get("Limit", "50 words").split()[0])
        text = content.split("Text:", 1)[-1]
        reply: dict[str, Any] = {"summary": " ".join(text.split()[:limit])[:1500] or "nothing said"}
        if phase == "summarize_session":  # a session that ends on a question is left open
            reply["outcome"] = "ongoing" if text.rstrip().endswith("?") else "resolved"
        return reply
    if phase.startswith("compress"):
        limit = int(f.get("Limit", "50 words").split()[0])
        return {"text": " ".join(f.get("Text", "").split()[:limit])[:2400]}
    raise ValueError(f"scripted responder has no reply for phase {phase!r}")


def scripted_enrichment(prompt: str) -> dict[str, Any]:
    """Enrichment from keywords of the last 'Message (speaker): text' line."""
    match = re.search(r"^Message \((.*?)\): (.*)$", prompt, re.M)
    speaker, text = (match.group(1), match.group(2)) if match else ("user", prompt)
    lower = text.lower()
    topics = [t for t, cues in _TOPIC_WORDS.items() if any(c in lower for c in cues)][:3]
    stated = [{"attribute": s.attribute, "value": s.value[:80], "kind": s.kind} for s in extract_statements(text)][:2]
    return {"turn_type": "followup" if "?" in text else "new_topic",
            "needs_retrieval": "cross_session" if "remember" in lower else "session_only",
            "topics": topics, "category": "conversation", "message_type": "question" if "?" in text else "statement",
            "entities": [], "importance": 0.8 if "!" in text else 0.4,
            "sentiment": "positive" if any(w in lower for w in ("love", "great", "happy")) else "neutral",
            "is_actionable": "?" in text, "contains_decision": False, "contains_preference": bool(stated),
            "should_summarize": True, "confidence": "medium", "stated": stated,
            "suggested_topic": None if topics else _longest_word(lower)}


def _longest_word(text: str) -> str | None:
    """The scripted enrichment's suggested topic when no topic cue matched: the message's longest word of six
    letters or more. Example: 'my beekeeping hives' -> 'beekeeping'; 'hi there' -> None."""
    words = [w for w in re.findall(r"[a-z]+", text) if len(w) >= 6]
    return max(words, key=len) if words else None


def scripted_findings(prompt: str) -> dict[str, Any]:
    """Page Intelligence from the page text: first sentences as claims, a price if one is quoted."""
    title = re.search(r"^Page: (.*?) \((.*)\)$", prompt, re.M)
    text = prompt.split("Text:", 1)[-1].strip()
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if len(s.split()) >= 5][:3]
    price = _PRICE.search(text)
    products: list[dict[str, Any]] = []
    if price and title:
        products.append({"name": title.group(1)[:70], "price": price.group(0), "vendor": title.group(2)[:50], "specs": []})
    return {"summary": " ".join(text.split()[:40])[:590] or "empty page",
            "answerable_questions": [f"What does {title.group(1)[:60]} say?"] if title else [],
            "claims": [s[:195] for s in sentences[:2]], "products": products}

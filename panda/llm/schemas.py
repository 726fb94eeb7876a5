"""Pydantic schemas of every phase's LLM reply; their JSON schemas constrain vLLM's decoding.

Strings carry max lengths and lists max sizes so a small model cannot ramble past its token budget,
and enumerations keep decisions machine-readable. Left out: prompt text (prompts/*.yaml).
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from panda.language import vocabulary as V

Short = Annotated[str, Field(max_length=80)]
LINE_MAX = 200  # characters of a one-line field
Line = Annotated[str, Field(max_length=LINE_MAX)]
Topic = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,20}(\.[a-z][a-z0-9_]{0,20}){0,3}$")]
Keyword = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9 _-]{0,23}$")]


# JSON punctuation no sentence starts or ends with, at either end of a free-text field: "]} " or "{" before it, "}" or
# "[" after it (with the commas, colons and spaces between); "[1] is …" and "… see [1]" keep their brackets
_RESIDUE = re.compile(r"^(?:[\s,:]*[\]{}])+[\s,:]*|(?:[\s,:]*[{}\[])+[\s,:]*$")


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore")


class QueryAnalysis(_Reply):
    """§0: what the user asked, resolved against earlier turns."""

    resolved_query: Line
    query_type: Literal["question", "task", "recall", "preference", "chit_chat", "research"]
    purpose: Line
    topic: Topic
    keywords: list[Keyword] = Field(max_length=5)
    intent: Literal["informational", "transactional", "personal", "conversational"]
    data_needs: list[Literal["turn_history", "preferences", "facts", "memory", "research", "none"]] = Field(max_length=4)
    needs_retrieval: Literal[V.RETRIEVAL_NEEDS]  # type: ignore[valid-type]
    references: list[Short] = Field(default_factory=list, max_length=3)
    revealed_preferences: list[Line] = Field(default_factory=list, max_length=2)
    revealed_facts: list[Line] = Field(default_factory=list, max_length=2)


class ReflectionDecision(_Reply):
    """§1: PROCEED or ask the user to clarify."""

    decision: Literal["PROCEED", "CLARIFY"]
    reason: Line
    clarification_question: Annotated[str, Field(max_length=200)] = ""


class GatherSynthesis(_Reply):
    """§2: what of the retrieved material matters for this query."""

    summary: Annotated[str, Field(max_length=700)]
    relevant_items: list[Annotated[int, Field(ge=1, le=20)]] = Field(default_factory=list, max_length=6)


class SearchToolFilters(_Reply):
    """Seed 002's memory.search filters; every one optional."""

    content_types: list[Annotated[str, Field(max_length=30)]] = Field(default_factory=list, max_length=5)
    scope: Literal["new", "user", "global"] | None = None
    min_quality: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0
    include_expired: bool | None = None
    topic_as_filter: bool = False  # restrict to `topic` (and its subtopics) instead of only boosting it
    time_range: Literal["today", "week", "recent", "month", "all"] | None = None  # seed 001's context window


GoalId = Annotated[str, Field(pattern=r"^G[1-5]$")]
Decision = Literal["APPROVE", "REVISE", "RETRY", "FAIL"]


class ToolRequest(_Reply):
    tool: Literal["memory.search", "memory.save", "memory.retrieve", "research.search", "internet.research"]
    argument: Line
    topic: Topic = "general"
    filters: SearchToolFilters | None = None  # memory.search only
    goal: GoalId | None = None  # the goal it serves (else by position: plan.goal_of)


class Goal(_Reply):
    """Seed 002 §8: a goal with its id and the goals it waits on (its status is Panda's: plan.goal_statuses)."""

    id: GoalId
    description: Line
    depends_on: list[GoalId] = Field(default_factory=list, max_length=3)


class Plan(_Reply):
    """§3 (first iteration) and later planner iterations logged in §4."""

    goals: list[Goal] = Field(min_length=1, max_length=3)
    todo: list[Line] = Field(max_length=5)
    tool_requests: list[ToolRequest] = Field(default_factory=list, max_length=3)
    route: Literal["execute", "synthesize"]


class Response(_Reply):
    """§5: the user-facing answer."""

    answer: Annotated[str, Field(min_length=1, max_length=900)]

    @field_validator("answer")
    @classmethod
    def _without_json_residue(cls, answer: str) -> str:
        """The JSON the small model spilled into its answer at either end: set Y's '{"answer":"]} Chidera is studying
        law in Enugu."}' (_RESIDUE). A quote opening or closing the answer is the answer's."""
        answer = _RESIDUE.sub("", answer)
        if not answer:
            raise ValueError("the answer holds nothing but JSON punctuation")
        return answer


class Ideas(_Reply):
    """A request for ideas asked again (pipeline/answer_ideas.py): five things by name, the rules pick one (five, not
    three: set BB, held out, a diabetic user's dessert got cookies, ice cream, pie and muffins in two rounds of three)."""

    ideas: Annotated[list[Annotated[str, Field(min_length=1, max_length=120)]], Field(min_length=1, max_length=5)]


class GoalVerdict(_Reply):
    """Seed 002 §8: one goal validated on its own, named by its id."""

    goal: GoalId
    decision: Decision
    quality: Annotated[float, Field(ge=0.0, le=1.0)]


class Validation(_Reply):
    """§6: the verdict on §5, and one verdict per goal."""

    decision: Decision
    quality: Annotated[float, Field(ge=0.0, le=1.0)]
    issues: Line
    goals: list[GoalVerdict] = Field(default_factory=list, max_length=3)


class Judgement(_Reply):
    """LoCoMo's J protocol: is the generated answer correct against the gold answer?"""

    label: Literal["CORRECT", "WRONG"]
    reason: Line


class Compression(_Reply):
    """NERVES: a shorter version of a section that overflowed its word budget."""

    text: Annotated[str, Field(max_length=2400)]


class Summary(_Reply):
    """NERVES: a session summary from its messages, or a thread summary from its session summaries."""

    summary: Annotated[str, Field(min_length=1, max_length=1600)]


class SessionSummary(Summary):
    """A session summary with seed 004's session outcome (how what was raised ended)."""

    outcome: Literal[V.SESSION_OUTCOMES]  # type: ignore[valid-type]


class ProductFinding(_Reply):
    name: Short
    price: Annotated[str, Field(max_length=40)] = ""
    vendor: Annotated[str, Field(max_length=60)] = ""
    specs: list[Short] = Field(default_factory=list, max_length=4)


class PricedProduct(_Reply):
    name: Short
    price: Annotated[str, Field(max_length=40)] = ""
    vendor: Annotated[str, Field(max_length=60)] = ""


class PagePrices(_Reply):
    """A price-only re-read of a cached page whose text is still fresh (seed 002's selective refresh)."""

    products: list[PricedProduct] = Field(default_factory=list, max_length=6)


class PageFindings(_Reply):
    """Page Intelligence (MIND): what one web page says that bears on the research question."""

    summary: Annotated[str, Field(min_length=1, max_length=600)]
    answerable_questions: list[Line] = Field(default_factory=list, max_length=3)
    claims: list[Line] = Field(default_factory=list, max_length=4)
    products: list[ProductFinding] = Field(default_factory=list, max_length=4)


class Entity(_Reply):
    type: Literal[V.ENTITY_TYPES]  # type: ignore[valid-type]
    value: Short


class StatedFact(_Reply):
    """A fact or preference the speaker states about themselves."""

    attribute: Annotated[str, Field(pattern=r"^[a-z][a-z_]{1,30}$")]
    value: Short
    kind: Literal["fact", "preference"]


class Enrichment(_Reply):
    """Seed 004 write-time enrichment of one message, vocabulary-constrained."""

    turn_type: Literal[V.TURN_TYPES]  # type: ignore[valid-type]
    needs_retrieval: Literal[V.RETRIEVAL_NEEDS]  # type: ignore[valid-type]
    topics: list[Literal[V.TOPICS]] = Field(max_length=3)  # type: ignore[valid-type]
    category: Literal[V.CATEGORIES]  # type: ignore[valid-type]
    message_type: Literal[V.MESSAGE_TYPES]  # type: ignore[valid-type]
    entities: list[Entity] = Field(default_factory=list, max_length=4)
    importance: Annotated[float, Field(ge=0.0, le=1.0)]
    sentiment: Literal[V.SENTIMENTS]  # type: ignore[valid-type]
    is_actionable: bool
    contains_decision: bool
    contains_preference: bool
    should_summarize: bool
    confidence: Literal[V.CONFIDENCE]  # type: ignore[valid-type]
    suggested_topic: Annotated[str, Field(max_length=40)] | None = None  # seed 004: a new topic if none fits
    stated: list[StatedFact] = Field(default_factory=list, max_length=2)

    @field_validator("suggested_topic")
    @classmethod
    def _new_topic_only(cls, value: str | None) -> str | None:
        """A suggestion is kept as a vocabulary-style key, and only when the vocabulary lacks it (it is what a
        vocabulary review reads: `panda stats`). Example: 'Rock Climbing' -> 'rock_climbing'; 'pets' -> None."""
        return V.new_topic_key(value)

"""Phase validate (§6, MIND 0.5): APPROVE, REVISE (rewrite §5), RETRY (replay from §3) or FAIL.

Returns the decision; the turn runner (turn.py) applies it within the bounded number of attempts.
The validator sees what the answer should rest on: the gathered context (§2), the plan's goals (§3)
and this attempt's tool results and research findings (§4). Seed 002 §8: each goal is validated on
its own (a decision and a quality, named by the goal's id) and the overall quality is the mean of the
goals' scores when every goal has one.

On the small profiles, small-model guards (guards.py; context.md says "guard: <name>") decide some cases by rule.
One is decided without a model call: an honest "I don't know" to a question when
neither gather nor the tools found anything (a statement is to be acknowledged, never "I don't
know"). Memory holds nothing to answer from, so there is nothing to revise and no search left to
retry; small models FAILed or RETRYed it (issue 11's gate benchmark), sending the turn round the
loop again for nothing. And a reply that only repeats a tool's status line ("Saved mem_…", "not found")
is sent back for a rewrite (REVISE) by rule: it answers nothing, whatever a small validator thinks;
so is an "I don't know" to a question when gather found the user's current facts or preferences (the
hint names them: the 0.5B model answered "you haven't told me about your hobby" beside "likes: hiking"),
and a question answered with the acknowledgement synthesis is taught for statements ("Noted - you told
me about your hobby."). Last, a recall question whose answer leaves out the remembered fact it names
(the 0.5B model answered "Remind me what budget I gave you" with a laptop from a research page, beside
"budget: under $1000") is sent back with the fact in the hint; and one whose answer states that fact,
with no denial, is approved by rule (the 0.5B validator RETRYed "your budget is under $1000" as "budget
is not specified"). A suggestion naming what the user's allergy or diet rules out is sent back (the 0.5B model
suggested "the shellfish sandwich" beside "allergy: shellfish", and its validator approved it), and a statement
synthesis said back by rule is approved by rule. An answer about the user that says only what one of their lines
says is approved by rule (the 0.5B validator sent back "They are afraid of thunderstorms." beside "Pepper is scared of
thunderstorms.", and FAILed the user's lines quoted with their day); one that says again a line of theirs sharing no
word with the question is sent back once, with the line the question is about in the hint (set Q: "Where are we going
in July?" answered with the line about piano lessons, and APPROVEd by the model).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Literal

from panda.documents.budgets import truncate_to_words
from panda.home import Home
from panda.language.metrics import abstained
from panda.language.text import asks_for_a_suggestion, asks_for_advice, first_person, is_question, second_person, tokenize
from panda.language.vocabulary import MEDIA, PEOPLE, SINGLE_VALUED_ATTRIBUTES
from panda.llm.roles import MIND
from panda.llm.schemas import LINE_MAX, GoalVerdict, Validation
from panda.memory.conversation_signals import asked_role
from panda.memory.current_facts import attributes_asked, names_in, split_key
from panda.pipeline import answer_checks, answer_dates, answer_ideas, answer_lines, evidence, guards
from panda.pipeline.answer_ideas import DIET_NAMES, kept_words
from panda.pipeline.llm_step import ask, fit_section
from panda.pipeline.state import Step, TurnState
from panda.pipeline.synthesize import ACKNOWLEDGEMENT, about_user
from panda.pipeline.tool_log import tool_results_text


def goal_verdicts(v: Validation, goal_ids: list[str]) -> list[GoalVerdict]:
    """The verdicts of this turn's goals, one per goal the plan named, in the plan's order (pure): a verdict
    for a goal the plan does not have is dropped, and a repeated one counts once.

    Example: goals G1, G2; verdicts G2 REVISE 0.4, G3 APPROVE 0.9 -> [G2 REVISE 0.4]."""
    by_id: dict[str, GoalVerdict] = {}
    for verdict in v.goals:
        if verdict.goal in goal_ids:
            by_id.setdefault(verdict.goal, verdict)
    return [by_id[g] for g in goal_ids if g in by_id]


def render(v: Validation, goal_ids: list[str], guard: str | None = None) -> str:
    """§6: the decision, quality and issues, then each goal's own verdict by its id (seed 002 §8).

    Example: APPROVE 0.65 with G1 APPROVE 0.9 and G2 REVISE 0.4 -> '**Per-goal:**' then '- G1: APPROVE (0.90)' and
    '- G2: REVISE (0.40)'; a guard's verdict says the goals were decided as a whole, with no per-goal score."""
    lines = [f"**Decision:** {v.decision}", f"**Quality:** {v.quality:.2f}", f"**Issues:** {v.issues}"]
    if len(goal_ids) > 1 or v.goals:
        if guard:
            lines += ["**Per-goal:**", f"- {', '.join(goal_ids)}: decided as a whole ({guards.mark(guard)})"]
        else:
            verdicts = {g.goal: g for g in goal_verdicts(v, goal_ids)}
            lines += ["**Per-goal:**"] + [f"- {gid}: {verdicts[gid].decision} ({verdicts[gid].quality:.2f})"
                                          if gid in verdicts else f"- {gid}: not scored" for gid in goal_ids]
    return "\n".join(lines)


def nothing_found(state: TurnState) -> bool:
    """No gathered context and no tool result in this attempt."""
    return not state.gathered and not any(e.get("results") for e in state.tool_log if e.get("attempt") == state.doc.attempt)


def acknowledges_a_question(state: TurnState) -> bool:
    """A question answered with the form synthesis is taught for statements ("Noted - ...") (pure).

    Example: 'What hobby did I tell you about?' -> 'Noted - you told me about your hobby.' -> True."""
    return is_question(state.query) and state.response.strip().lower().startswith(ACKNOWLEDGEMENT)


def echoes_tool_status(state: TurnState) -> bool:
    """The reply is a tool's status line, not an answer (pure). Example: tool summary 'saved mem_1 (scope new)'
    and reply 'Saved mem_1 (scope new).' -> True; reply 'Your budget is under $1000.' -> False."""
    reply = " ".join(state.response.lower().split()).strip(" .!")
    return bool(reply) and any(reply == " ".join(str(e.get("summary", "")).lower().split()).strip(" .!")
                               or (len(reply) > 12 and reply in str(e.get("summary", "")).lower())
                               for e in state.tool_log if e.get("summary"))


_DENIAL = re.compile(r"\b(not|never|no|don't|doesn't|didn't|haven't|hasn't|isn't|wasn't|unknown)\b|n't\b", re.I)


_NAMING = frozenset(tokenize("name names named called call"))


def named_facts(state: TurnState, unanswered: bool = False) -> list[tuple[str, set[str]]]:
    """The current facts a recall question names, each with its value's words beyond the question's (pure): by a word
    of the fact's key or value when the analysis calls the question recall, or, for an attribute with one current
    value, by the words that ask what it is now (`asks_current`: "Which city do I live in now?" names "residence:
    York"; the 0.5B model called that question a plain question). A fact naming one of the user's people names
    nothing for a question that asks neither who nor a name ("What does my partner do?"), nor does one of the user's
    own for a question about someone it names and not the user ("Where did Tereza get her job?"). A question the lines
    left `unanswered` (answer_checks) asks what was said, whatever the analysis called it (set BH, held out: "What is my
    cat called?", called a plain question, got "I don't know" beside "pet: grey cat named Barsik")."""
    if not is_question(state.query):
        return []
    recall = unanswered or state.analysis is not None and state.analysis.query_type == "recall"
    cued = set(attributes_asked(state.query)) & set(SINGLE_VALUED_ATTRIBUTES + MEDIA) if asks_current(state.query) else set()
    asked = set(tokenize(state.query))
    about_someone_else = bool(names_in(state.query)) and not first_person(state.query)
    out = []
    shown = state.answer_context
    newer = _newer_said(state.query, shown)
    for r in state.gathered:
        if r.kind != "fact" or r.superseded or ":" not in r.title:
            continue
        if shown and r.title not in shown:  # set W: "job: bike courier", left out beside "I've stopped couriering and now
            continue  # work … as a dispatcher", was restated over the right answer
        if newer and r.created_at.date() < newer:  # set AT, held out: "What is my new job?" -> "From what you told me:
            continue  # job: nurse.", told before "I'm moving to Novi Sad in September for a new job."
        key, value = r.title.split(":", 1)
        if split_key(key)[0] in PEOPLE and not answer_checks.asks_a_name(state.query):
            continue  # set G: "partner: Sven" does not say what the partner does
        if about_someone_else and not split_key(key)[1]:  # set AB: "Where did Tereza get her job?" was answered "From
            continue  # what you told me: job: brewer." (the user's own job)
        new_words = set(tokenize(value)) - asked
        # a word of naming shared is no thing shared (set AS, held out: "What's the kitten called?" -> "Gnocchi", right,
        # was sent back for "pet: cat called Ravioli", and the answer became that fact)
        if ((recall and (asked - _NAMING) & set(tokenize(key) + tokenize(value))) or split_key(key)[0] in cued) \
                and new_words:
            out.append((r.title, new_words))
    return out


_ASKS_NEW = re.compile(r"\bnew ([a-z]+)\b", re.I)


def _newer_said(query: str, shown: str) -> date | None:
    """For a question after a "new" thing ("What is my new job?"), the first day a user's line in the answer's context
    speaks of a new one (pure): a fact told before it is the old one. Example: ("What is my new job?", '- On 4 June 2026
    the user said: “I'm moving to Novi Sad for a new job.”') -> date(2026, 6, 4); "What's my job?" -> None."""
    if not (asked := _ASKS_NEW.search(query)):
        return None
    said = re.compile(rf"\bnew {re.escape(asked.group(1))}\b", re.I)
    days = [answer_dates.day_of(m).date() for m in answer_dates.user_statements(shown)
            if said.search(m.group("words"))]
    return min(days, default=None)


_ASKS_WHAT_IS = re.compile(r"^\s*(?:what|what's|which|where|who|do|does|am|is|are)\b", re.I)
_PRESENT_TENSE = re.compile(r"\b(?:do|does|am|is|are|'m|'s|now|currently|current|still|these days|at the moment|nowadays)\b",
                            re.I)
_PAST_OR_CHANGE = re.compile(r"\b(?:did|was|were|before|previous|previously|used to|originally|first|old|last|ago|"
                             r"when|why|how|should|could|would)\b", re.I)


def asks_current(query: str) -> bool:
    """Whether a question about the user asks what something is now (pure), not when or why it changed, what it
    was, or what to do. Example: 'Which city do I live in now?' -> True; 'Where did I live before York?' -> False;
    'When did I start my job?' -> False; 'Which city should I visit?' -> False."""
    return (asked_role(query) == "user" and bool(_ASKS_WHAT_IS.match(query)) and bool(_PRESENT_TENSE.search(query))
            and not _PAST_OR_CHANGE.search(query) and not asks_for_advice(query))


PREFERENCE_WORDS = frozenset(tokenize("hobby hobbies like likes love loves favourite favorite prefer preference "
                                      "preferences enjoy enjoys dislike dislikes hate"))


_ASKING_WORDS = frozenset(tokenize("tell told telling say said mention mentioned remember remind kind kinds type types "
                                   "sort thing things most best")) | {"what"}  # "what's" is no stop word


def relevant_facts(state: TurnState) -> str:
    """The remembered facts an "I don't know" should have used (pure): the current facts a recall question names
    (named_facts), or, when the question asks what the user likes, the preferences gathered. Facts that share
    nothing with the question are left out: "What level is my Spanish now?" beside "likes: true crime podcasts"
    is no reason to refuse an honest "I don't know". A question that names what kind of thing it asks about
    ("What's my favourite film?") needs a preference about that thing: "likes: fantasy books" is none (set C:
    a right "you haven't told me your favourite film" was sent back until the turn failed).
    Example: 'What hobby did I tell you about?' with 'likes: hiking' -> 'likes: hiking'."""
    titles = [title for title, _ in named_facts(state)]
    if answer_dates.ASKS_WHEN.match(state.query):  # a fact without a day holds no time (set W: "When is Pamuk's birthday?"
        titles = [title for title in titles if answer_dates.DATE_FIGURES.search(title)]  # sent back for "pet: … Pamuk")
    asked = set(tokenize(state.query))
    if is_question(state.query) and PREFERENCE_WORDS & asked:
        subject = asked - PREFERENCE_WORDS - _ASKING_WORDS
        titles += [r.title for r in state.gathered if r.kind == "preference" and not r.superseded
                   and (not subject or subject & set(tokenize(r.title)))]
    return "; ".join(dict.fromkeys(titles))


def states_named_fact(state: TurnState) -> str | None:
    """The named fact a recall answer states, with no denial or abstention (pure). Example: 'Remind me what
    budget I gave you' with 'budget: under $1000' and 'Your budget is under $1000.' -> 'budget: under $1000';
    'Your budget is not $1000.' -> None."""
    answer = set(tokenize(state.response))
    if abstained(state.response) or _DENIAL.search(state.response):
        return None
    return next((title for title, new_words in named_facts(state) if new_words <= answer), None)


def ignored_fact(state: TurnState, unanswered: bool = False) -> str | None:
    """The remembered fact a recall question names that the answer leaves out, if any (pure).

    A current fact is named when its key or value shares a word with the question; the answer leaves it
    out when it has none of the value's words beyond the question's own. Example: 'Remind me what budget
    I gave you for a laptop.' with 'budget: under $1000' and the answer 'A Lenovo LOQ 15.' -> 'budget:
    under $1000'; 'Your budget is under $1000.' -> None; a question that is not recall -> None. A fact that holds no
    answer of the kind asked is none to restate (set R: "What's our cat called?" answered "The cat's name is Pip." was
    sent back for "pet: black cat", and the turn's answer became "From what you told me: pet: black cat.")."""
    answer = set(tokenize(state.response))
    if answer_dates.ASKS_WHEN.match(state.query):  # a fact holds no time (set R: "When did we adopt the cat?" got
        return None  # "From what you told me: pet: black cat.")
    if evidence.ASKS_EARLIER.search(state.query) and not evidence.about_now(state.query):  # nor what was before (set
        return None  # BJ, held out: "How did I get to work before I bought the car?" -> "…: owns: electric car.")
    return next((title for title, new_words in named_facts(state, unanswered) if not new_words & answer
                 and not answer_checks.unanswered(state.query, title, f"- {title}")), None)


# A sentence, or a clause a comma and "so"/"but"/"then"/"or" begin (set J: "It's best to avoid shellfish, so you might
# want to try fish tacos or grilled shrimp." kept clear in its first clause and named shrimp in its second), or a
# comma before a new subject (set AE, held out: "If you're allergic to peanuts, you might want to try peanut butter …")
_CLAUSE_BREAK = re.compile(r"[.!?;\n]+|,\s*(?=(?:so|but|then|or|you|you'd|you'll|we|I|try)\b)", re.I)
# A diet's own name describes a dish that keeps it ("a vegan pizza"); an allergen's names the danger ("shellfish")
_KEEPS_CLEAR = re.compile(r"\b(?:allerg\w*|without|free|avoid\w*|no|not|never|instead|skip\w*|swap\w*|replac\w*|"
                         r"substitut\w*|\w+n't|" + "|".join(DIET_NAMES) + r")\b", re.I)  # "dairy-free": "free"

def ignored_constraint(state: TurnState) -> str | None:
    """The user's diet or allergy a suggestion ignores (pure): a message asking for a suggestion, answered with a
    sentence naming a food the constraint rules out (language/vocabulary.RULED_OUT, or the constraint's own words)
    that says nothing of keeping clear of it ("without", "-free", "instead of", "allergic", …).

    Set G: "Suggest something I could cook for Anika's birthday dinner." beside "allergy: shellfish" was answered
    "Cook the shellfish sandwich." and the validator APPROVEd it.
    Example: that answer -> 'allergy: shellfish'; 'A shellfish-free paella.' -> None; beside "diet: vegan", 'Bake a
    vegan pizza.' -> None (set H had it sent back) and 'A cheesecake with cream.' -> 'diet: vegan'; beside "diet:
    lactose intolerant", 'Porridge with oat milk.' -> None; beside "allergy: nuts", 'An almond milk latte.' -> 'allergy:
    nuts'; beside "allergy: shellfish", 'Avoid shellfish, so try grilled shrimp.' -> 'allergy: shellfish' (each clause
    on its own) and 'No prawns, crab or mussels, just a vegetable paella.' -> None."""
    if not asks_for_a_suggestion(state.query):
        return None
    for result in state.gathered:
        if not evidence.constraint(result):
            continue
        ruled_out = answer_ideas.ruled_out_by(result.title.split(":", 1)[1])
        for sentence in filter(str.strip, _CLAUSE_BREAK.split(state.response)):
            words = kept_words(sentence)
            if words & ruled_out and not _KEEPS_CLEAR.search(sentence):
                return result.title
    return None


_WRONG_LINE = "answered from the wrong line; answer from: "  # unrelated_line_revised's hint, before the line


def restated_line(state: TurnState) -> str | None:
    """The user's line that a recall answer says again and nothing else (answer_lines.stated_line), for a question
    about the user or someone their lines name that asks for no suggestion or advice (pure)."""
    return answer_lines.stated_line(state.query, state.response, state.answer_context) if recalls(state) else None


def unrelated_line(state: TurnState) -> str | None:
    """The user's line a question about them is about, when the answer said again another of their lines that shares
    no word with it (answer_lines.unrelated_line; set Q: "Where are we going in July?" -> "I teach piano from home in
    Osaka, mostly to children.", beside the line about July); sent back once with that line in the hint (pure)."""
    return answer_lines.unrelated_line(state.query, state.response, state.answer_context) if recalls(state) else None


def recalls(state: TurnState) -> bool:
    """Whether a message asks what the user or someone their lines name said, not for a suggestion or advice."""
    return not (asks_for_a_suggestion(state.query) or asks_for_advice(state.query)) and about_user(state)


def goals_text(state: TurnState) -> str:
    return "; ".join(f"{g.id} {g.description}" for g in state.plan.goals) if state.plan and state.plan.goals else "(none)"


def overall_quality(verdict: Validation, goal_ids: list[str]) -> Validation:
    """Seed 002 §8: with a verdict for every goal, the overall quality is the mean of the goals' scores.

    Example: G1 0.9 and G2 0.5 for goals G1, G2 -> quality 0.7; a verdict for G1 only -> unchanged.
    """
    verdicts = goal_verdicts(verdict, goal_ids)
    if goal_ids and len(verdicts) == len(goal_ids):
        return verdict.model_copy(update={"quality": round(sum(g.quality for g in verdicts) / len(verdicts), 4)})
    return verdict


def by_rule(guard: str, decision: Literal["APPROVE", "REVISE"], quality: float, issues: str) -> Validation:
    """A verdict a guard decided, without a model call, on the answer as a whole: no goal gets a score it was
    not given (§6 says the goals were decided together by the guard). `issues` is cut to fit the one-line
    field with its note (it may quote remembered facts of any length).

    Example: a 500-character issue with guard 'status_line_revised' -> its start + '… (guard: status_line_revised,
    no model call)', 200 characters in all."""
    note = f" ({guards.mark(guard)}, no model call)"
    if len(issues) + len(note) > LINE_MAX:
        issues = issues[: LINE_MAX - len(note) - 1].rstrip() + "…"
    return Validation(decision=decision, quality=quality, issues=issues + note)


def guard_verdict(state: TurnState, ctx: Home) -> tuple[str, Validation] | None:
    """The first small-model guard that decides this answer and its verdict, or None (the model decides)."""
    def on(name: str) -> bool:
        return guards.active(ctx, name, MIND)

    def rule(name: str, decision: Literal["APPROVE", "REVISE"], quality: float, issues: str) -> tuple[str, Validation]:
        return name, by_rule(name, decision, quality, issues)

    def restate(fact: str) -> tuple[str, Validation]:
        state.revise_fact = fact  # synthesize states it (ignored_fact_restated)
        return rule("ignored_fact_revised", "REVISE", 0.2, f"the question asks what the user said, and memory "
                    f"holds it: {fact}. Answer with it")

    if state.answered_by_guard == "statement_acknowledged":
        return rule("statement_acknowledged", "APPROVE", 0.8, "the user told something and asked nothing: said back")
    if state.answered_by_guard == "superseded_value_unsaid":  # set AF: the 0.5B validator FAILed "No - you told me …"
        return rule("superseded_value_unsaid", "APPROVE", 0.8, "asked what holds now: the latest line ends or counts it")
    if state.answered_by_guard == "unreasoned_why_answered":  # "I don't know why" is no reply the gates send back
        return rule("unreasoned_why_answered", "APPROVE", 0.6, "asked why, and no line of the user's gives a reason")
    if state.answered_by_guard == "unanswered_abstained" and on("unanswered_abstained"):
        # a remembered fact that answers the question wins
        fact = ignored_fact(state, unanswered=True)
        if on("ignored_fact_revised") and fact is not None:  # ignored_fact keeps only a fact of the kind asked: not
            return restate(fact)  # "daughter: Ines" for "What is my daughter's teacher called?" (set F)
        return rule("unanswered_abstained", "APPROVE", 0.6, "an honest 'I don't know': the lines hold no answer of "
                    "the kind the question asks for")
    facts = relevant_facts(state)
    asks_and_abstains = is_question(state.query) and abstained(state.response)
    if on("honest_unknown_approved") and asks_and_abstains and nothing_found(state):
        return rule("honest_unknown_approved", "APPROVE", 0.6, "an honest 'I don't know': neither memory nor the "
                    "tools hold anything on this")
    if on("acknowledged_question_revised") and acknowledges_a_question(state):
        named = [title for title, _ in named_facts(state)]
        if on("ignored_fact_revised") and named and state.revise_hint:
            return restate(named[0])  # sent back once and said back again (the demo's "Remind me what budget …")
        return rule("acknowledged_question_revised", "REVISE", 0.2, "the message asks a question; acknowledging it "
                    "answers nothing. Answer it" + (f" from what the user said: {facts}" if facts else ""))
    if on("unknown_beside_facts_revised") and asks_and_abstains and facts:
        if on("ignored_fact_revised") and (fact := ignored_fact(state)) is not None:
            return restate(fact)  # set F: asked again with the fact in the hint, the model said "I don't know" twice more
        return rule("unknown_beside_facts_revised", "REVISE", 0.2, "the reply says it does not know, but memory "
                    f"holds what the user said: {facts}. Answer from these")
    if on("stated_fact_approved") and (stated := states_named_fact(state)) is not None:
        return rule("stated_fact_approved", "APPROVE", 0.85, f"a recall question answered with what the user "
                    f"said: {stated}")
    if on("ignored_fact_revised") and (fact := ignored_fact(state)) is not None:
        return restate(fact)
    if on("constraint_ignored_revised") and (kept := ignored_constraint(state)) is not None:
        return rule("constraint_ignored_revised", "REVISE", 0.1, f"the suggestion names what the user must keep clear "
                    f"of ({kept}). Suggest something without it")
    if on("unrelated_line_revised") and not state.revise_hint and (line := unrelated_line(state)) is not None:
        return rule("unrelated_line_revised", "REVISE", 0.2, f"{_WRONG_LINE}“{line}”")
    # sent back with the line and answered from another again, or with the question (set AJ, held out: "What did
    # Kwabena's team win?" -> "What did Kwabena's team win?"): that line, stated by rule (ignored_fact_restated)
    line = state.revise_hint.removeprefix(_WRONG_LINE).strip("“”")  # whole, not cut to fit the verdict's field
    if on("unrelated_line_revised") and state.revise_hint.startswith(_WRONG_LINE) and not line.endswith("…") \
            and (unrelated_line(state) is not None or is_question(state.response)):
        return restate(second_person(line.rstrip(".")))
    if on("stated_line_approved") and (line := restated_line(state)) is not None:
        return rule("stated_line_approved", "APPROVE", 0.8, f"a question about the user answered with what they "
                    f"said: “{line}”")
    if on("status_line_revised") and echoes_tool_status(state):
        return rule("status_line_revised", "REVISE", 0.1, "the reply repeats a tool's status line instead of "
                    "answering the question from the gathered context")
    return None


def run(state: TurnState, ctx: Home) -> Step[Validation]:
    goal_ids = [g.id for g in state.plan.goals] if state.plan else []
    guarded = guard_verdict(state, ctx)
    guard, verdict = guarded if guarded else (None, None)
    if verdict is None:
        verdict = yield from ask(state, ctx, phase="validate", role=MIND, prompt="validate", schema=Validation,
                                 variables={"query": state.query,
                                            "context": truncate_to_words(state.answer_context or state.gather_summary,
                                                                         150),
                                            "goals": truncate_to_words(goals_text(state), 60),
                                            "tool_results": tool_results_text(state, 120, evidence_only=True),
                                            "answer": truncate_to_words(state.response, 200)})
        verdict = overall_quality(verdict, goal_ids)
    state.validation = verdict
    state.doc.write("6", (yield from fit_section(state, ctx, "6", render(verdict, goal_ids, guard))))
    return verdict

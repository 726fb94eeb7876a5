"""A verdict a guard decided fits its one-line field whatever it quotes: the remembered facts it names can be
long (make demo died on a 200-character limit with a traceback before this)."""

from panda.llm.schemas import LINE_MAX, Validation
from panda.pipeline.validate import by_rule


def test_a_guard_verdict_quoting_long_facts_fits_its_field():
    facts = "; ".join(f"pet.name{i}: a hamster called Biscuit the {i}th" for i in range(12))
    verdict = by_rule("unknown_beside_facts_revised", "REVISE", 0.2,
                      f"the reply says it does not know, but memory holds what the user said: {facts}", 3)
    assert len(verdict.issues) == LINE_MAX
    assert verdict.issues.endswith("… (guard: unknown_beside_facts_revised, no model call)")
    assert verdict.issues.startswith("the reply says it does not know")
    Validation.model_validate_json(verdict.model_dump_json())  # what the turn records parses back
    short = by_rule("honest_unknown_approved", "APPROVE", 0.6, "an honest 'I don't know'", 2)
    assert short.issues == "an honest 'I don't know' (guard: honest_unknown_approved, no model call)"
    assert short.goal_scores == [0.6, 0.6]

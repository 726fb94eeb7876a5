"""A verdict a guard decided fits its one-line field whatever it quotes: the remembered facts it names can be
long (make demo died on a 200-character limit with a traceback before this)."""

from panda.llm.schemas import LINE_MAX, Validation
from panda.pipeline.validate import by_rule


def test_a_guard_verdict_quoting_long_facts_fits_its_field():
    facts = "; ".join(f"pet.name{i}: a hamster called Biscuit the {i}th" for i in range(12))
    verdict = by_rule("unknown_beside_facts_revised", "REVISE", 0.2,
                      f"the reply says it does not know, but memory holds what the user said: {facts}")
    assert len(verdict.issues) == LINE_MAX
    assert verdict.issues.endswith("… (guard: unknown_beside_facts_revised, no model call)")
    assert verdict.issues.startswith("the reply says it does not know")
    Validation.model_validate_json(verdict.model_dump_json())  # what the turn records parses back
    short = by_rule("honest_unknown_approved", "APPROVE", 0.6, "an honest 'I don't know'")
    assert short.issues == "an honest 'I don't know' (guard: honest_unknown_approved, no model call)"
    assert short.goals == []  # a guard decides the answer as a whole: no goal gets a score it was not given


def test_each_goal_has_its_own_verdict_by_id_and_the_overall_quality_is_their_mean():
    from panda.llm.schemas import GoalVerdict
    from panda.pipeline.validate import overall_quality, render

    verdict = Validation(decision="REVISE", quality=0.2, issues="G2 is not answered", goals=[
        GoalVerdict(goal="G2", decision="REVISE", quality=0.4), GoalVerdict(goal="G1", decision="APPROVE", quality=0.9),
        GoalVerdict(goal="G3", decision="APPROVE", quality=1.0)])  # G3 is no goal of this plan: dropped
    assert overall_quality(verdict, ["G1", "G2"]).quality == 0.65
    assert overall_quality(verdict, ["G1", "G2", "G4"]).quality == 0.2  # G4 unscored: the model's own quality stays
    text = render(overall_quality(verdict, ["G1", "G2"]), ["G1", "G2"])
    assert "- G1: APPROVE (0.90)" in text and "- G2: REVISE (0.40)" in text  # by id, in the plan's order
    assert text.index("G1: APPROVE") < text.index("G2: REVISE")
    guarded = render(by_rule("status_line_revised", "REVISE", 0.1, "echo"), ["G1", "G2"], "status_line_revised")
    assert "- G1, G2: decided as a whole (guard: status_line_revised)" in guarded and "(0.10)" not in guarded

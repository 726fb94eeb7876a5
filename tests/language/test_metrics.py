import pytest

from panda.language.metrics import abstained, exact_match, locomo_f1, normalize, recall_at_k, token_f1


def test_normalisation_f1_and_exact_match():
    assert normalize("The Cat, sat!") == "cat sat"
    assert token_f1("Caroline went to Paris", "Paris") == pytest.approx(0.4)
    assert token_f1("", "") == 1.0 and token_f1("x", "") == 0.0
    assert exact_match("The Paris.", "paris") == 1.0 and exact_match("Paris, France", "Paris") == 0.0


def test_locomo_category_rules():
    assert locomo_f1("a", "a, b", 1) == pytest.approx(0.5)
    assert locomo_f1("b, a", "a, b", 1) == pytest.approx(1.0)
    assert locomo_f1("painting", "painting; she also likes pottery", 3) == pytest.approx(1.0)
    assert locomo_f1("7 May 2023", "7 May 2023", 2) == 1.0
    assert locomo_f1("2022", 2022, 4) == 1.0  # answers can be ints in LoCoMo


def test_abstention_and_recall():
    assert abstained("That was never mentioned.") and abstained("I don't know.") and abstained("No information about it")
    assert not abstained("Paris") and not abstained("She knows the answer: Paris")
    assert abstained("No prior memory matched this query.")  # set AH: the model's copy of an empty context's words
    # set O: the 1.5B model's way of saying it was never told
    assert abstained("It's not clear what Sam does for work based on the information provided.")
    assert abstained("It is unclear where the hotel is.") and not abstained("The lake was not clear enough to swim in.")
    assert recall_at_k(["a", "x", "b"], ["a", "b"], 2) == 0.5
    assert recall_at_k(["a", "x", "b"], ["a", "b", "b"], 3) == 1.0
    assert recall_at_k([], ["a"], 5) == 0.0 and recall_at_k(["a"], [], 5) == 0.0


def test_answer_contains_needs_every_expected_word():
    from panda.language.metrics import answer_contains

    assert answer_contains("Your hamster is called Biscuit.", "Biscuit")
    assert answer_contains("You said your budget is under $1,000.", "$1000")
    assert not answer_contains("I do not know your hamster's name.", "Biscuit")
    assert not answer_contains("You like hiking", "weekend hiking")
    assert not answer_contains("anything", "")
    # set C: "St Mary's hospital" names St Mary (the possessive is not another word)
    assert answer_contains("You work at St Mary's hospital.", "St Mary")
    assert answer_contains("You work at St Mary’s hospital.", "St Mary's")
    assert not answer_contains("You work at St Marylebone.", "St Mary")
    # set N: "£" is punctuation as "$" is, so "£12,000" holds 12,000 and a stale "8,000" is seen in "£8,000"
    assert answer_contains("You've saved £12,000 for the deposit.", "12,000")
    assert answer_contains("You've saved £8,000 so far.", "8000") and answer_contains("It costs €40.", "€40")
    assert answer_contains("You've switched to flood-resilient housing.", "flood")  # set M: a hyphen parts words
    assert answer_contains("She is a co-worker.", "co-worker") and not answer_contains("A flood.", "flood-resilient")
    # set S: "the 19th of April" names the day "19 April"; a 19th of another month does not
    assert answer_contains("The bike was stolen on the 19th of April of 2026.", "19 April")
    assert not answer_contains("It was stolen on the 19th of May.", "19 April")


def test_answer_correct_reads_alternatives_stale_values_and_abstention():
    from panda.language.metrics import answer_correct

    assert answer_correct("Juniper is three now.", "three|3", stale="two")
    assert answer_correct("She turned 3.", "three|3", stale="two")
    assert not answer_correct("She is two, turning three.", "three|3", stale="two")  # the stale value given too
    assert not answer_correct("You live in Leeds.", "Manchester", stale="Leeds")
    assert answer_correct("Try hummus with carrot sticks.", None, stale="chicken|peanut butter")
    assert not answer_correct("A peanut butter sandwich.", None, stale="chicken|peanut butter")
    assert answer_correct("You haven't told me your vet's name.", None, abstain=True)
    assert not answer_correct("Your vet is Dr. Smith.", None, abstain=True)  # invented
    assert not answer_correct("I don't know.", "Porto")


def test_typographic_punctuation_is_punctuation():
    from panda.language.metrics import abstained, answer_correct, normalize, token_f1

    assert normalize("the user said: “My cat is called Miso.”") == normalize('the user said: "My cat is called Miso."')
    assert answer_correct("Ann said: “My cat is called Miso.”", "Miso") and token_f1("“Miso”", "Miso") == 1.0
    assert abstained("I don’t know - you haven’t told me.")

"""Shared notes carry no sentence a user wrote (privacy/neutral.py, issue 44): a public lesson states the task in
neutral words or is not published."""

import pytest

from panda.privacy.neutral import neutral_task, topic_words


@pytest.mark.parametrize(("query", "topic", "task"), [
    ("I was born on [DOB] and my account number is [FINANCIAL]. Which laptop is best for video editing?", "laptops",
     "Which laptop is best for video editing?"),
    ("How often should a potted fern be watered?", "plants.ferns", "How often should a potted fern be watered?"),
    ("My budget is $900, help me choose.", "laptops.gaming", "laptops gaming"),  # nothing impersonal: the topic
    ("Can you find [NAME] a gift? What suits a 10 year old?", "gifts", "gifts"),  # digits and placeholders go
    ("We moved to [LOCATION]. Best schools?", "schools", "Best schools?"),
])
def test_the_task_keeps_only_impersonal_sentences(query, topic, task):
    assert neutral_task(query, topic) == task


def test_a_task_that_still_holds_something_private_is_refused():
    assert neutral_task("Where does Ana Lopez buy shoes?", "shoes", private_terms=["Ana Lopez"]) is None
    assert neutral_task("What is ana.lopez@example.com for?", "email") is None


def test_topic_words():
    assert topic_words("laptops.video_editing") == "laptops video editing" and topic_words("") == "general"



def test_a_question_asking_what_an_attribute_is_now_is_told_from_one_asking_when_or_what_to_do():
    from panda.language.text import asks_for_advice
    from panda.pipeline.validate import asks_current

    assert asks_current("Which city do I live in now?") and asks_current("What show am I watching at the moment?")
    assert asks_current("Do I still drive the Honda?") and asks_current("What's my job?")
    assert not asks_current("Where did I live before York?") and not asks_current("When did I start my job?")
    assert not asks_current("Which city should I visit?") and not asks_current("What was my old job?")
    assert not asks_current("Which city does Obama live in?")  # not about the user
    assert asks_for_advice("What could I eat after a run?") and not asks_for_advice("How do I get to work these days?")

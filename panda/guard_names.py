"""The small-model guards by name, each with what it overrides (pure data): the rules of pipeline/guards.py that
override a model's decision on the embedded (small) models. config.GuardPolicy checks the names it is given against
these; docs/configuration.md lists them."""

GUARDS = {  # pipeline/guards.py: rules that override a model's decision on the embedded (small) models
    "unreferenced_query_kept": "analyze: a message with no word pointing back is its own resolved query",
    "clear_request_proceeds": "reflect: a message of 2+ meaningful words, or a question or a statement about the "
                              "user of one, PROCEEDs without asking the model",
    "question_retrieves": "gather: a question about the user, or one asking anything in a meaningful word, that the "
                          "analysis routed to no retrieval, or to the open session when the user stated nothing in it, "
                          "searches memory and the saved pages (cross_thread)",
    "question_not_saved": "execute: memory.save of a message that only asks is refused",
    "honest_unknown_approved": "validate: an honest 'I don't know' when nothing was found is APPROVEd",
    "acknowledged_question_revised": "validate: a question answered with an acknowledgement is REVISEd",
    "unknown_beside_facts_revised": "validate: 'I don't know' beside the user's gathered facts is REVISEd",
    "stated_fact_approved": "validate: a recall answer stating the named fact is APPROVEd",
    "ignored_fact_revised": "validate: a recall answer leaving out the named fact is REVISEd",
    "ignored_fact_restated": "synthesize: that REVISE states the fact instead of asking the model again",
    "relative_day_dated": "synthesize: a relative day ('yesterday') copied from a dated line becomes its date",
    "copied_line_answered": "synthesize: an answer copying a line's 'On <date> X said:' or its 'I' gets its date or 'you'",
    "unanswered_abstained": "synthesize: a question about the user asking a name, a person, an amount or a number, "
                            "answered without one the lines hold, or what the user's thing is, answered with no word "
                            "of its own a line says, or which one of a kind it is (a breed), answered with a line "
                            "said again that names none, gets 'I don't know' (and validate APPROVEs it)",
    "undated_when_answered": "synthesize: a when-question answered with no time gets the user's closest line, quoted",
    "unreasoned_why_answered": "synthesize: a why-question about the user, when no line of theirs about it gives a "
                               "reason, gets 'I don't know why' and the closest line, quoted (and validate APPROVEs it)",
    "told_line_quoted": "synthesize: 'I don't know' beside a user's line saying every word of the question gets it, quoted",
    "superseded_value_unsaid": "synthesize: an answer about now keeps the new value of 'from <old> to <new>', "
                               "'instead of <old>' or two values said on different days; one saying only the old gets "
                               "the change's line; 'Do I still …?' answered yes or 'I don't know' beside a latest line "
                               "ending it gets 'No -' and that line; 'How many … now?' the count said, changes since; "
                               "one saying only what no longer holds, the line that says what does",
    "stated_line_approved": "validate: an answer saying only what a user's line sharing a word with it says is APPROVEd",
    "unrelated_line_revised": "validate: an answer to a question about the user that says again one of the user's "
                              "lines sharing no word with the question is REVISEd once, with the line that does",
    "status_line_revised": "validate: a reply repeating a tool's status line is REVISEd",
    "statement_acknowledged": "synthesize: a message in which the user tells something of themselves and asks nothing "
                              "is said back ('Noted - you're …') without a model call (and validate APPROVEs it)",
    "constraint_ignored_revised": "validate: a suggestion naming what the user's allergy or diet rules out is REVISEd",
    "earlier_line_quoted": "synthesize: a question about what was before a change, answered with the line telling the "
                           "change, gets the one earlier line of the user's saying the thing asked, quoted; 'What did "
                           "I do before pilates?' not saying what the one line giving it up for pilates names gets that line",
    "suggestion_asked_again": "synthesize: a request for ideas answered with nothing of its own (the user's line said "
                              "back, 'I don't know') asks the model for five ideas for the request alone "
                              "(prompts/suggest.yaml), then once more with the user's diet named in the request ('a "
                              "vegetarian dinner'); the first that nothing the user avoids rules out is the answer",
    "happened_line_quoted": "synthesize: 'What happened to X?' not told by the latest line about X gets it, quoted",
}

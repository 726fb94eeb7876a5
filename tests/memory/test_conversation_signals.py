"""Search's conversation signals: dates in questions and messages, the named speaker, the next turns."""

from datetime import UTC, date, datetime
from pathlib import Path

from panda.conversations.ingest import ingest_messages
from panda.conversations.messages import read_messages
from panda.memory import dates
from panda.memory.conversation_signals import SignalWeights, adjust, asked_role, named_speaker
from panda.memory.search import SearchRequest
from tests.conftest import write_jsonl

DEC = datetime(2023, 12, 1, tzinfo=UTC)


def window(text: str, now: datetime | None = DEC) -> tuple[date, date] | None:
    w = dates.question_window(text, now)
    return None if w is None else (w.start, w.end)


def test_question_windows_read_the_forms_people_write():
    assert window("What did John host for the veterans in May 2023?") == (date(2023, 5, 1), date(2023, 5, 31))
    assert window("What did Nate do for Joanna on 25 May, 2022?") == (date(2022, 5, 25), date(2022, 5, 25))
    assert window("Which activity was James pursuing on March 16th, 2022?") == (date(2022, 3, 16), date(2022, 3, 16))
    assert window("Where was John between August 11 and August 15 2023?") == (date(2023, 8, 11), date(2023, 8, 15))
    assert window("Where was she between Jan 30 and Feb 2, 2024?") == (date(2024, 1, 30), date(2024, 2, 2))
    assert window("What was Jolene working on at the beginning of January 2023?") == (date(2023, 1, 1), date(2023, 1, 11))
    assert window("What happened in late Sept 2021?") == (date(2021, 9, 20), date(2021, 9, 30))
    assert window("What did they plan in 2022?") == (date(2022, 1, 1), date(2022, 12, 31))
    # No year: the latest such time up to now, and it matches that month of any year.
    w = dates.question_window("Which country was Tim visiting in the second week of November?", DEC)
    assert w is not None and (w.start, w.end, w.year_known) == (date(2023, 11, 8), date(2023, 11, 14), False)
    assert dates.gap_days(w, dates.Window(date(2021, 11, 10), date(2021, 11, 10))) == 0
    assert window("When did Melanie paint a sunrise?") is None
    assert window("What is on February 30, 2023?") is None  # no such day: no window, no crash
    assert window("Did she mayhaps go?") is None


def test_a_question_asked_at_a_known_time_reads_relative_words_from_then():
    asked = datetime(2023, 4, 22, 11, tzinfo=UTC)  # a Saturday
    assert window("Who did I go with to the music event last Saturday?", asked) == (date(2023, 4, 13), date(2023, 4, 21))
    assert window("What did I cook yesterday?", asked) == (date(2023, 4, 21), date(2023, 4, 21))
    assert window("How many times did I bake in the past two weeks?", asked) == (date(2023, 4, 8), date(2023, 4, 22))
    assert window("Which races did I run during the past month?", asked) == (date(2023, 3, 23), date(2023, 4, 22))
    assert window("What did I read over the last 3 days?", asked) == (date(2023, 4, 19), date(2023, 4, 22))
    assert window("How many weddings have I attended this year?", asked) == (date(2023, 1, 1), date(2023, 4, 22))
    assert window("What did I buy last month?", asked) == (date(2023, 3, 8), date(2023, 4, 2))  # event_window's table
    assert window("What did I cook yesterday?", None) is None  # asked at no known time: nothing to count from
    assert window("What did I cook in May 2022 yesterday?", asked) == (date(2022, 5, 1), date(2022, 5, 31))  # a date wins
    assert window("What is my dog's name?", asked) is None


def test_event_windows_move_back_by_relative_words():
    said = datetime(2022, 3, 17, 15, tzinfo=UTC)
    assert dates.event_window("yesterday I went bowling", said) == dates.Window(date(2022, 3, 16), date(2022, 3, 16))
    assert dates.event_window("We went to a meetup last Friday", said) == dates.Window(date(2022, 3, 8), date(2022, 3, 16))
    assert dates.event_window("I adopted a dog last month", said) == dates.Window(date(2022, 1, 31), date(2022, 2, 25))
    assert dates.event_window("Contemporary dance speaks to me", said) == dates.Window(date(2022, 3, 15), date(2022, 3, 17))


def test_date_match_is_one_inside_and_falls_off_outside():
    may = dates.Window(date(2023, 5, 1), date(2023, 5, 31))
    assert dates.date_match(may, dates.Window(date(2023, 5, 20), date(2023, 5, 21))) == 1.0
    assert round(dates.date_match(may, dates.Window(date(2023, 6, 3), date(2023, 6, 3))), 3) == 0.651
    assert dates.date_match(may, dates.Window(date(2022, 5, 3), date(2022, 5, 3))) < 1e-6


def rows() -> list[dict]:
    at = datetime(2023, 5, 8, tzinfo=UTC)
    return [
        {"id": "m1", "kind": "message", "keywords": ["Melanie"], "session_id": "s1", "turn_number": 1, "created_at": at,
         "search_text": "t\nMelanie: I painted a sunrise"},
        {"id": "m2", "kind": "message", "keywords": ["Caroline"], "session_id": "s1", "turn_number": 2, "created_at": at,
         "search_text": "t\nCaroline: Wow, what inspired it?"},
        {"id": "n1", "kind": "note", "keywords": ["Melanie"], "created_at": at, "title": "Painting notes", "search_text": "x"},
    ]


def test_adjust_lifts_the_named_speaker_and_what_the_next_turns_continue():
    out = adjust({"m1": 0.5, "m2": 0.6, "n1": 0.7}, rows(), "What did Melanie paint?", DEC, SignalWeights(1.0, 0.4, 0.0))
    assert out == {"m1": 0.5 * 2 + 0.4 * 0.6 / 2, "m2": 0.6, "n1": 0.7}  # a note's keyword is no speaker
    both = adjust({"m1": 0.5, "m2": 0.6}, rows(), "Did Caroline and Melanie paint?", DEC, SignalWeights(1.0, 0.0, 0.0))
    assert both == {"m1": 0.5, "m2": 0.6}
    assert named_speaker("what did mel paint", ["Melanie"]) is None  # whole words only


def test_a_user_assistant_chat_reads_the_asker_from_the_pronouns():
    chat = ["user", "assistant"]
    assert named_speaker("What degree did I graduate with?", chat) == "user"
    assert named_speaker("Where do I keep my old sneakers?", chat) == "user"
    assert named_speaker("Can you remind me which state you mentioned?", chat) == "assistant"
    assert named_speaker("What sealant did you recommend for the vase?", chat) == "assistant"
    assert named_speaker("In our previous chat, how many times did the Chiefs win?", chat) == "assistant"
    assert named_speaker("As I told you before, what breed is my dog?", chat) == "user"  # the user's own words first
    assert named_speaker("Can you recommend a film for me tonight?", chat) == "user"  # a request, not a past statement
    assert named_speaker("What is the capital of Peru?", chat) is None
    assert named_speaker("What degree did I graduate with?", ["Melanie", "Caroline"]) is None  # named people: no roles
    assert named_speaker("Did the user mention Melanie?", ["Melanie", "user"]) == "Melanie"  # a name beats a role
    assert named_speaker("What did I say?", ["assistant"]) is None  # the side asked after has no message here
    assert asked_role("i forgot where i parked") == "user"


def test_search_in_a_user_assistant_chat_leads_with_the_side_asked_after(ctx, tmp_path: Path):
    turns = [("user", "I finally finished my degree in marine biology at Dalhousie last spring."),
             ("assistant", "Congratulations on finishing your degree! Marine biology degrees open many careers, "
                           "from fisheries research to conservation policy, and a degree from Dalhousie is well "
                           "regarded. Graduate study in marine biology could follow."),
             ("user", "Thanks. Any tips for a fern on a north window?"),
             ("assistant", "Water the fern when the top centimetre of soil is dry.")]
    lines = [f'{{"user_id": "robin", "session_id": "s1", "timestamp": "2024-03-0{i + 1}T10:00:00Z", '
             f'"role": "{role}", "content": "{text}"}}' for i, (role, text) in enumerate(turns)]
    messages, errors = read_messages(write_jsonl(tmp_path / "chat.jsonl", lines))
    assert not errors
    ingest_messages(ctx, messages)

    def top(query: str) -> str:
        return ctx.memory.search(SearchRequest(query, user_id="robin", kinds=["message"], record=False))[0].snippet

    assert top("What degree did I graduate with?").startswith("user: I finally finished my degree")
    assert top("Remind me how often you said to water the fern?").startswith("assistant: Water the fern")


def test_adjust_lifts_what_happened_at_the_time_asked():
    out = adjust({"m1": 0.5, "m2": 0.5}, rows(), "What happened in May 2023?", DEC, SignalWeights(0.0, 0.0, 1.0))
    assert out == {"m1": 1.0, "m2": 1.0}
    out = adjust({"m1": 0.5}, rows(), "What happened in May 2021?", DEC, SignalWeights(0.0, 0.0, 1.0))
    assert out["m1"] < 0.5 + 1e-9


CONVERSATION = [  # two friends over two sessions; the questions name one of them, or a time
    ("2023-05-08T13:00:00Z", "Caroline", "I went to an LGBTQ support group yesterday and it was so powerful."),
    ("2023-05-08T13:01:00Z", "Melanie", "That's great! I painted a lake sunrise last week, painting calms me."),
    ("2023-05-08T13:02:00Z", "Caroline", "Painting is wonderful. I paint too, mostly abstract pieces."),
    ("2023-07-20T10:00:00Z", "Melanie", "We went camping in the mountains with the kids yesterday."),
    ("2023-07-20T10:01:00Z", "Caroline", "Camping sounds fun! I went hiking by the lake last weekend."),
]


def test_search_ranks_the_named_speaker_and_the_time_asked_first(ctx, tmp_path: Path):
    lines = [f'{{"user_id": "friends", "session_id": "s{1 if t < "2023-06" else 2}", "timestamp": "{t}", '
             f'"role": "user", "speaker": "{who}", "content": "{text}"}}' for t, who, text in CONVERSATION]
    messages, errors = read_messages(write_jsonl(tmp_path / "m.jsonl", lines))
    assert not errors
    ingest_messages(ctx, messages)
    now = datetime(2023, 12, 1, tzinfo=UTC)

    def found(query: str) -> list[tuple[str, float]]:
        return [(r.snippet, r.score) for r in
                ctx.memory.search(SearchRequest(query, user_id="friends", kinds=["message"], now=now, record=False))]

    def lead(query: str) -> float:
        """How far the May lake message scores above the July one."""
        scores = {snippet.split(".")[0]: score for snippet, score in found(query)}
        return scores["Melanie: That's great! I painted a lake sunrise last week, painting calms me"] - scores[
            "Caroline: Camping sounds fun! I went hiking by the lake last weekend"]

    questions = ["What does Melanie paint?", "What does Caroline paint?", "What did they do by the lake in May 2023?"]
    with_signals = [found(q)[0][0] for q in questions]
    assert with_signals[0].startswith("Melanie: That's great! I painted a lake sunrise")
    assert with_signals[1].startswith("Caroline: Painting is wonderful")
    assert with_signals[2].startswith("Melanie: That's great! I painted a lake sunrise")
    may_lead = lead(questions[2])
    ctx.memory.policy = ctx.memory.policy.model_copy(update={"retrieval": ctx.memory.policy.retrieval.model_copy(
        update={"speaker_weight": 0.0, "neighbour_weight": 0.0, "date_weight": 0.0})})
    # Without them, the May message loses the lead the date in the question gave it over the July one.
    assert may_lead > 0 and lead(questions[2]) < may_lead


def test_a_weekday_in_a_report_told_in_the_past_is_the_last_such_day_before_it_was_said():
    """Set AC, held out: "When did I see Daria?" -> "… at a concert on Saturday." beside "I ran into my old roommate Daria
    at a concert on Saturday." said on Monday 13 April 2026 (the line carried no day)."""
    monday = datetime(2026, 4, 13, 20, tzinfo=UTC)
    saturday = dates.Window(date(2026, 4, 11), date(2026, 4, 11))
    assert dates.event_window("I ran into my old roommate Daria at a concert on Saturday.", monday) == saturday
    assert dates.relative_words("I ran into my old roommate Daria at a concert on Saturday.") == "on Saturday"
    assert dates.event_window("I went to the gym on Monday.", monday).start == date(2026, 4, 6)  # a week before
    for plan in ("I'm meeting Daria on Saturday.", "We play five-a-side on Saturday.", "I'll call her on Saturday.",
                 "I visited my gran on Sundays."):  # a plan, a habit: no day of the past
        assert dates.relative_words(plan) is None
    # set AR, held out: an irregular past ("broke") tells of the past too; the line was left undated
    assert dates.event_window("My son Cian broke his arm playing hurling on Saturday.", datetime(2026, 4, 20, tzinfo=UTC)) \
        == dates.Window(date(2026, 4, 18), date(2026, 4, 18))
    assert dates.relative_words("I swam at the lido on Saturday.") == "on Saturday"

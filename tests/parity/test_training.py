"""The training's text format and its way through (`parity.training`), pure: what a researcher writes
reads back as written, and each step moves only from where it belongs."""

from __future__ import annotations

from parity.training import (
    AFTER,
    COMPREHENSION,
    PRACTICE,
    SCREENED_OUT,
    Progress,
    TrainingQuestion,
    check_tried,
    first_step,
    parse,
    practice_answered,
    practice_read,
    written,
)

YES_NO = TrainingQuestion(text="Yes or no?", answer="no", choices=("yes", "no"), feedback="It is no.")
TYPED = TrainingQuestion(text="Type\nready", answer="Ready")


def test_what_is_written_reads_back_the_same():
    assert parse(written([YES_NO, TYPED])).questions == [YES_NO, TYPED]
    assert parse("\n\n  A?\n- a\n- b\n= A  \n\n\n").questions == [TrainingQuestion("A?", "A", ("a", "b"))]


def test_each_mistake_is_named_by_its_question():
    errors = parse("A?\n- a\n= a\n\n- x\n= x\n\nB?\n- b\n- b\n= b\n\nC?\n= c\n= d").errors
    assert errors == [
        "question 2: no question before the choices and the answer",
        "question 3: a choice is given twice",
        'question 4: give the right answer on one line that begins with "= "',
    ]
    assert parse("A?\n- a\nmore\n= a").errors == [
        "question 1: the line 'more' comes after the choices: the question's lines come first"
    ]
    assert parse("\n\n".join(["Q?\n= a"] * 21)).errors == ["21 questions: at most 20"]


def test_an_answer_is_right_whatever_its_case_and_spaces():
    assert TYPED.is_right("  READY ") and TYPED.is_right("ready") and not TYPED.is_right("read y")


def test_the_practice_moves_on_only_once_each_answer_is_read():
    start = Progress(step=first_step([YES_NO, TYPED], []))
    assert start.step == PRACTICE and first_step([], [YES_NO]) == COMPREHENSION and first_step([], []) == AFTER
    assert practice_read(start, [YES_NO, TYPED], []) == start, "no reading before an answer"
    assert practice_answered(start, [YES_NO, TYPED], "  ") == start, "an empty answer is none"
    one = practice_answered(start, [YES_NO, TYPED], "yes")
    assert one.practice_answers == ({"answer": "yes", "correct": False},)
    assert practice_answered(one, [YES_NO, TYPED], "no") == one, "the answer given stays"
    two = practice_read(one, [YES_NO, TYPED], [YES_NO])
    assert (two.step, two.practice_read) == (PRACTICE, 1)
    done = practice_read(practice_answered(two, [YES_NO, TYPED], "ready"), [YES_NO, TYPED], [YES_NO])
    assert done.step == COMPREHENSION and not done.finished


def test_the_check_counts_each_try_once_and_screens_out_after_the_last():
    start = Progress(step=COMPREHENSION)
    wrong = check_tried(start, [YES_NO], ["yes"], attempt=0, allowed=2)
    assert (wrong.step, wrong.tries) == (COMPREHENSION, 1)
    assert check_tried(wrong, [YES_NO], ["yes"], attempt=0, allowed=2) == wrong, "the same try sent again"
    assert check_tried(wrong, [YES_NO], [], attempt=1, allowed=2) == wrong, "a try must answer every question"
    out = check_tried(wrong, [YES_NO], ["yes"], attempt=1, allowed=2)
    assert (out.step, out.tries, out.finished) == (SCREENED_OUT, 2, True)
    passed = check_tried(wrong, [YES_NO], [" No "], attempt=1, allowed=2)
    assert (passed.step, passed.tries) == (AFTER, 2)
    assert check_tried(passed, [YES_NO], ["yes"], attempt=2, allowed=2) == passed

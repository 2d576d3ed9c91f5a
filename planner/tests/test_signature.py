"""A piece of writing the request asks to sign ends with the name (planner.signature)."""

import pytest

from planner.signature import signed


@pytest.mark.parametrize(
    ("request_text", "text", "expected"),
    [
        ("write a one-line birthday message into cards/sister.txt and sign it Tom", "Happy birthday!",
         "Happy birthday!\n\nTom"),
        ("mi scrivi una mail breve al mio capo per un giorno di ferie? firmala Luca", "Gentile capo, …",
         "Gentile capo, …\n\nLuca"),
        ("a birthday note from Anna", "Happy birthday!", "Happy birthday!\n\nAnna"),
        ("sign it Tom", "Hi!\n\nTom", "Hi!\n\nTom"),  # signed already
        ("write a story from Rome", "Once upon a time", "Once upon a time"),  # not a message: a place
        ("what is a sign in maths?", "A symbol.", "A symbol."),
    ],
)  # fmt: skip
def test_the_name_asked_for_ends_the_writing(request_text, text, expected):
    assert signed(request_text, text) == expected

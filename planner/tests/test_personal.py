"""A personal question asked of no file goes to the one file holding its words (planner.personal,
through planner.named_file)."""

import pytest

from planner import named_file


@pytest.fixture
def files(tmp_path):
    for path, content in {
        "travel/itinerary.md": "Day 1: fly to Tokyo\nDay 5: flight home at 21:05\n",
        "expenses/march.csv": "date,category,amount\n03-01,food,30\n",
        "notes/ideas.md": "- an app for plants\n",
        "notes/books.md": "- Dune\n",
        "project/requirements.txt": "flask==3.0.2\n",
    }.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(content)
    return tmp_path


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("when's my flight home?", "travel/itinerary.md"),
        ("what are my app ideas?", "notes/ideas.md"),
        ("quando ho il volo per Tokyo?", "travel/itinerary.md"),
        ("which flask version does the project use?", "project/requirements.txt"),  # two words, one a folder
    ],
)
def test_a_personal_question_goes_to_the_one_file_with_its_words(files, text, path):
    assert named_file.resolve(text, {}, files).path == path


@pytest.mark.parametrize(
    "text",
    [
        "what is the capital of France?",  # nobody's own
        "write a poem about my flight home",  # a piece of writing
        "how do I book a flight home?",  # how, not what the files say
        "what did I do yesterday?",  # no file holds its words
        "what's in my notes?",  # two files hold as many
        "what is flask?",  # what a word means
        "I'm flying home to Tokyo! What currency do they use there?",  # the question is of the world
        "which version is the newest?",  # not the person's, and one word at most
        "list travel/",  # a folder's path typed: its words are not the question's
    ],
)
def test_anything_else_names_no_file(files, text):
    assert named_file.resolve(text, {}, files) is None

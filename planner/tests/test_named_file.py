"""A file named by words of its name, read as if its path had been typed (planner.named_file)."""

import pytest

from planner import named_file


@pytest.fixture
def files(tmp_path):
    for path, content in {
        "diario/2024.txt": "3 gen: yoga\n",
        "rubrica.csv": "nome,numero\nLaura,347 7654321\n",
        "regali/natale.md": "- Luca: cuffie\n",
        "ricette/tiramisu.txt": "500 g mascarpone\n",
        "ricette/pesto.txt": "basilico\n",
        "lists/shopping.md": "- milk\n",
        "spese/maggio.csv": "cosa,importo\nspesa,10\n",
        "notes/sea.txt": "waves\n",
        "report-2023.md": "a\n",
        "report-2024.md": "b\n",
        "bozze/lettera_v1.txt": "uno\n",
        "bozze/lettera_v2.txt": "due\n",
    }.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(content)
    return tmp_path


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("leggimi le prime 3 righe del diario", "leggimi le prime 3 righe del file diario/2024.txt"),
        ("mi trovi il numero di laura nella rubrica?", "mi trovi il numero di laura nel file rubrica.csv?"),
        ("nella lista dei regali di natale cambia le cuffie con un libro",
         "nel file regali/natale.md cambia le cuffie con un libro"),
        ("take bread off my shopping list", "take bread from lists/shopping.md"),
        # two words, two places: the word of the file's own name becomes its path
        ("quanto mascarpone per il tiramisù? la ricetta sta in ricette",
         "quanto mascarpone per il ricette/tiramisu.txt? la ricetta sta in ricette"),
    ],
)  # fmt: skip
def test_words_that_name_one_file_become_its_path(files, text, expected):
    assert named_file.rewrite(text, files).text == expected


@pytest.mark.parametrize(
    "text",
    [
        "write a poem about the sea",  # a piece of writing: its topic is not a file
        "can you tell me about the sea?",
        "read the last lines of the report",  # two reports: which one is not said
        "quanto è stata la spesa più alta?",  # a word of a name, but not where a file is named
        "leggi le prime righe di rubrica.csv",  # typed already
        "ciao, come va?",
        "cosa c'è in diario?",  # the folder's listing, though it holds one file (seen in the chat walk)
        "what's inside the diario folder?",
        "put just the lines about yoga in diario/yoga.txt",  # the folder of a new file's typed path names no file
    ],
)
def test_nothing_is_named_without_one_file_in_a_files_place(files, text):
    assert named_file.rewrite(text, files) is None


def test_a_short_question_after_a_question_asks_of_the_same_file(files):
    previous = {"request": "quanto mascarpone ci vuole per il tiramisù?", "files": ["ricette/tiramisu.txt"]}
    again = named_file.asked_again("e di savoiardi?", previous, files)
    assert again.text == "e di savoiardi (in ricette/tiramisu.txt)?"
    assert named_file.asked_again("e di savoiardi?", {**previous, "request": "leggi ricette"}, files) is None
    assert named_file.asked_again("and in notes/sea.txt?", previous, files) is None  # a file of its own


def test_one_file_of_the_last_listing_is_named_by_a_word_of_its_name(files):
    previous = {"listing": ["bozze/lettera_v1.txt", "bozze/lettera_v2.txt"]}
    assert named_file.one_listed("cancella la v1", previous, files).text == "cancella bozze/lettera_v1.txt"
    assert named_file.one_listed("read the v2 one", previous, files).text == "read bozze/lettera_v2.txt"
    assert named_file.one_listed("leggi la lettera", previous, files) is None  # both are letters
    assert named_file.one_listed("cancella la v1", {}, files) is None


def test_a_file_and_its_folder_said_apart_are_one_path(files):
    (files / "app").mkdir()
    (files / "app" / ".env").write_text("DEBUG=true\n")
    said = named_file.resolve("nel file .env della cartella app metti DEBUG a false", {}, files)
    assert said.text == "nel file app/.env metti DEBUG a false"
    assert named_file.resolve("set DEBUG to false in the .env file in the app folder", {}, files).path == "app/.env"
    assert named_file.in_folder("read x.env in the app folder", files) is None  # no such file there


def test_a_verbs_pronoun_is_the_file_the_last_turn_was_on(files):
    previous = {"files": ["notes/sea.txt"], "plan_is_last": True}
    said = named_file.the_last("ora copiala pure in archivio/mare.txt", previous, files)
    assert said.text == "ora copia notes/sea.txt pure in archivio/mare.txt"
    assert named_file.the_last("rename it to waves.txt", previous, files).text == "rename notes/sea.txt to waves.txt"
    assert named_file.the_last("rename it to waves.txt", {**previous, "plan_is_last": False}, files) is None
    assert named_file.the_last("copy rubrica.csv to b.csv", previous, files) is None  # no pronoun


def test_a_question_with_a_word_the_last_file_holds_asks_of_it(files):
    (files / "diario" / "2024.txt").write_text("3 gen: yoga\n28 feb: gita a Bologna\n")
    previous = {"request": "leggimi le prime righe del diario", "files": ["diario/2024.txt"]}
    said = named_file.asked_again("quand'è che sono andato a Bologna?", previous, files)
    assert said.text == "quand'è che sono andato a Bologna (in diario/2024.txt)?"
    assert named_file.asked_again("what's the capital of France?", previous, files) is None  # not in the file
    assert named_file.asked_again("cos'è Bologna?", previous, files) is None  # what a word means


def test_a_new_file_in_a_nested_folder_named_by_its_own_name(files):
    (files / "progetti" / "orto" / "appunti").mkdir(parents=True)
    said = named_file.resolve('dentro appunti mettici un file semina.md con scritto "pomodori"', {}, files)
    assert said.path == "progetti/orto/appunti/semina.md"
    assert said.text == 'mettici un file progetti/orto/appunti/semina.md con scritto "pomodori"'
    after = named_file.resolve("save ideas.md in the appunti folder", {}, files)
    assert after.text == "save progetti/orto/appunti/ideas.md"
    (files / "altro" / "appunti").mkdir(parents=True)
    assert named_file.resolve("dentro appunti crea semina.md", {}, files) is None  # two folders called so


def test_a_sibling_by_its_name_a_verbs_word_where_a_file_is_named_and_a_class_like_3a(files):
    (files / "spese" / "aprile.csv").write_text("cosa,importo\nspesa,20\n")
    previous = {"request": "quanto ho speso? spese/maggio.csv", "files": ["spese/maggio.csv"], "plan_is_last": True}
    assert named_file.resolve("e aprile, in totale?", previous, files).text == "e spese/aprile.csv, in totale?"
    (files / "reading-list.md").write_text("- Dune\n")
    assert named_file.resolve("what's on my reading list?", {}, files).path == "reading-list.md"
    (files / "classi").mkdir()
    (files / "classi" / "3A.txt").write_text("Rossi\n")
    (files / "classi" / "3B.txt").write_text("Verdi\n")
    assert named_file.resolve("quanti alunni ci sono nella 3A?", {}, files).path == "classi/3A.txt"


def test_a_word_of_the_last_hits_folders_names_one_of_them(files):
    previous = {"listing": ["notes/sea.txt", "ricette/tiramisu.txt"], "plan_is_last": True}
    assert named_file.resolve("leggimi la ricetta", previous, files).path == "ricette/tiramisu.txt"


def test_a_file_of_an_earlier_listing_is_named_by_a_word_of_its_name(files):
    previous = {"files": ["bozze/lettera_v1.txt"], "listing": [], "earlier_listing": ["bozze/lettera_v2.txt"]}
    assert named_file.resolve("spostami la v2 in archivio/", previous, files).path == "bozze/lettera_v2.txt"


def test_a_short_question_of_what_the_last_turn_found_asks_of_its_file(files):
    previous = {"request": "how many errors are in rubrica.csv?", "files": ["rubrica.csv"], "plan_is_last": True}
    assert named_file.resolve("what were they?", previous, files).text == "what were they (in rubrica.csv)?"
    assert named_file.resolve("quali erano?", previous, files).path == "rubrica.csv"
    assert named_file.resolve("what are you?", previous, files) is None  # not what the turn found

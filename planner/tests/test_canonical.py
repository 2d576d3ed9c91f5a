"""The canonical form plan memory keys on (planner.canonical, planner.spelled): paraphrases share a
key, numbers and operators in words are values, and a modifier is never noise. No database."""

import pytest

from planner import canonical, spelled


def key(text):
    return canonical.of(text).key


@pytest.mark.parametrize(
    ("learned", "paraphrase"),
    [
        ("list the files in docs/", "what files are in src/?"),
        ("list my files", "what files are in my workspace?"),  # the root, named in words
        ("list my files", "show me my files"),
        ("elenca i miei file", "list the files in my workspace"),
        ("list the files in docs/", "show me what's in src/"),
        ("list the files in docs/", "cosa c'è in src/?"),
        ("elenca i file in documenti/", "che file ci sono nella cartella foto/?"),
        ("show me the contents of the reports/ folder", "what's inside archive/?"),
        ("print out config/settings.yaml", "can you show me what's in config/logging.yaml"),
        ("find the *.md files", "find the markdown files"),
        ("find *.csv files in data/", "find the json files in config/"),
        ("trova i file *.md", "trova i file python"),
        ("find the .json files", "find the JSON files"),
        ("find every python script", "find every markdown file"),
        ("elenca tutti i file di testo", "elenca tutti i file json"),
        ("how many markdown files do I have?", "what's the number of csv files?"),
        ("what time is it?", "tell me the current time"),
        ("what time is it?", "che ore sono?"),
        ("what's today's date?", "what day is it today?"),
        ("che data è oggi?", "oggi quanti ne abbiamo?"),
        ("what time is it in Europe/London?", "could you tell me the current time in Asia/Tokyo?"),
        ("compute 3 ** 5", "compute 5 squared"),
        ("what is 2 to the power of 8?", "what is 7 ** 2?"),
        ("quanto fa 7 per 8?", "quanto fa 7 x 8?"),
        ("quanto fa 9 al quadrato?", "quanto fa 12 elevato a 2?"),
        ("write 'hello world' into greetings.txt", "put the text 'see you soon' in messages/bye.txt"),
        ("move report.pdf into archive/", "put invoice.pdf in the folder finance/"),
        ("sposta fattura.pdf nella cartella contabilita/", "metti scontrino.pdf in spese/"),
        ("download https://example.com/feed.xml", "grab the page at https://example.org/about"),
        ("search all files for the word 'deprecated'", "look for 'TODO' inside the files"),
        ("dove compare 'password'?", "in quali righe si trova 'token'?"),
        ("ricorda che il mio compleanno è il 3 maggio", "tieni a mente che il mio medico è il dottor Bianchi"),
        ("in notes/journal.md replace 'teh' with 'the'", "fix the typo 'recieve' -> 'receive' in docs/guide.md"),
        ("show the first 3 lines of a.md", "show the first three lines of b.md"),
        ("mostrami le ultime 2 righe di errori.log", "mostrami l'ultima riga di errori.log"),
    ],
)
def test_paraphrases_share_one_key(learned, paraphrase):
    assert key(learned) == key(paraphrase), (canonical.of(learned).tokens, canonical.of(paraphrase).tokens)


@pytest.mark.parametrize(
    ("learned", "other"),
    [
        ("list the files in docs/", "delete the files in docs/"),
        ("list the files in docs/", "list the folders in docs/"),
        ("crea la cartella rapporti/q1", "crea il file rapporti/q1.md"),
        ("copy notes/a.md to backup/a.md", "move notes/a.md to backup/a.md"),
        ("copy a.md to b.md", "copy a.md from b.md"),
        ("move a.md to b/ and delete c.md", "delete a.md and move c.md to b/"),
        ("which lines mention TODO?", "which files mention TODO?"),
        ("what time is it in Europe/Rome?", "what time was it in Europe/Rome yesterday?"),
        ("what time is it?", "what time does the train to Milan leave?"),
        ("what is 17 * 23?", "what is 17 * 23 in binary?"),
        ("find the *.png files", "find the images"),
        ("read notes/a.md", "summarize notes/a.md"),
    ],
)
def test_other_requests_do_not(learned, other):
    assert key(learned) != key(other)


@pytest.mark.parametrize(
    ("learned", "paraphrase"),
    [
        # a place named with no verb asks what is there
        ("show the first 3 lines of a.md", "give me the first ten lines of b.md"),
        ("mostra le ultime 2 righe di errori.log", "dammi le ultime sei righe di b.log"),
        ("list files in docs/", "what files are there in docs/?"),
        ("elenca i file in documenti/", "cosa ho in documenti/?"),
        ("find the *.md files", "which markdown files do I have?"),
        ("trova i file *.csv in dati/", "quali file json ci sono in config/?"),
        ("cerca 'password' in src/", "dove compare 'token' in src/?"),
        # showing: a folder is listed, files of a kind are found, a page is fetched
        ("find the *.md files", "list all markdown files"),
        ("trova i file *.md", "mostrami i file markdown"),
        ("find *.csv files in data/", "show the json files inside config/"),
        ("download https://example.com/a.html", "what does https://example.org/b say?"),
        ("scarica https://example.com/a.html", "mostrami il sito https://example.org/b"),
        ("elenca i file in documenti/", "quali file contiene documenti/?"),
        # verbs: synonyms, infinitives, pronouns glued to the verb, politeness
        ("read notes/a.md", "pull up notes/b.md"),
        ("read notes/a.md", "take a look at notes/b.md"),
        ("leggi note/a.md", "puoi aprire note/b.md per favore?"),
        ("leggi note/a.md", "dai un'occhiata a note/b.md"),
        ("delete old/a.txt", "destroy old/b.txt"),
        ("cancella bozze/a.txt", "cestina bozze/b.txt"),
        ("quanti file markdown ho?", "contami i file pdf"),
        ("write 'hello' into a.txt", "type 'bye' into b.txt"),
        ("create the folder projects/home", "add a folder projects/work"),
        ("crea la cartella progetti/casa", "aggiungi la cartella progetti/ufficio"),
        ("copy notes/a.md to backup/a.md", "make a copy of docs/guide.md in backup/guide.md"),
        ("summarize notes/a.md", "what's notes/b.md about?"),
        ("riassumi note/a.md", "di cosa parla note/b.md?"),
        ("in notes/journal.md replace 'teh' with 'the'", "correct 'recieve' to 'receive' in docs/guide.md"),
        ("dove compare 'password'?", "dove viene usato 'token'?"),
        ("read notes/a.md", "could you please show me notes/b.md if you can"),
        # the clock and the calendar, asked other ways
        ("what time is it?", "what hour is it?"),
        ("what's today's date?", "which day is today?"),
        ("what day of the week is it?", "what weekday is it?"),
        ("quante righe ha appunti/a.md?", "di quante righe è fatto src/main.py?"),
        # kinds of file in other words
        ("find the *.md files", "find the files ending in .md"),
        ("find the *.md files", "find files with the .md extension"),
        ("trova i file *.md", "trova i file con estensione .md"),
        ("trova i file python", "trova i file di tipo python"),
        ("quanti file markdown ho?", "quanti pdf ho?"),
        ("find every python script", "find all the shell scripts"),
        # arithmetic in words
        ("what is 6 * 7?", "what's the product of 6 and 7?"),
        ("please calculate 45 + 55", "what is the sum of 45 and 55?"),
        ("quanto fa 6 per 7?", "quanto fa 6 volte 7?"),
        ("quanto fa 6 per 7?", "qual è il prodotto di 6 e 7?"),
        ("what is 2 to the power of 8?", "what is 3 to the 5th power?"),
        ("what is 6 * 7?", "what does 6 times 7 make?"),
        # a city in a time question is its zone; percentages, roots, the largest, renaming, ranges
        ("what time is it in Tokyo?", "che ore sono a Madrid?"),
        ("what's today's date in Sydney?", "which date is it right now in Los Angeles"),
        ("what's the time now in São Paulo?", "what's the local time in Mumbai?"),
        ("what is 15% of 200?", "how much is 7 percent of 350"),
        ("quanto è il 15% di 300?", "quanto fa il 22 per cento di 1250?"),
        ("square root of 144", "sqrt of 2025?"),
        ("qual è il massimo tra 4, 19 e 7?", "dimmi il più grande fra 33, 12 e 58"),
        ("rinomina foto1.jpg in mare.jpg", "cambia il nome di cv.pdf in cv_2024.pdf"),
        ("read 20 lines of data.csv starting at line 100", "leggi 10 righe di a.csv partendo dalla riga 9"),
        ("raise 5 to the 3rd power", "what's 4 to the power of 6?"),
        ("what's 6 to the power of 3?", "quanto fa 5 elevato alla terza?"),
        ("run `npm test`", "execute `make build` in the shell please"),
        # a folder named by a bare word beside its noun is a value
        ("list the files in the docs folder", "what's in the folder notes?"),
        ("cerca 'password' nella cartella config", "search for 'token' in the src folder"),
    ],
)
def test_more_paraphrases_share_one_key(learned, paraphrase):
    assert key(learned) == key(paraphrase), (canonical.of(learned).tokens, canonical.of(paraphrase).tokens)


@pytest.mark.parametrize(
    ("learned", "other"),
    [
        ("write 'hello' into a.txt", "add 'bye' to b.txt"),  # appending is not writing over
        ("scrivi 'fatto' in stato.txt", "aggiungi 'fatto' a stato.txt"),
        ("list the *.md files", "read the *.md files"),  # reading files of a kind is not finding them
        ("show me the markdown files", "count the markdown files"),
        ("quali file contiene documenti/?", "quali file contengono 'x'?"),
        ("notes/a.md?", "delete notes/a.md"),
        ("the last 5 lines of a.log", "delete the last 5 lines of a.log"),
        ("get a.md", "get rid of a.md"),
        ("add a folder x/", "add x.md to y/"),
        ("what is the sum of 3 and 4?", "what is the average of 3 and 4?"),
        ("what files are there in docs/?", "what folders are there in docs/?"),
        ("what's in a.md?", "what's a.md about?"),
        ("tell me about a.md", "read a.md"),
        ("find the files ending in .md", "find the files not ending in .md"),
        ("trova le immagini", "trova i file *.jpg"),
        ("scarica https://example.com/report.pdf", "carica report.pdf su https://example.com/upload"),
        ("which files contain 'x'?", "which files don't contain 'x'?"),
        # an operator is a modifier: another operation is another request
        ("what is 17 * 23?", "what is 17 + 23?"),
        ("what is 100 / 8?", "what's 100 mod 8?"),
        ("quanto fa 15 più 27?", "quanto fa 15 meno 27?"),
        ("quanto fa 50 diviso 8?", "qual è il resto di 50 diviso 8?"),
        ("what's 9 to the power of 2", "what's 9 times 2"),
    ],
)
def test_near_misses_of_the_new_rules_do_not(learned, other):
    assert key(learned) != key(other), (canonical.of(learned).tokens, canonical.of(other).tokens)


@pytest.mark.parametrize(
    ("text", "spelled_out"),
    [
        ("show the first three lines of b.md", "show the first 3 lines of b.md"),
        ("read the last twenty-five lines of diary.txt", "read the last 25 lines of diary.txt"),
        ("show the first dozen lines of c.md", "show the first 12 lines of c.md"),
        ("mostra le ultime sei righe di note/b.md", "mostra le ultime 6 righe di note/b.md"),
        ("leggi le prime cento righe di libro.txt", "leggi le prime 100 righe di libro.txt"),
        ("mostra le prime venticinque righe", "mostra le prime 25 righe"),
        ("quanto fa otto per nove?", "quanto fa 8 * 9?"),
        ("what is seven times eight?", "what is 7 * 8?"),
        ("quanto fa 3,5 più 1,25?", "quanto fa 3.5 + 1.25?"),
        ("compute 5 squared", "compute 5 ** 2"),
        ("mostrami l'ultima riga di errori.log", "mostrami l'ultima 1 riga di errori.log"),
        ("ogni giorno alle 09:00 esegui 'x', per quattro volte", "every day at 09:00 esegui 'x', per 4 volte"),
        ("trova i file JSON", "trova i file *.json"),
        ("find the files ending in .md", "find the files *.md"),
        ("trova i file con l'estensione md", "trova i file *.md"),
        ("quanti pdf ho?", "quanti *.pdf files ho?"),
        ("what's the product of 6 and 7?", "what's the 6 * 7?"),
        ("quanto fa 6 volte 7?", "quanto fa 6 * 7?"),
        ("ricorda che il mio compleanno è il 3 maggio", "ricorda che «il mio compleanno è il 3 maggio»"),
    ],
)
def test_numbers_operators_schedules_and_kinds_in_words_are_written_one_way(text, spelled_out):
    assert spelled.rewrite(text) == spelled_out


@pytest.mark.parametrize(
    "text",
    [
        "sei sicuro?",  # «sei» is "you are" unless it counts something
        "find the *.md files in notes/ and read the first one",  # "one" is not a number here
        "save 'tre righe e due parole' to a.txt",  # a quoted value stays as written
        "crea una cartella progetti/",  # an article is not a number
        "remind me at 10:30",  # a time is not a division
    ],
)
def test_words_that_are_not_numbers_stay(text):
    assert spelled.rewrite(text) == text


def test_numbers_in_words_are_values_and_fill_like_digits():
    form = canonical.of("show the first fifteen lines of src/cli.py")
    assert [(v.type, v.value) for v in form.extraction.values] == [("number", 15), ("path", "src/cli.py")]
    operation = canonical.of("quanto fa otto per nove?").extraction
    assert [(v.type, v.text) for v in operation.values] == [("number", "8"), ("op", "*"), ("number", "9")]


@pytest.mark.parametrize(
    ("base", "modified", "modifier"),
    [
        ("show the first 3 lines of README.md", "show all but the first 3 lines of README.md", "m:except"),
        ("mostra le prime 3 righe di a.md", "mostra tutto tranne le prime 3 righe di a.md", "m:except"),
        ("find the *.py files", "find the *.py files without tests in the name", "m:except"),
        ("elenca i file in documenti/", "elenca i file in documenti/ eccetto i pdf", "m:except"),
        ("read todo.txt", "don't read todo.txt", "m:not"),
        ("leggi todo.txt", "non leggere todo.txt", "m:not"),
        ("write 'done' to status.txt", "write 'done' to status.txt only if it is empty", "m:if"),
        ("scrivi 'fatto' in stato.txt", "scrivi 'fatto' in stato.txt solo se è vuoto", "m:if"),
        ("write 'done' to status.txt", "write 'done' to status.txt unless it exists", "m:unless"),
        ("read logs/today.log", "read logs/today.log every Monday", "<schedule>"),
        ("leggi log/oggi.log", "leggi log/oggi.log ogni lunedì", "<schedule>"),
        ("what time is it in Europe/Paris?", "tell me the time in Europe/Paris every morning", "<schedule>"),
        ("show the lines after line 200 of server.log", "show the lines before line 200 of server.log", "m:before"),
        ("mostra le righe di a.log dopo la riga 200", "mostra le righe di a.log prima della riga 200", "m:before"),
        ("find the *.log files", "find the *.log files bigger than 10 MB", "m:more"),
        ("trova i file *.log", "trova i file *.log più grandi di 10 MB", "m:more"),
        ("elenca i file in scaricati/", "elenca i file in scaricati/ più piccoli di 100 KB", "m:less"),
        ("show the first 3 lines of a.md", "show the last 3 lines of a.md", "m:last"),
        ("show lines 3 and 9 of a.md", "show the lines between 3 and 9 of a.md", "m:between"),
        ("show the first 3 lines of a.md", "show a.md skipping the first 3 lines", "m:except"),
        ("find the *.log files", "find the *.log files over 10 MB", "m:more"),
    ],
)
def test_a_modifier_is_a_token_of_its_own(base, modified, modifier):
    plain, changed = canonical.of(base), canonical.of(modified)
    assert modifier in canonical.modifiers(changed.signature)
    assert canonical.modifiers(plain.signature) != canonical.modifiers(changed.signature)
    assert plain.key != changed.key


@pytest.mark.parametrize(
    ("learned", "paraphrase"),
    [
        ("media di 4, 8 e 15", "calcola la media tra 10, 20, 30 e 40"),  # a list, of any length
        ("the mean of 3, 4 and 5", "what's the average of 2, 4, 6, 8 and 10?"),
        ("the mean of 3, 4 and 5", "compute the mean of 7 8 and 9"),
        ("qual è il massimo tra 12, 45 e 33?", "dammi il più grande fra 7, 3 e 19"),
        ("search *.py for 'def main'", "search rust files for 'unsafe'"),  # more kinds of file
        ("grep for 'password' in *.env files", "look for 'API_KEY' in all the env files"),
        ("trova tutti i file .jpg in vacanze/", "dove sono i .png dentro screenshot/?"),  # «i .png»
        ("find all files named *.log in var/", "locate every *.bak file under backups/"),
        ("aggiungi 'latte' in fondo a spesa.txt", "aggiungi 'uova e farina' alla fine di lista.txt"),
        (
            "leggi nota.txt e aggiungi il contenuto in fondo a raccolta.txt",
            "leggi idee.txt e aggiungilo alla fine di quaderno.txt",
        ),
        ("che ore sono a Tokyo? scrivilo in ora.txt", "guarda che ore sono a Londra e salvalo nel file orario.txt"),
        ("compute 12 * 12 and save the result in r.txt", "work out 99 * 101 and write it to answers/p.txt"),
        ("calcola 250 * 12 e salva il risultato in totale.txt", "calcola 19 * 7 e scrivilo in conti/parziale.txt"),
        ("search for 'Error' in logs/, case sensitive", "case-sensitive search for 'Timeout' in services/api/"),
        ("what's today's date?", "what year is it?"),
        ("che data è oggi?", "in che mese siamo?"),
        ("what time is it in Berlin?", "is it late in Los Angeles right now?"),
        ("list the files in docs/", "browse src/"),
        ("move a.txt into old/", "stick b.txt in archive/"),
        ("move a.txt into old/", "drag b.txt into archive/"),
        ("create the folder foto/", "fammi una cartella progetti/"),
        ("append 'milk' to a.txt", "put 'eggs' at the bottom of b.txt"),  # writing at the end is appending
        ("append 'milk' to a.txt", "add the line 'eggs' to b.txt"),
        ("write 'hello' to a.txt", "create b.txt with 'ciao'"),  # a file made with a text is written
        ("scrivi 'ciao' in a.txt", "crea b.txt con scritto 'hello'"),
    ],
)
def test_lists_kinds_places_and_looks_share_one_key(learned, paraphrase):
    assert key(learned) == key(paraphrase), (canonical.of(learned).tokens, canonical.of(paraphrase).tokens)


@pytest.mark.parametrize(
    ("learned", "other"),
    [
        ("the mean of 3, 4 and 5", "the median of 3, 4 and 5"),
        ("the sum of 3, 4 and 5", "the product of 3, 4 and 5"),  # a product keeps its numbers one by one
        ("aggiungi 'latte' in fondo a spesa.txt", "aggiungi 'latte' all'inizio di spesa.txt"),
        ("search for 'x' in src/", "search for 'x' in src/, case sensitive"),
        ("search for 'x' in src/ case-insensitive", "search for 'x' in src/, case sensitive"),
        ("write 'x' at the top of a.txt", "write 'x' at the end of a.txt"),
        ("write 'x' to a.txt", "create a.txt"),
        ("read the .env", "find all .env in config/"),  # "the .env" is a file
    ],
)
def test_near_misses_of_lists_and_places_do_not(learned, other):
    assert key(learned) != key(other), (canonical.of(learned).tokens, canonical.of(other).tokens)


def test_a_path_written_neither_way_is_typed_by_what_the_workspace_holds(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "documenti" / "fatture").mkdir(parents=True)
    (tmp_path / "Makefile").write_text("all:\n")
    assert "<dir>" in canonical.of("list the files in docs", tmp_path).tokens
    listed = canonical.of("what's in the folder projects/alpha?", tmp_path).key
    assert canonical.of("list the files in docs", tmp_path).key == listed
    assert canonical.of("che file ci sono dentro documenti/fatture?", tmp_path).tokens == ("v:list", "<dir>")
    assert canonical.of("read Makefile", tmp_path).tokens == ("v:read", "<file>")
    assert "<dir>" not in canonical.of("list the files in docs").tokens  # with no workspace, a word


def test_a_list_of_numbers_is_one_value_and_fills_a_plan_of_any_length():
    from planner import params as P

    learned = canonical.of("the mean of 3, 4 and 5")
    plan = {"steps": [{"tool": "compute", "args": {"expression": "mean([3,4, 5])"}}]}
    template, slots = P.parametrize(plan, learned.extraction)
    assert template["steps"][0]["args"]["expression"] == "mean(${PARAM:numbers_1})"
    probe = canonical.of("calcola la media tra 10, 20, 30 e 40")
    assert P.fill(slots, probe.extraction, learned.extraction.counts) == {"numbers_1": "[10, 20, 30, 40]"}
    assert spelled.rewrite("multiply 3, 4 and 5") == "multiply 3, 4 and 5"
    assert spelled.rewrite("read lines 3 and 5 of a.txt") == "read lines 3 and 5 of a.txt"


@pytest.mark.parametrize("text", ["hi there!", "ok", "?", "", "the"])
def test_a_request_of_stop_words_has_no_tokens_and_no_error(text):
    assert canonical.of(text).tokens == ()

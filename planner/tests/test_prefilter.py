from dataclasses import dataclass

import pytest

from planner.intent import extract
from planner.prefilter import Prefilter
from planner.text import fold, stem_set


@pytest.mark.parametrize(
    ("text", "verb", "obj"),
    [
        ("read notes/a.md and tell me the last 3 lines", "read", "files"),
        ("find all markdown files and count them", "find", "files"),
        ("how many .md files are there?", "count", "files"),
        ("write a summary file", "write", "files"),
        ("what time is it in Rome?", "tell", "time"),
        ("leggi le ultime righe di notes/a.md", "read", "lines"),
        ("quanti file ci sono nella cartella notes", "count", "files"),
        ("calcola la media di 3, 4 e 5", "compute", None),
        ("scarica la pagina https://example.com", "fetch", "web"),
        ("hello there", None, None),
    ],
)
def test_intent_is_extracted_deterministically_in_english_and_italian(text, verb, obj):
    intent = extract(text)
    assert (intent.verb, intent.object) == (verb, obj)
    assert intent.confident is (verb is not None)


def test_text_is_folded_and_stemmed_for_both_languages():
    assert fold("Perché È Così") == "perche e cosi"
    assert {"file", "line"} <= stem_set("files lines")
    assert {"legg", "righ"} <= stem_set("leggi le righe")


@pytest.mark.parametrize(
    ("text", "top"),
    [
        ("read notes/a.md and tell me the last 3 lines", "read_files"),
        ("find all markdown files and count them", "find_files"),
        ("write a summary of notes/b.md to summary.md", "write_files"),
        ("what time is it in Rome?", "get_time"),
        ("leggi le ultime righe di data.txt", "read_files"),
        ("fetch https://example.com", "get_urls"),
        ("calcola la media di 3, 4 e 5", "compute"),
        ("which lines mention TODO in my notes?", "grep_files"),
        ("run the test script", "run_shell"),
    ],
)
def test_the_right_executor_ranks_first(cat, text, top):
    ranked = Prefilter(cat.executors.values()).rank(text, extract(text))
    assert ranked[0].name == top


def test_meta_tools_and_zero_score_tools_are_never_passed(cat):
    ranked = Prefilter(cat.executors.values()).rank("calcola la media di 3, 4 e 5", extract("calcola la media"))
    names = [c.name for c in ranked]
    assert "final_answer" not in names and "scratchpad_read" not in names
    assert all(c.score > 0 or c.via == "phrase" for c in ranked)
    assert Prefilter(cat.executors.values()).rank("xyzzy plugh") == []


@dataclass(frozen=True)
class Entry:
    name: str
    description: str
    affinity: tuple[str, ...]


def synthetic(n: int) -> list[Entry]:
    return [Entry(f"tool_{i}", f"does thing {i} with widget{i % 7}", (f"widget{i % 7}", f"thing{i}")) for i in range(n)]


def test_k_is_dynamic_small_when_the_top_is_clear_and_the_pool_when_it_is_not():
    entries = [*synthetic(40), Entry("read_files", "read files", ("read", "file"))]
    clear = Prefilter(entries).rank("read file")
    assert clear[0].name == "read_files" and len(clear) <= 5
    crowded = Prefilter(entries).rank("widget3")
    assert len(crowded) == 6  # every tool scoring > 0, under the pool of 12
    crowded_all = Prefilter(synthetic(100)).rank("widget3 widget4")
    assert len(crowded_all) == 12


def test_phrase_recall_adds_tools_whose_multiword_tag_is_in_the_request():
    entries = [
        Entry("read_messages", "read e-mail messages", ("read", "mail", "message")),
        Entry("find_credentials", "account credentials", ("credential", "mail accounts")),
        Entry("read_persons", "people you know", ("contact", "mail accounts")),
    ]
    ranked = Prefilter(entries).rank("which mail accounts do you have", extract("which mail accounts do you have"))
    via = {c.name: c.via for c in ranked}
    assert via.get("read_messages") == "rank"
    assert via.get("find_credentials") in ("rank", "phrase") and "read_persons" in via


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    affinity: tuple[str, ...] = ()


ANY_CATALOG = [
    Tool("read_urls_html", "Legge una pagina web", ("pagina", "web")),
    Tool("read_files", "Legge file di testo", ("leggi", "file")),
    Tool("find_urls", "Cerca sul web", ("cerca", "web", "ricerca")),
    Tool("get_now", "Data e ora correnti", ("ora", "data")),
    Tool("read_events", "Legge gli appuntamenti del calendario", ("appuntamento", "calendario")),
    Tool("create_events", "Crea un appuntamento", ("appuntamento", "calendario")),
    Tool("delete_events", "Cancella un appuntamento", ("appuntamento", "calendario")),
    Tool("compute_entries", "Calcoli aritmetici", ("calcola",)),
    Tool("get_persons", "Chi è l'utente e i suoi contatti", ("utente",)),
]


@pytest.mark.parametrize(
    ("request_text", "tool"),
    [
        ("scaricami https://example.com/wiki/Pagina e riassumila", "read_urls_html"),  # a URL, a clitic verb
        ("crea un appuntamento domani alle 9", "create_events"),  # the first verb with its object
        ("cancella l'appuntamento di lunedi", "delete_events"),
        ("elenca gli appuntamenti", "read_events"),  # listing a collection reads it
        ("quanto fa 12 * 7?", "compute_entries"),  # arithmetic, whatever the words
        ("chi sono io", "get_persons"),
    ],
)
def test_any_catalog_is_ranked_by_verb_object_and_what_the_request_holds(request_text, tool):
    ranked = Prefilter(ANY_CATALOG).rank(request_text, extract(request_text))
    assert ranked and ranked[0].name == tool, [c.name for c in ranked]


def test_a_date_relative_to_now_brings_the_time_tool():
    ranked = [
        c.name for c in Prefilter(ANY_CATALOG).rank("che appuntamenti ho domani", extract("che appuntamenti ho domani"))
    ]
    assert "get_now" in ranked[:5] and "read_events" in ranked[:5]


def test_italian_verbs_with_pronoun_suffixes_share_the_verbs_stems():
    assert stem_set("mostrami") >= stem_set("mostra") and stem_set("mandamelo") >= stem_set("manda")


def ranked_names(entries, text: str) -> list[str]:
    return [c.name for c in Prefilter(entries).rank(text, extract(text))]


PHOTOS_AND_PEOPLE = [
    Tool("find_images_indices", "Search the local photo index by content, faces and place", ("faces", "persons")),
    Tool("find_images_web", "Reverse image search on the web", ("trova-fonte", "reverse-image-search")),
    Tool("get_persons", "The registry of enrolled people", ("persona", "registro persone")),
    Tool("set_persons", "Enroll a person in the registry", ("enrolla", "persona")),
]


@pytest.mark.parametrize(
    ("request_text", "tool"),
    [
        # «foto» is not in any description: it is a word for the object a tool's name acts on,
        # and the first such word is the request's head, whatever follows it
        ("foto di una persona al mare", "find_images_indices"),
        ("trova foto al mare", "find_images_indices"),
        ("cerca una persona nel registro", "get_persons"),
        # a hyphenated tag counts only whole: «trova» alone is not «trova-fonte»
        ("trova fonte di questa immagine", "find_images_web"),
    ],
)
def test_words_for_a_tools_object_name_it_and_the_head_object_comes_first(request_text, tool):
    names = ranked_names(PHOTOS_AND_PEOPLE, request_text)
    assert names and names[0] == tool, names


def test_a_question_looks_and_an_order_changes():
    skills = [
        Tool("list_skills", "Lists the skills and whether each is on", ("skill", "skills")),
        Tool("set_skills", "Turns a skill on or off", ("skill", "attiva", "disattiva")),
    ]
    assert ranked_names(skills, "quali skill ho attive?")[0] == "list_skills"
    assert ranked_names(skills, "attiva la skill geo")[0] == "set_skills"


def test_a_request_the_description_quotes_as_an_example_matches_whole():
    tools = [
        Tool("list_beta", "Lists what is there: installed modules, show packages", ()),
        Tool("list_gamma", "Lists what is there: installed modules. USE for: 'show installed modules'", ()),
    ]
    ranked = Prefilter(tools).rank("show me the installed modules")
    assert ranked[0].name == "list_gamma" and ranked[0].score == ranked[1].score + 4


def test_the_first_step_of_a_chained_request_weighs_more():
    tools = [Tool("read_zeta", "", ("rocm",)), Tool("read_alpha", "", ("llama",))]
    assert ranked_names(tools, "rocm, poi llama")[0] == "read_zeta"
    assert ranked_names(tools, "llama, poi rocm")[0] == "read_alpha"
    assert ranked_names(tools, "rocm llama")[0] == "read_alpha"  # one step: a tie, by name


def test_the_top_five_holds_at_most_three_tools_on_one_object():
    tools = [
        Tool(f"{verb}_files", f"{verb} a file", ("file", "documento"))
        for verb in ("read", "write", "delete", "share", "move")
    ]
    tools.append(Tool("find_urls", "Search the web for a document", ("documento online",)))
    names = ranked_names(tools, "il documento del sito")
    # without the cap it would come sixth, after all five tools on files
    assert names.index("find_urls") == 3 and all(name.endswith("_files") for name in names[:3])

"""A tool's own object in the request (planner/own_objects.py), by general rules in English and
Italian: a personal fact said to have changed is a memory edit, a demonstrative names no task, a
to-do list that is one of many is not the session's. None of these is a line of a bench corpus."""

import pytest

from planner import own_objects
from planner import params as P
from planner.text import fold


def tool(text, definition=False):
    own = own_objects.find(fold(text).strip(), P.extract(text), definition=definition)
    return own[0] if own else None


# A personal fact said to have changed: a statement about the user's own name, job, home, family,
# diet or tools, with a contrast ("anymore", ", not X", «non più», «al posto di») or a change of life.
@pytest.mark.parametrize(
    "text",
    [
        "my husband's name is Marco, not Mario",
        "I don't live in Paris anymore, I'm in Lyon now",
        "I'm no longer a student, I work at a bank",
        "I use a Mac now instead of Windows",
        "my cat is called Luna, you had her as Lola",
        "I've switched teams",
        "I moved to Turin last week",
        "I told you before that I liked long answers but now I want short ones",
        "mia sorella si chiama Carla, non Clara",
        "non abito più a Roma, ora vivo a Bologna",
        "non mangio più carne",
        "il mio gatto non si chiama Micio ma Fufi",
        "la data che ti avevo dato era sbagliata, il compleanno è il 5 maggio",
        "ti avevo detto che bevo il caffè amaro, adesso lo prendo con lo zucchero",
        "l'avevi scritto male, il mio cognome è Bianchi",
        "ora preferisco il tè al posto del caffè",
        "mi sono trasferita a Milano da Napoli",
        "cancella quello che sai sul mio lavoro",
        "correzione",  # «correzione: …»: the route decision reads only the label before the colon
    ],
)
def test_a_changed_personal_fact_is_a_memory_edit(text):
    assert tool(text) == "memory_replace"


@pytest.mark.parametrize(
    "text",
    [
        "I'm not sure anymore, what should I do?",  # a question, and a state of mind
        "I don't love my job anymore, any advice?",  # advice asked for
        "I'm not happy at work anymore",  # a mood, not a fact to keep
        "sono stanco, non ne posso più",
        "non mi piace più il mio lavoro, cosa dovrei fare?",
        "I moved to a new city last month, any tips for making friends?",
        "mi sono trasferito a Berlino, cosa vedere in città?",
        "the capital of Australia is Canberra, not Sydney",  # not the user's own fact
        "la capitale dell'Australia è Canberra, non Sydney",
        "I'm asking about Python, not Java",
        "sto parlando di Python, non di Java",
        "I'd like the answer in English, not Spanish",
        "write a tweet saying I'm not on twitter anymore",  # a piece of writing
        "non lavoro più qui da domani, scrivi una mail di saluti ai colleghi",
        "my wife's name is Anna",  # a fact, with nothing that it replaces
    ],
)
def test_chat_about_oneself_is_not_a_memory_edit(text):
    assert tool(text) is None


def test_the_users_files_are_not_a_memory_edit():
    assert tool("I don't need old/report.pdf anymore, delete it") is None
    assert tool("elimina la cartella vecchia, non mi serve più") is None


@pytest.mark.parametrize(
    "text",
    [
        "keep in mind that I have two cats",
        "keep it in mind for next time: I hate cilantro",
        "for future conversations, I'm a nurse",
        "ricordati sempre che sono celiaco",
        "vorrei che ti ricordassi che sono allergico alle noci",
        "tieni presente per le prossime volte che lavoro di notte",
        "per il futuro",  # «per il futuro: sono mancino», read up to the colon
    ],
)
def test_a_fact_to_keep(text):
    assert tool(text) == "memory_add"


def test_reminders_and_questions_about_remembering_are_not_facts_to_keep():
    assert tool("ricordami come si dice grazie in giapponese") is None
    assert tool("do you remember things about me?") is None


@pytest.mark.parametrize(
    "text",
    [
        "please tidy up the things you know about me",
        "merge the duplicate entries in your memory",
        "dedupe your memories",
        "metti un po' in ordine quello che ricordi di me",
        "riordina i tuoi ricordi su di me, ci sono doppioni",
        "consolida le cose che hai salvato su di me",
        "compatta la memoria",
    ],
)
def test_tidying_what_is_kept_consolidates(text):
    assert tool(text) == "memory_consolidate"


@pytest.mark.parametrize(
    "text",
    [
        "why is my laptop memory always full after I delete things?",
        "il telefono mi dice che la memoria è piena, cosa posso cancellare?",
        "how do I clean up the memory on my phone?",
        "write a poem in memory of my grandmother",
    ],
)
def test_a_machines_memory_is_not_the_agents(text):
    assert tool(text) is None


@pytest.mark.parametrize(
    ("text", "bare"),
    [
        ("remember that", True),
        ("forget that", True),
        ("ricordatelo", True),
        ("toglilo dalla memoria", True),
        ("delete that from your memory", True),
        ("remember that I'm left-handed", False),
        ("ricordati che parlo spagnolo", False),
    ],
)
def test_a_memory_verb_on_a_pronoun_is_bare(text, bare):
    folded = fold(text)
    assert tool(text) is not None and tool(text).startswith("memory_")
    assert own_objects.bare_memory(folded) is bare
    assert own_objects.bare_object(folded, tool(text)) is bare


@pytest.mark.parametrize(
    ("text", "bare"),
    [
        ("use that skill we talked about", True),
        ("usa quella skill di prima", True),
        ("usa la skill 'fatture'", False),
        ("load the pdf-tools skill", False),
    ],
)
def test_a_skill_by_a_demonstrative_alone_is_bare(text, bare):
    assert tool(text) == "skill_load"
    assert own_objects.bare_object(fold(text), "skill_load") is bare


def test_a_todo_item_by_a_demonstrative_alone_is_bare():
    assert tool("mark that item as done") == "todo_update"
    assert own_objects.bare_object(fold("mark that item as done"), "todo_update")
    assert not own_objects.bare_object(fold("segna come fatto 'pagare la luce'"), "todo_update")


# Recurring tasks by their period, their running by themselves, their list.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pause the sunday backup job", "toggle_recurring"),
        ("resume the tuesday report reminder", "toggle_recurring"),
        ("turn off the monday reminder for now", "toggle_recurring"),
        ("delete the saturday cleanup task", "cancel_recurring"),
        ("il backup settimanale non mi serve più, cancellalo", "cancel_recurring"),
        ("che compiti automatici ho?", "list_recurring"),
        ("list my automated jobs", "list_recurring"),
        ("mostrami l'elenco delle attività ricorrenti", "list_recurring"),
        ("how many times has the nightly backup job run?", "history_recurring"),
        ("each weekday at 6 check the inbox folder", "schedule_recurring"),
        ("ogni domenica sera fammi un riassunto delle note", "schedule_recurring"),
        # A recurring task by the work it does ("the sync job", «il job di pulizia»), or a run of that work.
        ("did the nightly sync run yesterday?", "history_recurring"),
        ("has the backup job run this week?", "history_recurring"),
        ("did the backup work last night?", "history_recurring"),
        ("quando ha girato per l'ultima volta il job di backup?", "history_recurring"),
        ("la sincronizzazione di stanotte è andata a buon fine?", "history_recurring"),
        ("remove the cleanup job, it's useless now", "cancel_recurring"),
        ("cancella l'attività di backup delle foto", "cancel_recurring"),
        ("disattiva il task serale di pulizia", "toggle_recurring"),
        ("pause the sync task until friday", "toggle_recurring"),
        ("rilancia il backup delle foto", "run_now_recurring"),
        ("describe the 'photo sync' job", "show_recurring"),
        ("fammi vedere il «controllo prezzi» job", "show_recurring"),
        # A run asked for ahead of its time, or a job of the user's by its name run now.
        ("trigger the weekly digest now instead of waiting for sunday", "run_now_recurring"),
        ("kick off the backup now rather than waiting until tonight", "run_now_recurring"),
        ("puoi lanciare subito il report vendite invece di aspettare lunedì?", "run_now_recurring"),
        ("esegui il controllo scadenze adesso senza aspettare domani", "run_now_recurring"),
        ("please run the newsletter export job right away", "run_now_recurring"),
        ("avvia ora il job di fatturazione", "run_now_recurring"),
        # Periodic by the part of the day or the weekday it belongs to; asked about in detail.
        ("disattiva il promemoria delle 8", "toggle_recurring"),
        ("elimina il resoconto spese del venerdì", "cancel_recurring"),
        ("show me the details of the nightly backup", "show_recurring"),
        ("mostrami la configurazione del report settimanale", "show_recurring"),
    ],
)
def test_recurring_tasks_by_their_words(text, expected):
    assert tool(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "write me a monday motivation post",
        "my friday report is late, help me write an apology email",
        "cosa significa che un evento è ricorrente?",  # what a word means
        "is it worth backing up my phone every week?",  # an opinion asked
        "ho sentito che bisogna cambiare password ogni mese, è vero?",
    ],
)
def test_periods_and_recurrence_in_chat_are_no_task(text):
    assert tool(text) is None


@pytest.mark.parametrize(
    ("text", "bare"),
    [
        ("pause that job", True),
        ("elimina quel promemoria", True),
        ("ferma quell'attività automatica", True),
        ("show me the history of that task we discussed", True),
        ("pause the 'nightly-backup' job", False),
        ("pause that weekly report job", False),  # named by its period and subject
    ],
)
def test_a_recurring_task_by_a_demonstrative_alone_is_bare(text, bare):
    assert tool(text) is not None and tool(text).endswith("_recurring")
    assert own_objects.bare_task(fold(text)) is bare


@pytest.mark.parametrize(
    ("text", "bare"),
    [
        ("send it every monday", True),
        ("ripetilo ogni mattina", True),
        ("do that every day instead", True),
        ("send me the news headlines every monday", False),
        ("ogni mattina mandami il meteo", False),
        # A periodic task set up is a schedule; alone, it says nothing of what to do.
        ("create a weekly task that sums up my inbox", False),
        ("set up a nightly job that empties the tmp folder", False),
        ("crea un job settimanale che mi riassume le spese", False),
        ("aggiungi un promemoria mensile per pagare l'affitto", False),
        ("set up a daily job at 8", True),
        ("imposta un'attività giornaliera alle 9", True),
        ("programmalo per ogni lunedì", True),
        ("put that on every weekday", True),
        ("schedule a call with Anna for every Monday", False),
    ],
)
def test_a_schedule_with_nothing_to_do_is_bare(text, bare):
    assert tool(text) == "schedule_recurring"
    assert own_objects.bare_schedule(fold(text)) is bare


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("what's a good app for a to-do list?", None),  # one of many
        ("write a short story about my to-do list", None),  # the subject of a piece of writing
        ("which to-do list app works offline?", None),  # a kind of product
        ("aggiungi all'elenco attività: chiamare il dentista", "todo_update"),
        ("metti nella lista dei compiti il bucato", "todo_update"),
        ("add 'call the bank' to the to-do list", "todo_update"),
        ("which todo app is the best?", None),
        ("quale programma per gestire la lista delle cose da fare è migliore?", None),  # a product for lists
        ("go through the minutes and make the to-do list from them", None),  # a list made from what is read
        ("leggi il verbale e poi fai l'elenco delle cose da fare", None),
        ("fammi vedere la lista delle cose da fare", "todo_update"),
        ("show me my to-do list", "todo_update"),
        ("metti nella lista della sessione: comprare il pane", "todo_update"),  # the session's own list
        ("add 'call Bob' to this session's list", "todo_update"),
        ("riassumi la lista di questa sessione di allenamento", None),  # a training session's
        ("make a list of this session's main points", None),
    ],
)
def test_the_sessions_task_list_and_other_lists(text, expected):
    assert tool(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("what's the time complexity of quicksort?", None),  # "time" modifies a noun
        ("what's the time management method called pomodoro?", None),
        ("what's the time in Madrid?", "get_time"),
        ("what's the time now?", "get_time"),
        ("hand the test review to another agent", "run_task"),
        ("passa a un agente separato l'analisi dei log", "run_task"),
        ("can you recommend a good travel agent in Rome?", None),
        ("please do pip install requests", "run_shell"),
        ("could you do yarn build for me", "run_shell"),
        ("ls the downloads folder", "list_files"),
        ("ls src tests", "list_files"),
        ("ls -la src", "run_shell"),
        # Git: an order with a git verb on a repository or a branch, two git verbs, or Italian's own git verbs.
        ("commit and push please", "run_shell"),
        ("pull the latest changes from the repo", "run_shell"),
        ("merge the feature branch into main", "run_shell"),
        ("pusha tutto su master", "run_shell"),
        ("fai il commit delle modifiche", "run_shell"),
        ("clona il repository e poi lancia i test", "run_shell"),
        ("commit to a gym routine", None),
        ("I need to commit to pushing myself harder", None),
        ("push myself harder at the gym", None),
        ("write a commit message for these changes", None),
        ("fai un merge dei due paragrafi", None),
    ],
)
def test_time_subagents_commands_and_git(text, expected):
    assert tool(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "how did the beach cleanup go?",  # people's work, not a machine's
        "com'è andata la pulizia della cantina?",
        "my backup plan failed, what now?",
        "the backup of my life is my sister",
        "my cleanup job at the restaurant went well today",  # a job that is work for pay
        "write a poem about a backup that failed",  # a piece of writing
        "can you show me how a cron job for nightly photo backups would look?",  # one of a kind
        "what's the best backup strategy for photos?",
        "quando è girato il film?",  # filmed, not run
        "mark the backup task as done on my to-do list",  # an item of the task list
        "rilancia la palla a tuo fratello",
        "I ran the numbers and it works",
        "fai partire adesso la lavatrice invece di aspettare stasera",  # a machine at home
        "I'll start the report now instead of waiting till friday",  # the user's own work, not an order
        "should I run the backup now instead of waiting till friday?",  # advice asked
        "avvia la riunione adesso invece di aspettare Marco",
        "start the new job now",
        "run the job interview prep now",
        "start the print job now",  # a printer's job
        "elimina il riepilogo della riunione di lunedì",  # one Monday's meeting, not every Monday's
        "annulla la colazione del mattino",
        "show me the details of the weekly meeting",  # a meeting, not a task
        "fammi vedere il report settimanale",  # the report itself
    ],
)
def test_work_that_is_no_recurring_task(text):
    assert tool(text) in (None, "todo_update")


@pytest.mark.parametrize(
    ("text", "bare"),
    [
        ("sospendi quel job per due settimane", True),  # for how long, not which
        ("pause that reminder for now", True),
        ("stop that job for a few days", True),
        ("rerun it", True),
        ("lancialo di nuovo per favore", True),
        ("rieseguilo", True),
        ("pause that task for the photo backup", False),  # "for the …" tells which
        ("rilancia il backup notturno", False),
    ],
)
def test_a_task_paused_for_a_while_or_run_again_without_its_name_is_bare(text, bare):
    assert tool(text) is not None and tool(text).endswith("_recurring")
    assert own_objects.bare_task(fold(text)) is bare


# When is best, or a zone, is not the clock; a number that names something, or files that hold it, is no arithmetic.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("what time of day is best to run?", None),
        ("what's the best time to water tomatoes?", None),
        ("qual è il momento migliore per andare in Islanda?", None),
        ("a che ora è meglio andare a letto?", None),
        ("what time is it in Oslo? is it a good time to call?", "get_time"),
        ("is my tracking number 4412-0098 valid?", None),  # a number that names something
        ("call 555-210-4433 for me", None),
        ("quali file contengono 12-7?", None),  # files that hold something: a search
        ("what's 1200-350?", "compute"),
        ("quanto fa 90 - 45?", "compute"),
        ("which time zone does Chile use?", None),  # a fact about a place, not the clock
        ("what time zones does Russia span?", None),
        ("what time is it in Lisbon?", "get_time"),
        ("is a 4x4 worth it for snowy roads?", None),  # an expression after an article names a kind
        ("mi conviene un contratto 4+4 o un 3+2?", None),
        ("is it a 9-5 job?", None),
        ("what is the sum 4+4?", "compute"),
        ("quanto fa 3+2?", "compute"),
    ],
)
def test_advice_on_when_and_numbers_that_name_something(text, expected):
    assert tool(text) == expected

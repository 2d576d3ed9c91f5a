"""Tools' own objects, in English and Italian, for the route decision (planner/decision.py): a
URL, a subagent, a skill, recurring tasks and schedules, the agent's memory, the task list, a
shell command, a time or date question, arithmetic. Matched on the folded text."""

from __future__ import annotations

import re

from planner import expressions, object_kinds, units
from planner import own_words as W
from planner import own_words2 as W2
from planner import params as P
from planner.text import fold, whole

_SCHEDULE = whole(
    rf"(?:every|each) (?:other |second |single )?(?:{W.PERIODS_EN}|\d+ (?:minutes?|hours?|days?|weeks?|months?))|"
    r"daily at|weekly on|"
    rf"ogni (?:{W.PERIODS_IT}|\d+ (?:minuti|ore|giorni|settimane|mesi))|tutti i giorni|tutte le mattine|tutte le sere|"
    r"ogni (?:primo|ultimo|\d+) (?:giorno )?del mese|il primo di ogni mese|"
    r"(?:on )?the (?:first|last) (?:day )?of (?:every|each) month|"
    # A periodic task set up: "set up a daily job at 7 that …", «imposta un'attività giornaliera che …».
    r"(?:set ?up|create|add|make|schedule|start|imposta|crea|aggiungi|programma|pianifica|configura)\w* (?:me |mi )?"
    rf"(?:(?:an?|un|una|uno|the|il|la|lo|new|nuov[oa]|another|altr[oa]) )*(?:un'|l')?(?:{W.PERIODIC_TASK})"
)
_RECURRING = whole(
    r"recurring|ricorrent[ei]|scheduled tasks?|scheduled jobs?|attivita (?:pianificat|programmat)[ae]|"
    # "what reminders do I have set up?", «quali promemoria ho attivi?», "the water-plants reminder job".
    r"(?:what|which|quali|che) (?:reminders|promemoria)|"
    r"(?=[\w-]*[a-z])[a-z0-9]+(?:-[a-z0-9]+)+ (?:reminder )?(?:job|task)|"
    r"periodic tasks?|task (?:pianificat|programmat)[io]|"
    # "pause the weekly report job", "the friday timesheet reminder", «le attività automatiche».
    rf"{W.PERIODIC_TASK}|{W.AUTOMATIC_TASK}|"
    r"(?:storico|cronologia) delle esecuzioni|ultime esecuzioni|run history|"
    # A task by its name: "pause the 'daily-standup' task", «la configurazione del task 'report-settimanale'».
    # Not "a 9-5 job": a name has a letter.
    r"(?:task|job|attivita|promemoria) ['\"«]?(?=[\w-]*[a-z])[a-z0-9]+(?:-[a-z0-9]+)+|"
    r"(?=[\w-]*[a-z])[a-z0-9]+(?:-[a-z0-9]+)+['\"»]? (?:task|job)|"
    # Reminders that run by themselves: «i promemoria programmati», "the automatic reminders".
    r"(?:promemoria|reminders?) (?:programmat|pianificat|automatic|ricorrent)\w*|(?:automatic|scheduled) reminders?|"
    # «l'ultima esecuzione di backup-settimanale», "the last run of nightly-sync".
    r"(?:ultima|ultime|last) (?:esecuzion[ei]|runs?) (?:di|del|of|for) ['\"«]?[a-z0-9]+(?:-[a-z0-9]+)+"
)
# A task's own name, quoted or after the word: "'invoice-reminder'", "the job nightly-backup".
_NAMED_TASK = re.compile(
    r"['\"«](?=[\w-]*[a-z])[a-z0-9]+(?:-[a-z0-9]+)+['\"»]|\b(?:task|job) (?=[\w-]*[a-z])[a-z0-9]+(?:-[a-z0-9]+)+|"
    r"\b(?:task|job|attivita|reminder|promemoria) ['\"«][^'\"»\n]{2,40}['\"»]|"  # «l'attività 'backup settimanale'»
    r"['\"«][^'\"»\n]{2,40}['\"»] (?:(?:recurring|scheduled|ricorrente|programmat[oa]) )?(?:task|job)\b"  # "'x' task"
)
# All of them, or their list: «fammi vedere l'elenco dei task ricorrenti».
_ALL_OF_THEM = whole(
    r"all(?! of (?:it|this|that))|every|tutt[ie]|ogni|(?:my|your|i miei|le mie) (?:recurring|scheduled|ricorrent)|"
    r"elenco|list of|the list|la lista"
)
_RECURRING_VERBS = (
    (
        "cancel_recurring",
        whole(
            r"cancel|delete|remove|stop|kill|scrap|get rid of|"
            r"(?:cancella|elimina|rimuovi|ferma|annulla|togli)(?:lo|la|li|le)?"
        ),
    ),
    (
        "toggle_recurring",
        whole(
            r"pause|resume|disable|enable|turn (?:off|on)|switch (?:off|on)|metti in pausa|"
            r"(?:sospendi|riattiva|disattiva|attiva|spegni|accendi)(?:lo|la|li|le)?"
        ),
    ),
    (
        "run_now_recurring",
        whole(
            r"run now|right now|now|esegui ora|subito|adesso|lancia ora|fai partire|(?:rilancia|riesegui)\w*|re-?run"
        ),
    ),
    (
        "history_recurring",
        whole(
            r"history|runs|when did|last run|cronologia|storico|esecuzion[ei]|quando e|"
            r"how did (?:it|the|its) .{0,40}go|com'e andat[oa]|e andat[oa]|e girat[oa]|ha girato|"
            r"quante volte|how many times|how often (?:has|did|does)|did it (?:work|run|succeed|fail|go)|"
            r"(?:last )?ran|(?:ha|hanno) funzionato|(?:e|sono) (?:andat|fallit|partit)\w*|a buon fine"
        ),
    ),
    (
        "show_recurring",
        whole(
            r"show|details|detail|describe|mostra|dettagli|mostrami|prompt|(?:its|il suo) (?:schedule|orario)|"
            r"fammi vedere|configurazione|configuration|settings|impostazioni"
        ),
    ),
    ("list_recurring", whole(r"list|which|what|elenca|quali|quante|how many|lista")),
)
_TODO = whole(
    r"task list|todo list|to-do list|to do list|todos|my to-dos|my tasks|the tasks|"
    r"(?:lista|elenco) (?:(?:delle|dei|di|degli) )?(?:attivita|task|compiti|cose da fare)|i miei compiti|"
    r"mark (?:the )?\w+ (?:task|item) (?:as )?done|segna (?:il|la) \w+ (?:compito|attivita)|"
    r"(?:mark|check off|segna|spunta)\b.{0,40}\b(?:as )?(?:done|complete|completed|fatt[oaie]|completat[oaie]|"
    r"finit[oaie])|miei compiti|mia lista delle cose|cose da fare|"
    r"(?:tra|fra|nei|ai|coi|nella lista dei) (?:i )?(?:miei )?task\b|(?:to|in|on) my (?:task|todo)s?\b|"
    # The session's own list: «segna nella lista di questa sessione: …», "add it to this session's list".
    r"(?:lista|elenco|list) (?:di|della|per|for|of) (?:(?:questa|this|the|la) )?(?:sessione|session|chat)"
    r"(?!'s| (?:di|of|del|della|on|su|sul)\b)|"
    r"(?:this|the) (?:session|chat)'s (?:list|to-?do)"
)
# Command names that are not also words: a message may start with one ("ls -la", "git log").
_SHELL_COMMANDS = (
    r"ls|git|pytest|npm|pip|pip3|python3?|du|df|wc|docker|cargo|uname|whoami|pwd|uptime|yarn|pnpm|"
    r"go test|go build|ruff|mypy|tox"
)
# Commands that are also words ("make a new file", "free time"): only after run/execute.
_SHELL_WORDS = (
    r"make|node|tree|ps|free|env|cat|head|tail|echo|black|find|grep|sort|top|date|cal|hostname|who|id|touch|curl|"
    r"ping|tar|chmod|stat|which|history|nproc|printenv|jq|htop|lscpu|lsblk"
)
_RUN = r"\b(?:run|execute|esegui|lancia|launch)\s+(?:the\s+command\s+|il\s+comando\s+)?"
_SHELL = re.compile(
    rf"`[^`]+`|(?:^|{_RUN})(?:{_SHELL_COMMANDS})\b|{_RUN}(?:{_SHELL_WORDS})\b|"
    r"\b(?:run|esegui|lancia|launch|execute)\s+(?:the|i|gli)\s+(?:tests?|test suite|linter|build)\b|"
    r"\b(?:in|nel|from|dal)(?: the| il)? (?:shell|terminal|terminale)\b|\bshell command\b|\bcomando shell\b|"
    # A package or repository tool with its subcommand, wherever it stands: "can you do npm install".
    r"\b(?:npm|yarn|pnpm|pip3?|poetry|cargo|docker|brew|apt|apt-get|conda) (?:install|i|add|run|build|test|update|"
    r"upgrade|init|ci|start|uninstall|remove|publish|compose|exec|ps|images|logs|outdated|audit|list|freeze)\b|"
    r"\bgit (?:log|status|diff|branch|show|stash|blame|remote)\b|\bpip (?:list|freeze|show)\b|"
    # A command with its options, wherever it stands: «puoi fare un ls -la nella root?».
    rf"\b(?:{_SHELL_COMMANDS}|{_SHELL_WORDS})\s+--?[a-z]"
)
# "ls docs", "ls my documents folder": a folder listed, with no option and nothing piped.
_LS = re.compile(r"^\s*ls(?:\s+(?!-)[\w./~'-]+){0,4}\s*$")
_SUBAGENT = whole(
    r"sub-?agents?|sotto-?agent[ei]|sub-?agent[ei]|sub agent[ei]|delegate|delega(?:re)?|"
    r"background task|in background|in sottofondo|"
    # "another agent", «un agente separato», "hand the review to a separate agent".
    r"(?:another|a separate|separate|a dedicated|a second|a parallel|un altro|un secondo) (?:agent|assistant|worker)|"
    r"(?:agente|agenti|assistente) (?:separat|dedicat|parallel|autonom)\w*|"
    r"(?:affida|assegna|passa|hand|assign|pass|give)\w* (?:\S+ ){0,8}?(?:a|to) (?:an?|un|uno) "
    r"(?:(?:separate|dedicated|new|second|other|separato|dedicato|nuovo|altro) )?(?:agent|agente)"
)
_SKILL = re.compile(r"\bskills?\b")


# What a schedule may come with and still say nothing of what to do: "remind me every week",
# «ricordamelo ogni mattina alle 8».
_SCHEDULE_ONLY = re.compile(
    r"(?:\b(?:please|pls|can you|could you|remind|me|to|do|it|that|this|again|at|around|alle|verso|"
    r"ricordami|ricordamelo|ricordamela|ricorda|mi|di|farlo|farla|fallo|questo|quello|per favore|puoi|"
    r"la|le|lo|il|the|am|pm|h|ore|and|e|set up|a|an|un|una|reminder|promemoria|that|which|che|runs?|gira|"
    r"nudge|ping|notify|alert|avvisami|about|morning|afternoon|evening|mattina|pomeriggio|sera|instead|invece|"
    # A verb that carries no content: "send me that every week", «puoi ripeterlo ogni settimana?».
    r"send|make|repeat|run|set|switch|change|schedule|ripet\w*|mand\w*|invi\w*|rend\w*|fa(?:rlo|llo|lo|la|re)|"
    r"ancora|di nuovo|for|per|on|them|those|these|quelli|quelle|programm\w*|pianific\w*|impost\w*|"
    r"spost\w*|move|put|metti\w*)\b|"
    r"\d{1,2}(?:[:.]\d{2})?(?:am|pm)?|[\s,.!?])*"
)


# A recurring task spoken of with nothing to tell which: «annulla l'attività ricorrente».
_TASK_ONLY = re.compile(
    r"(?:\b(?:please|pls|can you|could you|puoi|potresti|per favore|the|that|this|my|l'|la|il|quel|quella|"
    r"questa|questo|mia|mio|one|recurring|scheduled|ricorrente|programmat[ao]|pianificat[ao]|task|job|"
    r"attivita|cancel|delete|remove|stop|pause|resume|disable|enable|show|annulla|cancella|elimina|rimuovi|"
    r"ferma|sospendi|riattiva|disattiva|mostra|mostrami)\b|[\s,.!?'])*"
)


def bare_task(folded: str) -> bool:
    """An operation on one recurring task that the request does not name: "cancel the recurring
    task", «sospendi l'attività programmata», "stop that task", «quante volte è andato quel job
    automatico?»."""
    if _NAMED_TASK.search(folded):
        return False
    if W.RERUN_BARE.fullmatch(folded) and W.RERUN_VERB.search(folded):
        return True  # «rilancialo», "run it again"
    return (bool(_RECURRING.search(folded)) and bool(_TASK_ONLY.fullmatch(folded))) or bool(W.THAT_TASK.search(folded))


def _by_its_work(folded: str) -> str | None:
    """The recurring-task tool for a task spoken of by the work it does ("cancel the cleanup job", «il
    job di pulizia dei log») or a run of such work ("did the backup run last night?"); not an item on
    the task list ("mark the backup task as done"), nor a request for advice."""
    if W.ADVICE.search(folded) or W.WRITING.search(folded) or _TODO.search(folded):
        return None

    def the_users(match: re.Match | None) -> bool:  # not "how a cron job would look": one of a kind
        return match is not None and not re.search(r"\b(?:an?|un|una|uno|un')\s*$", folded[: match.start()])

    if the_users(W.WORK_RUN.search(folded)):
        return next((name for name, pattern in _RECURRING_VERBS[:4] if pattern.search(folded)), "history_recurring")
    if the_users(W.WORK_TASK.search(folded)):
        return next((name for name, pattern in _RECURRING_VERBS if pattern.search(folded)), "list_recurring")
    return None


def bare_memory(folded: str) -> bool:
    """A memory verb on a pronoun, with nothing said of what to keep or drop: "remember that",
    "forget that", «ricordati questo», «cancellalo dalla memoria»."""
    return bool(W.MEMORY_VERB.search(folded)) and bool(W.BARE_MEMORY.fullmatch(folded))


def bare_object(folded: str, tool: str) -> bool:
    """The tool's own object only by a pronoun or a demonstrative that an earlier turn would have to
    tell: the memory (`bare_memory`), "load that skill we talked about", «segna come fatta quella cosa»."""
    if tool.startswith("memory_"):
        return bare_memory(folded)
    if tool == "skill_load":
        return bool(W.THAT_THING.search(folded)) and "skill" in folded and not _quoted_name(folded)
    if tool == "todo_update":
        return bool(W.THAT_THING.search(folded) or W.THAT_TASK.search(folded)) and not _quoted_name(folded)
    return False


def _quoted_name(folded: str) -> bool:
    return bool(re.search(r"['\"«][^'\"»\n]{2,}['\"»]", folded))


def bare_schedule(folded: str) -> bool:
    """A schedule with nothing said of what to do on it: "remind me every week"."""
    return bool(_SCHEDULE.search(folded)) and bool(_SCHEDULE_ONLY.fullmatch(_SCHEDULE.sub(" ", folded)))


def find(folded: str, extraction: P.Extraction, *, definition: bool) -> tuple[str, str, float] | None:
    """A tool's own object in the (folded) request: (tool, evidence, confidence), or None.
    `definition`: the request asks what something is ("what is a skill?"), not to act on it."""
    definition = definition or bool(W.MEANING.search(folded))  # «cosa vuol dire che un'attività è ricorrente?»
    opinion = folded.rstrip().endswith("?") and W.OPINION.search(folded)  # «… ogni mese, serve davvero?»
    if _SCHEDULE.search(folded) and not definition and not opinion:
        return "schedule_recurring", "a schedule", 0.9  # "every day at 7 fetch https://…": the schedule comes first
    types = {v.type for v in extraction.values}
    if "url" in types:
        return "get_urls", "a URL", 1.0
    if any(v.type == "path" and object_kinds.is_web_address(v.text) for v in extraction.values):
        return "get_urls", "a web address", 0.9
    if _SUBAGENT.search(folded):
        return "run_task", "a subagent", 0.9
    if _SKILL.search(folded) and not definition:
        return "skill_load", "a skill", 0.8
    named_task = _NAMED_TASK.search(folded)
    if _RECURRING.search(folded) and (not definition or named_task):  # not "how do I schedule a recurring …"
        tool = next((name for name, pattern in _RECURRING_VERBS if pattern.search(folded)), "list_recurring")
        if tool == "show_recurring" and _ALL_OF_THEM.search(folded):
            tool = "list_recurring"  # «fammi vedere tutte le attività ricorrenti»: all of them, not one
        return tool, "recurring tasks", 0.9
    if named_task and (tool := next((n for n, p in _RECURRING_VERBS[1:5] if p.search(folded)), None)):
        return tool, "a recurring task by its name", 0.8  # "when did 'invoice-reminder' last run?"
    early = W2.RUN_TASK.search(folded) and W2.AHEAD.search(folded)  # «… invece di aspettare venerdì»
    if (early or (W2.RUN_JOB.search(folded) and W2.NOW.search(folded))) and not definition:
        return "run_now_recurring", "a task run ahead of its time", 0.8  # "run the invoice job now"
    if (tool := _by_its_work(folded)) and not definition:
        return tool, "a recurring task by its work", 0.8  # "when did the backup task last run?"
    if W.RERUN_BARE.fullmatch(folded) and W.RERUN_VERB.search(folded):
        return "run_now_recurring", "a run again", 0.8  # «rilancialo»: `bare_task` asks which
    if W.git(folded) and not definition:
        return "run_shell", "a git command", 0.85  # "commit everything in notes-repo and push it"
    # «lancia subito il riepilogo giornaliero», "stop that task": an operation makes it a recurring task.
    operations = 4 if (W.PERIODIC.search(folded) or W2.PERIODIC_OF.search(folded)) and not definition else 0
    if operations and W2.DETAILS.search(folded) and W2.TASK_NOUN.search(folded):
        operations = 5  # «i dettagli del backup giornaliero»: the task's own, not the report it writes
    operations = 5 if W.THAT_TASK.search(folded) and not _TODO.search(folded) else operations
    operation = next((name for name, pattern in _RECURRING_VERBS[:operations] if pattern.search(folded)), None)
    if operation is not None:
        return operation, "a recurring task", 0.8
    if tool := _memory(folded, extraction):
        return tool, "the agent's memory", 0.9
    files = [v.text.rsplit(".", 1)[-1] for v in extraction.values if v.type == "path" and "." in v.text]
    if _session_list(folded) and not definition and not any(object_kinds.is_file_extension(e) for e in files):
        return "todo_update", "the task list", 0.85  # not «nel todo.md segnami come fatto …»: a file
    if _LS.match(folded):  # "ls docs": a folder listed, which needs no shell ("ls -la" and "run ls" do)
        return "list_files", "a folder listed", 0.85
    if _SHELL.search(folded) and not definition:
        return "run_shell", "a shell command", 0.85
    now = W2.TIME_NOW.search(W.TIME_ADVICE.sub(" ", folded))  # not «a che ora è meglio …»
    advice = W.TIME_ADVICE.search(folded) and not now  # "what time of year is best to visit Japan?"
    if W2.TIME.search(folded) and (not definition or now) and not W2.TIME_OF_EVENTS.search(folded) and not advice:
        # Not "how do websites know what time zone I'm in?": a question about how, not about now.
        return "get_time", "a time or date question", 0.9
    if units.conversion(folded):
        return "compute", "a unit conversion", 0.9  # "convert 5 miles to km", «quanti km sono 26 miglia?»
    if _arithmetic(folded, extraction):
        return "compute", "arithmetic", 0.9
    return None


def _memory(folded: str, extraction: P.Extraction) -> str | None:
    """The memory tool the request asks for, or None."""
    if W.CORRECTION_LABEL.match(folded):
        return "memory_replace"  # «correzione: il mio cane è un labrador»: the decision reads up to the colon
    device = W.DEVICE_MEMORY.search(folded) and not _OWNED.search(folded)  # «il pc mi dice memoria piena»
    if not device and W.CONSOLIDATE.search(folded):
        return "memory_consolidate"
    if W.REPLACE.search(folded) or (not device and W.CORRECTED.search(folded)) or _changed_fact(folded, extraction):
        return "memory_replace"
    return "memory_add" if W.ADD.search(folded) else None


_OWNED = whole(r"your|tua|tue|tuoi|about me|su di me|di me|sul mio conto")


def _changed_fact(folded: str, extraction: P.Extraction) -> bool:
    """A fact of the user's own said to have changed, or to have been kept wrong: "I don't work at
    Acme anymore", "my son is 7, not 6", «ora uso linux e non più windows», "you had it as Buster",
    "I moved from Leeds to York". Not a question or a request for advice ("I don't love my job
    anymore, any advice?"), a piece of writing, a state of mind, nor the user's files."""
    if any(v.type in ("path", "glob", "url", "ext") for v in extraction.values) or W.FILE_NOUNS.search(folded):
        return False
    if W.WRITING.search(folded) or W.MOOD.search(folded) or W.ADVICE.search(folded) or W.ACTION_FIRST.match(folded):
        return False
    if folded.rstrip().endswith("?") and not W.MEMORY_REQUEST.search(folded):
        return False
    if W.STORED_WRONG.search(folded) or W.LIFE_CHANGE.search(folded):
        return True
    if W.NO_LONGER_TRUE.search(folded) and W.SELF.search(folded):
        return True
    return bool(W.SELF_FACT.search(folded) and W.CONTRAST.search(folded))


def _session_list(folded: str) -> bool:
    """The session's task list, not "a to-do list", "the best to-do list app", "a poem about my to-do
    list": one of many, a kind of product, the subject of a piece of writing."""
    for match in _TODO.finditer(folded):
        before, after = folded[: match.start()], folded[match.end() :]
        if W.OTHER_LIST_BEFORE.search(before) or W.OTHER_LIST_AFTER.match(after) or W.WRITTEN_ABOUT.search(before):
            continue
        return True
    return False


def _arithmetic(folded: str, extraction: P.Extraction) -> bool:
    for value in extraction.values:
        if value.type in ("path", "url", "glob") and re.search(r"[a-z]", fold(value.text)):
            folded = folded.replace(fold(value.text), " ")  # "chapter2.txt", not "17*23"
    if W2.CONTAINS.search(folded) and W.FILE_NOUNS.search(folded):
        return False  # "do any of my documents contain 555-0192?": a search in files
    folded = W2.NOT_DATA.sub(" ", W2.NAMED_BY_NUMBERS.sub(" ", folded))  # not «in un 4+4» (a lease)
    numbers = len(W2.NUMBER.findall(folded))
    return bool(
        W2.ARITHMETIC.search(folded)
        or expressions.operation_verb(folded)  # "add 5 and 7", «sottrai 3 da 10»: as the cold path computes it
        or (numbers >= 1 and W2.MATH_WORDS.search(folded))
        or (numbers >= 2 and (W2.AGGREGATES.search(folded) or W2.AMOUNT.search(folded) or W2.PERCENT.search(folded)))
        or (numbers >= 2 and W2.RATE.search(folded) and "?" in folded)
    )

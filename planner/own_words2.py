"""Word classes for planner/own_objects.py, part two, in English and Italian, on the folded text: a time
or date question and what is not one, arithmetic over the numbers a request gives and numbers that
are no data, recurring tasks run ahead of their time or asked about in detail."""

from __future__ import annotations

import re

from planner.own_words import DAYS_IT
from planner.text import whole

# --- The clock -----------------------------------------------------------------------------------------

# A time or date question: "what time is it in Oslo?", «che giorno è oggi?».
TIME = whole(
    # Not "what time zone is Lisbon in?": a fact about a place, not the clock.
    r"what time(?! zones?\b)|"
    r"(?:what's|whats|what is) the time(?!\s+(?!(?:in|at|now|there|here|right|please|over|for|on|where|"
    r"zone|difference|adesso)\b)\w)|time is it|the time in|time now|current time|"
    r"what day is|what day of the week|what is today|what's today|whats today|today's date|todays date|"
    r"what date is|what's the date|whats the date|what is the date|date today|day is it|"
    r"che ore|che ora e|che ora e'|che ora sono|che giorno e|che giorno della settimana|che data e|"
    r"la data di oggi|ora attuale|ora esatta|che giorno sara|what day will|quanti ne abbiamo|"
    r"ore sono a|ora e a|ora a [a-z]|time in [a-z]|in che giorno siamo|che giorno siamo|"
    r"what week|which week|week of the year|week number|settimana dell'anno|che settimana|"
    r"how many (?:days|weeks|months|hours) (?:are )?(?:left )?(?:until|till|to|before)|how long until|"
    r"quanti (?:giorni|mesi|settimane) mancano|quanto manca (?:a|al|alla|allo|all'|ai|alle)|"
    r"is it (?:already |still )?(?:morning|evening|night|afternoon|daytime|late) in|"
    r"e (?:gia|ancora) (?:sera|mattina|notte|pomeriggio) a|"
    r"what month (?:is it|are we in)|which month (?:is it|are we in)|what year is it|what year are we in|"
    r"che mese e oggi|(?:in )?che mese siamo|(?:in )?che anno siamo|"
    r"(?:oggi|today) (?:e|is)(?: gia| ancora| already| still)? (?:lunedi|martedi|mercoledi|giovedi|venerdi|sabato|"
    r"domenica|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|is (?:it|today) (?:already |still )?"
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
)
# When something happens, not what time it is now: "what time does the sun set in summer?", «a che
# ora apre il museo?».
TIME_OF_EVENTS = whole(
    r"what time (?:does|do|did|will|would|should)|a che ora (?:tramonta|sorge|apre|chiude|parte|arriva)"
)
TIME_NOW = whole(
    r"time is it|che ore sono|che ora e|what day is it|che giorno e oggi|^(?:what's|whats|what is) the time\s*\??$"
)
# --- Arithmetic ----------------------------------------------------------------------------------------

ARITHMETIC = re.compile(
    r"\d\s*[-+*/x\u00d7\u00f7^]\s*\d|\d\s*%\s*(?:of|di|del|della)\s*\d|"
    r"\d\s+(?:per|times|diviso|plus|minus|piu|meno|divided by|multiplied by)\s+\d"
)
# On one number: "square root of 729", "calcola 3 alla quinta".
MATH_WORDS = whole(
    r"sqrt|square root|cube root|percent|percentage|power of|radice quadrata|radice cubica|radice|percentuale|"
    r"elevato|per cento|calculate|compute|calcola|calcolami|quanto fa|how much is|what is \d|what's \d|quanto e \d"
)
# Over several numbers: "mean of 3, 4 and 5", "the max of 12 and 30" (one number is a limit, not data).
AGGREGATES = whole(
    r"mean|average|avg|median|sum|total|product|media|mediana|somma|totale|prodotto|stdev|standard deviation|"
    r"deviazione standard|max|min|maximum|minimum|massimo|minimo|add up|adding up|sommami|sommi|largest|smallest|"
    r"biggest|lowest|highest"
)
# A question about an amount, over numbers the request gives: "how much each?", "quanto pago?".
AMOUNT = whole(
    r"how much (?:will|would|do|does|did|is|each|per|in total)|how much\?|each\?|per person|apiece|"
    r"quanto (?:pago|costa|costano|fa|viene|vengono|spendo|risparmio|resta|avro|ricevo|prendo|devo|spetta)|"
    r"a testa|ciascuno|a persona|in totale"
)
PERCENT = re.compile(r"\d\s*%")
# A rate over the amounts given: "… what's my consumption in litres per 100 km?", «quanti km al litro?».
RATE = whole(
    r"(?:per|every|ogni|al|all'|alla|a) (?:\d+ )?(?:km|kilomet\w+|miles?|hours?|litres?|liters?|gallons?|kg|"
    r"chilometri|chilometro|litr[oi]|ora|ore|kwh)"
)
# Numbers that are not data: a date, or digits inside a name ("chapter2.txt", "2024-05-board.md").
NOT_DATA = re.compile(
    r"\b\d{4}-\d{2}(?:-\d{2})?\b|\S*[a-wyz_]\d\S*|\S*\d[a-wyz_]\S*|"
    r"(?:\S+\s+){0,2}\*\s+\*(?:\s+\S+){0,3}|"  # a cron schedule: "0 8 * * 1-5"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|gen|mag|giu|lug|ago|set|ott|dic)[a-z]*\.?\s+"
    r"\d{1,2}\s*-\s*\d{1,2}\b|\b\d{1,2}\s*-\s*\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|"
    r"gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|novembre|dicembre)|"  # dates
    r"\b(?:lines?|righe|riga|pages?|pagine|pag\.?|esercizi|exercises|chapters?|capitoli)\s+\d+\s*-\s*\d+|"  # a range
    # A number that names something: "the phone number 555-0192", «il codice 12-345», "555-123-4567", "0039-06".
    r"\b(?:phone|telephone|tel|mobile|cell|fax|ticket|order|invoice|serial|account|tracking|reference|case|customer|"
    r"id|pin|zip|iban|numero (?:di |d')?(?:telefono|cellulare|ordine|fattura|pratica|conto|serie|cliente)|telefono|"
    r"cellulare|codice|ordine|fattura|pratica|conto|cap|matricola|seriale)"
    r"(?: (?:number|no\.?|num\.?|code|di telefono|di cellulare|d'ordine|n\.?))?\s*[:#]?\s*\+?\d[\d -]*\d|"
    r"\b\d+(?:-\d+){2,}\b|\b\d+-0\d+\b|\b0\d+-\d+\b"
)
# Whether files hold something is a search, whatever numbers it names: "do any of my documents contain 55-12?".
CONTAINS = whole(r"contains?|containing|mentions?|conten\w*|contien\w*|menzion\w*")
NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?")
# An expression after an article names a kind of thing, not a sum: «in un 4+4» (a lease), "a 4x4",
# «il 3+2» (a degree), "a 50/50 split", "a 9-5 job", «il 4/5» (a date).
# «un contratto 4+4» too, but not "the sum 4+4": a word of arithmetic names the operation itself.
_MATH_NOUN = (
    r"(?:sum|total|difference|quotient|expression|result|product|calculation|operation|equation|formula|answer|"
    r"addition|subtraction|multiplication|division|somma|totale|differenza|quoziente|espressione|risultato|prodotto|"
    r"calcolo|operazione|equazione|conto|addizione|sottrazione|moltiplicazione|divisione)"
)
NAMED_BY_NUMBERS = re.compile(
    rf"\b(?:an?|the|un|una|uno|il|lo|la|del|dello|della|nel|nello|nella|col)\s+(?:(?!{_MATH_NOUN}\b)[a-z]+\s+)?"
    r"\d+\s*[-+x/]\s*\d+\b(?!\s*[-+*/x=^]\s*\d)"
)

# --- Recurring tasks run ahead of their time, or asked about in detail ------------------------------------

# What runs on a schedule, by its noun: "the invoice check job", «il controllo fatture», «il riepilogo
# notizie»; not a machine at home («la lavatrice») nor a person's chore.
TASK_NOUN = whole(
    r"jobs?|tasks?|checks?|reports?|summary|summaries|digests?|reminders?|newsletters?|recaps?|briefings?|"
    r"roundups?|backups?|syncs?|cleanups?|scans?|alerts?|attivita|controll[oi]|riepilog(?:o|hi)|resocont[oi]|"
    r"promemoria|notiziari?o?|sommari?o?|rapport[oi]|rassegna|avvis[oi]|scansion[ei]|verific[ah]e?|sincronizzazione"
)
# Jobs that are no recurring task: a printer's, a build server's.
_OTHER_JOB = r"(?:print|printing|stampa|build|ci|test|tests|deploy|pipeline)"
# A run asked for as an order: "run …", «fai partire …», "can you trigger …".
_ORDER = (
    r"(?:^|[,.;:!?]\s*|\b(?:please|pls|can you|could you|would you|just|now|then|and|puoi|potresti|per favore|ora|"
    r"adesso|poi|e)\s+)"
)
_RUN = (
    r"(?:run|launch|trigger|start|kick off|fire off|fire|execute|(?:esegui|lancia|avvia)(?:re|mi)?|"
    r"(?:fai|fare|far|fallo|falla) (?:partire|girare))"
)
_WORDS = rf"(?:\s+(?!{_OTHER_JOB}\b)\S+){{0,6}}?"
RUN_TASK = re.compile(rf"{_ORDER}{_RUN}\b{_WORDS}\s+{TASK_NOUN.pattern}(?! lists?\b)")
# A job of the user's by its name, run: "run the invoice check job now", «avvia ora il job di fatturazione»;
# not "start the new job", "run the job interview prep".
_NOT_WORK = rf"(?:new|old|next|first|last|dream|side|summer|day|part-time|full-time|odd|{_OTHER_JOB})"
_NOT_TASK = r"(?:interviews?|applications?|offers?|hunt|search|posting|description|title|market|fair)"
RUN_JOB = re.compile(
    rf"{_ORDER}{_RUN}\b{_WORDS}\s+(?:(?:the|my|our) (?!{_NOT_WORK}\b)\w+(?: \w+)? (?:jobs?|tasks?)|"
    rf"(?:il|lo|l'|i) ?(?:job|task|attivita) (?:di|del|della|dello|dei|delle|per) \w+)(?! {_NOT_TASK}\b)"
)
# Ahead of its time: "instead of waiting till friday", «invece di aspettare venerdì», "ahead of schedule".
AHEAD = whole(
    r"(?:instead of|rather than|without) waiting|(?:invece di|anziche|senza) aspettare|ahead of (?:schedule|time)|"
    r"before (?:its|the) (?:usual|scheduled|normal) time|fuori programma|prima (?:dell'orario|del previsto|del solito)"
)
NOW = whole(r"now|right now|right away|immediately|at once|subito|adesso|ora|immediatamente")

# A periodic thing by the part of day or the weekday it belongs to: «il riepilogo notizie del mattino», «il
# promemoria delle 8», «il controllo del lunedì» (of every Monday; «di lunedì» is one Monday's).
_PLAIN_WORD = r"(?:(?!(?:del|della|dello|dei|delle|di|da|per|su|sul|sulla)\b)\w+ )"
PERIODIC_OF = re.compile(
    r"\b(?:riepilogo|report|resoconto|promemoria|backup|digest|sommario|rapporto|notiziario|controllo|briefing|"
    rf"rassegna|avviso|newsletter) {_PLAIN_WORD}?(?:del|della|dello|delle) "
    rf"(?:mattino|mattina|sera|pomeriggio|notte|mezzogiorno|weekend|fine settimana|fine mese|{DAYS_IT}|"
    r"\d{1,2}(?:[:.]\d{2})?)\b"
)
# What a task is asked about in detail: "the details of …", «la configurazione del …».
DETAILS = whole(
    r"(?:details?|configuration|settings|setup|set-up|dettagli|configurazione|impostazioni) "
    r"(?:of|for|about|on|del|della|dello|dei|delle|di|sul|sulla)"
)

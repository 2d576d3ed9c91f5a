"""Word classes for planner/own_objects.py, in English and Italian, on the folded text: the agent's
memory and what it keeps about the user, a personal fact said to have changed, recurring tasks
spoken of by their period or their work, a demonstrative that names no object, a to-do list that is
not the session's, advice on when (not the clock), a git order."""

from __future__ import annotations

import re

from planner.text import whole

# --- The agent's memory ---------------------------------------------------------------------------

# Memory that is a machine's or a person's, not the agent's: «il pc mi dice memoria piena», "a memory
# leak", "the RAM", «ho una memoria da pesce rosso».
DEVICE_MEMORY = whole(
    r"pc|computer|laptop|phone|telefono|cellulare|smartphone|iphone|android|mac|ram|gpu|disk|disco|ssd|server|"
    r"browser|chrome|brain|cervello|"
    r"memor(?:y|ia) (?:leak|usage|full|card|stick|limit|size|allocation|management|footprint|settings|"
    r"piena|libera|occupata|esterna|interna|a lungo termine|a breve termine)|long-term memory|short-term memory|"
    r"(?:my|mia|una|a) memor(?:y|ia)"
)
# The agent's memory by its noun, owned or placed ("your memories", «nella tua memoria», «compatta la
# memoria», "MEMORY.md"); not "my memory", not "in memory of".
MEMORY_NOUN = (
    r"(?:(?:your|the|la|le|tua|tue|nella|dalla|alla|della|sulla|nelle|dalle|in|into|from|to)\s+"
    r"(?:(?!my\b|mia\b|mio\b|mie\b)[\w.]+\s+)?memor(?:y|ies|ia|ie)\b(?!\s+(?:of|di)\b)|memory\.md)"
)
# What the agent keeps about the user, in other words: "what you know about me", "the facts you have
# stored about me", «quello che sai di me», «i ricordi che hai su di me».
_KNOWN = r"(?:know|remember(?:ed)?|saved|stored|noted|kept|got|wrote|have)"
_ITEMS_EN = r"(?:facts?|things?|stuff|info|information|notes|details|entries)"
_ITEMS_IT = r"(?:cose|fatti|informazioni|ricordi|note|dati|appunti)"
KEPT = (
    rf"(?:{MEMORY_NOUN}|"
    rf"(?:what|everything|anything|all|(?:the |that |those )?(?:\w+ )?{_ITEMS_EN}) (?:that )?you(?:'ve| have| had)? "
    rf"{_KNOWN}(?: down)?(?: (?:about|on|of) me)?|"
    r"your notes (?:about|on) me|i tuoi appunti su di me|"
    r"(?:cio|quello|quel|cosa|tutto quello|tutto cio|le cose|i fatti|le informazioni|i ricordi|le note|i dati) che "
    r"(?:sai|ricordi|conosci|hai (?:memorizzat|salvat|segnat|annotat|registrat|archiviat)\w*)"
    r"(?: (?:su|di) (?:di )?me| sul mio conto)?|"
    rf"{_ITEMS_IT} (?:che hai (?:\w+ )?)?(?:su di me|sul mio conto|di me))"
)
# A verb that changes or removes what is kept.
CHANGE = (
    r"(?:update|change|correct|fix|edit|replace|overwrite|amend|swap|delete|remove|erase|scratch|wipe|drop|clear|"
    r"aggiorna|cambia|correggi|modifica|sostituisci|sovrascrivi|rettifica|cancella|elimina|togli|rimuovi|azzera)\w*"
)
# A verb that tidies what is kept, or the mess it is in: "dedupe", «fai un po' d'ordine», «doppioni».
TIDY = (
    r"(?:tidy|clean|consolidate|compact|reorgani[sz]e|organi[sz]e|dedupe|de-dupe|deduplicate|merge|sort out|"
    r"streamline|duplicat|riordina|pulisci|pulizia|compatta|consolida|riorganizza|organizza|unisci|sistema|"
    r"sistemata|ordine|doppioni|ripetut|snellisci)\w*"
)
CONSOLIDATE = re.compile(rf"\b{TIDY}\b.{{0,80}}\b{KEPT}|\b{KEPT}.{{0,80}}\b{TIDY}\b")
CORRECTED = re.compile(
    rf"\b{CHANGE}\b.{{0,60}}\b{KEPT}|\b{KEPT}\b.{{0,60}}\b{CHANGE}\b|"
    r"\byou(?:.ve| have)? (?:got|remembered|saved|stored|noted|written|have) my (?:\S+ ){0,3}wrong\b|"
    r"\bhai (?:capito|memorizzato|ricordato|segnato|salvato|scritto|annotato) (?:male|sbagliat[oa]) "
    r"(?:il|la|i|le|l')? ?mi[oaei]\b|"
    r"\bhai (?:capito|memorizzato|ricordato|segnato|salvato|scritto|annotato) (?:il|la|i|le|l')? ?mi[oaei] "
    r"(?:\S+ ){0,3}?(?:male|sbagliat[oaie])\b|"
    r"\bricordi male\b|"
    r"\b(?:forget|scordati|dimentica|dimenticati) (?:what|everything|all|anything|quello|quanto|tutto|cio) "
    r"(?:\S+ ){0,6}?(?:told you|said|know|sai|ti ho detto|detto|ricordi) "
    r"(?:about|of|on|su|sul|sulla|sui|del|della|di)\b"
)
REPLACE = whole(
    r"forget that|dimentica che|dimenticati che|update (?:what you remember|your memory)|"
    r"change (?:what you remember|in your memory)|correct your memory|"
    r"aggiorna (?:la tua memoria|cio che ricordi)|correggi (?:nella|la) (?:tua )?memoria|"
    r"non e piu vero che|no longer true that|update what you know|"
    r"aggiorna (?:quello|cio|cosa) che sai|update (?:that|this|it) in your memory|"
    r"aggiornalo nella (?:tua )?memoria"
)
# A correction given as a label before the corrected fact («correzione: il mio cane è un labrador»);
# the route decision reads only the words before such a colon.
CORRECTION_LABEL = re.compile(
    r"^\W*(?:(?:a |one |small |quick |piccola |una )?(?:correction|correzione|rettifica))\W*$"
)
ADD = whole(
    r"remember that|remember my|remember i|please remember|don't forget that|dont forget that|note that i|"
    r"memorize|memorizza|segnati che|non dimenticare che|"
    # Italian «ricorda/ricordati (anche) che», «voglio che ti ricordi che».
    r"ricorda(?:ti)? (?:(?:anche|pure|sempre|bene|per favore) )?che|(?:voglio|vorrei|desidero|mi piacerebbe) che "
    r"(?:tu )?ti ricord(?:i|assi) (?:(?:anche|pure|sempre|bene) )?che|ricorda il mio|ricorda la mia|ricordati il|"
    r"ricordati (?:questo|quello|questa|quella)|ricordatelo|ricordatela|remember this|"
    # "keep in mind", "keep that in mind for next time", «tienilo presente».
    r"(?:keep|bear) (?:that |this |it )?in mind|tieni(?:lo|la)? (?:a mente|presente)|"
    r"remember (?:that|this|it) for (?:the future|next time|later)|"
    # Said for the conversations to come: "note for future chats", «per le prossime volte».
    r"(?:for|in) (?:(?:all|the|my|our) )?(?:future|next|later) (?:chats?|conversations?|sessions?)|"
    r"(?:per|nelle) (?:le |i )?(?:prossime|future) (?:volte|conversazioni|chat|sessioni)|"
    r"per (?:la prossima volta|il futuro)|for (?:next time|future reference|the future)"
)
# «ricordati questo», "forget that", «cancellalo dalla memoria»: a memory verb on a pronoun, nothing
# said of what to keep or drop.
MEMORY_VERB = whole(
    r"remember|forget|memori[sz]e|note|save|store|keep|delete|remove|erase|"
    r"(?:ricorda|dimentica|scorda|memorizza|salva|segna|cancella|elimina|togli|rimuovi|annota)"
    r"(?:ti|telo|tela|lo|la|li|le|melo|mela)?|tienilo|tienila|tieni"
)
BARE_MEMORY = re.compile(
    r"(?:\b(?:please|pls|can you|could you|puoi|potresti|per favore|ok|okay|and|also|e|anche|pure|just|solo|"
    r"that|this|it|questo|quello|questa|quella|"
    r"for me|for later|for the future|for next time|in mind|a mente|presente|per il futuro|per la prossima volta|"
    r"from|in|into|to|da|dalla|nella|alla|your|tua|the|la|memory|memoria|memorie)\b|"
    rf"{MEMORY_VERB.pattern}|[\s,.!?'])*"
)

# --- A personal fact said to have changed ------------------------------------------------------------

# The user speaking of a fact of their own: "my son is", "I'm at", "I don't work", «mia moglie si
# chiama», «non lavoro più», «ora uso» (Italian drops the subject: a first-person verb opening a clause).
_LIFE_VERBS_EN = (
    r"live|work|use|go by|eat|drink|prefer|own|drive|study|speak|wear|teach|play|support|follow|smoke|"
    r"run|train|date|rent|commute"
)
_LIFE_VERBS_IT = (
    r"sono|sto|lavoro|abito|vivo|uso|mangio|bevo|preferisco|possiedo|guido|studio|parlo|porto|faccio|tifo|"
    r"seguo|gioco|insegno|fumo|mi chiamo|mi faccio chiamare|corro|affitto"
)
SELF_FACT = re.compile(
    r"\b(?:my|mio|mia|miei|mie)\b (?:\S+ ){0,3}?"
    r"(?:is|are|was|were|has|e|sono|ha|non si chiama|si chiama|si chiamano)\b|"
    r"\bi(?:'m| am) (?!(?:not |no longer |really |so |just )?(?:\w+ing|sure|certain|ok|okay|fine|afraid|sorry|"
    r"glad|happy|unhappy|sad|tired|ready|bored|worried|scared|angry|lonely|stressed|confused)\b)|"
    rf"\bi (?:now |also |still |no longer |don't |do not |dont |never |only )?(?:{_LIFE_VERBS_EN})\b|"
    r"(?:^|[,;:.!]\s*|\b(?:io|ora|adesso|ormai|oggi|non|ma|pero|quindi|invece|anche|e)\s+)(?:non\s+)?(?:piu\s+)?"
    rf"(?:{_LIFE_VERBS_IT})\b(?!\s+\w+(?:ando|endo)\b)"
)
# A contrast with what was so before: "anymore", "instead of", ", not Giulia", «non più», «al posto di»,
# «non si chiama Luca ma Lucio».
CONTRAST = re.compile(
    r"\b(?:anymore|any more|no longer|instead of|rather than|non piu|invece di|invece che|"
    r"al posto (?:di|del|della|dello|dei|delle|degli))\b|"
    r"(?:,|;|\band\b|\be\b)\s+(?:not|non)\s+(?:(?:a|an|the|un|una|uno|il|la|lo|l'|i|le|gli|in|at|da|nel|nella|"
    r"nelle|nei|alle|alla|al|more|piu)\s+)*[\w'.-]+\s*(?:[.!;,]|$)|"
    r"\bnon (?:\S+ ){1,3}?ma\b|\bnot (?:\S+ ){1,3}?but\b|"
    r"\bnon (?:(?:mi|ti|ci|si|lo|la|ne) )?\w+ piu\b"  # «non lavoro più da Fastweb», «non mi chiamo più»
)
# What the agent kept, said to be wrong or outdated: "you had it as Buster", «l'avevi segnato
# sbagliato», «il numero che ti avevo dato era sbagliato», «prima ti avevo detto che…, adesso…».
STORED_WRONG = re.compile(
    r"\byou (?:had|have|wrote|saved|stored|noted|put|got) (?:(?:it|that|me|him|her|them|this) )?(?:down )?as\b|"
    r"\b(?:l'|lo |la |li |le )?avevi (?:segnat|scritt|salvat|memorizzat|capit|annotat|registrat)\w* "
    r"(?:male|sbagliat\w*|in modo sbagliato)|"
    r"\b(?:ti avevo|ti ho) (?:detto|dato|scritto|indicato|comunicato)\b.{0,80}?\b(?:era|e|erano|sono) "
    r"(?:sbagliat|errat|vecchi|superat)\w*|"
    r"\b(?:ti avevo detto|ti ho detto|avevo detto) che\b.{0,80}?\b(?:adesso|ora|invece|ma ora|non piu)\b|"
    r"\bi (?:told|gave) you\b.{0,80}?\b(?:was|is|were) (?:wrong|incorrect|outdated)\b|"
    r"\bi (?:had )?(?:told|said to) you (?:before |earlier |once )?that\b.{0,80}?\b(?:but now|now|instead|anymore)\b"
)
# A fact of the user's that no longer holds: "not true anymore", «non è più vero».
NO_LONGER_TRUE = re.compile(
    r"\b(?:not|isn't|is not|no longer) (?:true|right|correct|valid|the case)(?: anymore| any more)?\b|"
    r"\bnon (?:e )?piu (?:vero|valid[oa]|cosi)\b|\bnon vale piu\b"
)
SELF = whole(r"me|my|i|i'm|mio|mia|miei|mie|di me")
# A change of the user's life that replaces a kept fact: "I moved from Berlin to Munich", «mi sono
# trasferito», «ho cambiato team», "I changed jobs".
_PERSONAL_NOUNS = (
    r"jobs?|teams?|companies|company|employers?|departments?|roles?|careers?|names?|surname|last name|address|"
    r"(?:phone )?number|email|city|diet|"
    r"lavoro|team|squadra|azienda|reparto|ruolo|nome|cognome|indirizzo|numero|email|citta|casa|dieta|ufficio"
)
LIFE_CHANGE = re.compile(
    r"\bi(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated|switched|transferred) (?:house |back )?"
    r"(?:from|to|out)\b|"
    rf"\bi(?:'ve| have)? (?:just |recently )?(?:changed|switched) (?:my )?(?:{_PERSONAL_NOUNS})\b|"
    r"\bmi sono (?:appena )?(?:trasferit|spostat)\w* (?:da|a|in)\b|\bho (?:appena )?traslocato\b|"
    r"\bsono (?:appena )?passat[oa] da\b|"
    rf"\bho (?:appena )?cambiato (?:(?:il|la|lo|di) )?(?:{_PERSONAL_NOUNS})\b"
)
# What keeps such words from being a fact to keep: a question or a request for advice, a piece of
# writing asked for, a state of mind ("I'm not sure anymore"), the user's files.
ADVICE = whole(
    r"advice|consigl\w*|suggest\w*|what should|what do you (?:think|suggest|recommend)|che ne pensi|"
    r"cosa (?:dovrei|devo) fare|how (?:do|can|should) i|come (?:faccio|posso|dovrei)|help me|aiutami|any tips|"
    r"any ideas|idee"
)
MEMORY_REQUEST = whole(
    r"update|change|fix|correct|note|remember|aggiorna\w*|cambia\w*|correggi\w*|segna\w*|ricorda\w*|annota\w*"
)
WRITING = re.compile(
    r"^(?:\W*[\w']+\W+){0,3}?(?:write|compose|draft|rewrite|translate|summari[sz]e|reword|rephrase|"
    r"make this|turn this|scrivi\w*|componi|riscrivi|traduci|riassumi|rendi|riformula)\b|"
    r"\b(?:write|draft|compose|prepare|scrivi\w*|prepara\w*|componi)\b (?:\S+ ){0,3}?(?:e-?mail|mail|letter|lettera|"
    r"message|messaggio|post|poem|poesia|tweet|speech|discorso|card|biglietto)\b"
)
# An order on the user's things first: "remove those, I don't use them anymore" is not a fact.
ACTION_FIRST = re.compile(
    r"(?:please |can you |could you |puoi |potresti )?(?:delete|remove|erase|move|copy|rename|archive|trash|"
    r"elimina|cancella|rimuovi|sposta|copia|rinomina|archivia|butta)\w*\b"
)
MOOD = re.compile(
    r"\b(?:not|non) (?:so |lo so |sono )?(?:sure|certain|sicur[oa]|convint[oa])\b|\bdon'?t know\b|"
    r"\bnon (?:lo )?so\b|\bce la faccio\b|\bne posso piu\b|\bin the mood\b|\bin vena\b|"
    r"\bsono (?:(?:molto|cosi|un po'?|troppo|davvero) )?(?:stanc|trist|felic|stressat|annoiat|preoccupat|arrabbiat|"
    r"confus|depress|giu\b)"
)
FILE_NOUNS = whole(
    r"files?|folders?|director(?:y|ies)|cartell[ae]|documents?|documenti|lines?|righe|riga|scripts?|code|codice"
)

# --- Recurring tasks ----------------------------------------------------------------------------------

DAYS_EN = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
DAYS_IT = r"lunedi|martedi|mercoledi|giovedi|venerdi|sabato|domenica"
PERIODS_EN = rf"day|morning|evening|night|afternoon|week|weekday|weekend|month|year|hour|quarter|{DAYS_EN}"
PERIODS_IT = rf"giorno|mattina|sera|notte|pomeriggio|settimana|mese|anno|ora|weekend|fine settimana|{DAYS_IT}"
# The task a period names: "the monday summary job", "the friday timesheet reminder".
PERIODIC_TASK = (
    rf"(?:daily|weekly|monthly|nightly|hourly|morning|evening|yearly|annual|{DAYS_EN}) (?:[\w-]+ ){{0,2}}"
    r"(?:job|task|reminder)s?(?! list)|"
    rf"(?:promemoria|task|job|attivita|controllo|backup|report|riepilogo) (?:del |di |della )?(?:{DAYS_IT})|"
    # Italian puts the period after the noun: «il job notturno», «un'attività giornaliera».
    r"(?:job|task|attivita|promemoria)s? (?:\w+ )?(?:giornalier|quotidian|settimanal|mensil|notturn|mattutin|"
    r"serale|serali|orari|annual)\w*"
)
# Work that a machine does on a schedule: "the backup", «la pulizia dei log», "the nightly sync"; not
# "a backup plan", "the backup singer".
_NOT_WORK = r"(?! (?:plans?|singers?|dancers?|generators?|batter(?:y|ies)|options?)\b)"
MACHINE_WORK = (
    r"(?:backup|back-up|sync|synchroni[sz]ation|sincronizzazione|cleanup|clean-up|pulizia|export|cron|cronjob|"
    rf"archiviazione|polling|scraping)s?{_NOT_WORK}"
)
# Work that only a machine does, whose outcome ("did the backup work?") is a run's: not "the beach
# cleanup went well", «com'è andata la pulizia di casa?».
_JOB = r"(?:tasks?|jobs?(?! (?:at|with|in) (?:the|an?|my|our)\b))"  # not "my cleanup job at the restaurant"
_MACHINE_ONLY = rf"(?:backup|back-up|sync|sincronizzazione|cron|cronjob)s?{_NOT_WORK}|{MACHINE_WORK} {_JOB}"
# A task spoken of by the work it does: "the backup task", "the cleanup job", «il job di pulizia dei
# log», «l'attività di backup».
WORK_TASK = whole(
    rf"{MACHINE_WORK} (?:\w+ )?{_JOB}|"
    r"(?:task|job|attivita)s? (?:\w+ )?(?:di|del|della|dei|delle|per|per il|per la|of|for|for the) "
    rf"(?:\w+ )?{MACHINE_WORK}"
)
_RAN = r"(?:last )?(?:ran|run|runs|fired)"
_OUTCOME = r"(?:went|succeeded|failed|completed|finished|worked|go|work|fail|succeed)"
_AUX_IT = r"(?:e|ha|sono|hanno|non e|non ha) (?:\S+ )?"
_RAN_IT = rf"{_AUX_IT}(?:girat|partit|eseguit)\w*"
_OUTCOME_IT = rf"{_AUX_IT}(?:fallit|andat|terminat|completat|funzionat)\w*"
_RERUN = r"(?:rilancia|riesegui|rerun|re-run|restart|riavvia|rifai partire)\w*"
_WORDS = r"(?: (?!and\b|e\b)\S+){0,3}?"
_AT = r"(?<![\w./-])"  # a word of its own, not "logs/backup-2024-03.log"
# A run of such work: "when did the backup task last run", "did the sync run last night?", «quando è
# girato l'ultima volta il backup», «il backup di stanotte è andato a buon fine?», «rilancia il backup».
WORK_RUN = re.compile(
    rf"{_AT}{MACHINE_WORK}(?: (?:task|job)s?)?{_WORDS} {_RAN}\b|{_AT}(?:{_MACHINE_ONLY}){_WORDS} {_OUTCOME}\b|"
    rf"\b{_RAN_IT}\b.{{0,40}}{_AT}{MACHINE_WORK}\b|{_AT}{MACHINE_WORK}\b.{{0,40}}\b{_RAN_IT}\b|"
    rf"\b{_OUTCOME_IT}\b.{{0,40}}{_AT}(?:{_MACHINE_ONLY})\b|{_AT}(?:{_MACHINE_ONLY})\b.{{0,40}}\b{_OUTCOME_IT}\b|"
    rf"\b{_RERUN} (?:(?:the|il|la|lo|l'|i|le|that|quel|quella) ?)?{MACHINE_WORK}\b"
)
# Re-running with nothing said of what: "rerun it", «rilancialo», "run it again", «lancialo di nuovo».
RERUN_BARE = re.compile(
    r"(?:\b(?:please|pls|can you|could you|puoi|potresti|per favore|ok|okay|now|ora|adesso|subito|just|solo|"
    r"it|that|this|one|lo|la|quello|quella|again|di nuovo|ancora|ancora una volta|once more|"
    r"rilancia(?:lo|la|li|le)?|riesegui(?:lo|la|li|le)?|rerun|re-run|run|lancia(?:lo|la)|esegui(?:lo|la)|"
    r"fa(?:llo|lla) ripartire|rifallo|rifalla|fallo girare|falla girare|start it over)\b|[\s,.!?'])*"
)
RERUN_VERB = re.compile(
    r"\b(?:rilancia|riesegui)\w*|\b(?:rerun|re-run)\b|\b(?:run|lancia|esegui|start)\w* (?:it|that|this|lo|la)? ?"
    r"(?:again|di nuovo|ancora|over)\b|\b(?:rilancia|riesegui|lancia|esegui)(?:lo|la|li|le)\b"
)
# Tasks that run by themselves: «le attività automatiche», «quella cosa automatica», "automated jobs".
AUTOMATIC_TASK = (
    r"(?:attivita|task|job|cos[ae]|lavor[oi]|processi|routine|promemoria|compiti|operazioni) (?:\w+ )?automatic\w*|"
    r"automat(?:ic|ed) (?:tasks?|jobs?|reminders?|routines?)"
)
# Something that runs on a period, which only an operation on it makes a recurring task.
PERIODIC = whole(
    r"(?:daily|weekly|monthly|nightly|hourly|morning) [\w-]+|"
    rf"(?:{DAYS_EN}) (?:summary|report|digest|backup|check|reminder|newsletter|recap)|"
    r"(?:riepilogo|report|resoconto|promemoria|backup|digest|sommario|rapporto|notiziario|controllo)"
    r" (?:\w+ )?(?:giornalier|quotidian|settimanal|mensil|notturn|mattutin|serale)\w*"
)
# When is best, not what time it is: "what time of year is best to visit Japan?", «qual è l'ora migliore
# per correre?».
TIME_ADVICE = whole(
    r"what time of|(?:the )?time of (?:the )?(?:year|day|month|week|season)|what time (?:is|would be) (?:the )?"
    r"(?:best|better|ideal|good|right)|(?:best|ideal|good|right|better|optimal|worst) time|"
    r"(?:che|quale|in che) (?:ora|ore|periodo|momento|mese|stagione) (?:del|dell'|della) (?:giorno|anno|giornata|"
    r"mese|settimana)|(?:ora|ore|momento|periodo|orario|stagione) (?:migliore|migliori|ideale|giusto|piu adatt\w*)|"
    r"(?:a )?che ora (?:e meglio|conviene|e consigliabile|dovrei|devo)"
)
# A question of opinion about doing something on a period: «bisognerebbe fare pulizia ogni mese,
# serve davvero?», "should I back up every week?".
OPINION = whole(
    r"bisognerebbe|si dovrebbe|dovrei|dovremmo|serve davvero|serve a qualcosa|ha senso|vale la pena|conviene|"
    r"e necessario|e meglio|e utile|"
    r"is (?:it|that|this) (?:worth|necessary|useful|a good idea|better|bad|good|healthy|normal)|"
    r"should (?:i|you|we|one|people)|do i (?:really )?need to|does it make sense|i read that|i heard that|"
    r"ho letto che|ho sentito che"
)
# A question about what a word means, which asks for no tool: «cosa vuol dire che un'attività è
# ricorrente?», "what does recurring mean?".
MEANING = whole(
    r"cosa vuol dire|che vuol dire|cosa significa|che significa|cosa si intende|what does .{1,40} mean|"
    r"what do you mean by|meaning of|significato di"
)

# --- A demonstrative that names no object -------------------------------------------------------------

# What only an earlier turn can say: "that skill we talked about", «quella skill di cui parlavamo».
EARLIER = (
    r"(?:di cui (?:parlavamo|abbiamo parlato|ti ho parlato|mi hai parlato)|di prima|(?:che|that|which) "
    r"(?:we|you|i) (?:talked|spoke|discussed|mentioned)\w*(?: about)?|(?:we|you|i) (?:talked|spoke) about|"
    r"(?:we|you|i) (?:discussed|mentioned)|from before|from earlier|che (?:ti ho|mi hai) (?:detto|nominato))"
)
_DEMONSTRATIVE = r"\b(?:(?:that|this|quel|quello|questo|quella|questa)\s+|quell'|quest')"
# What follows a name, or a clause that tells which: "that task 'backup'", "that job that syncs photos".
# "for"/«per» with a span of time says for how long, not which: «sospendi quell'attività per una settimana».
_FOR_HOW_LONG = (
    r"(?:for|per)\s+(?:(?:a|an|one|two|three|a few|some|another|un|una|uno|un'|due|tre|qualche|altr[ie]|\d+)\s+)?"
    r"(?:minut|hours?\b|days?\b|weeks?\b|months?\b|ore\b|ora\b|giorn|settiman|mes[ei]\b|while\b|now\b|today\b|"
    r"tonight\b|the (?:weekend|holidays?|moment)\b|oggi\b|stanotte\b|adesso\b|il (?:weekend|momento)\b|"
    r"le (?:vacanze|ferie)\b)"
)
_TELLS_WHICH = (
    rf"(?!\s+(?!{_FOR_HOW_LONG})(?:called|named|chiamat\w*|di nome|['\"«]|che|that|which|di|del|della|of|for|about|"
    r"on|per|su))"
)
# A recurring task by a demonstrative alone: "stop that task", «quel job automatico», «quella cosa
# automatica», "this reminder".
THAT_TASK = re.compile(
    rf"{_DEMONSTRATIVE}(?:(?:recurring|scheduled|automatic|automated)\s+)?"
    r"(?:(?:task|job|reminder|promemoria|attivita|automazione)(?:\s+(?:automatic\w*|ricorrent[ei]|"
    r"programmat\w*|pianificat\w*))?|cosa\s+automatic\w*|thing\s+that\s+runs)\b"
    rf"(?:\s+{EARLIER}|{_TELLS_WHICH})"
)
# Any other own object by a demonstrative alone: "that skill", «quella cosa» (on the task list).
THAT_THING = re.compile(
    rf"{_DEMONSTRATIVE}(?:skill|thing|item|entry|one|cosa|voce|punto)\b(?:\s+{EARLIER}|{_TELLS_WHICH})"
)

# --- The task list ------------------------------------------------------------------------------------

# A to-do list that is not the session's: one of many ("a to-do list", «una to-do list»), a kind of
# product ("the best to-do list app").
OTHER_LIST_BEFORE = re.compile(
    r"\b(?:a|an|any|some|every|un|una|uno|qualche|ogni|best|good|great|simple|migliore|buona|nuova|new)\s+$|"
    # The product kept for such lists: «che app per le liste di cose da fare», "an app to manage my tasks".
    r"\b(?:apps?|applications?|applicazion[ei]|programs?|programm[ai]|software|tools?|strument[oi]|metod[oi]|"
    r"methods?|sistem[ai]|systems?)\s+(?:per|for|to|da|di|that|che)\s+(?:\S+\s+){0,4}$|"
    # A list made out of something read: «leggere gli appunti e fare l'elenco delle cose da fare», "go
    # through the minutes and make the to-do list", «estrai dagli appunti le cose da fare».
    r"\b(?:read|go through|look through|leggi|leggere|leggimi|rileggi\w*|scorri\w*|open|apri\w*)\b.{1,60}"
    r"\b(?:and|e|then|poi)\s+(?:\S+\s+){0,2}(?:l'|un')?$|"
    r"\b(?:extract|pull out|estrai|tira fuori|ricava)\w*\b.{0,40}\b(?:from|dagli|dai|dalle|dal|dalla|da)\b.{0,40}$"
)
OTHER_LIST_AFTER = re.compile(
    r"^\s+(?:apps?|applications?|tools?|software|templates?|methods?|systems?|programs?|app|metodo|sistema|modello)\b"
)
# The subject of a piece of writing: "a haiku about my to-do list".
WRITTEN_ABOUT = re.compile(
    r"\b(?:poem|haiku|story|song|joke|limerick|essay|article|post|tweet|poesia|storia|canzone|barzelletta|"
    r"racconto|articolo)\b.{0,20}\b(?:about|on|of|su|sul|sulla|sulle|sui|di)\s+(?:\w+\s+)?$"
)

# --- Git ---------------------------------------------------------------------------------------------------

# A git action given as an order: "commit everything …", «… e fai push», "can you pull and rebase?"; not
# "commit to a gym routine", "push myself harder", "this commit message".
_ORDER = (
    r"(?:^|[,.;:!?]\s*|\b(?:and|then|also|please|pls|now|just|can you|could you|would you|will you|e|poi|anche|"
    r"ora|adesso|per favore|puoi|potresti|dopo)\s+)"
)
_GIT_EN = r"commit|push|pull|rebase|merge|checkout|clone|stash|cherry-pick|squash"
# Italian borrows git's verbs as its own: «committa», «pusha», «fai il push».
_GIT_IT = (
    r"(?:commit+|push|pull|mergi?|rebas|stash)a\w*|"
    r"fa(?:i|re|mmi|ccia|cciamo)? (?:il |un |una |lo )?(?:git )?(?:commit|push|pull|rebase)"
)
GIT_ORDER = re.compile(rf"{_ORDER}(?:(?:{_GIT_EN})(?![\w-])|(?:{_GIT_IT}|clona\w*)(?![\w-]))")
GIT_OWN = re.compile(rf"{_ORDER}(?:{_GIT_IT})(?![\w-])")
# What a git action is done to or with: "the repo", «il branch», "origin", "with the message '…'".
GIT_CONTEXT = whole(
    r"repos?|repository|repositories|[\w.-]+-repo|repo-[\w.-]+|branch(?:es)?|remote|origin|upstream|"
    r"(?:with|col|con il|con|using) (?:the |il |a |un )?(?:commit )?messag\w*|pull request|working tree|staged|"
    r"(?:to|into|from|onto|su|in|da|sul|nel) (?:the |il )?(?:main|master|develop)(?: branch)?"
)


def git(folded: str) -> bool:
    """A git action asked for: an order with its own git word («committa», «fai push»), a git verb on a
    repository or a branch, or two git verbs in a row ("commit and push")."""
    orders = GIT_ORDER.findall(folded)
    return bool(GIT_OWN.search(folded) or (orders and GIT_CONTEXT.search(folded)) or len(orders) >= 2)

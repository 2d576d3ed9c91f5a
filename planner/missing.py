"""An action whose object is missing: "delete it", «leggilo», "save 'buy milk'" (saved where?).
The route decision asks one short question for it, in the request's language, instead of guessing
a target (the follow-up layer, which knows the session, resolves "save that" before it)."""

from __future__ import annotations

import re

from planner.canonical import _CLITICS
from planner.intent import _VERB_STEMS
from planner.text import fold, language, stems, whole

# Words a request may open with before its verb: «ok, allora cancellalo».
_LEAD = r"^(?:(?:e|ora|adesso|poi|ok|allora|now|then|and|so)[\s,]+)*"
# An action on something the request does not name: "delete the file", "leggilo", "save it".
_ACTIONS = whole(
    r"read|open|show|delete|remove|erase|save|store|append|write|move|rename|run|execute|copy|send|edit|replace|"
    r"leggi|apri|mostra|cancella|elimina|rimuovi|salva|aggiungi|scrivi|sposta|rinomina|esegui|lancia|copia|sostituisci|"
    r"invia|modifica|togli|leva|levami|pause|metti in pausa|sospendi|disattiva|"
    r"do the same thing|do the same|fai lo stesso|fallo|falla|same thing|the same|stessa cosa|lo stesso|"
    r"do (?:that|this|it)|"
    r"summari[sz]e|translate|riassumi|riassumimi|traduci|traducimi|leggimi|aprimi|mostrami|fammi vedere|"
    r"duplicate|duplica|fai partire|avvia|start|appunta|appuntami|annotami|segnami|count|conta|"
    r"search(?: for)?|look for|cerca|go to|vai su|visit|visita|fetch|"
    r"print|share|forward|upload|download|compress|zip|unzip|convert|sort|archive|attach|publish|update|"
    r"stampa|condividi|inoltra|carica|scarica|comprimi|zippa|converti|ordina|archivia|allega|pubblica|aggiorna|"
    r"clean up|clean|tidy up|tidy|organi[sz]e|sort out|sistema|sistemami|metti a posto|riordina|riordinami|pulisci|"
    r"schedule|pianifica|programma|add|shove|stick|chuck|dump|toss|get rid of|throw away|trash|ditch|"
    r"butta via|scan(?: through)?|go through|comb through|look through|look at|merge|combine|unisci|combina|"
    r"resume|riprendi|stop|ferma|set|imposta|change (?:it|that|this|them) back|cambia (?:il )?nome|"
    r"turn|switch|back|diff|compare|unzip|cancel|annulla|stoppa|jot|segnati|annotati|appuntati|"
    r"decomprimi|confronta|spegni|accendi|mark|segna|take|togli|same|the same thing|lo stesso|la stessa cosa|"
    r"rifai|redo|"
    r"change the name of|"
    r"put(?! (?:it|that|this|them|these|those)? ?in(?:to)? (?:\w+ )?(?:words|terms|english|italian|french|"
    r"bullet|points|a table|plain|simple|other))"
)
_MISSING_OBJECT = whole(
    r"it|that|this|them|those|these|the file|that file|this file|the document|the folder|that folder|this folder|"
    r"the other one|the other (?:file|report|document|folder|note|list|project|version)s?|"
    r"(?:the |il |la |l')?(?:previous|old|older|precedente|vecchia|vecchio) (?:version|versione)|"
    r"l['\s]altro progetto|(?:col|con il|with the) (?:second|secondo|terzo|third|other|altro) (?:file|one|progetto)|"
    r"the old ones|quelli vecchi|its history|lo storico|the reminder|il promemoria|l'orario|the time|"
    r"the job|il job|the task|(?:the|il|la|lo) (?:usual|solit[oa]) \w+|"
    r"(?:quella|quello|the one) (?:di ieri|di prima|from yesterday|from before)|the photos|le foto|"
    r"l['\s]altr[oa] (?:file|documento|cartella|report|nota|lista)|"
    r"this line|that line|the line|lo|la|li|le|quel file|questo file|il file|la cartella|il documento|"
    r"quella riga|questa riga|la riga|quell'altro|quell altro|l'altro|l altro|quello|questo|quelli|questi|"
    r"(?:that|this|the other|the) ones?|(?:the )?(?:first|second|third|last|next|previous) (?:one|file|document)s?|"
    r"il primo|il secondo|il terzo|l'ultimo|l ultimo|quel documento|quella cartella|the contents?|il contenuto|"
    r"cosa c'e (?:scritto|dentro)|what(?:'s| is) (?:in it|written|inside)|"
    r"(?:the )?(?:words|lines|characters) in (?:it|that|this)|"
    r"(?:that|this) (?:word|site|page|website)|(?:quella|questa) (?:parola|pagina)|(?:quel|questo) sito|"
    r"(?:that|this) (?:reminder|job)|(?:quel|questo) (?:promemoria|job)|"
    r"(?:the|that|this) (?:command|thing)|(?:il|quel|questo) comando|(?:la|quella|questa) cosa|"
    # A demonstrative and a noun nobody named here: "those documents", «quei documenti», "that log".
    r"(?:those|quei|quegli|quelle) \w+|"  # not "this list": the text given after a colon
    r"(?:these|questi|queste) (?:two|three|due|tre)|the notes|gli appunti|"
    r"(?:that|quel|quella|quello) (?:task|job|log|photo|picture|pdf|note|nota|script|report|"
    r"skill|schedule|foto|immagine|lista|list|elenco|documento|file|cartella|folder|link|url|page|site|website|"
    r"pagina|sito|spreadsheet|foglio|sheet)|"
    # A part of a text nobody named: "read me the last part", «leggimi il resto».
    r"(?:the )?(?:first|last|next|previous|final|middle) (?:part|bit|section|page|paragraph|chapter|lines?)|"
    r"the rest|the end|the beginning|l'ultima parte|la prima parte|il resto|la fine|l'inizio"
)
# Words a reply may open with before a clitic verb: «e poi cancellalo», «perfetto, accorcialo».
_OPENING = r"^(?:(?:e|ora|adesso|poi|e poi|ok|allora|bene|perfetto)[\s,]+)*"
_CLITIC_ACTION = re.compile(
    r"^(?:(?:me|te|ce|glie) ?l[oaie] (?:apri|leggi|mostri|cancelli|elimini|salvi|esegui|mandi|copi|sposti|rinomini|"
    r"trovi|cerchi|sistemi|correggi)\b)|"
    r"^(?:(?:same|the same) as before|come prima|stessa cosa (?:di|come) prima)\b|"
    r"\bhow many (?:lines|words|characters|rows|pages|entries|items) (?:does|do|did) (?:it|that|this|they|those) "
    r"(?:have|contain|hold)\b|"
    r"\bwhen (?:did )?(?:it|that|this one|that one) (?:last )?(?:ran|run)\b|"
    r"\b(?:change|put|turn|set) (?:it|that|this|them) back\b|"
    r"^what does (?:that|this|the) \w+ say\b|^what(?:'s| is) in (?:this|that) one\b|"
    r"\b(?:righe|parole|caratteri)\b.{0,20}\bne ha\b|"
    rf"{_OPENING}"
    r"(?:leggi|apri|mostra|cancella|elimina|rimuovi|salva|scrivi|sposta|rinomina|esegui|lancia|copia|invia|"
    r"modifica|aggiungi|manda|fal|riassumi|traduci|stampa|condividi|inoltra|rileggi|riapri|aggiorna|chiudi|"
    r"scarica|carica|comprimi|zippa|converti|ordina|duplica|butta|archivia|correggi|allega|spedisci|pubblica|"
    r"programma|pianifica)"
    r"(?:lo|la|li|le|melo|mela|ne)\b|"
    # Reshaped with no manner said: «accorcialo», not «riscrivilo come elenco puntato» (the last answer
    # reshaped in words).
    rf"{_OPENING}(?:accorcia|allunga|riscrivi)(?:lo|la|li|le)\b"
    r"(?! (?:come|in|piu|meno|con|senza|a|al|alla|usando)\b)|"
    # "sposta tutto nell'altra cartella": everything of something nobody named.
    rf"{_LEAD}(?:sposta|copia|cancella|elimina|move|copy|delete|remove) "
    r"(?:tutto|everything|all of (?:it|them))\b|"
    # "now append 'call mom' to it": a text, and a pronoun for where it goes.
    rf"{_LEAD}(?:append|add|write|put|save|paste|insert|aggiungi|accoda|scrivi|metti|salva|incolla|inserisci)\b"
    r".{1,60}\s(?:to|into|in|at the end of|a|nel|nella|in fondo a|dentro)\s+(?:it|that|this|them|that file|this file|"
    r"the file|quello|questo|quel file|questo file|il file)\s*[.!?]*$|"
    # "scrivici dentro 'ciao'": written into something named before.
    rf"{_LEAD}(?:scrivi|metti|aggiungi|incolla|copia|inserisci)ci\b|"
    # A schedule or a folder with nothing said about it: "schedule something", "create a new folder".
    r"^(?:please )?(?:schedule|pianifica|programma) (?:something|qualcosa)\b|"
    r"^(?:please |can you |could you |puoi |potresti )?(?:create|make|crea|creami|crei|fai|fammi) (?:a|the|una|la) "
    r"(?:new |nuova )?"
    r"(?:folder|directory|cartella)"
    r"(?:\s+(?:for (?:them|it|those|these)|per (?:loro|questi|quelli)))?"
    r"\s*(?:for me|per me|please|per favore)?\s*[.!?]*$|"
    # "search my files for it", "fix the typo in there": what to look for, or where, is a pronoun.
    rf"{_LEAD}(?:search|look|grep|scan|go|comb|cerca|cercami)\b.{{0,30}}\b(?:for|per) (?:it|that|this|them|quello|"
    r"questo|quella|the thing|that thing|quella cosa)(?: (?:i|we|you|che) .{0,40})?\s*[.!?]*$|"
    rf"{_LEAD}(?:fix|correct|change|replace|add|put|write|search|look|correggi|cambia|sostituisci|aggiungi|metti|"
    r"scrivi|cerca)\b.{0,30}\b(?:in there|in here|in it|out of there|li dentro|qui dentro|la dentro|in quel file|"
    r"in questo file|in quella cartella|in questa cartella|la|in quel documento|in questo documento|"
    r"in (?:that|this) (?:file|document|folder|report))\s*(?:please|per favore)?\s*[.!?]*$|"
    # A size, or a part of a document nobody named: "how big is the file?", "change the date in the header".
    r"\b(?:how (?:big|large|long|old) is|quanto (?:pesa|e grande|occupa)) (?:the|that|this|il|quel|questo) "
    r"(?:file|document|documento|folder|cartella)\s*\??$|"
    r"^(?:change|cambia|update|aggiorna|fix|correggi|edit|modifica)\b.{0,40}\b(?:in the|nell'|nel|nella) ?"
    r"(?:header|footer|intestazione|titolo|title|first line|prima riga|subject|oggetto)\b|"
    r"\b(?:compare|confronta|diff) (?:the|i|le) (?:two|due) (?:files?|documents?|documenti|versions?|versioni)\b|"
    r"\b(?:undo|annulla|revert) (?:what you did|quello che hai fatto)\b|"
    r"\b(?:dove|where) (?:l'hai|lo hai|la hai|li hai|did you|have you) (?:salvat\w*|mess\w*|put|save|saved)\b|"
    # What is in a folder nobody named: "what's in that folder?", «che c'è in quella cartella?».
    r"\b(?:what(?:'s| is)|whats|che c'e|cosa c'e) (?:in|nella|nel|dentro) (?:that|this|the second|the first|the other|"
    r"quella|questa|quel|questo|l'altra|l'altro) ?(?:one|folder|file|document|cartella|documento)?\s*\??$|"
    # A line or a paragraph of a file nobody named: «aggiungi una riga in fondo», «sistemami l'ultimo paragrafo».
    r"^(?:can you |could you |puoi |potresti |mi )?(?:add|append|aggiungi|sistema\w*|fix|correggi\w*|rewrite|"
    r"riscrivi)\b.{0,12}\b(?:an? |una |un |the |l')?"
    r"(?:line|riga|paragraph|paragrafo|ultimo paragrafo|last paragraph)\b(?!.*\.\w{1,5}\b)|"
    r"\b(?:the numbers|le cifre|i numeri) in (?:the|la) (?:table|tabella)\b|"
    # A question about something nobody named: "how big is it?", «quante righe ha?», "is it still running?".
    r"^(?:and |e )?(?:how (?:big|large|long|old) (?:is|are) (?:it|that|this|they)|how many \w+ (?:is|are|does|do|has) "
    r"(?:it|that|this|they)|when did i (?:last )?(?:change|edit|modify|open|save|touch) (?:it|that|this)|"
    r"is (?:it|that) still running|sta ancora girando|quando (?:l'ho|lo ho|la ho) (?:modificat|cambiat|aperto)\w*|"
    r"quando e girato|quant[oaie] (?:righe|parole|caratteri|pagine|colonne|voci|elementi|file) "
    r"(?:ha|sono|ci sono|contiene)|quanto (?:e|pesa|occupa)(?: grande| lung[oa]| pesante)?)"
    r"(?: l'ultima volta| last time| last)?\s*\??$|"
    # The next of a list nobody has seen: "and the other one?", «e il terzo?», "and now the third one".
    r"^(?:(?:and|e|now|ora|adesso|then|poi)[\s,]+)*(?:the |il |la |l')?(?:other|altr[oa]|second|secondo|seconda|"
    r"third|terzo|terza|next|prossim[oa]|fourth|quarto|quarta)(?: one| file| project| progetto)?\s*\??$|"
    r"^fanne (?:un|una) (?:backup|copia)\b|\b(?:do it again|rifallo|fallo di nuovo|redo it)\b|"
    r"^make it (?:daily|weekly|monthly|hourly|every)\b|^cercaci\b|"
    r"\b(?:move|sposta|anticipa|posticipa|change|cambia)\b.{0,20}\b(?:the reminder|il promemoria|l'orario|the time)\b|"
    r"\b(?:move|sposta|spostami|moving|spostare)\b.{0,30}\b(?:somewhere else|elsewhere|da un'altra parte|altrove)\b|"
    r"\b(?:search|look|cerca)\s+(?:in|inside|dentro) (?:there|here|it|li|la|qui)\b|"
    r"^(?:nel|in the|in) (?:documento|document|file|report)\b|"
    # "ok, e quello dopo?" as a first message: the next of a list nobody has seen.
    r"^(?:(?:ok|e|and|allora|poi|then)[ ,]+)*(?:quello|quella|the one|that one|il prossimo|the next one)"
    r"(?: (?:dopo|after that|after|next|seguente|successivo|prima|before))?\s*[.!?]*$"
)
# What only an earlier conversation can tell: «come ti ho detto», "the one we talked about".
_EARLIER = (
    r"(?:come ti ho detto|come (?:abbiamo|avevamo) detto|di cui (?:parlavamo|abbiamo parlato|ti ho parlato)|di prima|"
    r"che ti ho detto|as i (?:said|told you|mentioned)|(?:we|i) (?:talked|spoke) about|i mentioned|from before|"
    r"like before|we discussed|(?:that|which) we (?:discussed|agreed)|(?:like|as) we said|as discussed|"
    # Someone else's file, which only they can name: "the file my colleague sent", «quello che mi ha mandato Giulia».
    r"(?:that|which|who)? ?(?:my|mio|mia) (?:colleague|boss|friend|collega|capo|amic[oa]) (?:sent|gave|shared)|"
    r"che mi ha (?:mandato|inviato|girato|passato|dato)|(?:\w+ )?(?:sent|gave|shared) me)"
)
# Right after the action: "save it", "delete the file", "do the same for the other one".
_MISSING_AFTER = re.compile(
    rf"\s*(?:(?:me|mi|for|per|anche per|anche|with|con|to|a|again|di nuovo|dentro|inside|through|in|nei|nelle)\s+)?"
    rf"(?:{_MISSING_OBJECT.pattern})"
    r"(?:\s+(?:down|up|out|away|off|on|again|di nuovo|ancora|too|as well|anche|all|tutti|tutte))?"
    # A qualifier on the pronoun: «elimina quelli vecchi del 2022», "delete the old ones".
    r"(?:\s+(?:old|older|new|newer|big|bigger|small|empty|temporary|vecchi[oe]?|vecchia|nuov[io]|nuov[ae]|"
    r"grandi|piccol[ie]|vuot[ie]|temporane[ie])(?:\s+ones)?)?"
    r"(?:\s+(?:to|into|in|nella|nel|nello|dentro|a|con|with|for|per|from|dal|dalla|dallo|nell'|all'|of|del|della|"
    r"di|al|allo|alla|ai|agli|alle|sul|sulla|on|onto|nei|negli|nelle|through|across|among|by|as|come|against|"
    r"contro|off|versus|vs)"
    r"(?:\s+[\"'«]?[\w'.-]+[\"'»]?|(?<=')[\w'.-]+){1,3})?"
    r"(?:\s+(?:somewhere|elsewhere|back|altrove|da qualche parte)(?: \w+)?)?(?:\s+(?:instead|invece))?"
    rf"(?:\s+{_EARLIER})?"
    r"(?:\s+(?:and|e) .{0,40})?"
    r"(?:\s+(?:before|after|when|if|prima di|dopo|quando|se)\b.{0,40})?"  # "back it up before you change anything"
    r"\s*(?:,?\s*(?:please|per favore|grazie|thanks|pls))?"
    # A remark after it: "delete those please, I don't need them anymore", "find it for me? I can't …".
    r"(?:\s*[,.?!]\s*(?:i|we|it|they|non|perche|because|since|che|tanto|tanto non)\b.{0,50})?\s*[.!?]*\s*$"
)


def missing_object(folded: str, *, inline: bool = False, pronoun: bool = False) -> bool:
    """An action on something the request does not name (and no earlier turn is at hand here:
    the follow-up layer resolves "save that" from the session before this decision): "delete
    it", «leggilo», "read the last line of a file", "save 'buy milk'" (saved where?). `inline`:
    the text came with data after a colon; "summarise this: …" works on that data, while
    "save this: …" still lacks where to keep it. `pronoun`: only an object that is a pronoun
    («aggiungilo», "add it"), not a common noun ("update the todo list" names its list)."""
    if inline and pronoun and _THE_DATA.search(folded):
        return False  # "put these in my task list: …": what follows the colon is what is meant
    folded = _PREAMBLE.sub("", folded)  # «sì, quello. eliminalo pure»: the action follows
    tokens = folded.split()
    first = _FIRST_WORD.match(folded)
    if not tokens or len(tokens) > 30 or (len(tokens) > 16 and not _THAT_THING.search(folded)):
        return False
    if _CLITIC_ACTION.search(folded) or (not inline and not pronoun and _ON_A_THING.match(folded)):
        return True
    if _WORKSPACE.search(folded):
        return False  # «elenca il contenuto del workspace»: the whole workspace is named
    if not inline and not pronoun and (_NO_TEXT.match(folded) or _EDIT_NO_FILE.match(folded)):
        return True  # «correggimi la grammatica» with no text given: of what?
    if (
        not inline
        and not pronoun
        and _THAT_THING.search(folded)
        and (
            _ACTIONS.search(folded)
            or _LOOKS.search(folded)
            or any(_acting(w) for w in re.findall(r"[a-z]{4,}", folded))
        )
    ):
        return True
    if not inline and not pronoun and _THE_GENERIC.search(folded) and _ON_THE_GENERIC.search(folded):
        return True
    if not inline and not pronoun and _LOOKS.search(folded) and _THE_DOC.search(folded):
        return True  # «potresti ricontrollare la relazione?»: which one?
    if len(tokens) <= 10 and not inline and any(_acting(t, clitic=True) for t in _CLITIC_WORD.findall(folded)):
        return True  # «puoi eliminarla?», «uniscili in un unico file», «trovamelo tu»: a verb with a pronoun
    if not pronoun and re.search(_EARLIER, folded) and (_ACTIONS.search(folded) or (first and _acting(first.group(1)))):
        return True  # «mi rinomini il file come ti ho detto?»: what only an earlier turn can say
    if first and len(tokens) <= 4 and not inline and _acting(first.group(1), clitic=True):
        return True  # «mandamelo», «stampali»: a verb of the lexicon with its object a pronoun
    action = _ACTIONS.search(folded)
    if action is None and first and _acting(first.group(1)):  # "sort them", "convert it to pdf"
        return bool(_MISSING_AFTER.match(folded[first.end() :]))
    if action is None or (inline and _TRANSFORM.fullmatch(action.group(0))):
        return False
    after = folded[action.end() :]
    if _MISSING_AFTER.match(after):
        return True
    return not pronoun and bool(_GENERIC_TARGET.search(after) or (_STORE.match(folded) and len(tokens) <= 6))


# What a reply says before its action: «sì, quello.», «come ti dicevo prima,», "as I said,".
_PREAMBLE = re.compile(
    r"^(?:(?:si|yes|ok|okay|certo|esatto|right|sure|quello|quella|that one|this one|come ti dicevo(?: prima)?|"
    r"ciao|hi|hey|hello|salve|buongiorno|scusa|senti|sorry to bother you|scusa il disturbo|"
    r"hope you(?:'re| are) having a (?:good|nice|great) day|quando hai tempo|when you get a chance|"
    r"as i said(?: before)?|like i said)"
    r"\b[^.!?,]{0,15}[.!?,]\s*)+"
)


# An action on the user's files whose object is only a common noun: "delete the report", «rinomina il
# vecchio report», "fix the bug in the script" (the route decision found no file by that name).
_ON_A_THING = re.compile(
    _LEAD + r"(?:please |can you |could you |puoi |potresti |mi )?"
    r"(?:delete|remove|erase|rename|move|open|read|edit|update|fix|append|copy|compress|archive|get rid of|"
    r"throw away|trash|ditch|butta via|"
    r"cancella|elimina|rimuovi|rinomina|sposta|apri|leggi|modifica|aggiorna|correggi|copia|comprimi|archivia)\s+"
    r"(?:the|my|our|that|this|la|il|lo|l'|i|gli|le|mia|mio|miei|mie|quel|quella|quelle|quei)\s*"
    r"(?!(?:cartella|folder|directory|file)\s+(?!(?:please|per favore)\b)[a-z][\w-]*\s*[.!?]*$)"
    r"[a-z']+(?:\s+[a-z']+){0,5}"
    r"(?:\s*,\s*[a-z' ]{1,30})?"  # "…, it's obsolete now": a remark after the thing, not its name
    r"\s*[.!?]*$"
)
_FIRST_WORD = re.compile(
    r"^(?:(?:e|ora|adesso|poi|ok|allora|and|now|then|please|bene|perfetto|mi|me|puoi|potresti|can you|could you)"
    r"[\s,]+)*([a-z]{3,})\b"
)
# The intent verbs that act on an object (planner/canonical.yaml): telling and computing do not.
_ACTING = frozenset(
    "read write list find fetch run create delete send reply move set convert sort filter share compress "
    "summarize".split()
)


# Verbs on the user's things that the intent lexicon does not list, bare as canonical's clitics
# leave them: «riattivalo», «uniscili», «metterlo».
_MORE_ACTING = frozenset(
    "riattiva disattiva attiva sospendi unisci rimetti rimette rimettere mette mettere metti ferma avvia riprendi "
    "ripristina carica scarica spegni accendi confronta decomprimi rifai segna anticipa posticipa togli toglie "
    "stampa manda invia copia duplica archivia comprimi chiudi spedisci inoltra".split()
)


def _acting(word: str, *, clitic: bool = False) -> bool:
    """Whether `word` is an acting verb of the lexicon; `clitic`: only with an object pronoun glued
    on («aprilo», «spostali»: canonical's clitics)."""
    if clitic:
        if not re.search(r"(?:lo|la|li|le|ne)$", word):
            return False  # «elencami» is "list for me": no object in it
        bare = next((m.group(1) + end for pattern, end in _CLITICS if (m := pattern.match(word))), None)
        if bare is None:
            return False
        word = bare
    if word in _MORE_ACTING:
        return True
    return any(_VERB_STEMS.get(stem) in _ACTING for stem in stems(word))


# A word that may be a verb with a pronoun glued on, less the verbs that reshape the last answer
# («riscrivilo come elenco puntato», «traducilo»).
_CLITIC_WORD = re.compile(r"\b(?!riscriv|tradu|riassum|accorc|allung|spieg|ripet|rend|semplific|riformul)([a-z]{5,})\b")
_NO_TEXT = re.compile(
    r"^(?:correggimi|correct|fix|check|controlla|correggi)(?: me| mi)? (?:the |la |l')?(?:grammar|grammatica|spelling|"
    r"ortografia)\s*[.!?]*$"
)
# An edit with no file named: "replace 'foo' with 'bar'", «cambia la data in 3 maggio», "fix the typo in line 12";
# not a text to correct ("fix the grammar"), not one given ("… in this sentence").
_EDIT_NO_FILE = re.compile(
    r"^(?:please |can you |could you |puoi |potresti )?(?:replace|sostituisci|change|cambia|update|aggiorna|insert|"
    r"inserisci|fix|correggi|lowercase|uppercase|capitalize|metti in (?:minuscolo|maiuscolo))\b(?! me\b| mi\b)"
    r"(?!.*\b(?:grammar|grammatica|typos|errori|punteggiatura|punctuation|spelling|frase|sentence|text|testo)\b)"
    r"(?!.*(?:\.\w{1,5}\b|:|/))"
)
_THE_DATA = whole(r"these|this|questi|queste|questo|questa|the following|i seguenti|le seguenti|seguenti")
_WORKSPACE = re.compile(r"\b(?:workspace|area di lavoro|cartella principale|main folder|root folder)\b")
# A thing of the user's that only a demonstrative or someone else names: "tidy up that folder",
# "move those photos to where the other ones are", "check the file my colleague sent".
_THAT_THING = whole(
    r"(?:that|those|these|quel|quella|quei|quegli|quelle|questi|queste) (?:\w+ )?(?:files?|photos?|pictures?|foto|"
    r"documents?|documenti|documento|folders?|cartell[ae]|reports?|relazione|notes?|appunti|pdfs?|immagini|two|due)|"
    r"(?:the|il|la) (?:file|document|documento|report|relazione) (?:(?:that|which) )?(?:my|del mio|della mia|che)\b|"
    r"(?:those|quelli|quelle)(?= (?:into|in|to|nella|nel|nei)\b)|quella cosa|that thing"
)
_THE_DOC = whole(r"(?:the|la|il) (?:relazione|report|document|documento)")
# One file by a common noun, as if it had been named: "check the log", «conta le righe del csv», "how long is
# the essay?", «cosa dice il secondo paragrafo?»; not "the list of presidents".
_THE_GENERIC = whole(
    r"(?:the|il|lo|la|l'|nel|nella|del|della|dello|dell'|to the|in the|of the)\s?"
    r"(?:(?:first|second|third|last|primo|secondo|terzo|ultimo|ultima|prima|seconda|terza) )?"
    r"(?:log|csv|nota|notes|essay|tesina|lista|list|spreadsheet|foglio|pdf|presentation|presentazione|tabella|table|"
    r"paragraph|paragrafo|column|colonna|draft|bozza|attachment|allegato|invoice|fattura|contract|contratto|mail|"
    r"email|page|pagina|bozze|excel|due bozze|intestazione)(?! (?:of|di|dei|delle|degli)\b)"
)
_ON_THE_GENERIC = whole(
    r"read|leggi|leggimi|count|conta|check|checka|controlla|what does|cosa dice|how long is|quanto e lung\w*|total|"
    r"totale|summari[sz]e|riassumi|recap|cambia|change|confronta|compare|fetch|sistemalo|conti|crunch|open|apri|"
    r"dagli un'occhiata|c'e scritto|"
    r"append|aggiungi|show|mostra|open|apri|dimmi cosa|what(?:'s| is) in|cosa c'e"
)
_LOOKS = whole(
    r"forget|dimentica|sistemata|aprirmi|aprire|apri|open|"
    r"check|controlla|ricontrolla|review|rivedi|go through|look over|look at|dai un'occhiata|ricontrollare|"
    r"controllare|rivedere"
)
# A file the request speaks of without naming it.
_GENERIC_TARGET = whole(
    r"(?:(?:a|the|that|this|those|these|some|one|un|uno|il|lo|la|i|gli|le|quel|quello|quella|questo|questa|del|dal|"
    r"nel|in un) (?:file|document|documento|folder|cartella|text file|file di testo|script|programma|program|pdf|"
    r"allegato|attachment)|della cartella|(?:al|nel|the|il|to the|in the) log)"
    # Not "rename the folder 'old stuff'", «elimina la cartella old_backup»: the name follows; in
    # Italian a plain word may be the name too: «nella cartella lavoro».
    r"(?!\s+(?:(?:called|named|chiamat[oa]|di nome)\s+)?(?:(?:vuota|nuova|vecchia|empty|new|old)\s+)?"
    r"(?:['\"«]|[\w-]*[_\d./][\w.-]*|[a-z][\w-]*\s+(?:to|into|as|in)\s))"
    r"(?!(?<=cartella)\s+(?!(?:in|con|per|da|e|o|a|di|che|come|dove|nuova|vecchia|giusta|sbagliata|mia|tua|sua|"
    r"del|della|dei|nel|nella|su|sul|dentro|qui|li|la|vuota|piena|principale|condivisa|per favore)\b)[a-z][\w-]*)"
)
# Verbs that work on the text they are given, not on a file.
_TRANSFORM = re.compile(
    r"turn|put|summari[sz]e|translate|riassumi|riassumimi|traduci|traducimi|count|conta|convert|converti|sort|ordina|"
    r"clean up|clean|tidy up|tidy|sistema|riordina|correct|correggi"
)


def transforms(folded: str) -> bool:
    """Whether the words hold a verb that works on a text given to it: «traduci in inglese»."""
    return bool(_TRANSFORM.search(folded) or _RESHAPING.search(folded))


_RESHAPING = whole(
    r"traduci\w*|translate|rewrite|riscrivi\w*|explain|spiega\w*|format|formatta|shorten|accorcia|expand|allunga|"
    r"improve|migliora|rephrase|riformula|simplify|semplifica|trasforma|make|rendi"
)


# A request to keep something, with nowhere named to keep it.
_STORE = re.compile(
    r"^(?:please |per favore )?(?:save|store|append|salva|accoda|annota|note down|write down|jot|segnati|segna|"
    r"annotati|appunta|appuntati|prendi nota|take a note|make a note)\b"
)
# The question, by what the request wants done: (pattern, English, Italian).
_QUESTIONS = (
    (whole(r"schedule|pianifica|programma"), "What should I schedule, and when?", "Cosa devo pianificare, e quando?"),
    (whole(r"remind|ricorda\w*"), "What should I remind you of?", "Di cosa devo ricordarti?"),
    (whole(r"folder|directory|cartella"),
     "What should the new folder be called?", "Come devo chiamare la nuova cartella?"),
    (whole(r"site|page|website|go to|visit|fetch|sito|pagina|vai su|visita"),
     "Which web address should I open?", "Quale indirizzo web devo aprire?"),
    (whole(r"search|look for|cerca"), "What should I search for, and where?", "Cosa devo cercare, e dove?"),
    (whole(r"save|store|append|write|salva|scrivi|accoda|annota|aggiungi|salvalo|salvala|scrivilo"),
     "Which file should I save it to?", "In quale file devo salvarlo?"),
    (whole(r"delete|remove|erase|cancella|elimina|rimuovi|cancellalo|eliminalo"),
     "Which file should I delete?", "Quale file devo eliminare?"),
    (whole(r"run|execute|esegui|lancia|eseguilo|lancialo"),
     "Which command should I run?", "Quale comando devo eseguire?"),
    (whole(r"move|rename|sposta|rinomina|spostalo"),
     "Which file should I move, and where?", "Quale file devo spostare, e dove?"),
    (whole(r"read|open|show|leggi|apri|mostra|leggilo|aprilo|mostramelo"),
     "Which file should I read?", "Quale file devo leggere?"),
)  # fmt: skip


def question(text: str) -> str:
    folded = fold(text)
    italian = language(text) == "it"
    for pattern, english, italian_question in _QUESTIONS:
        if pattern.search(folded):
            return italian_question if italian else english
    return "A quale file o elemento ti riferisci?" if italian else "Which file or item do you mean?"

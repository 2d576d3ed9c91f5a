"""The verbs of the file tools, in English and Italian, for the first tool that a request's
workspace evidence points at (planner.decision). An Italian verb is written once by its root and
matches in the forms people type: «salva», «salvi», «salvare», «salvalo», «salvarlo», «salvami»."""

from __future__ import annotations

import re

from planner.text import whole

# Object pronouns glued onto an Italian verb: «eliminalo», «mandamelo», «scrivici».
_CLITIC = r"(?:mel[oaie]|cel[oaie]|gliel[oaie]|l[oaie]|ne|mi|ci)?"


def _are(roots: str) -> str:
    """An -are verb by its roots ("salv|annot"): imperative, 2nd person, infinitive, with clitics."""
    return rf"(?:{roots})(?:a|i|ate|are|iamo|ar(?=l|m|c|n)){_CLITIC}"


def _ere(roots: str) -> str:
    """An -ere/-ire verb by its roots ("scriv|mett"): «scrivi», «scrivere», «scrivilo», «scriverlo»."""
    return rf"(?:{roots})(?:i|ete|ere|ire|iamo|er(?=l|m|c|n)|ir(?=l|m|c|n)){_CLITIC}"


# A renaming inside a file: "rename the function calc_total to compute_total in utils.py".
_IN_FILE_THING = (
    r"(?:the |la |il |lo |l')?(?:function|variable|class|method|field|key|column|heading|title|section|constant|"
    r"funzione|variabile|classe|metodo|campo|chiave|colonna|titolo|sezione|costante)"
)
# What a change to a file's text says: "it should be 2023", «deve essere X e non Y», "instead of".
_EDIT_MARKERS = (
    r"should (?:say|read)|must say|deve dire|dovrebbe dire|invece di|instead of|al posto di|rather than|"
    r"(?:should be|deve essere|dovrebbe essere) .{1,60}(?:\be non\b|\bnot\b|\binvece\b)|"
    # "bump the version from 2.3.1 to 2.4.0", «porta l'ora di consulenza da 70€ a 85€»
    r"(?:bump|porta|alza|abbassa|aumenta|riduci|raise|lower)\b.{0,40}\b(?:from|da) \S+ (?:to|a) \S+"
)

FIRST_FILE_TOOL = (
    ("make_dirs", whole(r"mkdir|(?:create|make|add) (?:me )?(?:a |an |the |new |a new |two |three |some )?(?:\w+ )?"
                       r"(?:folder|directory|dir)s?|"
                       r"(?:create|make) (?:the |two |three |some )?directories|new folder|"
                       r"set up (?:a |the |new |some |two |three )?(?:folders?|directories|subfolders?)|"
                       rf"(?:{_are('cre|prepar')}|fai|fammi) (?:una |la |le |delle |due |tre )?"
                       r"(?:nuov[ae] )?(?:sotto)?cartell[ae]|nuova cartella")),
    ("edit_file", whole(rf"replace|change(?! (?:the |its |their )?name)|edit|fix|correct|modify|update|swap|"
                       rf"{_are('scambi')}|"
                       rf"rename {_IN_FILE_THING}|rinomina {_IN_FILE_THING}|{_EDIT_MARKERS}|"
                       rf"sostituisc[ai]{_CLITIC}|sostituire{_CLITIC}|{_are('cambi')}(?! (?:il |i |lo )?nome)|"
                       rf"{_are('modific|aggiorn')}|{_ere('corregg')}|"
                       r"(?:delete|remove|cancella|elimina|rimuovi) (?:the |la |una |the last |the first |l'ultima )?"
                       r"(?:lines?|words?|righe|riga|parola|parole|typo)")),
    ("move_files", whole(rf"move|rename|{_are('spost|rinomin')}|change (?:the |its |their )?names?|"
                        r"call (?:it|this|that|them)|chiamal[oaie]|"
                        rf"{_are('cambi')} (?:il |i |lo )?nome")),
    ("delete_files", whole(rf"delete|remove|erase|get rid of|throw away|trash|wipe|nuke|togli di mezzo|"
                          rf"{_are('cancell|elimin')}|"
                          rf"{_ere('rimuov')}|{_are('butt')} via|buttal[oaie] via|butta via")),
    ("write_files", whole(rf"write|save|store|append|add|note down|put|create|overwrite|generate|"
                         r"make (?:me )?(?:a|an)|make (?:a |an )?(?:new )?(?:file|note)|"
                         r"start (?:a |an )?(?:new )?(?:file|note|list|document|journal|log)|jot(?: \w+)? down|jot|"
                         rf"{_are('segn')}(?:ti)?|fammi (?:un|una) (?:nuovo |nuova )?(?:file|nota|documento)|"
                         rf"{_are('salv|annot|cre|accod|gener')}|{_ere('scriv|mett|aggiung|append')}|"
                         r"inserisci|inserire|mettici|scrivici")),
    ("grep_files", whole(r"mention|mentions|mentioning|contain|contains|containing|search (?:for|in)|grep|look for|"
                        r"search (?!for\b|in\b)(?:\S+ ){1,4}?for|"
                        r"(?:look|go|search|scan|comb|dig) (?:through|in|into) .{1,40}\bfor|"
                        r"(?:lines?|righe|riga|rows) (?:with|containing|con|che contengono|che contiene)|"
                        r"talks? about|parla(?:no)? di|cerca dentro|search inside|look inside|cercal[oaie]|"
                        r"menzion\w*|contien\w*|cerca (?:la parola|il testo|\"|')|cerca .* (?:nei|nel|in|dentro)")),
    ("find_files", whole(r"find|locate|how many|count|contami|trova|quanti|quante|conta|individua|where is|where's|"
                        r"dov'e|dov e|dove e|dove si trova|dove sta|where did|where has|end(?:ed)? up|"
                        r"(?:dov'e|dove e|dove sono) finit[oaie]|which folder|what folder|in (?:che|quale) cartella|"
                        r"files? (?:named|called)|file (?:chiamat\w+|di nome)|"
                        rf"{_are('trov')}|da qualche parte|somewhere|anywhere|esiste|any idea where|know where|"
                        r"dove (?:ho|avevo|hai) (?:messo|salvato|lasciato|spostato)|"
                        r"where (?:did|have) (?:i|you) (?:put|save|saved|leave|left|store|stored)")),
    ("read_files", whole(r"read|open|leggi|leggere|leggimi|leggerlo|apri|aprire|aprimi")),
    ("list_files", whole(r"list|ls|what files|which files|elenca|elencami|lista|quali file|che file|"
                        r"how (?:big|large) is|quanto (?:pesa|e grande)|when did i last (?:change|edit|modify|touch)|"
                        r"quando ho modificato|quando e stato modificato|last modified|size of|"
                        r"contents of the folder")),
)  # fmt: skip

GREP = whole(
    r"mention|mentions|mentioning|contain|contains|containing|grep|menzion\w*|contien\w*|contengono|"
    r"compare|compaiono|appears?|shows? up|occurs?|cerchi|cercami|cercalo|cercala|"
    r"talks? about|speaks? about|refers? to|parla(?:no)? di|cita(?:no)?|nomina(?:no)?"
)
# Files found by their names: "the files with 'invoice' in the name".
BY_NAME = whole(
    r"(?:in|nel) (?:the |their |its |loro )?(?:file ?names?|names?|nome)|whose names?|files? (?:named|called)|"
    r"file (?:chiamat\w+|di nome|che si chiam\w+)|"
    r"files? (?:that )?(?:end|ends|ending|start|starts|starting|begin|begins|beginning) (?:with|in)|"
    r"file (?:che )?(?:finisc|termin|inizi|cominci)\w* (?:con|per)"
)
CONTENTS = whole(
    r"contents? of|contenuto (?:di|del|della|dello)|what(?:'s| is) in(?:side)?|cosa c'e (?:in|dentro|nel|nella|nello)"
)
LINES = whole(r"lines?|righe|riga|words?|parole|characters|caratteri|rows?|columns?|colonne|entries|records|voci")
# Work that the shell does on files: "unzip photos.zip into photos/", «confronta a.yaml con b.yaml».
SHELLISH = whole(r"unzip|untar|decomprimi|scompatta|estrai|extract|diff|confronta|compare")
ARCHIVE = re.compile(r"\.(?:zip|tar|gz|tgz|bz2|xz|7z|rar)$", re.IGNORECASE)
# A file reshaped as a whole, which is read first: «mettimi in ordine alfabetico nomi.txt».
RESHAPE_FILE = whole(
    r"in minuscolo|in maiuscolo|in ordine alfabetico|alphabetical order|lowercase|uppercase|riga vuota|blank line|"
    r"dopo il titolo|after the title"
)
STOP_NAMES = (
    r"(?!(?:a|an|the|this|that|my|your|new|which|what|one|la|una|un|questa|quella|mia|nuova|che|quale|"
    r"su|di|in|per|on|of|for|with|con|da|from|other|altra|altro|stessa|same|delle|dei|degli|della|dello|del|"
    r"nel|nella|nei|nelle|non|dal|dalla|dai|sul|sulla|sui|piu|e|and|o|or|is|e|was|che)\b)"
)
FOLDER = re.compile(
    rf"\b(?:the|my|in|into|nella|della|dalla|la|nel|alla)\s+{STOP_NAMES}([\w.-]+(?:/[\w.-]+)*)\s+(?:folder|directory|dir)\b|"
    rf"\b(?:folders?|directory|directories|cartell[ae]|dirs?|sottocartell[ae]|sub-?folders?|sub-?director(?:y|ies))"
    rf"(?:\s+|\s*:\s*)"
    rf"(?:(?:called|named|chiamat[ae]|di nome|che si chiama)\s+)?"
    r"(?:(?:vuota|nuova|vecchia|empty|new|old)\s+(?=['\"«]))?"
    rf"(?:{STOP_NAMES}([\w.-]+(?:/[\w.-]+)*/?)|"
    r"['\"«]([^'\"»\n]{1,40})['\"»])"  # «una cartella 'foto vacanze'»
)
# Searching inside files needs something to search for: a quoted term, a code-like word, "the word X".
SEARCHED = re.compile(
    r"'[^']+'|\"[^\"]+\"|«[^»]+»|\b[A-Z]{2,}\b|\b(?:the word|the text|la parola|il testo|the string)\b|"
    r"(?<=\s)[A-Z][a-z]+\b|\b\d{3,}\b|\b[A-Za-z]+[a-z][A-Z]\w*"
)
# Where in the user's files something is: "which file defines the class Invoice?".
WHICH_FILE = whole(
    r"(?:which|what|in which|in what) files? (?:defines?|declares?|contains?|has|have|mentions?|uses?|holds?)|"
    r"(?:remember|ricordo|know|so|sure|sicuro) (?:in )?(?:which|what|che|quale|in which|in what) file|"
    r"(?:did|have) i (?:ever )?(?:write|written|note|noted|mention|mentioned)(?: down)? (?:anything|something) "
    r"(?:about|on)|(?:avevo|ho) (?:scritto|annotato|segnato) qualcosa (?:su|sul|sulla|sui|di)|"
    r"where i (?:wrote|noted|put) down|dove (?:mi )?(?:ero|avevo|ho) (?:segnat|scritt|annotat)\w*|"
    r"(?:line|riga|lines|righe) (?:in|of|del|nel) (?:my|mio|the|il) (?:code|codice)|"
    r"where (?:we|i) (?:call|use|import|define)|dove (?:chiamiamo|usiamo|importiamo|definiamo|chiamo|uso|si nomina)|"
    r"(?:which|what|quali|quale)(?: of)?(?: my| the| i miei| dei miei)? (?:\w+ )?(?:files?|scripts?|modules?|moduli) "
    r"(?:(?:in|under|inside|of|nella|nel|in|dentro|sotto) [\w./-]+ )?"  # "which python files in src/ import …"
    r"(?:imports?|uses?|calls?|references?|importano|usano|chiamano|importa|usa)|"
    r"where(?: is|'s|s| are)(?: in (?:the|my) code)? .{1,40} (?:defined|declared|called|used)|"
    r"(?:where|dove) .{0,30}\b(?:function|funzione|class|classe|method|metodo) [a-z_][\w.]*.{0,30}"
    r"\b(?:defined|declared|called|used|definit\w*|dichiarat\w*|chiamat\w*|usat\w*)|"
    r"dove (?:viene|e|sono|vengono) (?:definit|dichiarat|chiamat|usat)\w* (?:la |il |l')?"
    r"(?:funzione|classe|metodo|variabile)|(?:in )?quale file (?:del progetto )?(?:e|contiene|definisce|usa|ha)|"
    r"in quali file|dove e (?:definit|dichiarat)\w*|"
    r"where .{1,40} (?:is|are|gets?) (?:defined|declared|called|used|imported)|"
    r"dove (?:uso|usiamo|chiamo|importo|definisco|viene|vengono) .{0,30}\b(?:funzione|classe|metodo|variabile|"
    r"usat\w*|chiamat\w*)|where did i (?:write|note|put) down|"
    # «in quali note ho scritto di Berlino?», "which of my notes did I mention Rome in?"
    r"(?:which|what|quali|quale|che)(?: of)?(?: my| the| i miei| le mie| dei miei| delle mie)? "
    r"(?!(?:do|did|does|should|can|could|would|shall|will|have|has|had|cosa|is|are|was|to)\b)\w{3,} "
    r"(?:(?:ho|avevo|have i|did i|i|i've|abbiamo|we) )?"
    r"(?:scritto|written|wrote|write|mentioned|mention|menzionato|parlato|annotato|noted|talk(?:ed)? about|"
    r"parlano|menzionano|contengono|contain|mention)"
)

FILE_NOUN = whole(
    r"files?|notes?|nota|documents?|document[oi]|appunti|my code|il codice|the code|lines|righe|ricette|recipes|"
    r"emails?|logs?|scripts?|foto|photos?|pictures?|immagini|pdfs?|jpgs?|anything|qualcosa"
)
WHERE_SAVED = whole(
    r"where (?:did|have) i (?:put|save|saved|leave|left|store|stored|keep|kept)|"
    r"dove (?:ho|avevo) (?:messo|salvato|lasciato|archiviato)"
)
WORKSPACE_ROOT = whole(r"workspace|l'area di lavoro|cartella principale|main folder|top folder|root folder")
# The user's things by their kind, and the folders every machine has: "my spreadsheets", «i miei
# appunti», "whats in my Downloads?".
MY_THINGS = whole(
    r"(?:my|i miei|le mie|miei|mie|nei miei|nelle mie|dei miei|delle mie|tra i miei|tra le mie) "
    r"(?:notes|appunti|documents|documenti|docs|files|logs|projects|progetti|spreadsheets|fogli|photos|foto|"
    r"pictures|immagini|downloads?|recipes|ricette|scripts|pdfs?|screenshots?|code|codice|invoices|fatture|"
    r"verbali|minutes|contracts|contratti|preventivi|quotes)|"
    r"(?:tutti i|all the|in all the|in tutti i) (?:log|logs)|all my (?:invoices|contracts|logs)|"
    r"(?:the|il|nel|in the|del) [\w-]+ repo|(?:nel|il) repo|nel codice|nei verbali|nelle fatture|"
    r"(?:del|nel|il) mio codice|nelle (?:mie )?note|"
    r"(?:where(?:'s| is)|dov'e|dove e|dove sta|trovami|find) (?:my|il mio|la mia|i miei|le mie) "
    r"(?:resume|cv|curriculum|contract|contratto|thesis|tesi|report|relazione|invoice|fattura|passport|"
    r"passaporto|presentation|presentazione|spreadsheet|budget|essay|tema|cover letter|lettera)|"
    r"(?:my|the|i|nei|in|nella|della|la|dei) (?:downloads?|desktop|scrivania)(?= folder|[\s?!.,]|$)|"
    r"(?:count|conta|contami) (?:le|i|the|all the|all my|tutte le|tutti i) (?:foto|photos|pictures|immagini|pdfs?|"
    r"files?|documenti|documents)"
)
# Names of files that have no extension: "open the Makefile".
_NO_EXTENSION = r"makefile|dockerfile|procfile|gemfile|rakefile|jenkinsfile|vagrantfile|containerfile|readme|license"
KNOWN_NAMES = whole(rf"(?<!\ban )(?<!\ba )(?<!\bun )(?<!\buna )(?:{_NO_EXTENSION})")
KNOWN_NAMES_ANY_CASE = re.compile(rf"\b(?:{_NO_EXTENSION})\b", re.IGNORECASE)
# "what does notes/a.md say?": what a file says, not what a word means.
SAYS = whole(r"what does .{1,60} say|cosa dice|che dice")
# A folder after "what files … in": "what files do I have in src?".
FILES_IN = re.compile(
    r"\b(?:what|which|quali|che) files? (?:do i have|have i got|are there|are|ho|ci sono) "
    r"(?:in|inside|under|nella|nel|dentro) (?:the |my |la |il )?(?!(?:the|my|this|that|la|il)\b)([\w.-]+(?:/[\w.-]+)*)"
)

LOOK_AT = whole(
    r"dai un occhio a|dai un'occhio a|"
    r"take a look at|have a look at|look at|check out|open|read|dai un'occhiata a|dai un occhiata a|guarda|"
    r"controlla|apri|leggi|leggimi"
)
WHAT_I_WROTE = whole(
    r"what (?:did|have) i (?:write|written|put|save|saved|note|noted) (?:in|into|inside)|"
    r"cosa (?:ho|avevo) (?:scritto|salvato|annotato|messo) (?:in|nel|nella|nello|dentro)"
)
TYPO = whole(r"typos?|refus[oi]|errore di battitura|misspell\w*")
PUT = re.compile(r"(?:put|place|drop|stick|metti|mettere|mettilo|mettila|infila)\b")
SEARCHED_IN = re.compile(r"\s(?:in|inside|within|across|throughout|nei|nel|nella|dentro)\s")


def folder_name(match: re.Match) -> str:
    """The folder a `FOLDER` match names, in whichever of its forms."""
    return next(group for group in match.groups() if group)

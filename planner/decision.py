"""The route decision: does this message need tools at all? One of `direct` (answer in words),
`tools` (the engine), or `ask` (an action whose object is missing: one short question), decided
before plan memory and the engine, from evidence in the request, with no model.

Tools need evidence: a workspace object (a path, a file name, a folder, a glob, "my files") or a
tool's own object (a URL, a time or date question, arithmetic, a schedule, the agent's memory, the
task list, a shell command, a subagent, a skill). A verb alone is not evidence: "write a poem",
"explain X", "translate Y" and "summarise this text: …" are answered in words. A pre-filter
score alone is not evidence either: words that merely occur in a tool's description decide
nothing. Evidence that is there but weak (a dotted word in a question about the world) is
uncertain: the turn's model decides when it can call tools natively, and a local model answers
in words."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from planner import missing, name_share, object_kinds, own_objects, terms
from planner import params as P
from planner.intent import Intent
from planner.prefilter import Candidate
from planner.text import fold, whole
from planner.workspace import exists, reads_as_folder

# At or above this, the decision is sure; below it, only a model that calls tools natively may
# overrule `direct`.
SURE = 0.7


@dataclass(frozen=True)
class Decision:
    route: str  # direct | tools | ask
    evidence: tuple[str, ...] = ()
    confidence: float = 1.0
    tool: str | None = None  # the tool the evidence points at first, when it names one
    question: str = ""  # for `ask`

    @property
    def sure(self) -> bool:
        return self.confidence >= SURE

    def to_trace(self) -> dict:
        out = {"route": self.route, "evidence": list(self.evidence), "confidence": round(self.confidence, 2)}
        if self.tool:
            out["tool"] = self.tool
        return out


# Tools whose own object (a date, the task list, numbers) may come with a file action on a pronoun.
_NEEDS_ITS_OWN = ("get_time", "todo_update", "compute")
# A file that only a piece of writing is about: "a poem about a file called x.zip".
_IMAGINED_FILE = whole(
    r"(?:story|poem|song|joke|limerick|haiku|tale|fable|storia|storiella|poesia|canzone|barzelletta|"
    r"filastrocca|racconto|favola)\b.{0,30}\b(?:about|on|of|su|sul|sulla|di) (?:a|an|un|una) "
    r"(?:\w+ )?(?:file|folder|document|cartella|documento)"
)
# Where a piece of writing takes its facts from: "using the details in notes/sara.md".
_SOURCED = whole(
    r"(?:using|based on|drawing on|from the (?:details|info|information|notes|facts) in|"
    r"with the (?:details|info) (?:in|from)|"
    r"basandoti su|usando|in base a|partendo da|sulla base di|ispirandoti a|prendendo spunto da)"
    r"(?: (?:the|my|i|le|il|la|gli|lo|details|info|dettagli|appunti|notes|data|dati|in|di|del|della|nel|nella|from))*"
    r" \S*[./]\S+"
)
_WEB = whole(r"on the web|the web for|sul web|in rete|online|su internet|on the internet|on wikipedia|su wikipedia")
# A question about what something is, not about the user's copy of it: "what is a CSV file?".
_DEFINITION = whole(
    r"what is an?|what's an?|whats an?|what are|what does|explain|how does|how do|why do|why does|difference between|"
    r"cos'e|cos e|cosa e|che cos'e|che cosa e|cosa sono|spiega|spiegami|come funziona|come funzionano|differenza tra|"
    r"a cosa serve|what is the purpose|what.s the purpose|what is .* used for|what does .* do|cosa fa|che cosa fa|"
    r"how to|how do i|how do you|how can i|come si|come posso|come faccio|"
    r"(?:a|the) (?:good|best|better) way to|how should i|tips (?:for|on)|"
    r"il modo migliore|come dovrei|consigli (?:su|per)"
    r"|^(?:what is|what's|whats|cos'e|cos e|che cos'e|cosa e)\s+(?:an? |the |il |lo |la |l')?\S+\s*\??$"
)
# Text given inline to work on: "summarise: …", "traduci: …". What follows the colon is the data.
_INLINE = re.compile(r"^([^:\n\[]{0,60}):\s+\S")  # not "[attached: uploads/a.pdf]"
_NUMBERS_ONLY = re.compile(r"(?:[\s,;]*-?\d+(?:[.,]\d+)?){2,}[\s.?!]*")
# A quote opened before the colon and not closed: "write 'Day one: sunny' to a.md" quotes a text.
_OPEN_QUOTE = re.compile(r"(?:^|[\s(])(?:'[^']*|\"[^\"]*|«[^»]*|“[^”]*)$")
_NAMES_NEXT = re.compile(r"\b(?:folders|directories|cartelle)\s*$")
_ADDING = whole(r"add|append|write|put|insert|aggiungi|accoda|scrivi|metti|inserisci")
_INTO_FILE = re.compile(r"\s(?:in|to|into|nel|nella|a|al|alla|dentro)\s+\S+\.\w{1,5}\s*[.!?]*$")
_URL_AFTER = re.compile(r":\s+(?:https?://|www\.)\S+\s*$")
_POSSESSIVE_FILES = whole(r"my|mine|our|i miei|le mie|il mio|la mia|nostri|nostre|in the workspace|nel workspace")
_GREP = whole(
    r"mention|mentions|mentioning|contain|contains|containing|grep|menzion\w*|contien\w*|contengono|"
    r"compare|compaiono|appears?|shows? up|occurs?|cerchi|cercami|cercalo|cercala|"
    r"talks? about|speaks? about|refers? to|parla(?:no)? di|cita(?:no)?|nomina(?:no)?"
)
# Verbs of the file tools, for the first tool the workspace evidence points at.
_FIRST_FILE_TOOL = (
    ("make_dirs", whole(r"mkdir|(?:create|make) (?:a |the |new |a new |two |three |some )?(?:folder|directory|dir)s?|"
                       r"(?:create|make) (?:the |two |three |some )?directories|new folder|"
                       r"(?:crea|crei|creami|fai|fammi) (?:una |la |le |delle |due |tre )?(?:nuov[ae] )?cartell[ae]|"
                       r"nuova cartella")),
    ("edit_file", whole(r"replace|change|edit|fix|correct|modify|update|sostituisci|cambia|modifica|correggi|aggiorna|"
                       r"(?:delete|remove|cancella|elimina|rimuovi) (?:the |la |una |the last |the first |l'ultima )?"
                       r"(?:lines?|words?|righe|riga|parola|parole|typo)")),
    ("move_files", whole(r"move|rename|spost[ai]\w*|rinomin[ai]\w*")),
    ("delete_files", whole(r"delete|remove|erase|get rid of|throw away|cancella|elimina|rimuovi|cancellalo|eliminalo|"
                          r"butta via")),
    ("write_files", whole(r"write|save|store|append|add|note down|put|create|overwrite|"
                         r"make (?:me )?(?:a|an)|creare|scrivere|salvare|aggiungere|annotare|"
                         r"make (?:a |an )?(?:new )?(?:file|note)|"
                         r"scrivi|salva|aggiungi|annota|metti|crea|accoda|salvalo|salvala|scrivilo|scrivila|inserisci|"
                         r"mettici|scrivici")),
    ("grep_files", whole(r"mention|mentions|mentioning|contain|contains|containing|search (?:for|in)|grep|look for|"
                        r"search (?:my|the|all|all my|all the) [\w./-]+ for|"
                        r"talks? about|parla(?:no)? di|cerca dentro|search inside|look inside|cercal[oaie]|"
                        r"menzion\w*|contien\w*|cerca (?:la parola|il testo|\"|')|cerca .* (?:nei|nel|in|dentro)")),
    ("find_files", whole(r"find|locate|how many|count|trova|quanti|quante|conta|individua|where is|where's|"
                        r"dov'e|dov e|dove e|dove si trova|dove sta|where did|where has|end(?:ed)? up|finit[oa]|"
                        r"files? (?:named|called)|"
                        r"file (?:chiamat\w+|di nome)")),
    ("list_files", whole(r"list|ls|what files|which files|elenca|elencami|lista|quali file|che file|"
                        r"contents of the folder")),
)  # fmt: skip


def decide(
    text: str,
    *,
    intent: Intent,
    ranked: list[Candidate],
    workspace: Path | None = None,
    extraction: P.Extraction | None = None,
    earlier: frozenset[str] = frozenset(),
) -> Decision:
    """The route for one message, with the evidence for it and how sure it is. `extraction`: the
    request's typed values when the caller has them already (plan memory's probe). `earlier`:
    paths the session's last results gave (a listing, the files a plan named): naming one of them
    names a workspace object, even one that is gone now."""
    folded = fold(text).strip()
    inline = _INLINE.match(folded)
    if inline is not None and _URL_AFTER.search(folded, inline.end(1)):
        inline = None  # "summarise this article: https://…": the address is the object, not data
    if inline is not None and _OPEN_QUOTE.search(inline.group(1)):
        inline = None  # the colon is inside a quoted text: "scrivi 'Primo giorno: sole' in a.md"
    if inline is not None and _NAMES_NEXT.search(inline.group(1)):
        inline = None  # "create two folders: src and tests": the colon introduces their names
    if inline is not None and _ADDING.search(inline.group(1)) and _INTO_FILE.search(folded, inline.end(1)):
        inline = None  # «aggiungi luglio: 51 in casa/bollette.txt»: the colon is in the line added
    if inline is not None and _NUMBERS_ONLY.fullmatch(folded, inline.end(1) + 1):
        inline = None  # "the standard deviation of these: 4.2 5.1 3.9": numbers to compute with
    if inline is not None:
        # Text given inline ("summarise: …", "traduci: …"): what follows the colon is the data, so
        # only the words before it can name an object to act on.
        text = folded = inline.group(1)
        extraction = None
    extraction = extraction or P.extract(text, workspace)
    own = own_objects.find(folded, extraction, definition=bool(_DEFINITION.search(folded)))
    if own is not None and own[0] == "schedule_recurring" and own_objects.bare_schedule(folded):
        return Decision("ask", ("a schedule without what to do",), 0.8, question=missing.question(text))
    if own is not None and own[0] in _NEEDS_ITS_OWN and missing.missing_object(folded, pronoun=True):
        # «aggiungilo alla lista delle cose da fare», «rinominalo con la data di oggi»: the task, the
        # date or the number is there, and what to act on is a pronoun.
        return Decision("ask", ("action without an object",), 0.8, question=missing.question(text))
    if own is not None and own_objects.bare_task(folded):
        return Decision("ask", ("a recurring task without its name",), 0.8, question=missing.question(text))
    if own is not None:
        tool, evidence, confidence = own
        return Decision("tools", (evidence,), confidence, tool)
    found = _workspace_evidence(*_without_passages(folded, extraction), workspace, earlier)
    if found and _IMAGINED_FILE.search(folded):
        # «inventa una storia su un file chiamato backup.zip»: a file in a story, which a model that
        # calls tools natively may still take for one to read.
        return Decision("direct", ("a file that a piece of writing is about",), 0.6)
    if found and all(e.startswith(("folder ", "root ")) for e in found[0]) and missing.missing_object(folded):
        found = None  # "copialo nella cartella backup", "search for that word in my files": where, not what
    if found:
        evidence, confidence = found
        return Decision("tools", tuple(evidence), confidence, _file_tool(folded, extraction, ranked, workspace))
    if not _DEFINITION.search(folded) and (named := name_share.shared(folded, workspace)):
        return Decision("tools", (f"file names with {named[1]}",), 0.85, "find_files")  # «trovami le fatture»
    # Not "how do I rename a file?": a question about how, not an action.
    if (
        missing.missing_object(folded, inline=inline is not None)
        and not _DEFINITION.search(folded)
        and not _CODE_REQUEST.search(folded)  # «scrivimi una funzione che rinomina i file»: code to show
    ):
        return Decision("ask", ("action without an object",), 0.8, question=missing.question(text))
    if _WEB.search(folded) and not _DEFINITION.search(folded):
        return Decision("direct", ("the web, without an address",), 0.5)
    return Decision("direct", ("no workspace object or tool object named",), 0.9)


# A quoted passage of five words or more is text to talk about, not a name: "is this passive
# aggressive? 'As per my last email, the files are in the shared folder.'"
_PASSAGE = re.compile(
    r"(?:^|(?<=[\s(:]))(?:'[^'\n]*(?:\s+[^'\s]+){4,}'|\"[^\"\n]*(?:\s+[^\"\s]+){4,}\"|«[^»]*(?:\s+[^»\s]+){4,}»)"
)


def _without_passages(folded: str, extraction: P.Extraction) -> tuple[str, P.Extraction]:
    """The request less the passages it quotes: the folded text, and the values outside them."""
    spans = [m.span() for m in _PASSAGE.finditer(extraction.text)]
    if not spans:
        return folded, extraction
    values = tuple(v for v in extraction.values if not any(a <= v.start < b for a, b in spans))
    return _PASSAGE.sub(" ", folded), P.Extraction(extraction.text, values, extraction.masked)


def _workspace_evidence(
    folded: str, extraction: P.Extraction, workspace: Path | None, earlier: frozenset[str] = frozenset()
) -> tuple[list[str], float] | None:
    """What in the request names the user's files: (evidence, confidence), or None."""
    evidence, confidence = [], 0.0
    definition = bool(_DEFINITION.search(folded))
    if _CODE_REQUEST.search(folded):
        # "write a python script that renames all .jpg files in a folder", «dammi un comando bash per
        # contare le righe dei file .txt»: code to show, whose files are the code's, not the user's;
        # only the script's own file named ("… and save it as tools/rename.py") is a target.
        named = [v for v in extraction.values if v.type == "path" and _CODE_FILE.search(v.text)]
        return ([f"path {named[0].text}"], 0.9) if named else None
    for value in extraction.values:
        if value.type == "glob":
            evidence.append(f"glob {value.text}")
            confidence = max(confidence, 0.95)
        elif value.type == "path":
            there = exists(workspace, value.text)
            slash = "/" in value.text
            known = "." in value.text and object_kinds.is_file_extension(value.text.rsplit(".", 1)[1])
            if there or slash or known or _named_earlier(value.text, earlier):
                evidence.append(f"path {value.text}")
                confidence = max(confidence, 1.0 if there else 0.5 if definition else 0.9)
        elif value.type in ("identifier", "quoted") and _named_earlier(value.text, earlier):
            evidence.append(f"named earlier {value.text}")
            confidence = max(confidence, 0.9)
        elif value.type in ("identifier", "quoted") and workspace is not None and exists(workspace, value.text):
            evidence.append(f"path {value.text}")  # README, `Makefile`: a name that is in the workspace
            confidence = max(confidence, 1.0)
        elif value.type == "ext" and not definition:
            evidence.append(f"extension {value.text}")
            confidence = max(confidence, 0.8)
    if _WHICH_FILE.search(folded) and not definition:
        evidence.append("which file holds something")
        confidence = max(confidence, 0.85)
    if _GREP.search(folded) and _FILE_NOUN.search(folded) and _SEARCHED.search(extraction.text) and not definition:
        evidence.append("a search inside files")
        confidence = max(confidence, 0.85)
    if _BY_NAME.search(folded) and _FILE_NOUN.search(folded) and not definition:
        evidence.append("files by name")
        confidence = max(confidence, 0.85)
    folder = _FOLDER.search(folded)
    if folder and not definition:
        evidence.append(f"folder {_folder_name(folder)}")
        confidence = max(confidence, 0.85)
    for item in _derived(folded):
        if not definition or (item.kind != "root" and _POSSESSIVE_FILES.search(folded)):
            evidence.append(f"{item.kind} {item.phrase}")
            confidence = max(confidence, 0.9 if item.kind == "root" else 0.85)
    return (evidence, confidence) if evidence else None


def _file_tool(
    folded: str, extraction: P.Extraction, ranked: list[Candidate], workspace: Path | None = None
) -> str | None:
    """The file tool the request asks for first: by its verbs, else the pre-filter's best file tool."""
    original = extraction.text
    types = {v.type for v in extraction.values}
    derived = _derived(folded)
    if any(item.kind == "glob" for item in derived):
        types.add("glob")  # "any python files under scripts/": files of a kind, found
    first_verb = None
    for tool, pattern in _FIRST_FILE_TOOL:
        match = pattern.search(folded)
        if match and (first_verb is None or match.start() < first_verb[1]):
            first_verb = (tool, match.start())
    if _WHICH_FILE.search(folded):
        return "grep_files"
    looking = first_verb is None or first_verb[0] in _LOOKING_FILE_TOOLS
    if looking and terms.bare_term(original, [(v.start, v.end) for v in extraction.values]):
        return "grep_files"  # «in quali ricette c'è il guanciale?», "cerca Giulia in contatti.txt"
    if _BY_NAME.search(folded) and (first_verb is None or first_verb[0] != "write_files"):
        return "find_files"
    if (first_verb is None or first_verb[0] != "write_files") and _GREP.search(folded) and _SEARCHED.search(original):
        return "grep_files"
    paths = [v.text for v in extraction.values if v.type == "path"]
    folders = _FOLDER.search(folded) or any(reads_as_folder(workspace, path) for path in paths)
    if first_verb is None and _CONTENTS.search(folded) and types & {"path", "ext"} and not folders:
        return "read_files"  # "the contents of .env.example": a file to read, whatever its name looks like
    if first_verb is not None:
        tool = first_verb[0]
        if tool == "write_files" and _SOURCED.search(folded):
            return "read_files"  # "write a poem for her using the details in notes/sara.md": read first
        if tool == "grep_files" and not _SEARCHED.search(original):
            if {"glob", "ext"} & types:
                return "find_files"  # "look for any files named *backup*": names, not contents
            tool = "list_files" if _FOLDER.search(folded) or "/" in folded else "read_files"
        if tool == "find_files" and "path" in types and not ({"glob", "ext"} & types) and _LINES.search(folded):
            return "read_files"  # "how many lines does todo.txt have": a count of what reading gives
        if tool == "list_files" and ({"glob", "ext"} & types):
            return "find_files"
        return tool
    if types & {"glob", "ext"}:
        return "find_files"
    if derived and "path" not in types:
        return "list_files" if derived[0].kind == "root" else "find_files"
    if "path" in types:
        named = {fold(_folder_name(m)).rstrip("/") for m in _FOLDER.finditer(folded)}
        if fold(paths[0]) in named or reads_as_folder(workspace, paths[0]):
            return "list_files"
        return "read_files"
    if _FOLDER.search(folded):
        return "list_files"  # "e nella sottocartella archivio cosa c'è?"
    files = [c.name for c in ranked if c.name in _LOOKING_FILE_TOOLS]
    return files[0] if files else (ranked[0].name if ranked else None)


def _derived(folded: str) -> list:
    """The file kinds and root the request names in words, less one it asks to have written: "a
    python script that counts words" is code to write in the answer, not the user's *.py files."""
    return [
        item for item in object_kinds.derived(folded)
        if not (item.kind == "glob" and _TO_WRITE.search(folded[: folded.find(item.phrase)]))
    ]  # fmt: skip


_TO_WRITE = re.compile(
    r"\b(?:write|create|make|give|show|code|scrivi|scrivere|scrivimi|crea|creami|fammi|dammi)\b(?: \w+){0,2} "
    r"(?:an?|uno|una|un)\s*$"
)
# A piece of code asked for, to be shown: "give me a bash one-liner to …", «scrivimi una funzione che …».
_CODE_REQUEST = whole(
    r"(?:write|give|show|make|create|scrivi|scrivimi|dammi|fammi|mostrami|creami|preparami)(?: me| mi)?"
    r" (?:an?|uno|una|un|the|il|lo|la) (?:\w+ ){0,2}(?:script|command|one-?liner|regex|regular expression|"
    r"function|snippet|program|query|comando|funzione|espressione regolare|alias)s?"
)
_CODE_FILE = re.compile(r"\.(?:py|sh|bash|js|ts|rb|go|rs|sql|ps1|bat|java|c|cpp|php|pl|r)$", re.IGNORECASE)
# Files found by their names: "the files with 'invoice' in the name".
_BY_NAME = whole(
    r"(?:in|nel) (?:the |their |its |loro )?(?:names?|nome)|whose names?|files? (?:named|called)|"
    r"file (?:chiamat\w+|di nome|che si chiam\w+)|"
    r"files? (?:that )?(?:end|ends|ending|start|starts|starting|begin|begins|beginning) (?:with|in)|"
    r"file (?:che )?(?:finisc|termin|inizi|cominci)\w* (?:con|per)"
)
_CONTENTS = whole(
    r"contents? of|contenuto (?:di|del|della|dello)|what(?:'s| is) in(?:side)?|cosa c'e (?:in|dentro|nel|nella|nello)"
)
# The file tools that only look, for a request whose verbs name none.
_LOOKING_FILE_TOOLS = ("read_files", "list_files", "find_files", "grep_files")
_LINES = whole(r"lines?|righe|riga|words?|parole|characters|caratteri")


def _folder_name(match: re.Match) -> str:
    """The folder a `_FOLDER` match names, in whichever of its forms."""
    return next(group for group in match.groups() if group)


def _named_earlier(name: str, earlier: frozenset[str]) -> bool:
    return bool(earlier) and (name in earlier or any(path.endswith(f"/{name}") for path in earlier))


_STOP_NAMES = (
    r"(?!(?:a|an|the|this|that|my|your|new|which|what|one|la|una|un|questa|quella|mia|nuova|che|quale|"
    r"su|di|in|per|on|of|for|with|con|da|from|other|altra|altro|stessa|same)\b)"
)
_FOLDER = re.compile(
    rf"\b(?:the|my|in|into|nella|della|dalla|la|nel|alla)\s+{_STOP_NAMES}([\w.-]+(?:/[\w.-]+)*)\s+(?:folder|directory|dir)\b|"
    rf"\b(?:folders?|directory|directories|cartell[ae]|dirs?|sottocartell[ae]|sub-?folders?|sub-?director(?:y|ies))"
    rf"(?:\s+|\s*:\s*)"
    rf"(?:(?:called|named|chiamat[ae]|di nome)\s+)?(?:{_STOP_NAMES}([\w.-]+(?:/[\w.-]+)*/?)|"
    r"['\"«]([^'\"»\n]{1,40})['\"»])"  # «una cartella 'foto vacanze'»
)
# Searching inside files needs something to search for: a quoted term, a code-like word, "the word X".
_SEARCHED = re.compile(
    r"'[^']+'|\"[^\"]+\"|«[^»]+»|\b[A-Z]{2,}\b|\b(?:the word|the text|la parola|il testo|the string)\b|"
    r"(?<=\s)[A-Z][a-z]+\b|\b\d{3,}\b"
)
# Where in the user's files something is: "which file defines the class Invoice?".
_WHICH_FILE = whole(
    r"(?:which|what|in which|in what) files? (?:defines?|declares?|contains?|has|have|mentions?|uses?|holds?)|"
    r"(?:which|what|quali|quale)(?: of)?(?: my| the| i miei| dei miei)? (?:\w+ )?(?:files?|scripts?|modules?|moduli) "
    r"(?:(?:in|under|inside|of|nella|nel|in|dentro|sotto) [\w./-]+ )?"  # "which python files in src/ import …"
    r"(?:imports?|uses?|calls?|references?|importano|usano|chiamano|importa|usa)|"
    r"where(?: is|'s|s| are)(?: in (?:the|my) code)? .{1,40} (?:defined|declared|called|used)|"
    r"(?:where|dove) .{0,30}\b(?:function|funzione|class|classe|method|metodo) [a-z_][\w.]*.{0,30}"
    r"\b(?:defined|declared|called|used|definit\w*|dichiarat\w*|chiamat\w*|usat\w*)|"
    r"dove (?:viene|e|sono|vengono) (?:definit|dichiarat|chiamat|usat)\w* (?:la |il |l')?"
    r"(?:funzione|classe|metodo|variabile)|(?:in )?quale file (?:del progetto )?(?:e|contiene|definisce|usa|ha)|"
    r"in quali file|dove e (?:definit|dichiarat)\w*|"
    # «in quali note ho scritto di Berlino?», "which of my notes did I mention Rome in?"
    r"(?:which|what|quali|quale)(?: of)?(?: my| the| i miei| le mie| dei miei| delle mie)? "
    r"(?:notes?|note|appunti|documents?|documenti) (?:(?:ho|have i|did i|i|i've|abbiamo|we) )?"
    r"(?:scritto|written|wrote|write|mentioned|mention|menzionato|parlato|annotato|noted|talk(?:ed)? about|"
    r"parlano|menzionano|contengono|contain|mention)"
)
_FILE_NOUN = whole(r"files?|notes?|nota|documents|documenti|appunti|my code|il codice|the code|lines|righe")

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

from planner import file_words as W
from planner import missing, name_share, object_kinds, own_objects, terms
from planner import params as P
from planner import route_words as R
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

    def serves(self, plan) -> bool:
        """Whether a plan (a Plan or its dict) serves this decision: not when the decision names a
        tool's own object (the clock, the memory, the task list) and the plan never calls that tool,
        as a plan that tells the time for "I don't eat pasta anymore" does not. Such a plan is
        neither served from plan memory nor learned."""
        if not self.sure or self.route != "tools" or self.tool is None or self.tool in _FILE_TOOLS:
            return True
        steps = plan.get("steps") or [] if isinstance(plan, dict) else plan.steps
        return any((s.get("tool") if isinstance(s, dict) else s.tool) == self.tool for s in steps)

    def to_trace(self) -> dict:
        out = {"route": self.route, "evidence": list(self.evidence), "confidence": round(self.confidence, 2)}
        if self.tool:
            out["tool"] = self.tool
        return out


_FILE_TOOLS = frozenset(tool for tool, _ in W.FIRST_FILE_TOOL)
# Tools whose own object (a date, the task list, numbers) may come with a file action on a pronoun.
_NEEDS_ITS_OWN = ("get_time", "todo_update", "compute")
# Text given inline to work on: "summarise: …", "traduci: …". What follows the colon is the data.
_INLINE = re.compile(r"^([^:\n\[]{0,60}):\s+\S")  # not "[attached: uploads/a.pdf]"
_NUMBERS_ONLY = re.compile(r"(?:[\s,;]*-?\d+(?:[.,]\d+)?){2,}[\s.?!]*")
# A quote opened before the colon and not closed: "write 'Day one: sunny' to a.md" quotes a text.
_OPEN_QUOTE = re.compile(r"(?:^|[\s(])(?:'[^']*|\"[^\"]*|«[^»]*|“[^”]*)$")
_THIS = whole(r"this|these|questo|questa|questi|queste|the following|il seguente|la seguente")
_NAMES_NEXT = re.compile(r"\b(?:folders?|directories|directory|cartell[ae])\s*$")
_ADDING = whole(r"add|append|write|put|insert|aggiungi|accoda|scrivi|metti|inserisci")
_INTO_FILE = re.compile(r"\s(?:in|to|into|nel|nella|a|al|alla|dentro)\s+\S+\.\w{1,5}\s*[.!?]*$")
_URL_AFTER = re.compile(r":\s+(?:https?://|www\.)\S+\s*$")
_POSSESSIVE_FILES = whole(r"my|mine|our|i miei|le mie|il mio|la mia|nostri|nostre|in the workspace|nel workspace")


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
    if (
        inline is not None
        and len(inline[1].split()) <= 3
        and not intent.verbs
        and not _THIS.search(inline[1])
        and not missing.transforms(inline[1])
    ):
        inline = None  # "archive time: move everything in …": a label before the colon, not a verb on data
    if inline is not None and _EDIT_MARK.search(folded, inline.end(1)):
        inline = None  # "in config.yaml metti debug: false al posto di debug: true": the colon is in the text
    if inline is not None and _NUMBERS_ONLY.fullmatch(folded, inline.end(1) + 1):
        inline = None  # "the standard deviation of these: 4.2 5.1 3.9": numbers to compute with
    if inline is not None:
        # Text given inline ("summarise: …", "traduci: …"): what follows the colon is the data, so
        # only the words before it can name an object to act on.
        text = folded = inline.group(1)
        extraction = None
    extraction = extraction or P.extract(text, workspace)
    own = own_objects.find(folded, extraction, definition=bool(R.DEFINITION.search(folded)))
    if (
        own is not None
        and own[1] == "a web address"
        and any(
            v.type == "path" and "/" in v.text and object_kinds.is_file_extension(v.text.rsplit(".", 1)[-1])
            for v in extraction.values
        )
    ):
        own = None  # "in src/app.js change the API URL to api.myapp.io": an edit, not a page to fetch
    if own is not None and own[0] == "schedule_recurring" and own_objects.bare_schedule(folded):
        return Decision("ask", ("a schedule without what to do",), 0.8, question=missing.question(text))
    if (
        own is not None
        and own[0] in _NEEDS_ITS_OWN
        and missing.missing_object(folded, pronoun=True, inline=inline is not None)
    ):
        # «aggiungilo alla lista delle cose da fare», «rinominalo con la data di oggi»: the task, the
        # date or the number is there, and what to act on is a pronoun.
        return Decision("ask", ("action without an object",), 0.8, question=missing.question(text))
    if own is not None and own_objects.bare_task(folded):
        return Decision("ask", ("a recurring task without its name",), 0.8, question=missing.question(text))
    if own is not None and inline is None and own_objects.bare_object(folded, own[0]):
        # "remember that", «carica quella skill di cui parlavamo»: the tool's object is a pronoun
        return Decision("ask", ("a tool's own object without which one",), 0.8, question=missing.question(text))
    if own is not None:
        tool, evidence, confidence = own
        return Decision("tools", (evidence,), confidence, tool)
    found = _workspace_evidence(*_without_passages(folded, extraction), workspace, earlier)
    if found and R.IMAGINED_FILE.search(folded):
        # «inventa una storia su un file chiamato backup.zip»: a file in a story, which a model that
        # calls tools natively may still take for one to read.
        return Decision("direct", ("a file that a piece of writing is about",), 0.6)
    if found and all(e.startswith(("folder ", "root ")) for e in found[0]) and missing.missing_object(folded):
        found = None  # "copialo nella cartella backup", "search for that word in my files": where, not what
    if found and _only_destinations(folded, extraction) and missing.missing_object(folded, pronoun=True):
        found = None  # "rename it to final.docx", «rinominalo in definitivo.docx»: the new name, not what
    if found:
        evidence, confidence = found
        return Decision("tools", tuple(evidence), confidence, _file_tool(folded, extraction, ranked, workspace))
    if not R.DEFINITION.search(folded) and (named := name_share.shared(folded, workspace)):
        return Decision("tools", (f"file names with {named[1]}",), 0.85, "find_files")  # «trovami le fatture»
    # Not "how do I rename a file?": a question about how, not an action.
    if (
        missing.missing_object(folded, inline=inline is not None)
        and (not R.DEFINITION.search(folded) or W.SAYS.search(folded))  # "what does the second paragraph say?"
        and not R.CODE_REQUEST.search(folded)  # «scrivimi una funzione che rinomina i file»: code to show
        and not R.IMAGINED_FILE.search(folded)  # «scrivi una poesia su un file perduto»
    ):
        return Decision("ask", ("action without an object",), 0.8, question=missing.question(text))
    if R.WEB.search(folded) and not R.DEFINITION.search(folded):
        return Decision("direct", ("the web, without an address",), 0.5)
    return Decision("direct", ("no workspace object or tool object named",), 0.9)


# A quoted passage of five words or more is text to talk about, not a name: "is this passive
# aggressive? 'As per my last email, the files are in the shared folder.'"
_PASSAGE = re.compile(
    r"(?:^|(?<=[\s(:]))(?:'[^'\n]*(?:\s+[^'\s]+){4,}'|\"[^\"\n]*(?:\s+[^\"\s]+){4,}\"|«[^»]*(?:\s+[^»\s]+){4,}»)"
)


# Not a passage: a quoted path with spaces in it, "trash 'notes/copy of copy of ideas.md'".
_QUOTED_PATH = re.compile(r"\.[A-Za-z0-9]{1,5}['\"»]$")


def _without_passages(folded: str, extraction: P.Extraction) -> tuple[str, P.Extraction]:
    """The request less the passages it quotes: the folded text, and the values outside them."""
    spans = [m.span() for m in _PASSAGE.finditer(extraction.text) if not _QUOTED_PATH.search(m.group(0))]
    if not spans:
        return folded, extraction
    values = tuple(v for v in extraction.values if not any(a <= v.start < b for a, b in spans))
    return _PASSAGE.sub(" ", folded), P.Extraction(extraction.text, values, extraction.masked)


def _workspace_evidence(
    folded: str, extraction: P.Extraction, workspace: Path | None, earlier: frozenset[str] = frozenset()
) -> tuple[list[str], float] | None:
    """What in the request names the user's files: (evidence, confidence), or None."""
    evidence, confidence = [], 0.0
    # Not «dai un'occhiata a main.py e spiegami cosa fa»: the file is looked at first.
    definition = bool(R.DEFINITION.search(folded)) and not W.SAYS.search(folded)
    definition = definition and (not W.LOOK_AT.search(folded) or bool(R.ADVICE.search(folded)))
    if R.CODE_REQUEST.search(folded):
        # "write a python script that renames all .jpg files in a folder", «dammi un comando bash per
        # contare le righe dei file .txt»: code to show, whose files are the code's, not the user's;
        # only the script's own file named ("… and save it as tools/rename.py") is a target.
        named = [v for v in extraction.values if v.type == "path" and R.CODE_FILE.search(v.text)]
        return ([f"path {named[0].text}"], 0.9) if named else None
    for value in extraction.values:
        if value.type == "glob":
            evidence.append(f"glob {value.text}")
            confidence = max(confidence, 0.5 if definition else 0.95)  # not "what does */5 * * * * mean?"
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
        elif value.type == "quoted" and (
            "/" in value.text
            or object_kinds.is_file_extension(value.text.rsplit(".", 1)[-1] if "." in value.text else "")
        ):
            evidence.append(f"path {value.text}")  # "trash 'notes/copy of ideas.md'": a path with spaces
            confidence = max(confidence, 0.9)
        elif value.type in ("identifier", "quoted") and workspace is not None and exists(workspace, value.text):
            evidence.append(f"path {value.text}")  # README, `Makefile`: a name that is in the workspace
            confidence = max(confidence, 1.0)
        elif value.type == "ext" and _DOTFILE.search(folded) and not definition:
            evidence.append(f"path {value.text}")  # "check my .env": a file by its name, not a kind
            confidence = max(confidence, 0.9)
        elif value.type == "ext" and not definition:
            evidence.append(f"extension {value.text}")
            confidence = max(confidence, 0.8)
    if W.WHICH_FILE.search(folded) and not definition:
        evidence.append("which file holds something")
        confidence = max(confidence, 0.85)
    if W.GREP.search(folded) and W.FILE_NOUN.search(folded) and W.SEARCHED.search(extraction.text) and not definition:
        evidence.append("a search inside files")
        confidence = max(confidence, 0.85)
    if (
        W.BY_NAME.search(folded)
        and (W.FILE_NOUN.search(folded) or "quoted" in {v.type for v in extraction.values})
        and not definition
    ):
        evidence.append("files by name")
        confidence = max(confidence, 0.85)
    if (known := W.KNOWN_NAMES.search(folded)) and not definition:
        evidence.append(f"path {known.group(0)}")  # "open the Makefile"
        confidence = max(confidence, 0.9)
    where = W.WHERE_SAVED.search(folded) or W.WORKSPACE_ROOT.search(folded) or W.MY_THINGS.search(folded)
    if where and not definition:
        evidence.append(f"root {where.group(0)}")  # "where did I save my cover letter?", «il workspace»
        confidence = max(confidence, 0.85)
    folder = W.FOLDER.search(folded) or W.FILES_IN.search(folded)
    if folder and not definition:
        evidence.append(f"folder {W.folder_name(folder)}")
        confidence = max(confidence, 0.85)
    for item in _derived(folded):
        if not definition or (item.kind != "root" and _POSSESSIVE_FILES.search(folded) and not R.ADVICE.search(folded)):
            evidence.append(f"{item.kind} {item.phrase}")
            confidence = max(confidence, 0.9 if item.kind == "root" else 0.85)
    return (evidence, confidence) if evidence else None


def _file_tool(
    folded: str, extraction: P.Extraction, ranked: list[Candidate], workspace: Path | None = None
) -> str | None:
    """The file tool the request asks for first: by its verbs, else the pre-filter's best file tool."""
    original = extraction.text
    types = {v.type for v in extraction.values}
    one_file = W.KNOWN_NAMES.search(folded) or _DOTFILE.search(folded)
    if one_file:
        types = (types - {"ext"}) | {"path"}  # "open the Makefile", "check my .env": one file
    derived = _derived(folded)
    if any(item.kind == "glob" for item in derived):
        types.add("glob")  # "any python files under scripts/": files of a kind, found
    first_verb = None
    for tool, pattern in W.FIRST_FILE_TOOL:
        match = pattern.search(folded)
        if match and (first_verb is None or match.start() < first_verb[1]):
            first_verb = (tool, match.start())
    if W.WHICH_FILE.search(folded):
        return "grep_files"
    paths = [v.text for v in extraction.values if v.type == "path"] or ([one_file.group(0)] if one_file else [])
    if W.WHAT_I_WROTE.search(folded):  # "what did I write in journal/x.md?", «cosa ho salvato nel workspace?»
        return "read_files" if any(not reads_as_folder(workspace, path) for path in paths) else "list_files"
    searched = _searched(extraction)
    looking = first_verb is None or first_verb[0] in _LOOKING_FILE_TOOLS
    if looking and terms.bare_term(original, [(v.start, v.end) for v in extraction.values]):
        return "grep_files"  # «in quali ricette c'è il guanciale?», "cerca Giulia in contatti.txt"
    if W.BY_NAME.search(folded) and (first_verb is None or first_verb[0] != "write_files"):
        return "find_files"
    if W.SHELLISH.search(folded) and (len(paths) >= 2 or any(W.ARCHIVE.search(p) for p in paths)):
        return "run_shell"  # "unzip photos.zip into photos/", "diff config.yaml against config.yaml.bak"
    if W.RESHAPE_FILE.search(folded) and any("." in p.rsplit("/", 1)[-1] for p in paths):
        return "read_files"  # «metti in minuscolo tutti i titoli di docs/guida.md»: read it first
    if W.TYPO.search(folded) and paths:
        return "edit_file"  # "there's a typo in README.md, it says 'recieve', fix it"
    if (first_verb is None or first_verb[0] != "write_files") and W.GREP.search(folded) and searched:
        return "grep_files"
    folders = W.FOLDER.search(folded) or any(reads_as_folder(workspace, path) for path in paths)
    if first_verb is None and W.CONTENTS.search(folded) and types & {"path", "ext"} and not folders:
        return "read_files"  # "the contents of .env.example": a file to read, whatever its name looks like
    if first_verb is not None and first_verb[0] == "read_files" and "path" not in types:
        first_verb = None  # "open the docs folder", "read my notes": what is read is decided below
    if first_verb is not None and first_verb[0] == "write_files" and "path" in types and _EDIT_MARK.search(folded):
        return "edit_file"  # «metti DEBUG=false al posto di DEBUG=true nel file .env»
    if first_verb is not None:
        tool = first_verb[0]
        if tool == "write_files" and R.SOURCED.search(folded):
            return "read_files"  # "write a poem for her using the details in notes/sara.md": read first
        into = _into_folder(paths, workspace) or (
            paths and all("." in p.rsplit("/", 1)[-1] for p in paths) and W.FOLDER.search(folded)
        )
        if tool == "write_files" and W.PUT.match(folded, first_verb[1]) and into:
            return "move_files"  # «metti foto_mare.jpg dentro foto/vacanze»: a file put into a folder
        if tool == "find_files" and searched and W.SEARCHED_IN.search(folded) and not ({"glob", "ext"} & types):
            return "grep_files"  # "find TODO in src/": a term looked for inside files
        if tool == "grep_files" and not searched:
            if {"glob", "ext"} & types:
                return "find_files"  # "look for any files named *backup*": names, not contents
            tool = "list_files" if W.FOLDER.search(folded) or "/" in folded else "read_files"
        if tool == "find_files" and "path" in types and not ({"glob", "ext"} & types) and W.LINES.search(folded):
            return "read_files"  # "how many lines does todo.txt have": a count of what reading gives
        if tool == "list_files" and ({"glob", "ext"} & types):
            return "find_files"
        return tool
    if types & {"glob", "ext"}:
        return "find_files"
    if derived and "path" not in types:
        return "list_files" if derived[0].kind == "root" else "find_files"
    if "path" in types:
        named = {fold(W.folder_name(m)).rstrip("/") for m in W.FOLDER.finditer(folded)}
        if fold(paths[0]) in named or reads_as_folder(workspace, paths[0]):
            return "list_files"
        return "read_files"
    if W.FOLDER.search(folded):
        return "list_files"  # "e nella sottocartella archivio cosa c'è?"
    if W.MY_THINGS.search(folded) or W.WORKSPACE_ROOT.search(folded):
        return "list_files"  # "whats in my Downloads?", «cosa c'è nel workspace?»
    files = [c.name for c in ranked if c.name in _LOOKING_FILE_TOOLS]
    return files[0] if files else (ranked[0].name if ranked else None)


def _searched(extraction: P.Extraction) -> bool:
    """Whether the request gives something to search for inside files, outside its paths: not the
    2023 of «la cartella foto/2023»."""
    text = extraction.text
    for value in extraction.values:
        if value.type in ("path", "glob"):
            text = text[: value.start] + " " * (value.end - value.start) + text[value.end :]
    text = W.KNOWN_NAMES_ANY_CASE.sub(" ", text)  # "is there a Makefile anywhere?": a name, not a term
    return bool(W.SEARCHED.search(text)) or any(v.type == "identifier" and "_" in v.text for v in extraction.values)


_DOTFILE = re.compile(r"\b(?:my|the|il|mio|il mio|nel|nel file|il file|the file|del|dal) \.[a-z]\w*\b")
_EDIT_MARK = whole(r"al posto di|invece di|instead of|rather than|should (?:be|say|read)|deve essere|dovrebbe essere")


_RENAMING = whole(r"rename|rinomin\w*|call it|chiamal[oa]|move|spost\w*")  # not «salvalo in riassunto.md»
_DESTINATION = re.compile(r"\b(?:to|into|as|in|a|come|nel|nella|chiamal[oa]|call it)\s+['\"«]?$")


def _only_destinations(folded: str, extraction: P.Extraction) -> bool:
    """Every path the request names is where something goes or its new name: "rename it to final.docx"."""
    paths = [v for v in extraction.values if v.type == "path"]
    before = [fold(extraction.text[: v.start]) for v in paths]
    return bool(paths) and bool(_RENAMING.search(folded)) and all(_DESTINATION.search(b) for b in before)


def _into_folder(paths: list[str], workspace: Path | None) -> bool:
    """A file named first and then a folder: "put notes.txt into archive/"."""
    return (
        len(paths) >= 2
        and "." in paths[0].rsplit("/", 1)[-1]
        and (paths[-1].endswith("/") or reads_as_folder(workspace, paths[-1]))
    )


def _derived(folded: str) -> list:
    """The file kinds and root the request names in words, less one it asks to have written: "a
    python script that counts words" is code to write in the answer, not the user's *.py files."""
    return [
        item for item in object_kinds.derived(folded)
        if not (item.kind == "glob" and R.TO_WRITE.search(folded[: folded.find(item.phrase)]))
    ]  # fmt: skip


# The file tools that only look, for a request whose verbs name none.
_LOOKING_FILE_TOOLS = ("read_files", "list_files", "find_files", "grep_files")


def _named_earlier(name: str, earlier: frozenset[str]) -> bool:
    return bool(earlier) and (name in earlier or any(path.endswith(f"/{name}") for path in earlier))

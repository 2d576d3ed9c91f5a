"""A question about the person's own things, asked of no file, answered from the one file that holds
its words: "when's my flight home?" beside travel/itinerary.md (which says "flight home"), «quanto
ho speso a marzo?» beside spese/marzo.csv, «chi c'era alla riunione di lunedì?» beside
verbali/lunedi.txt. Nobody's world knowledge answers "my flight"; their files may.

Only a question (or a request to show or tell) does this: one that speaks of the person ("my",
«ho», "we"), or one two of whose words a file holds ("which flask version does the project use?"
beside project/requirements.txt); never a request for a piece of writing, a how-to or what a word
means, and never one that types a file. Each file of the
workspace (a few hundred at most, the first 64 KiB of each) is scored by how many of the
question's words its path and text hold; one file must hold more than any other. Read by
planner.named_file, last of its forms."""

from __future__ import annotations

import re
from pathlib import Path

from planner import name_share
from planner.text import STOPWORDS, fold, stem_set, stems, whole
from planner.workspace import read

MAX_FILES = 200
MAX_CHARS = 64 * 1024

_MINE = whole(
    r"my|mine|our|ours|i|i'm|i've|we|we're|mio|mia|miei|mie|nostro|nostra|nostri|nostre|ho|abbiamo|avevo|"
    r"avevamo|sono andato|siamo|devo|dobbiamo"
)
_ASKED = re.compile(
    r"\?\s*$|^\s*(?:(?:and|e|so|ok|quindi|allora)[\s,]+)*(?:what|whats|what's|when|whens|where|who|which|how|"
    r"show|tell|list|read|cosa|che|quando|dove|chi|quale|qual|quali|quanto|quanta|quanti|quante|come|mostra\w*|"
    r"dimmi|elenca\w*|leggi\w*|fammi vedere)\b"
)
_WRITING = whole(
    r"how do i|how can i|how to|how should i|come si|come faccio|come posso|"
    r"write|compose|draft|invent|poem|story|essay|explain|translate|summari[sz]e|scrivi\w*|componi\w*|inventa\w*|"
    r"poesia|storia|racconta\w*|spiega\w*|traduci\w*|riassumi\w*"
)
# "what is a mortgage?": what a word means, which no file of the person's is asked for.
_DEFINITION = re.compile(
    r"^\s*(?:what is|what's|whats|what are|who is|who was|cos'e|cosa e|che cos'e|cosa sono|chi e|chi era)\s+"
    r"(?:(?:a|an|the|un|una|uno|il|lo|la|l'|i|gli|le)\s*)?[^\W\d_]+\s*\??\s*$"
)
# Words of asking that name nothing a file holds.
_NOT_CONTENT = STOPWORDS | frozenset(
    "what whats when whens where which how much many show tell list read please file files cosa quando dove "
    "quale quali quanto quanta quanti quante come mostra mostrami dimmi elenca leggi leggimi fammi vedere "
    "have has had did does avevo abbiamo sono siamo stato stata".split()
)


def about(text: str, workspace: Path | None, typed: list) -> str | None:
    """The one file a personal question is about, or None."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", fold(text).strip()) if s]
    folded = next((s for s in reversed(sentences) if s.endswith("?")), sentences[-1] if sentences else "")
    # the question's own sentence: "I'm flying to Lisbon! What currency do they use there?" asks of the world
    if workspace is None or typed or len(folded.split()) > 20 or not _ASKED.search(folded):
        return None
    if _WRITING.search(folded) or _DEFINITION.match(folded):
        return None
    mine = bool(_MINE.search(folded))  # otherwise two words of the question must be in the file
    wanted = [set(stems(w)) for w in dict.fromkeys(re.findall(r"[^\W_]+", folded)) if _content(w)]
    files = name_share.files(workspace)
    if not wanted or not files or len(files) > MAX_FILES:
        return None
    scored = sorted(((_hits(wanted, path, workspace), path) for path in files), reverse=True)
    if scored[0][0] < (1 if mine else 2) or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None  # no file holds its words, or two hold as many: which one is not said
    return scored[0][1]


def _content(word: str) -> bool:
    return (len(word) >= 4 or any(c.isdigit() for c in word)) and word not in _NOT_CONTENT


def _hits(wanted: list[set[str]], path: str, workspace: Path) -> int:
    own = stem_set(path.replace("/", " ") + " " + (read(workspace, path) or "")[:MAX_CHARS])
    return sum(1 for w in wanted if w & own)

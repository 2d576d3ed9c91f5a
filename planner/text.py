"""Text normalisation shared by intent extraction and the pre-filter, for English and Italian:
lowercase, accents folded, alphanumeric words, stop-words dropped, Snowball stems (PyStemmer)."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import Stemmer

_WORD = re.compile(r"[a-z0-9]+")
_STEMMERS = {"en": Stemmer.Stemmer("english"), "it": Stemmer.Stemmer("italian")}

STOPWORDS = frozenset(
    """
    a an the and or but if of to in on at by for with from into onto about as is are was were be been being
    this that these those it its i me my you your we our they them their he she his her do does did done
    can could would should will shall may might must please pls just also then than so too very all any
    some what which who whom whose when where why how there here not no yes up out over
    il lo la i gli le un uno una di da del dello della dei degli delle al allo alla ai agli alle dal dallo
    dalla dai dagli dalle nel nello nella nei negli nelle sul sullo sulla sui sugli sulle con per tra fra
    e ed o oppure ma se che chi cui non si mi ti ci vi lo li ne mio mia miei mie tuo tua tuoi tue suo sua suoi
    sue nostro nostra nostri nostre vostro vostra vostri vostre loro questo questa questi queste quello quella
    quelli quelle come dove quando perche quale quali quanto quanta sono sei siamo siete era erano essere ho
    hai ha abbiamo avete hanno per favore
    """.split()
)

# Words that ask the clock ("what time is it?", «la data di oggi»), not a folder named time/ or data/:
# the text before and after the word, joined by "#".
_CLOCK_WORDS = frozenset({"time", "date", "ora", "data", "orario", "giorno", "day", "weekday"})
_CLOCK_ASKED = re.compile(
    r"\b(?:what|what's|whats|which|current|che|quale|qual|today's|todays)\s*#"
    r"|#\s*(?:is it|di oggi|odierna|today|now|adesso)\b"
)


def may_name_a_place(text: str, start: int, end: int) -> bool:
    """Whether a plain word of a request may be the name of a file or folder it has
    (planner.params.extract): not a stop-word, nor a word that asks the clock."""
    word = fold(text[start:end])
    if word in STOPWORDS:
        return False
    return word not in _CLOCK_WORDS or not _CLOCK_ASKED.search(fold(text[:start]) + "#" + fold(text[end:]))


def whole(patterns: str) -> re.Pattern:
    """A regex of alternatives that match only as whole words (a hyphen counts as part of a word)."""
    return re.compile(rf"(?<![\w-])(?:{patterns})(?![\w-])")


def fold(text: str) -> str:
    """Lowercase with accents removed: «Perché» → «perche»."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    return _WORD.findall(fold(text))


# Italian verbs take their object pronouns as a suffix: «scaricami», «mostrami», «mandamelo».
_CLITIC = re.compile(r"^(\w{3,}?[aei])(mi|ti|ci|vi|lo|la|li|le|ne|gli|melo|mela|meli|mele|celo|cela|glielo)$")


@lru_cache(maxsize=50_000)
def stems(word: str) -> tuple[str, ...]:
    """Both languages' stems of one word: a query's language is not known in advance. An
    Italian verb with a pronoun suffix also gets the stems of the bare verb."""
    out = {_STEMMERS["en"].stemWord(word), _STEMMERS["it"].stemWord(word)}
    clitic = _CLITIC.match(word) if len(word) > 5 else None
    if clitic:
        out |= {_STEMMERS["en"].stemWord(clitic.group(1)), _STEMMERS["it"].stemWord(clitic.group(1))}
    return tuple(sorted(out))


def content_words(text: str) -> list[str]:
    return [w for w in words(text) if w not in STOPWORDS]


def stem_set(text: str) -> set[str]:
    return {s for w in content_words(text) for s in stems(w)}


_ITALIAN = frozenset(
    """il lo la gli le un una di da del della dei delle nel nella con per che non sono ciao grazie come cosa
    mi ti ci puoi fammi dimmi scrivi leggi quanti quante quale quali oggi questo questa perche e anche
    mio mia miei mie tuo tua ho hai ha sei cartella salva elenca trova cerca conta calcola apri mostra
    cancella elimina aggiungi sposta esegui lancia riassumi traduci spiega ricorda raccontami voglio""".split()
)
_ENGLISH = frozenset(
    """the a an of to on with for that not are is hi hello thanks how what which my your me you can
    please write read today this these why and also have has do does folder show list find save it""".split()
)


def language(text: str) -> str:
    """ "it" or "en", from common words (accented letters count for Italian); English when tied."""
    tokens = words(text)
    italian = sum(t in _ITALIAN or bool(_CLITIC.match(t)) for t in tokens)
    italian += 2 * len(re.findall(r"[àèéìòù]", text.lower()))
    english = sum(t in _ENGLISH for t in tokens)
    return "it" if italian > english else "en"


def sure_language(text: str) -> str | None:
    """ "en" or "it" when the text's common words are of one of them only and many; None when they
    mix, or are few (a French or German message is not taken for English or Italian)."""
    tokens = words(text)
    italian = sum(t in _ITALIAN for t in tokens) + len(re.findall(r"[àèéìòù]", text.lower()))
    english = sum(t in _ENGLISH for t in tokens)
    lead, other = max(italian, english), min(italian, english)
    if lead < 2 * other + 1 or lead < 0.4 * len(tokens):
        return None  # mixed, or too few of its words are of either: «Quelle est la capitale de la France ?»
    return "it" if italian > english else "en"


def alternation(phrases) -> str:
    """A regex matching any of the folded phrases, longest first, spaces as any blank."""
    ordered = sorted({fold(str(p)) for p in phrases}, key=len, reverse=True)
    return "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in ordered)

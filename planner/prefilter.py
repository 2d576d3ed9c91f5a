"""The pre-filter: which executors the model gets to see. A tool it drops can never be chosen,
so its recall bounds everything downstream.

Bag-of-words over stems (English and Italian): an affinity-tag match scores 4, description
matches score 1 each up to 3, a word of the tool's name (or a word for that object, in either
language: «foto» for images) scores 2, and an executor whose verb serves the request's intent
gets 2 more (4 for the first verb). K is dynamic: when the top candidate is at least twice the
runner-up, k_min (5) candidates are enough; otherwise the pool (12) goes through. Zero-score
tools are never passed. Phrase recall then adds, up to 3, any tool whose multi-word affinity tag
(at least two distinctive words) appears whole in the request, whatever the intent.

Rules about language and catalogs, not about any one request:
- the first word of a request that names a tool's object is its head («foto di una persona» is
  about photos), and the tools on that object get a bonus;
- with no verb in the request, or in a question («quali skill ho attive?»), tools that only look
  (read, get, list, find) go first;
- when the request chains steps («…, poi …»), the words of the first step weigh more;
- a hyphenated tag («trova-fonte») is one term, and a request the description quotes as an
  example of the tool's use matches when all its words are there;
- a tool whose description calls it an alias of another never outranks it;
- the top 5 holds at most 3 tools on one object, so a request that only named the object still
  sees other objects' best tools;
- a path in the request («/etc/hosts») counts like a file name."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from planner.intent import _VERB_STEMS, TOOL_VERBS, Intent
from planner.text import _WORD, STOPWORDS, content_words, fold, stem_set, stems, words

AFFINITY_WEIGHT, DESCRIPTION_CAP, INTENT_BONUS = 4, 3, 2
NAME_WEIGHT, COMPOSE_BONUS, FIRST_VERB_BONUS, TYPED_BONUS = 2, 2, 2, 2
PHRASE_RECALL_CAP = 3
# Words that put a date relative to now in the request: a tool that tells the time is needed first.
_RELATIVE_TIME = frozenset(
    """today tomorrow yesterday tonight now weekend monday tuesday wednesday thursday friday saturday sunday
    oggi domani ieri stasera stanotte dopodomani adesso ora lunedi martedi mercoledi giovedi venerdi sabato
    domenica settimana prossima prossimo""".split()
)
_TIME_OBJECTS = frozenset({"now", "time", "date", "clock"})
# What executors conventionally call the things the intent lexicon's objects name.
OBJECT_NAMES: dict[str, frozenset[str]] = {
    "files": frozenset({"files", "file"}),
    "folder": frozenset({"dirs", "dir", "folders"}),
    "web": frozenset({"urls", "url", "web"}),
    "time": _TIME_OBJECTS,
    "person": frozenset({"persons", "contacts", "people"}),
    "command": frozenset({"shell", "processes", "commands"}),
    "numbers": frozenset({"numbers", "entries"}),
    "lines": frozenset({"lines", "texts", "files"}),
}
OBJECT_BONUS = 2
META_TOOLS = {"final_answer", "scratchpad_read"}
_EXTENSION = re.compile(r"\.([a-z][a-z0-9]{1,4})\b")
_ARITHMETIC = re.compile(r"\d\s*[-+*/x\u00d7\u00f7^%]\s*\d|\d\s+(?:per|times|diviso|plus|minus|piu|meno)\s+\d")
_GENERIC_VERBS = {"get", "do", "make", "use", "show", "give", "dammi", "fai", "usa"}
# A path in the request («/etc/hostname», «~/notes/»): a tool on files (or dirs) is wanted.
_TOOL_NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_PATH = re.compile(r"(?:^|\s)(~?/[\w.\-/]*[\w.\-])")
# What a tool's name calls its object, and the words people use for it in English and Italian.
# A request that says «foto» is about a tool on images, whatever its description's language.
OBJECT_SYNONYMS: dict[str, str] = {
    "images": "image images photo photos picture pictures pic pics foto fotografia fotografie immagine immagini",
    "persons": "person persons people persona persone",
    "events": "event events appointment appointments meeting meetings evento eventi appuntamento appuntamenti "
    "riunione riunioni impegno impegni",
    "calendars": "calendar calendars calendario calendari agenda",
    "messages": "message messages mail mails email emails inbox posta messaggio messaggi sms",
    "tasks": "task tasks job jobs compito compiti reminder reminders promemoria",
    "processes": "process processes processo processi service services servizio servizi daemon",
    "files": "file files document documents documento documenti",
    "dirs": "dir dirs directory directories folder folders cartella cartelle",
    "urls": "url urls link links web website websites site sito siti page pages pagina pagine internet online "
    "news notizie notizia informazioni info article articles articolo articoli",
    "contacts": "contact contacts contatto contatti rubrica",
    "places": "place places luogo luoghi posto posti restaurant restaurants ristorante ristoranti shop shops "
    "negozio negozi",
    "skills": "skill skills capability capabilities capacita",
    "credentials": "credential credentials credenziale credenziali password passwords token tokens",
    "issues": "issue issues bug bugs ticket tickets segnalazione segnalazioni",
    "pulls": "pull pulls",
    "spreadsheet": "spreadsheet spreadsheets sheet sheets foglio fogli excel tabella tabelle",
    "signatures": "signature signatures firma firme",
    "location": "location position posizione",
    "packages": "package packages pacchetto pacchetti",
    "history": "history cronologia storico",
    "proposals": "proposal proposals proposta proposte suggestion suggestions",
    "numbers": "number numbers numero numeri",
    "lines": "line lines riga righe",
    "texts": "text texts testo testi",
    "entries": "entry entries record records voce voci elemento elementi",
}
# Tools whose verb only looks: with no verb in the request, looking is the safer reading.
READ_VERBS = frozenset({"read", "get", "list", "find", "search", "show", "count"})
READ_DEFAULT_BONUS = 1
# The head of the request's object comes first («foto di una persona»: photos, of a person).
HEAD_BONUS = 4
_QUOTED = re.compile(r"(?<!\w)'([^'\n]{3,80}?)'(?!\w)|«([^»\n]{3,80})»|\"([^\"\n]{3,80})\"")
EXAMPLE_WEIGHT = 4
FAMILY_CAP = 3
_CLAUSE = re.compile(r"\s(?:e poi|and then|then|poi|quindi)\s|[,;]")
FIRST_CLAUSE_WEIGHT = 1.5
# A question asks to look, not to change: «quali skill ho attive?», «which files are there».
_QUESTION = frozenset("quali quale chi che cosa quanti quante quanto dove quando what which who how where when".split())
QUESTION_BONUS = 3

# A stem of a name's object word → the words for that object.
_SYNONYMS: dict[str, tuple[str, ...]] = {s: tuple(ws.split()) for o, ws in OBJECT_SYNONYMS.items() for s in stems(o)}


class CatalogEntry(Protocol):
    name: str
    description: str
    affinity: tuple[str, ...]


@dataclass(frozen=True)
class Candidate:
    name: str
    score: float
    via: str = "rank"  # rank | phrase


class Prefilter:
    def __init__(self, entries: Iterable[CatalogEntry]):
        self.affinity: dict[str, set[str]] = defaultdict(set)
        self.description: dict[str, set[str]] = defaultdict(set)
        # Phrases are indexed by the stems of their first distinctive word, so a request only
        # checks the phrases that could match it.
        self.phrases: dict[str, list[tuple[str, tuple[tuple[str, ...], ...]]]] = defaultdict(list)
        self.by_verb: dict[str, list[str]] = defaultdict(list)
        # An executor's name is verb_object[_qualifier]: the words after the verb say what it acts on.
        self.name_words: dict[str, set[str]] = defaultdict(set)
        self.objects: dict[str, tuple[str, ...]] = {}
        # A tool whose description calls it an alias of another tool never outranks that tool.
        self.alias_of: dict[str, str] = {}
        # Terms that count only whole, indexed like phrases: a hyphenated tag («trova-fonte») is one
        # term, and a request the description quotes as an example of its use («USA per: 'lista
        # skill'») says more than its words one by one.
        self.wholes: dict[str, list[tuple[str, str, tuple[tuple[str, ...], ...]]]] = defaultdict(list)
        entries = list(entries)
        names = {e.name for e in entries}
        for entry in entries:
            described = words(entry.description)
            if "alias" in described:
                target = next((w for w in _TOOL_NAME.findall(fold(entry.description)) if w in names), None)
                if target and target != entry.name:
                    self.alias_of[entry.name] = target
        for entry in entries:
            if entry.name in META_TOOLS:
                continue
            verb, *objects = entry.name.split("_")
            self.by_verb[verb].append(entry.name)
            self.objects[entry.name] = tuple(objects)
            for word in objects:
                for stem in stems(word):
                    self.name_words[stem].add(entry.name)
                synonyms = {w for stem in stems(word) for w in _SYNONYMS.get(stem, ())}
                for stem in {s for w in synonyms for s in stems(w)}:
                    self.name_words[stem].add(entry.name)
            for tag in entry.affinity:
                if "-" in tag.strip("-") and " " not in tag.strip():
                    self._whole(entry.name, "compound", content_words(tag))
                else:
                    for stem in stem_set(tag):
                        self.affinity[stem].add(entry.name)
                distinctive = [w for w in content_words(tag) if w not in _GENERIC_VERBS]
                if len(words(tag)) >= 2 and len(distinctive) >= 2:
                    phrase = tuple(stems(w) for w in dict.fromkeys(distinctive))
                    for stem in phrase[0]:
                        self.phrases[stem].append((entry.name, phrase))
            for quoted in _QUOTED.findall(entry.description):
                example = "".join(quoted)
                if len(words(example)) >= 2:
                    self._whole(entry.name, "example", content_words(example))
            for stem in stem_set(entry.description):
                self.description[stem].add(entry.name)

    def _whole(self, name: str, kind: str, terms: list[str]) -> None:
        whole = tuple(stems(w) for w in dict.fromkeys(terms))
        for stem in whole[0] if whole else ():
            self.wholes[stem].append((name, kind, whole))

    def rank(self, text: str, intent: Intent | None = None, *, k_min: int = 5, pool: int = 12) -> list[Candidate]:
        affinity_hits: dict[str, float] = defaultdict(float)
        description_hits: dict[str, float] = defaultdict(float)
        name_hits: dict[str, float] = defaultdict(float)
        object_hits: dict[str, int] = defaultdict(int)  # matches by words that are not verbs
        # A word counts once per tool, however many of its stems (English, Italian) match.
        head: set[str] | None = None
        folded = fold(text)
        said = _WORD.findall(folded)
        content = list(dict.fromkeys(w for w in said if w not in STOPWORDS))
        present = {s for w in content for s in stems(w)}
        # Words of the first clause weigh more when the request chains steps: the first tool is asked for first.
        clauses = _CLAUSE.split(folded, maxsplit=1)
        first = set(_WORD.findall(clauses[0])) if len(clauses) > 1 else set()
        for word in content:
            weight = FIRST_CLAUSE_WEIGHT if word in first else 1.0
            word_stems = stems(word)
            is_verb = "=" + word in _VERB_STEMS or any(s in _VERB_STEMS for s in word_stems)
            tagged = {n for s in word_stems for n in self.affinity.get(s, ())}
            named = {n for s in word_stems for n in self.name_words.get(s, ())}
            if not is_verb:
                for name in tagged | named:
                    object_hits[name] += 1
                if head is None and named:
                    head = named
            for name in tagged:
                affinity_hits[name] += weight
            for name in {n for s in word_stems for n in self.description.get(s, ())}:
                description_hits[name] += weight
            for name in named:
                name_hits[name] += weight
        scores: dict[str, float] = defaultdict(float)
        wholes = self._wholes(present)
        for name in wholes["example"]:
            scores[name] += EXAMPLE_WEIGHT
        for name in wholes["compound"]:
            affinity_hits[name] += 1
        for name, hits in affinity_hits.items():
            scores[name] += AFFINITY_WEIGHT * hits
        for name, hits in description_hits.items():
            scores[name] += min(DESCRIPTION_CAP, hits)
        for name, hits in name_hits.items():
            scores[name] += NAME_WEIGHT * hits
        if intent is not None:
            first = set(TOOL_VERBS.get(intent.verbs[0], ())) if intent.verbs else set()
            for verb in dict.fromkeys(intent.tool_verbs):
                for name in self.by_verb.get(verb, ()):
                    scores[name] += INTENT_BONUS + (FIRST_VERB_BONUS if verb in first else 0)
                    # The request's verb and the object the name acts on: the whole name matches.
                    if object_hits.get(name):
                        scores[name] += COMPOSE_BONUS
        if intent is not None and intent.object in OBJECT_NAMES:
            wanted = OBJECT_NAMES[intent.object]
            for name, objects in self.objects.items():
                if wanted & set(objects):
                    scores[name] += OBJECT_BONUS
        for name in head or ():
            scores[name] += HEAD_BONUS
        question = text.rstrip().endswith("?") or (bool(said) and said[0] in _QUESTION)
        no_verb = intent is None or not intent.verbs
        typed = self._typed(text, folded, said)
        for name, bonus in typed.items():
            scores[name] += bonus
        for name in scores:
            if self.verb_of(name) in READ_VERBS:
                scores[name] += READ_DEFAULT_BONUS if no_verb else 0
                # only between tools the request named the object of (or holds one for: a path, a
                # URL): a question alone is not a request for a tool («qual è la capitale della
                # Francia?» is answered directly)
                if question and (object_hits.get(name) or typed.get(name)):
                    scores[name] += QUESTION_BONUS
        for alias, target in self.alias_of.items():
            if scores.get(alias, 0) > 0 and scores.get(target, 0) > 0 and scores[alias] >= scores[target]:
                scores[alias] = scores[target] - 0.5
        ranked = sorted(((s, n) for n, s in scores.items() if s > 0), key=lambda x: (-x[0], x[1]))
        if not ranked:
            chosen: list[Candidate] = []
        else:
            confident = len(ranked) == 1 or ranked[0][0] >= 2 * ranked[1][0]
            k = k_min if confident else pool
            chosen = [Candidate(name, score) for score, name in self._diverse(ranked, k_min)[:k]]
        return chosen + self._phrase_recall(present, {c.name for c in chosen})

    def _diverse(self, ranked: list[tuple[float, str]], top: int) -> list[tuple[float, str]]:
        """The first `top` places go to at most FAMILY_CAP tools on one object: when the request
        only named the object, its fifth sibling is a worse bet than another object's best tool."""
        head, seen = [], defaultdict(int)
        for item in ranked:
            objects = self.objects.get(item[1], ())
            family = objects[0] if objects else item[1]
            if seen[family] >= FAMILY_CAP:
                continue
            seen[family] += 1
            head.append(item)
            if len(head) == top:
                break
        return head + [item for item in ranked if item not in head]

    @staticmethod
    def verb_of(name: str) -> str:
        return name.split("_", 1)[0]

    def _wholes(self, present: set[str]) -> dict[str, set[str]]:
        """The tools with a whole term (by kind) all of whose words the request has."""
        found: dict[str, set[str]] = defaultdict(set)
        for stem in present:
            for name, kind, whole in self.wholes.get(stem, ()):
                if name not in found[kind] and all(any(s in present for s in word) for word in whole):
                    found[kind].add(name)
        return found

    def _typed(self, text: str, lowered: str, said: list[str]) -> dict[str, float]:
        """What the request holds, not only what it says: a URL wants a tool that acts on urls,
        a file name a tool on files (or on that very format), a date relative to now a tool
        that tells the time."""
        has_url = "http://" in lowered or "https://" in lowered or "www." in lowered
        extensions = set(_EXTENSION.findall(lowered))
        has_path = bool(_PATH.search(lowered))
        relative_time = any(w in _RELATIVE_TIME for w in said)
        arithmetic = bool(_ARITHMETIC.search(text))
        scores: dict[str, float] = defaultdict(float)
        for name, objects in self.objects.items():
            if arithmetic and self.verb_of(name) == "compute":
                scores[name] += TYPED_BONUS
            if has_url and any(o in ("url", "urls") for o in objects):
                scores[name] += TYPED_BONUS
            if has_path and objects and objects[0] in ("files", "dirs"):
                scores[name] += TYPED_BONUS / 2
            if extensions and (extensions & set(objects) or (objects and objects[0] == "files")):
                scores[name] += TYPED_BONUS if extensions & set(objects) else TYPED_BONUS / 2
            if relative_time and _TIME_OBJECTS & set(objects):
                scores[name] += TYPED_BONUS
        return scores

    def _phrase_recall(self, present: set[str], already: set[str]) -> list[Candidate]:
        added: list[str] = []
        for stem in sorted(present):  # sorted: the same request always recalls the same tools
            for name, phrase in self.phrases.get(stem, ()):
                if name in already or name in added:
                    continue
                if all(any(s in present for s in word) for word in phrase):
                    added.append(name)
                    if len(added) >= PHRASE_RECALL_CAP:
                        return [Candidate(n, 0.0, via="phrase") for n in added]
        return [Candidate(n, 0.0, via="phrase") for n in added]

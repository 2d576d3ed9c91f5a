"""A request with what it spells out in words written one way: numbers as digits ("three",
«dodici», "twenty-five" → 3, 12, 25), arithmetic as symbols ("7 times 8", «7 per 8», "5 squared"
→ "7 * 8", "5 ** 2"), the numbers of a statistic as one list ("the mean of 3, 4 and 5" → "the
mean of [3, 4, 5]"), schedules in the schedule tool's spelling («ogni giorno alle 09:00» →
"every day at 09:00"), a kind of file as its glob ("markdown files" → "*.md files"), a city in a
time question as its time zone ("in Tokyo" → "in Asia/Tokyo"), and the fact after «ricorda che»
as one quoted value. Plan memory (planner.canonical) extracts its values from this text, so a
request in words is served by a plan learned from one in digits.

Values the user typed (quoted text, paths, URLs, globs) are never rewritten («'tre righe'» stays).
The data is planner/canonical.yaml and planner/object_kinds.yaml."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from pathlib import Path

from planner import lexicon, object_kinds
from planner import params as P
from planner.kind_spelling import spell_kinds
from planner.text import alternation, fold, language

_NUMBER = r"-?\d+(?:\.\d+)?"
_PROTECTED = ("url", "email", "quoted", "glob", "path")
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*", re.UNICODE)
_QUOTED = dict(P.PATTERNS)["quoted"]
_SYMBOL_AFTER, _SYMBOL_BEFORE = r"\s*[-+*/\u00d7\u00f7^%]", r"[-+*/\u00d7\u00f7^%]\s*$"
# "2**10", "17*23": arithmetic written without spaces, not a glob.
_GLUED = re.compile(rf"{_NUMBER}(?:\*\*?{_NUMBER})+")


def _unaccented(text: str) -> str:
    """«più» → «piu», case kept: the data's words are folded."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


# --- numbers ----------------------------------------------------------------------------------


# Ordinals in words, English and Italian: "open the second one", «apri il terzo».
ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "primo": 1, "prima": 1, "secondo": 2, "seconda": 2, "terzo": 3, "terza": 3,
    "quarto": 4, "quarta": 4, "quinto": 5, "quinta": 5, "sesto": 6, "sesta": 6, "settimo": 7, "settima": 7,
    "ottavo": 8, "ottava": 8, "nono": 9, "nona": 9, "decimo": 10, "decima": 10,
}  # fmt: skip


@lru_cache(maxsize=1)
def _numbers() -> tuple[dict[str, int], dict[str, int], dict[str, int], frozenset[str], frozenset[str]]:
    """(English words, Italian simple words, whole phrases, ambiguous words, articles)."""
    spec = lexicon.data()["numbers"]
    en = {**spec["en"]["units"], **spec["en"]["tens"]}
    it = {**spec["it"]["units"], **spec["it"]["tens"]}
    phrases = {fold(k): v for lang in ("en", "it") for k, v in spec[lang]["words"].items()}
    return en, it, phrases, frozenset(spec["ambiguous"]), frozenset(spec["articles"])


def italian_number(word: str) -> int | None:
    """«venticinque» → 25, «centottanta» → 180, «duemila» → 2000; None for any other word."""
    _, it, _, _, _ = _numbers()
    word = fold(word)
    if word in it:
        return it[word]
    if word == "mille":
        return 1000
    if "mila" in word:
        head, _, tail = word.partition("mila")
        thousands = italian_number(head)
        rest = italian_number(tail) if tail else 0
        return thousands * 1000 + rest if thousands and thousands > 1 and rest is not None else None
    if "cento" in word or word.startswith("cent"):
        head, _, tail = word.partition("cent")
        hundreds = italian_number(head) if head else 1
        if tail.startswith("o") and not tail.startswith("ott"):  # cent|o|venti; «centottanta» elides
            tail = tail[1:]
        rest = italian_number(tail) if tail else 0
        if hundreds and rest is not None and rest < 100 and (hundreds > 1 or not head):
            return hundreds * 100 + rest
        return None
    for tens_word, tens in ((w, v) for w, v in it.items() if v >= 20):
        for stem in (tens_word, tens_word[:-1]):  # «ventuno», «trentotto»: the vowel elides
            if word.startswith(stem) and len(word) > len(stem):
                unit = it.get(word[len(stem) :])
                if unit is not None and 1 <= unit <= 9:
                    return tens + unit
    return None


def number(word: str) -> int | None:
    """One number written as a word, in English or Italian: "two", «due», «dodici»."""
    return _english_number([fold(word)]) or italian_number(word)


def _english_number(words: list[str]) -> int | None:
    """ "twenty five", "one hundred and five", "three thousand" → the number; None if not one."""
    en, _, _, _, _ = _numbers()
    hundred, thousand = lexicon.data()["numbers"]["en"]["hundred"], lexicon.data()["numbers"]["en"]["thousand"]
    total, current, last = 0, 0, None
    for word in words:
        if word == "and" and last in ("hundred", "thousand"):
            continue
        if word in en:
            value = en[word]
            if not (last in (None, "hundred", "thousand") or (last == "tens" and 1 <= value <= 9)):
                return None  # "five five", "twenty thirty": not one number
            current += value
            last = "tens" if value >= 20 and value % 10 == 0 else "unit"
        elif word == hundred and (current or last is None) and current < 100:
            current, last = (current or 1) * 100, "hundred"  # "the first hundred lines"
        elif word == thousand and (current or total == 0):
            total, current, last = total + (current or 1) * 1000, 0, "thousand"
        else:
            return None
    return total + current if last is not None else None


def _spell_numbers(gap: str, operator_words: frozenset[str], counted: frozenset[str]) -> str:
    """Number words in a stretch of text the user did not type as a value, as digits."""
    _, _, phrases, ambiguous, articles = _numbers()
    if phrases:
        pattern = re.compile(rf"(?<![\w-])(?:{alternation(phrases)})(?![\w-])", re.IGNORECASE)
        gap = pattern.sub(lambda m: str(phrases[re.sub(r"\s+", " ", fold(m.group(0)))]), gap)
    out, cursor = [], 0
    matches = list(_WORD.finditer(gap))
    index = 0
    while index < len(matches):
        run, value, end = index, None, index
        # the longest run of words from here that is one number ("one hundred and five")
        for stop in range(min(len(matches), index + 6), index, -1):
            words = [w for m in matches[index:stop] for w in fold(m.group(0)).split("-")]
            between = gap[matches[index].end() : matches[stop - 1].start()] if stop - index > 1 else ""
            if between and not re.fullmatch(r"[\s-]*", re.sub(r"[^\W\d_]+", "", between)):
                continue
            value = _english_number(words)
            if value is None and len(words) == 1:
                value = italian_number(words[0])  # «venticinque» is one word
            if value is not None:
                end = stop
                break
        if value is None:
            index += 1
            continue
        first = fold(matches[run].group(0))
        before = gap[: matches[run].start()]
        after = gap[matches[end - 1].end() :]
        next_word = re.match(r"\s*([^\W\d_]+)", after)
        next_word = fold(next_word.group(1)) if next_word else ""
        prev_word = re.search(r"([^\W\d_]+|\d)\s*$", before)
        prev_word = fold(prev_word.group(1)) if prev_word else ""
        beside_operator = next_word in operator_words or prev_word in operator_words
        beside_operator |= bool(re.match(_SYMBOL_AFTER, after) or re.search(_SYMBOL_BEFORE, before))
        if end - run == 1 and first in articles and not beside_operator:
            index = end
            continue
        # «quattro, otto e quindici»: a word after a number and a comma (or «e», "and") is listed with it
        listed = re.search(r"([^\W\d_]+|\d+)(?:\s*,|\s+(?:and|or|e|ed|o))\s*$", before)
        listed = bool(listed) and (listed.group(1).isdigit() or number(listed.group(1)) is not None)
        if end - run == 1 and first in ambiguous and not (beside_operator or listed or next_word in counted):
            index = end
            continue
        out += [gap[cursor : matches[run].start()], str(value)]
        cursor = matches[end - 1].end()
        index = end
    out.append(gap[cursor:])
    return "".join(out)


# --- operators --------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _operators() -> tuple[list[tuple[re.Pattern, str]], list[tuple[re.Pattern, str]], frozenset[str]]:
    spec = lexicon.data()
    phrases = []
    for template, replacement in spec["operator_phrases"]:
        parts = [re.escape(fold(p)).replace(r"\ ", r"\s+") for p in re.split(r"(\{[ab]\})", template)]
        regex = "".join(f"(?P<{p[2]}>{_NUMBER})" if p in (r"\{a\}", r"\{b\}") else p for p in parts)
        phrases.append((re.compile(rf"(?<![\w.]){regex}(?![\w])", re.IGNORECASE), replacement))
    symbols = []
    words: set[str] = set()
    for symbol, spellings in spec["operators"].items():
        spelled = alternation(spellings)
        symbols.append(
            (re.compile(rf"(?<![\w.])({_NUMBER})\s*(?:{spelled})\s*(?=-?\d)", re.IGNORECASE), symbol)
            if all(not fold(str(s))[:1].isalpha() for s in spellings)
            else (re.compile(rf"(?<![\w.])({_NUMBER})\s+(?:{spelled})\s+(?=-?\d)", re.IGNORECASE), symbol)
        )
        words |= {w for s in spellings for w in lexicon.tokens(str(s)) if w.isalpha()}
    # symbols written glued to the numbers ("7x8", "2^8") as well as spaced
    symbols.append((re.compile(rf"(?<![\w.])({_NUMBER})\s*[x\u00d7]\s*(?=\d)"), "*"))
    return phrases, symbols, frozenset(words)


def _spell_operators(gap: str) -> str:
    phrases, symbols, _ = _operators()
    for pattern, replacement in phrases:
        gap = pattern.sub(lambda m, r=replacement: r.format(**m.groupdict()), gap)
    for pattern, symbol in symbols:
        for _ in range(8):  # "1 plus 2 plus 3": each match leaves the next one's left number
            fresh = pattern.sub(lambda m, s=symbol: f"{m.group(1)} {s} ", gap)
            if fresh == gap:
                break
            gap = fresh
    gap = re.sub(rf"(?<![\w.])({_NUMBER})(\*\*|[*/%^])(?=\d)", r"\1 \2 ", gap)  # "2**10" → "2 ** 10"
    gap = re.sub(r"(?<=\d) \^ (?=-?\d)", " ** ", gap)  # "2^8" is a power (in Python, "^" is not)
    return re.sub(r"(?<=\d) {2,}(?=[-+*/%])|(?<=[-+*/%]) {2,}(?=[\d-])", " ", gap)


# «la somma di 10, 20, 30 e 40»: a statistic's numbers as one list ("[10, 20, 30, 40]"; planner.expressions
# writes "sum([…])"), so a plan learned for three numbers serves four; a product's stay apart ("*").
_LISTED = rf"{_NUMBER}(?![\w/]|\.\w)"
_STATISTIC = (
    r"\b(?:mean|average|avg|media|median|mediana|sum|total|somma|sommi|sommami|totale|in totale|add up|max|maximum"
    r"|largest|biggest|highest|massimo|min|minimum|smallest|lowest|minimo|greatest|piu grande|piu piccolo"
    r"|maggiore|minore|standard deviation|std dev|stdev|stddev|deviazione standard|scarto quadratico medio)\b"
)
_NUMBERS = rf"({_LISTED}(?:(?:\s*,\s*(?:(?:and|e|ed|or|o|oppure)\s+)?|\s+(?:and|e|ed|or|o|oppure)\s+|\s+){_LISTED})+)"
_LIST = re.compile(rf"{_STATISTIC}[^\d\[\]\n]{{0,40}}?(?<![\w./-]){_NUMBERS}", re.IGNORECASE)
# «tra 40, 17 e 22 qual è il minimo?»: the numbers first, the statistic after them
_LIST_FIRST = re.compile(rf"(?<![\w./-\[]){_NUMBERS}(?=[^\d\[\]\n]{{0,30}}?{_STATISTIC})", re.IGNORECASE)


def _spell_lists(gap: str) -> str:
    def listed(m: re.Match) -> str:
        numbers = re.findall(_LISTED, m.group(1))
        return m.group(0)[: m.start(1) - m.start(0)] + "[" + ", ".join(numbers) + "]"

    return _LIST_FIRST.sub(listed, _LIST.sub(listed, gap))


# --- schedules, one-line ranges, facts ------------------------------------------------------------


@lru_cache(maxsize=1)
def _schedules() -> tuple[re.Pattern, dict[str, str], re.Pattern, dict[str, str], re.Pattern]:
    spec = lexicon.data()["schedules"]
    units = {fold(word): unit for unit, words in spec["units"].items() for word in words}
    every = alternation(spec["every"])
    at = alternation(spec["at"])
    clock = r"\d{1,2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?"
    pattern = re.compile(
        rf"(?<![\w])(?:{every})\s+(?:(?P<n>\d+)\s+)?(?P<unit>{alternation(units)})(?![\w])"
        rf"(?:\s+(?:{at})\s+(?P<at>{clock})(?![\w:]))?",
        re.IGNORECASE,
    )
    adverbs = {fold(k): v for k, v in spec["adverbs"].items()}
    adverb = re.compile(rf"(?<![\w-])(?:{alternation(adverbs)})(?![\w-])(?:\s+(?:{at})\s+(?P<at>{clock}))?", re.I)
    one = lexicon.data()["one_of"]
    ranges = re.compile(rf"(?<![\w])({alternation(one['words'])})\s+({alternation(one['nouns'])})(?![\w])", re.I)
    return pattern, units, adverb, adverbs, ranges


def _hh_mm(at: str) -> str:
    """ "8:30" → "08:30", as the schedules write a time ("every day at HH:MM"); "9" and "9pm" stay."""
    return f"0{at}" if re.fullmatch(r"\d:\d{2}", at) else at


def _spell_schedules(gap: str) -> str:
    pattern, units, adverb, adverbs, ranges = _schedules()

    def every(m: re.Match) -> str:
        unit = units[re.sub(r"\s+", " ", fold(m.group("unit")))]
        count = m.group("n")
        plural = unit in ("minute", "hour", "day", "week", "month", "year") and count
        text = f"every {count} {unit}s" if plural else f"every {unit}"
        return text + (f" at {_hh_mm(m.group('at'))}" if m.group("at") else "")

    gap = pattern.sub(every, gap)
    gap = adverb.sub(
        lambda m: adverbs[fold(m.group(0).split()[0])] + (f" at {_hh_mm(m.group('at'))}" if m.group("at") else ""), gap
    )
    return ranges.sub(lambda m: f"{m.group(1)} 1 {m.group(2)}", gap)


def _quote_fact(text: str) -> str:
    """«ricorda che il mio compleanno è il 3 maggio» → the fact as one quoted value, unless the
    request quotes something itself."""
    if _QUOTED.search(text):
        return text
    facts = alternation(lexicon.data()["facts"])
    polite = r"(?:(?:please|per favore|puoi|potresti|can you|could you|would you|mi raccomando)\s+)*"
    match = re.match(rf"^(\W*{polite}(?:{facts})\s+)(.+?)([\s.!?]*)$", text, re.IGNORECASE | re.S)
    if match is None:
        return text
    return f"{match.group(1)}«{match.group(2)}»{match.group(3)}"


# --- time zones --------------------------------------------------------------------------------

# A question about the clock or the calendar, in which a city stands for its time zone.
_TIMED = re.compile(
    r"\b(?:time|date|day|weekday|clock|hour|o'clock|timezone|late|ora|ore|orario|data|giorno|fuso|tardi)\b", re.I
)


@lru_cache(maxsize=1)
def _zones() -> tuple[re.Pattern, dict[str, str]]:
    zones = {name: zone for name, zone in object_kinds.time_zones().items() if "/" in zone}
    return re.compile(rf"(?<![\w./-])(?:{alternation(zones)})(?![\w/-]|\.\w)", re.I), zones


def _spell_zones(gap: str) -> str:
    """ "what time is it in Tokyo?" → "… in Asia/Tokyo?": the city as the value a plan binds."""
    pattern, zones = _zones()
    return pattern.sub(lambda m: zones[re.sub(r"\s+", " ", fold(m.group(0)))], gap)


# --- the whole request ------------------------------------------------------------------------


def rewrite(text: str, workspace: Path | None = None) -> str:
    """The request with its words for numbers, operators, schedules, kinds of file and facts
    written one way; what the user typed as a value stays as it is."""
    text = _quote_fact(text)
    protected = [
        (v.start, v.end)
        for v in P.extract(text, workspace).values
        if v.type in _PROTECTED and not (v.type == "glob" and _GLUED.fullmatch(v.text))
    ]
    _, _, operator_words = _operators()
    counted = frozenset(fold(w) for w in lexicon.data()["numbers"]["counted"])
    italian = language(text) == lexicon.data()["numbers"]["decimal_comma"]
    timed = bool(_TIMED.search(_unaccented(text)))
    out, cursor = [], 0
    for start, end in [*protected, (len(text), len(text))]:
        gap = _unaccented(text[cursor:start])
        if gap:
            if italian:
                gap = re.sub(r"(?<![\d,.])(\d+),(\d+)(?![\d,])", r"\1.\2", gap)
            gap = re.sub(r"(?<![\w])per\s?cento(?![\w])", "percent", gap, flags=re.I)
            gap = re.sub(r"(?<=\d)\s?%(?=\s+(?:of|di|del|della|dello|dei|on|su)\b)", " percent", gap, flags=re.I)
            gap = _spell_numbers(gap, operator_words, counted)
            gap = _spell_operators(gap)
            gap = _spell_lists(gap)
            gap = _spell_schedules(gap)
            gap = spell_kinds(gap)
            if timed:
                gap = _spell_zones(gap)
        out += [gap, text[start:end]]
        cursor = end
    return "".join(out)

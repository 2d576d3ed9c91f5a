"""Pre-filter latency at catalog sizes up to 300 executors: our 11 builtins plus synthetic
executors with realistic English/Italian descriptions and affinity tags. Also the recall of the
builtins on a small labelled request set. Last line: one JSON object."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "metnos_site.settings")

VOCAB = (
    "mail message calendar event contact person invoice report photo image video audio song playlist note task "
    "reminder weather news stock price map route flight hotel recipe document spreadsheet slide chart backup "
    "messaggio evento contatto fattura foto immagine canzone promemoria meteo notizie prezzo percorso volo "
    "ricetta documento foglio grafico copia"
).split()
VERBS = "read list find get write send delete move create compute format summarize search".split()
QUERIES = [
    ("read notes/a.md and tell me the last 3 lines", "read_files"),
    ("show me the content of todo.txt", "read_files"),
    ("find all markdown files and count them", "find_files"),
    ("how many .csv files are in data/", "find_files"),
    ("write a summary of notes/b.md to summary.md", "write_files"),
    ("save this list to groceries.txt", "write_files"),
    ("what time is it in Tokyo?", "get_time"),
    ("fetch https://example.com/api/status", "get_urls"),
    ("calculate the average of 3, 4 and 5", "compute"),
    ("which lines mention TODO in my notes?", "grep_files"),
    ("list the files in the docs folder", "list_files"),
    ("run make test", "run_shell"),
    ("leggi le ultime righe di notes/a.md", "read_files"),
    ("quanti file pdf ci sono nella cartella docs", "find_files"),
    ("scrivi un riassunto in riassunto.md", "write_files"),
    ("che ore sono a Roma?", "get_time"),
    ("calcola la media di 10, 20 e 30", "compute"),
    ("elenca i file della cartella notes", "list_files"),
    ("cerca la parola fattura nei documenti", "grep_files"),
    ("scarica la pagina https://example.com", "get_urls"),
]


@dataclass(frozen=True)
class Entry:
    name: str
    description: str
    affinity: tuple[str, ...]


def synthetic(n: int, rng: random.Random) -> list[Entry]:
    out = []
    for i in range(n):
        verb, obj = rng.choice(VERBS), rng.choice(VOCAB)
        words = rng.sample(VOCAB, 6)
        out.append(
            Entry(f"{verb}_{obj}_{i}", f"{verb} {obj} " + " ".join(words), (verb, obj, *words[:3], f"{obj} {words[0]}"))
        )
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    import django

    django.setup()
    from planner.catalog import catalog
    from planner.intent import extract
    from planner.prefilter import Prefilter

    builtins = list(catalog().executors.values())
    rng = random.Random(11)
    repeats = 20 if args.quick else 200
    sizes = {}
    for size in (11, 100, 300):
        prefilter = Prefilter([*builtins, *synthetic(size - len(builtins), rng)])
        times = []
        for _ in range(repeats):
            for text, _label in QUERIES:
                started = time.perf_counter()
                prefilter.rank(text, extract(text))
                times.append((time.perf_counter() - started) * 1000)
        sizes[size] = {"p50_ms": pct(times, 0.5), "p95_ms": pct(times, 0.95)}
    prefilter = Prefilter(builtins)
    hits1 = hits5 = 0
    for text, label in QUERIES:
        names = [c.name for c in prefilter.rank(text, extract(text))]
        hits1 += names[:1] == [label]
        hits5 += label in names[:5]
    result = {
        "bench": "prefilter",
        "queries": len(QUERIES),
        "p50_ms_at_300": sizes[300]["p50_ms"],
        "p95_ms_at_300": sizes[300]["p95_ms"],
        "by_catalog_size": sizes,
        "builtin_recall_at_1": round(hits1 / len(QUERIES), 3),
        "builtin_recall_at_5": round(hits5 / len(QUERIES), 3),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()

"""Earlier answers named by a noun and kept in a file (planner/named_answers.py), through the
follow-up layer: «salvami gli ingredienti in lista.txt», "write these results to r.txt",
«salvami questi due totali in riepilogo.txt»."""

import pytest

from planner import followup

RECIPE = "# Amatriciana\n\nIngredienti:\n- bucatini\n- guanciale"
RESULTS = {"request": "che percentuale sono i sì?", "answer": "Il 60%.", "answers": ["Il 60%.", "In tutto 140."]}


@pytest.mark.parametrize(
    ("text", "previous", "path", "content", "evidence"),
    [
        ("salvami gli ingredienti in lista.txt",
         {"request": "aprimi quella dell'amatriciana", "answer": RECIPE, "answers": [RECIPE, "carbonara, amatriciana"]},
         "lista.txt", RECIPE, "the previous answer"),
        ("save the recipe to recipe.md", {"request": "give me a pancake recipe", "answer": "Mix.", "answers": ["Mix."]},
         "recipe.md", "Mix.", "the previous answer"),
        ("write this list to list.md", {"request": "x", "answer": "- a\n- b", "answers": ["- a\n- b"]},
         "list.md", "- a\n- b", "the previous answer"),
        # the short results just given, oldest first
        ("scrivi questi risultati in risultati.txt per favore", RESULTS, "risultati.txt", "In tutto 140.\nIl 60%.",
         "the last 2 answers"),
        ("grazie, salvami questi due totali in spese/riepilogo.txt",
         {"request": "x", "answer": "Totale: 134", "answers": ["Totale: 134", "Totale: 352", "Ciao!"]},
         "spese/riepilogo.txt", "Totale: 352\nTotale: 134", "the last 2 answers"),
        ("save both totals to sums.txt", {"request": "x", "answer": "134", "answers": ["134", "352"]},
         "sums.txt", "352\n134", "the last 2 answers"),
        ("save the last two answers to sums.txt", {"request": "x", "answer": "134", "answers": ["134", "352"]},
         "sums.txt", "352\n134", "the last 2 answers"),
        ("salva l'ultima risposta in r.txt", {"request": "x", "answer": "134", "answers": ["134", "352"]},
         "r.txt", "134", "the previous answer"),
    ],
)  # fmt: skip
def test_the_answers_a_noun_names_are_written(text, previous, path, content, evidence):
    found = followup.resolve(text, previous, None)
    assert found is not None and found.kind == "previous_answer" and found.evidence == evidence
    assert [(s.tool, s.args) for s in found.plan.steps] == [("write_files", {"path": path, "content": content})]


@pytest.mark.parametrize(
    ("text", "previous"),
    [
        # the noun is nothing the last turn said
        ("save the poem to a.txt", {"request": "give me a recipe", "answer": "Mix flour", "answers": ["Mix flour"]}),
        # a file is copied, not written from what was said
        ("save the file to a.txt", {"request": "read b.txt", "answer": "hello", "answers": ["hello"]}),
        # more answers than the session gave
        ("save these three numbers in n.txt", {"request": "x", "answer": "3", "answers": ["3", "2"]}),
        # no file to keep them in
        ("save these results to the reports folder", RESULTS),
    ],
)  # fmt: skip
def test_anything_uncertain_is_left_alone(text, previous):
    found = followup.resolve(text, previous, None)
    assert found is None or found.kind != "previous_answer"

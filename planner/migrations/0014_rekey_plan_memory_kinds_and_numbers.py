"""The canonical form learned more paraphrases (planner/canonical.yaml, planner/object_kinds.yaml,
planner.spelled): "zip archives", «fogli excel», "every PDF" are globs; "add up 3, 9 and 27",
«tra 40, 17 e 22 qual è il minimo?» and "which is largest: 42, 7 or 19?" are statistics of one
list; "take 75 away from 420" and «la metà di 80» are expressions; "which lines mention X" is the
search "search for X", while "which files mention X" asks for files; "check a.cfg" reads it; a
bare command ("run df -h") and the bare texts of a replacement ("replace localhost with 10.0.0.5")
are values; "save it to memory" remembers, "write the number to n.txt" writes a count; «massimo
10 risultati» is a limit; a search's "show" shows the search; a sentence that only says why ("it's
for my shop") is not part of the request; "in binary" is a modifier; «se divido 90 per 6» divides;
the folders of a list are values («crea le cartelle musica e video»); "only the first 5" is the
range alone; "track down", «scovami», «levami di mezzo», "could I see", "day of the month"; the
clock and the calendar share a key (planner.memory.probe.admit); a bare word after "the word" or
"mention" is searched for as a quoted one is. Keys
move with it, so every remembered plan is re-keyed from its example request (planner.memory.rekey),
as 0013 did; one that cannot be is retired. Safe on an empty database; a second run changes nothing."""

from django.db import migrations


def rekey(apps, schema_editor):
    from planner.memory.rekey import rekey as rekey_all

    rekey_all(apps.get_model("planner", "Fastpath"), apps.get_model("planner", "Autopath"))


class Migration(migrations.Migration):
    dependencies = [("planner", "0013_rekey_plan_memory_result_words")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]

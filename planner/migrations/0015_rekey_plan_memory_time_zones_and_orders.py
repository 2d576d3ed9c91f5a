"""The canonical form learned more (planner/canonical.yaml, planner.canonical): a time zone is
typed <tz>, not a path ("append today's date in Chicago to d.txt" = "what's the date in New York?
append it to d.txt"); each verb is keyed once, where it first comes; with two numbers, where a
range modifier stands between them is part of the key ("from line 100, 50 lines" is not "50
lines from line 100"); "save the output of 'df -h' to d.txt" runs it first; "save what it says to
memory" remembers; a later step of several shows the folder it names; "standard deviation" is a
statistic of one list; «tre, sei e nove» is one list; "things", «elementi», "entries" say nothing
of their own; "recursively" and "and all of its subfolders" are one token; "nuke", "tack …
onto the end of", "shift a.md into b/", "turn every 'x' into 'y'", "what does <url> return?",
«puoi ricordarti che …», "jot down that …". Pausing and resuming a recurring task are never each
other's plan (planner.intent.STEP_KINDS). From a fifth set (plan_memory_dev5): "every" or "all
occurrences" in a replacement is a modifier (m:all: edit_file's replace_all); "read the files in
notes" reads them; a place before the first verb is keyed as its last ("in a.md, change …");
"from line 12", «dalla riga 5» start a range of lines; "the most recent 50 lines" are the last;
"stop after 5 matches" is a limit; «sottocartelle comprese» is recursive; «i primi 12 csv» is a
kind; a task named with a plain word («chiamalo posta», «task forno») names it; a schedule's hour
has two digits ("08:30"). Keys move with it, so every remembered plan is re-keyed
from its example request (planner.memory.rekey), as 0014 did; one that cannot be is retired. Safe
on an empty database; a second run changes nothing."""

from django.db import migrations


def rekey(apps, schema_editor):
    from planner.memory.rekey import rekey as rekey_all

    rekey_all(apps.get_model("planner", "Fastpath"), apps.get_model("planner", "Autopath"))


class Migration(migrations.Migration):
    dependencies = [("planner", "0014_rekey_plan_memory_kinds_and_numbers")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]

import os

from celery import Celery
from celery.signals import beat_init, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "metnos_site.settings")

app = Celery("metnos")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def warm_embeddings(**kwargs) -> None:
    """Plan memory embeds requests; load the model before the first turn, not during it."""
    from planner.embeddings import warm

    warm()


@beat_init.connect
def hold_beat_lock(**kwargs) -> None:
    """Beat is a singleton: a second one exits non-zero (core/beat_lock.py)."""
    from core import beat_lock

    beat_lock.hold_or_exit()

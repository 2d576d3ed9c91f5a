"""Plan memory's periodic jobs, run by Celery beat (DatabaseScheduler: they are rows in the
admin's Periodic tasks, where a person can change or pause them). Each is idempotent: run twice
in the same window, the second run changes nothing."""

from __future__ import annotations

import logging

from celery import shared_task

from planner.catalog import catalog
from planner.memory import autopath, fastpath

logger = logging.getLogger(__name__)


@shared_task(name="planner.tasks.age_memory")
def age_memory() -> dict:
    """Nightly: fastpaths and autopaths unused too long or whose executors changed retire;
    expired anti-autopaths go (the system may then try those plans again)."""
    cat = catalog()
    result = {"fastpath": fastpath.age(cat), "autopath": autopath.age(cat)}
    logger.info("memory ager: %s", result)
    return result


@shared_task(name="planner.tasks.promote_autopaths")
def promote_autopaths() -> int:
    """Challengers that proved better than their cluster's champion take its place."""
    return autopath.promote()


@shared_task(name="planner.tasks.compact_observations")
def compact_observations() -> int:
    return autopath.compact_observations()

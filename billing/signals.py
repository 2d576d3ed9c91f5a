"""An edited budget or rate limit holds at once in this process (billing.gate caches them briefly)."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from billing import gate
from billing.models import Budget, RateLimit


@receiver([post_save, post_delete], sender=Budget)
@receiver([post_save, post_delete], sender=RateLimit)
def forget_cached_rows(**kwargs) -> None:
    gate.forget_rows()

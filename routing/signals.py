"""Cache invalidation only: a registry edit, from the admin or anywhere, bumps the version so
every process reloads its snapshot."""

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from routing.models import ChatModel, Provider
from routing.registry import bump_version, invalidate_local


@receiver([post_save, post_delete], sender=ChatModel)
@receiver([post_save, post_delete], sender=Provider)
def registry_changed(**kwargs) -> None:
    invalidate_local()  # this process sees its own write at once
    transaction.on_commit(bump_version)  # the others once it is committed

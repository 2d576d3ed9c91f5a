"""Any change to a gateway key reaches every process's key cache on its next request."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from gateway import keys
from gateway.models import GatewayKey


@receiver([post_save, post_delete], sender=GatewayKey)
def key_changed(**kwargs) -> None:
    keys.changed()

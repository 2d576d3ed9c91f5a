"""Each user's preferences: the time zone their recurring schedules run in, the language of answers."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction

from agents.models import UserPreference, validate_time_zone
from agents.services.errors import InvalidInput


def preference_for(*, user: AbstractBaseUser) -> UserPreference:
    """The user's row, or an unsaved one holding the defaults: reading never writes."""
    return UserPreference.objects.filter(user=user).first() or UserPreference(user=user)


@transaction.atomic
def preference_set(
    *, user: AbstractBaseUser, time_zone: str | None = None, language: str | None = None
) -> UserPreference:
    """Changes what is given (None leaves a preference as it is); InvalidInput, a ValueError, for
    a zone that is not an IANA name or a language the answers are not written in."""
    if time_zone is not None:
        try:
            validate_time_zone(time_zone)
        except ValidationError as error:
            raise InvalidInput(error.messages[0]) from error
    if language is not None and language not in UserPreference.Language.values:
        known = ", ".join(UserPreference.Language.values)
        raise InvalidInput(f"unknown language {language!r}; pick one of {known}")
    preference, _ = UserPreference.objects.select_for_update().get_or_create(user=user)
    changed = {"time_zone": time_zone, "language": language}
    fields = [name for name, value in changed.items() if value is not None and getattr(preference, name) != value]
    for name in fields:
        setattr(preference, name, changed[name])
    if fields:
        preference.save(update_fields=[*fields, "updated_at"])
    return preference

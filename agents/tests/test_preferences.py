"""Each user's preferences: a time zone (IANA name) and a language, with defaults for anyone who
never set them."""

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from agents.models import UserPreference
from agents.services.errors import InvalidInput
from agents.services.preferences import preference_for, preference_set

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice():
    return get_user_model().objects.create_user(username="alice", password="pw-alice-123456")


def test_a_user_who_never_chose_gets_the_defaults_and_nothing_is_saved(alice):
    preference = preference_for(user=alice)
    assert (preference.time_zone, preference.language, preference.pk) == ("UTC", "en", None)
    assert not UserPreference.objects.exists()


def test_it_saves_a_time_zone_and_a_language_and_reads_them_back(alice):
    preference_set(user=alice, time_zone="Europe/Rome", language="it")
    preference = preference_for(user=alice)
    assert (preference.time_zone, preference.language) == ("Europe/Rome", "it")
    assert alice.preference == preference


def test_it_keeps_what_is_not_given(alice):
    preference_set(user=alice, time_zone="America/New_York", language="it")
    preference_set(user=alice, language="en")
    preference_set(user=alice, time_zone="Asia/Tokyo")
    preference = UserPreference.objects.get(user=alice)
    assert (preference.time_zone, preference.language) == ("Asia/Tokyo", "en")
    assert UserPreference.objects.count() == 1


@pytest.mark.parametrize("zone", ["Mars/Olympus_Mons", "CET+1", "europe/rome", ""])
def test_it_refuses_a_time_zone_that_is_not_an_iana_name(alice, zone):
    with pytest.raises(ValueError, match="not a known time zone; use an IANA name such as Europe/Rome"):
        preference_set(user=alice, time_zone=zone)
    assert not UserPreference.objects.exists()


def test_it_refuses_a_language_the_answers_are_not_written_in(alice):
    preference_set(user=alice, time_zone="Europe/Rome")
    with pytest.raises(InvalidInput, match="unknown language 'fr'; pick one of en, it"):
        preference_set(user=alice, time_zone="Asia/Tokyo", language="fr")
    assert UserPreference.objects.get(user=alice).time_zone == "Europe/Rome", "a refused change changes nothing"


def test_the_model_checks_the_zone_too_for_the_admin(alice):
    with pytest.raises(ValidationError) as caught:
        UserPreference(user=alice, time_zone="Nowhere/Land").full_clean()
    assert list(caught.value.message_dict) == ["time_zone"]
    UserPreference(user=alice, time_zone="Europe/Rome", language="it").full_clean()


def test_a_person_sets_their_time_zone_on_the_settings_page_and_times_show_in_it():
    from django.test import Client
    from django.utils import timezone

    user = get_user_model().objects.create_user(username="zoe", password="pw-zoe-123456")
    client = Client()
    client.force_login(user)
    page = client.get("/settings/")
    assert page.status_code == 200 and b'value="Europe/Rome"' in page.content
    saved = client.post("/settings/", {"time_zone": "Europe/Rome"}, follow=True)
    assert b"Saved" in saved.content and preference_for(user=user).time_zone == "Europe/Rome"
    rome = datetime.now(ZoneInfo("Europe/Rome"))
    shown = re.search(rb'id="time-now">(\d\d:\d\d)<', saved.content).group(1).decode()
    assert shown in {rome.strftime("%H:%M"), (rome - timedelta(minutes=1)).strftime("%H:%M")}
    refused = client.post("/settings/", {"time_zone": "Mars/Olympus"}, follow=True)
    assert refused.status_code == 200 and preference_for(user=user).time_zone == "Europe/Rome"
    assert b"Mars/Olympus" in refused.content
    assert timezone.get_current_timezone_name() == "UTC"  # nothing leaks past the request
    assert Client().get("/settings/").status_code == 302  # a login first

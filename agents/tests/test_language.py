"""The UI in English or Italian: a signed-in person's saved language, else their browser's; the
scripts' texts from /jsi18n/; the terminator's dead ends in the session owner's language; and
catalogs that are complete and compiled."""

import gettext
import json
import re
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings
from django.contrib.auth import get_user_model
from django.http import HttpResponse
from django.test import AsyncRequestFactory, Client
from django.utils import translation

from agents import services
from agents.middleware import user_time_zone
from agents.models import Message
from agents.services.preferences import preference_for, preference_set
from agents.tasks import run_turn
from planner.intent import extract
from planner.models import Gap
from planner.terminator import terminate
from tests.loopback import plan

LOCALE = Path(settings.BASE_DIR) / "locale" / "it" / "LC_MESSAGES"
# After changing a text: `manage.py makemessages -l it` and `makemessages -d djangojs -l it` (both with
# --add-location=file --ignore=.venv --ignore=var --ignore=node_modules --ignore=static/metnos/vendor),
# translate, then `manage.py compilemessages -l it --ignore=.venv` and commit the .po and .mo files.


def person(username: str, language: str | None = None) -> Client:
    user = get_user_model().objects.create_user(username=username, password=f"pw-{username}-123456")
    if language:
        preference_set(user=user, language=language)
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_an_italian_user_gets_the_chat_page_in_italian():
    page = person("lucia", "it").get("/")
    html = page.content.decode()
    assert '<html lang="it">' in html and page["Content-Language"] == "it"
    assert ">Nuova sessione</button>" in html and ">Impostazioni</a>" in html
    assert "New session" not in html


@pytest.mark.django_db
def test_the_saved_language_wins_over_the_browsers():
    page = person("ann", "en").get("/", headers={"accept-language": "it-IT,it;q=0.9"})
    html = page.content.decode()
    assert '<html lang="en">' in html and ">New session</button>" in html and page["Content-Language"] == "en"


@pytest.mark.django_db
def test_someone_who_never_chose_gets_their_browsers_language():
    page = person("marco").get("/", headers={"accept-language": "it"})
    assert '<html lang="it">' in page.content.decode() and b">Nuova sessione<" in page.content


def test_an_anonymous_visitor_with_an_italian_browser_gets_the_italian_login_page():
    page = Client().get("/accounts/login/", headers={"accept-language": "it-IT,it;q=0.8,en;q=0.5"})
    html = page.content.decode()
    assert '<html lang="it">' in html and "<h1>Accedi</h1>" in html and "Nome utente" in html
    english = Client().get("/accounts/login/", headers={"accept-language": "en-US"}).content.decode()
    assert '<html lang="en">' in english and "<h1>Log in</h1>" in english


def catalog(response) -> dict:
    return json.loads(re.search(r"const newcatalog = (\{.*?\});", response.content.decode(), re.S).group(1))


@pytest.mark.django_db
def test_the_script_catalog_is_italian_for_an_italian_user_and_empty_for_an_english_one():
    italian = person("lucia", "it").get("/jsi18n/")
    assert italian.status_code == 200 and italian["Content-Type"].startswith("text/javascript")
    texts = catalog(italian)
    assert texts["Copied"] == "Copiato" and texts["Uploading %s file…"] == ["Caricamento di %s file…"] * 2
    assert "Today" not in texts, "only our own texts: not the admin's"
    english = person("ann", "en").get("/jsi18n/").content.decode()
    assert "newcatalog" not in english and "django.gettext = function" in english, "no texts, the functions still there"


@pytest.mark.django_db
def test_every_page_loads_the_script_catalog_before_its_own_scripts():
    html = person("ann").get("/").content.decode()
    scripts = re.findall(r'<script src="([^"]+)"', html)
    assert scripts[0] == "/jsi18n/" and len(scripts) > 5


@pytest.mark.django_db
def test_the_settings_page_switches_the_language_and_says_so_in_the_new_one():
    client = person("zoe")
    page = client.get("/settings/").content.decode()
    assert '<select name="language" id="language">' in page and '<option value="it" lang="it">Italiano</option>' in page

    saved = client.post("/settings/", {"time_zone": "Europe/Rome", "language": "it"}, follow=True)
    html = saved.content.decode()
    assert '<html lang="it">' in html and "<h1>Impostazioni</h1>" in html
    assert "Salvato." in html and '<option value="it" lang="it" selected>' in html
    user = get_user_model().objects.get(username="zoe")
    assert (preference_for(user=user).language, preference_for(user=user).time_zone) == ("it", "Europe/Rome")

    back = client.post("/settings/", {"time_zone": "Europe/Rome", "language": "en"}, follow=True).content.decode()
    assert '<html lang="en">' in back and "<h1>Settings</h1>" in back and "Saved." in back


@pytest.mark.django_db
def test_the_settings_page_refuses_a_language_the_site_is_not_written_in():
    client = person("zoe", "it")
    page = client.post("/settings/", {"time_zone": "UTC", "language": "fr"}).content.decode()
    assert "unknown language" in page
    assert preference_for(user=get_user_model().objects.get(username="zoe")).language == "it"


@pytest.mark.django_db
def test_the_async_path_applies_the_saved_language_and_restores_the_default_after():
    user = get_user_model().objects.create_user(username="lucia", password="pw-lucia-123456")
    preference_set(user=user, language="it")

    msgid = "New session"  # a name, not a literal: makemessages must not list this file

    async def view(request):
        return HttpResponse(translation.gettext(msgid))

    request = AsyncRequestFactory().get("/", headers={"cookie": f"{settings.SESSION_COOKIE_NAME}=x"})
    request.user = user
    response = async_to_sync(user_time_zone(view))(request)
    assert response.content.decode() == "Nuova sessione" and response["Content-Language"] == "it"
    assert translation.get_language() == settings.LANGUAGE_CODE


@pytest.mark.django_db
def test_the_async_path_costs_no_query_without_a_session_cookie(django_assert_num_queries):
    async def view(request):
        return HttpResponse(translation.get_language())

    request = AsyncRequestFactory().get("/v1/models")
    request.user = get_user_model().objects.create_user(username="key-holder", password="pw-key-123456")
    with django_assert_num_queries(0):
        response = async_to_sync(user_time_zone(view))(request)
    assert "Content-Language" not in response


@pytest.mark.django_db
def test_a_dead_end_is_in_italian_for_an_italian_user_and_the_gap_stays_in_english():
    request = "manda una email ad Ada"
    with translation.override("it"):
        end = terminate(cause="wrong_tool", detail="no mail tool", intent=extract(request), request_text=request)
    assert end.message.startswith("Non sono riuscito a farlo: lo strumento che ho scelto non è riuscito a farlo")
    assert "(no mail tool)" in end.message and end.suggestion.startswith("Nessuno dei miei strumenti")
    assert Gap.objects.get().suggestion.startswith("None of my tools could do this")
    english = terminate(cause="wrong_tool", detail="no mail tool", intent=extract(request), request_text=request)
    assert english.message.startswith("I could not do this: the tool I chose could not do it (no mail tool).")


@pytest.mark.django_db
def test_a_write_to_a_file_the_request_does_not_name_says_so_not_outside_the_workspace():
    request = "summarise notes/a.md"
    detail = "step 1 (write_files) failed: it would change a file that the request does not name as a destination"
    end = terminate(cause="out_of_scope", detail=detail, intent=extract(request), request_text=request)
    assert end.message.startswith("I could not do this: the request does not name that file as the one to change")
    assert "outside your workspace" not in end.message and "update notes/b.md" in end.suggestion
    with translation.override("it"):
        italian = terminate(cause="out_of_scope", detail=detail, intent=extract(request), request_text=request)
    assert "la richiesta non indica quel file come quello da cambiare" in italian.message


@pytest.mark.django_db(transaction=True)
def test_a_real_turn_of_an_italian_user_ends_its_dead_end_in_italian(planner_model, settings):
    """The same English request, the owner's language set to Italian: the turn runs in it."""
    settings.METNOS_PLAN_MEMORY = False
    owner = get_user_model().objects.create_user(username="lucia", password="pw-lucia-123456")
    preference_set(user=owner, language="it")
    session = services.session_create(owner=owner)
    planner_model.replies.extend([
        plan(("read_files", {"paths": ["notes/zzz"], "tail_lines": 1}), final="${step1.entries.0.content}"),
        plan(final="It has 3 lines."),
    ])  # fmt: skip
    turn = services.turn_submit(session=session, text="read notes/zzz and tell me its last lines", model="")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    answer = Message.objects.get(turn=turn, role="assistant").text
    assert turn.layer == "terminator", turn.trace
    assert answer.startswith("Non sono riuscito a farlo:") and "notes/zzz" in answer
    assert translation.get_language() == settings.LANGUAGE_CODE, "the worker's language is left as it was"


def po_entries(path: Path) -> dict[str, list[str]]:
    """msgid → its msgstr(s), from a .po file; fuzzy entries are listed under the key 'fuzzy'."""
    entries: dict[str, list[str]] = {}
    for block in re.split(r"\n\s*\n", path.read_text()):
        fields: dict[str, str] = {}
        key = None
        for line in block.splitlines():
            if match := re.match(r'^(msgid|msgid_plural|msgstr(?:\[\d\])?) (".*")$', line):
                key = match.group(1)
                fields[key] = json.loads(match.group(2))
            elif line.startswith('"') and key:
                fields[key] += json.loads(line)
        if fields.get("msgid"):
            msgstrs = [value for name, value in sorted(fields.items()) if name.startswith("msgstr")]
            entries[fields["msgid"]] = msgstrs
            if "#, fuzzy" in block or re.search(r"^#,.*\bfuzzy\b", block, re.M):
                entries.setdefault("fuzzy", []).append(fields["msgid"])
    return entries


@pytest.mark.parametrize("domain", ["django", "djangojs"])
def test_every_text_has_an_italian_translation(domain):
    entries = po_entries(LOCALE / f"{domain}.po")
    assert "fuzzy" not in entries, f"fuzzy entries: {entries.get('fuzzy')}"
    untranslated = [msgid for msgid, msgstrs in entries.items() if not all(msgstrs)]
    assert len(entries) > 50 and not untranslated, untranslated


@pytest.mark.parametrize("domain", ["django", "djangojs"])
def test_the_committed_compiled_catalog_matches_its_po_file(domain):
    """The .mo is what Django reads; a .po edited without compiling it again fails here."""
    with (LOCALE / f"{domain}.mo").open("rb") as compiled:
        catalog = gettext.GNUTranslations(compiled)
    for msgid, msgstrs in po_entries(LOCALE / f"{domain}.po").items():
        if len(msgstrs) == 1:
            assert catalog.gettext(msgid) == msgstrs[0], msgid
        else:
            assert [catalog._catalog[(msgid, n)] for n in range(len(msgstrs))] == msgstrs, msgid

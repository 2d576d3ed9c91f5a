"""Budgets and rate limits name their target by `scope` and `scope_id` (no foreign key, so one
table serves keys, users and teams). In the admin the target is picked by name with Django's
autocomplete instead, and the change list shows the target's name.

The targets a scope can name form a registry: users and teams here, gateway keys registered by
the gateway's admin (billing imports no surface)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django import forms
from django.contrib import admin
from django.contrib.admin.exceptions import NotRegistered
from django.contrib.admin.views.autocomplete import AutocompleteJsonView
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import ImproperlyConfigured, PermissionDenied, ValidationError
from django.db import models
from django.http import Http404
from django.urls import reverse

TARGETS: dict[str, type[models.Model]] = {}  # scope -> the model its scope_id is a primary key of


def register_target(scope: str, model: type[models.Model]) -> None:
    TARGETS[scope] = model


def _stand_in(source: type[models.Model], scope: str, target: type[models.Model]) -> models.ForeignKey:
    """A foreign key that is never added to a model: Django's autocomplete widget and view read
    what they need (the target model, the source model and field name) from one."""
    field = models.ForeignKey(target, on_delete=models.DO_NOTHING, to_field=target._meta.pk.name)
    field.set_attributes_from_name(scope)
    field.model = source
    return field


class TargetSelect(AutocompleteSelect):
    """The site's autocomplete widget, asking the model admin's own view (its `targets/` URL):
    the site's view only answers for foreign keys that exist on a model."""

    def __init__(self, field: models.ForeignKey, admin_site: admin.AdminSite, url_name: str):
        super().__init__(field, admin_site)
        self.target_url_name = url_name

    def get_url(self) -> str:
        return reverse(f"{self.admin_site.name}:{self.target_url_name}")


class TargetAutocompleteView(AutocompleteJsonView):
    """Names matching what was typed, from the target model's admin (its search_fields and view
    permission), for one of the scopes the source model accepts."""

    source: type[models.Model] | None = None
    scopes: tuple[str, ...] = ()

    def process_request(self, request):
        scope = request.GET.get("field_name", "")
        opts = self.source._meta
        same_source = (request.GET.get("app_label"), request.GET.get("model_name")) == (opts.app_label, opts.model_name)
        if not same_source or scope not in self.scopes or scope not in TARGETS:
            raise PermissionDenied
        target = TARGETS[scope]
        try:
            model_admin = self.admin_site.get_model_admin(target)
        except NotRegistered as exc:
            raise PermissionDenied from exc
        if not model_admin.get_search_fields(request):
            raise Http404(f"{type(model_admin).__qualname__} must have search_fields for the autocomplete view.")
        return request.GET.get("term", ""), model_admin, _stand_in(self.source, scope, target), target._meta.pk.attname

    def get_queryset(self):
        queryset = super().get_queryset()
        return queryset if queryset.ordered else queryset.order_by("pk")  # a stable page order


def target_field(label: str) -> forms.ModelChoiceField:
    """A form's field for one scope; its queryset and widget are set per form (ScopeTargetForm)."""
    return forms.ModelChoiceField(queryset=None, required=False, label=label)


class ScopeTargetForm(forms.ModelForm):
    """One optional field per scope the model accepts (declared by the subclass with
    `target_field`); the one chosen sets `scope_id`. Exactly one must be chosen, and it must be
    the kind `scope` says."""

    scopes: tuple[str, ...] = ()
    url_name = ""
    admin_site = admin.site

    # Set from the target chosen in clean(). Not required here, so that a form with no target
    # reports that, not a blank hidden field; uniqueness is still checked once it is set.
    scope_id = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        current = self.instance.pk and self.instance.scope
        for scope in self.scopes:
            if scope not in TARGETS:
                raise ImproperlyConfigured(f"no model is registered as the {scope!r} target (register_target)")
            target, field = TARGETS[scope], self.fields[scope]
            field.widget = TargetSelect(_stand_in(self._meta.model, scope, target), self.admin_site, self.url_name)
            field.queryset = target._default_manager.all()  # after the widget: this fills its choices
            field.help_text = f"When the scope is {scope}: start typing to find one."
            if current == scope:
                self.initial[scope] = _existing_pk(target, self.instance.scope_id)

    def clean(self):
        cleaned = super().clean()
        chosen = [scope for scope in self.scopes if cleaned.get(scope) is not None]
        scope = cleaned.get("scope")
        if len(chosen) != 1:
            raise ValidationError(f"Choose exactly one target: a {' or a '.join(self.scopes)}.")
        if scope and chosen[0] != scope:
            self.add_error(chosen[0], f"The scope is {scope}, so choose a {scope} (or change the scope).")
            return cleaned
        cleaned["scope_id"] = str(cleaned[chosen[0]].pk)
        return cleaned


def _existing_pk(model: type[models.Model], raw: str):
    try:
        return model._meta.pk.to_python(raw)
    except ValidationError:  # a scope_id typed by hand before targets were picked by name
        return None


def label_targets(rows: Iterable[models.Model]) -> None:
    """Set `target_label` on each Budget or RateLimit row: its target's name, looked up with one
    query per scope for all the rows (a change list page)."""
    keyed = [(row, _existing_pk(TARGETS[row.scope], row.scope_id) if row.scope in TARGETS else None) for row in rows]
    wanted: dict[str, set] = defaultdict(set)
    for row, pk in keyed:
        if pk is not None:
            wanted[row.scope].add(pk)
    names = {}
    for scope, pks in wanted.items():
        names.update({(scope, obj.pk): str(obj) for obj in TARGETS[scope]._default_manager.filter(pk__in=pks)})
    for row, pk in keyed:
        row.target_label = names.get((row.scope, pk), f"{row.scope_id} (not found)")

"""The admin's API tokens: knox's pages, with a new token's expiry filled in (`API_TOKEN_DAYS` from
now, so none is made to last for ever) and each token's end and lifetime in the list."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.http import HttpRequest
from django.utils import timezone
from knox.admin import AuthTokenAdmin, AuthTokenCreateForm
from knox.models import AuthToken

from api.tokens import token_expires, token_has_expired, token_lifetime, token_lifetime_days


class ApiTokenCreateForm(AuthTokenCreateForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        expiry = self.fields["expiry"]
        expiry.initial = timezone.now() + token_lifetime()
        expiry.help_text = (
            f"When the token stops working: {settings.API_TOKEN_DAYS} days from now unless changed "
            "(API_TOKEN_DAYS); left empty, the same."
        )

    def clean_expiry(self) -> datetime:
        expiry = self.cleaned_data.get("expiry") or timezone.now() + token_lifetime()
        if expiry <= timezone.now():
            raise forms.ValidationError("A token's expiry is in the future.")
        return expiry


admin.site.unregister(AuthToken)


@admin.register(AuthToken)
class ApiTokenAdmin(AuthTokenAdmin):
    add_form = ApiTokenCreateForm
    list_display = ("short_digest", "user", "created", "expires", "lifetime")
    list_select_related = ("user",)

    @admin.display(description="digest", ordering="digest")
    def short_digest(self, token: AuthToken) -> str:
        """The start of the stored hash (never the token): enough to tell tokens apart."""
        return f"{token.digest[:12]}…"

    @admin.display(description="expires")
    def expires(self, token: AuthToken) -> str:
        end = f"{timezone.localtime(token_expires(token)):%Y-%m-%d %H:%M}"
        return f"{end} (expired)" if token_has_expired(token) else end

    @admin.display(description="lifetime")
    def lifetime(self, token: AuthToken) -> str:
        return f"{token_lifetime_days(token)} days"

    def save_model(self, request: HttpRequest, obj: AuthToken, form: Any, change: bool) -> None:
        admin.ModelAdmin.save_model(self, request, obj, form, change)  # knox's own adds a bare message
        if not change:
            self.message_user(
                request,
                f"TOKEN {form.token} — valid for {token_lifetime_days(obj)} days, until "
                f"{timezone.localtime(token_expires(obj)):%Y-%m-%d %H:%M}. Copy it now: it is not shown again.",
                messages.INFO,
            )

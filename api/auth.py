"""How API callers prove who they are: a token kept only as a hash (django-rest-knox), sent as
`Authorization: Token <token>`, until its lifetime ends (`api.tokens`). A wrong or expired
token counts as a failed login: after the failure limit the
caller's address is locked out (django-axes), the right token included, until the cool-off ends."""

from __future__ import annotations

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_cool_off, get_lockout_message
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.signals import user_login_failed
from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox.auth import TokenAuthentication
from knox.models import AuthToken
from rest_framework import exceptions
from rest_framework.authentication import get_authorization_header
from rest_framework.request import Request

from api.tokens import token_has_expired

#: what a token login reports to the lockout records (no part of the token itself)
TOKEN_CREDENTIALS = {"username": "(API token)"}


class ApiTokenAuthentication(TokenAuthentication):
    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, AuthToken] | None:
        header = get_authorization_header(request).split()
        if not header or header[0].lower() != self.authenticate_header(request).encode().lower():
            return None
        if not AxesProxyHandler.is_allowed(request._request, TOKEN_CREDENTIALS):
            cool_off = get_cool_off(request._request)
            raise exceptions.Throttled(
                wait=cool_off.total_seconds() if cool_off else None, detail=str(get_lockout_message())
            )
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed:
            user_login_failed.send(sender=type(self), credentials=TOKEN_CREDENTIALS, request=request._request)
            raise

    def authenticate_credentials(self, token: bytes) -> tuple[AbstractBaseUser, AuthToken]:
        try:
            token.decode("utf-8")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("Invalid token header: the token is not text.") from None
        user, auth_token = super().authenticate_credentials(token)
        if token_has_expired(auth_token):  # made before tokens had a lifetime: it runs from its creation
            raise exceptions.AuthenticationFailed("Invalid token.")
        return user, auth_token


class ApiTokenScheme(KnoxTokenScheme):
    """The schema's description of this authentication (registered by being defined)."""

    target_class = "api.auth.ApiTokenAuthentication"
    name = "apiToken"

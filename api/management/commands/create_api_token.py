from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from api.tokens import TokenError, api_token_create, token_expires, token_lifetime_days


class Command(BaseCommand):
    help = (
        "Make an API token for a researcher (a staff account) and print it. Only its hash is stored: "
        "copy it now, it cannot be shown again."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--days", type=int, default=None, help="valid for this many days (default: API_TOKEN_DAYS, 90)"
        )

    def handle(self, *args, **options) -> None:
        try:
            stored, token = api_token_create(username=options["username"], valid_days=options["days"])
        except TokenError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"API token for {options['username']} (valid for {token_lifetime_days(stored)} days, until "
            f"{token_expires(stored):%Y-%m-%d %H:%M} UTC; shown only now):"
        )
        self.stdout.write(token)

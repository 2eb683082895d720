import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
# Import every view (and what they import) now, once in gunicorn's master with --preload, instead of
# in each worker on its first request: a worker's first participant would wait seconds for it.
get_resolver().url_patterns  # noqa: B018

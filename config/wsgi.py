import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
# Import every view (and what they import) now, once in gunicorn's master with --preload, instead of
# in each worker on its first request: a worker's first participant would wait seconds for it. The
# URLconf names its views without importing them (studies.deferred), so reading it imports none; nor
# do the views import scipy, which the functions that compute import where they use it.
from studies.deferred import libraries_load, views_load  # noqa: E402 - Django is set up by the line above

views_load()
libraries_load()
# What start-up built (every module, view and template loader: some 360,000 objects) lives as long as
# the process: frozen, the garbage collector's full collections stop walking it on every worker's
# requests, and forked workers stop writing to the pages they share with the master
# (https://docs.python.org/3/library/gc.html#gc.freeze).
gc.freeze()

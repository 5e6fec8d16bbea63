# The game server image: one process serving WebSocket, the web client, /readyz, /healthz and
# /metrics on :8000.
#   docker build -t kings-corner .
#   docker run -p 8000:8000 kings-corner                                  (in-memory store)
#   docker run -p 8000:8000 -e REDIS_URL=redis://redis:6379/0 kings-corner (shared store)
#
# The base image is pinned to one patch release, and every runtime dependency to the version
# the tests ran with (constraints.txt, written by scripts/constraints.py): a rebuild installs
# what was tested, not whatever was newest that day. Raise both on purpose, then run the tests.

FROM python:3.11.13-slim-bookworm AS build
WORKDIR /src
# Only what the distribution needs; tests, benchmarks and local virtualenvs stay out.
COPY pyproject.toml README.md constraints.txt ./
COPY kings_corner ./kings_corner
COPY protocol ./protocol
COPY server ./server
COPY clients ./clients
RUN pip wheel --no-cache-dir --wheel-dir /wheels -c constraints.txt .

FROM python:3.11.13-slim-bookworm
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
COPY --from=build /wheels /wheels
COPY constraints.txt /tmp/constraints.txt
RUN pip install --no-cache-dir --no-index -c /tmp/constraints.txt /wheels/*.whl \
    && rm -rf /wheels /tmp/constraints.txt \
    && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin kc
USER kc
EXPOSE 8000
# Readiness, the one health check of the image and of docker-compose.yml: 200 while the store
# answers and the process is not shutting down, 503 otherwise (docs/deploy.md, "Health").
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2).status != 200)"]
# SIGTERM makes the server tell its clients, close their sockets and exit.
STOPSIGNAL SIGTERM
ENTRYPOINT ["kings-corner"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8000"]

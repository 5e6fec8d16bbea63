# The game server image: one process serving WebSocket, the web client and /healthz on :8000.
#   docker build -t kings-corner .
#   docker run -p 8000:8000 kings-corner                                  (in-memory store)
#   docker run -p 8000:8000 -e REDIS_URL=redis://redis:6379/0 kings-corner (shared store)

FROM python:3.11-slim AS build
WORKDIR /src
# Only what the distribution needs; tests, benchmarks and local virtualenvs stay out.
COPY pyproject.toml README.md ./
COPY protocol ./protocol
COPY server ./server
COPY clients ./clients
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels \
    && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin kc
USER kc
EXPOSE 8000
# 200 while the store answers, 503 while Redis is unreachable.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"]
# SIGTERM makes the server tell its clients, close their sockets and exit.
STOPSIGNAL SIGTERM
ENTRYPOINT ["kings-corner"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8000"]

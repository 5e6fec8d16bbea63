"""Plain HTTP on the game port: health, metrics, the JSON API, admin and the web client.

websockets calls :meth:`Routes.process_request` for every request before its handshake: a
WebSocket upgrade goes on to :mod:`server.sockets` (unless the store is unreachable),
anything else is answered here.
"""

from __future__ import annotations

import gzip
import logging
import mimetypes
from http import HTTPStatus
from pathlib import Path

from prometheus_client import CONTENT_TYPE_LATEST
from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from clients.i18n import LANGUAGES, web_language_module, web_languages_module, web_module
from protocol.codec import dumps
from protocol.options_table import OPTIONS

from . import admin, api
from .config import Settings
from .maintenance import Maintenance
from .metrics import Metrics
from .records import Records
from .reviews import Reviews
from .store.base import Store
from .tasks import Tasks

log = logging.getLogger(__name__)
WEB_ROOT = Path(__file__).resolve().parent.parent / "clients" / "web"
#: The room options' declaration as the web client imports it (clients/web/options.js).
ROOM_OPTIONS_JS = (
    "// The room options, declared in protocol/options_table.py; served, never edited.\n"
    f"export default {dumps([spec.public() for spec in OPTIONS]).decode()};\n"
)
#: Every language's texts as the web client imports them (clients/web/i18n.js).
TEXTS_JS = web_module()
#: Each language's texts alone (``/texts/<code>.js``), and the languages' menu
#: (``/languages.js``): the page loads only its player's language.
LANGUAGE_JS = {f"/texts/{code}.js": web_language_module(code) or "" for code in LANGUAGES}
LANGUAGES_JS = web_languages_module()
#: Text answers at least this long go gzip-compressed to a client that accepts it.
_GZIP_FROM = 1024
#: The JavaScript library's files (docs/client-library.md): served to any origin, so a page
#: elsewhere can ``import { Client } from "http://HOST:PORT/client.js"`` (client.js imports
#: patch.js beside it). The web client's other files are for its own pages only.
LIBRARY_FILES = frozenset({"/client.js", "/patch.js"})
#: Longest request path (with its query) served; longer ones get 404 without a look.
_MAX_PATH = 1024
#: Request headers read here that must come at most once (admin checks its own).
_SINGLE_HEADERS = ("Upgrade",)


class Routes:
    """The HTTP answers of one process."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        metrics: Metrics,
        records: Records,
        maintenance: Maintenance,
        tasks: Tasks,
        reviews: Reviews,
    ) -> None:
        self._settings = settings
        self._store = store
        self._metrics = metrics
        self._records = records
        self._reviews = reviews
        self._maintenance = maintenance
        self._tasks = tasks

    async def process_request(self, ws: ServerConnection, request: Request) -> Response | None:
        """Answer ``request``, or None to let a WebSocket handshake go on.

        A request that cannot name anything here is answered 400 or 404 and logged at INFO:
        what this raises, websockets answers with 500 and logs as a server error.
        """
        problem = _malformed(request)
        if problem is not None:
            log.info("bad HTTP request: %s", problem)
            return response(HTTPStatus.BAD_REQUEST, f"bad request: {problem}\n", "text/plain")
        if len(request.path) > _MAX_PATH:
            log.info("HTTP request path too long: %d characters", len(request.path))
            return response(HTTPStatus.NOT_FOUND, "not found\n", "text/plain")
        if request.headers.get("Upgrade", "").lower() == "websocket":
            if not self._maintenance.store_up:
                # Let a load balancer send this player to a replica that can reach the store.
                return response(HTTPStatus.SERVICE_UNAVAILABLE, "store unavailable\n", "text/plain")
            return None
        path = request.path.split("?", 1)[0]
        if path == "/healthz":
            ok = await self._store.ping()
            body = dumps({"status": "ok" if ok else "degraded", "store": "up" if ok else "down"})
            status = HTTPStatus.OK if ok else HTTPStatus.SERVICE_UNAVAILABLE
            return response(status, body, "application/json")
        if path == "/readyz":
            ok = await self._store.ping()
            closing = self._tasks.closing
            ready = ok and not closing
            body = dumps({"ready": ready, "store": "up" if ok else "down", "closing": closing})
            status = HTTPStatus.OK if ready else HTTPStatus.SERVICE_UNAVAILABLE
            return response(status, body, "application/json")
        if path == "/metrics":
            return response(HTTPStatus.OK, self._metrics.render(), CONTENT_TYPE_LATEST)
        if path.startswith("/api/"):
            status, payload = await api.handle(self._records, self._reviews, request)
            return response(status, dumps(payload), "application/json")
        if path.startswith("/admin/"):
            status, payload = await admin.handle(self._settings, self._store, request)
            return response(status, dumps(payload), "application/json")
        return compressed(static(path), request.headers.get("Accept-Encoding", ""))


def compressed(answer: Response, accepted: str) -> Response:
    """``answer`` gzip-compressed when the client accepts gzip and it is text worth it
    (a behind-nginx deployment gets it compressed from here as well: nginx passes it on)."""
    kind = answer.headers.get("Content-Type", "")
    textual = kind.startswith("text/") or "javascript" in kind or "json" in kind
    wants = any(part.split(";")[0].strip() == "gzip" for part in accepted.split(","))
    if not (wants and textual and answer.status_code == 200 and len(answer.body) >= _GZIP_FROM):
        return answer
    body = gzip.compress(answer.body, compresslevel=6, mtime=0)
    kept = [(k, v) for k, v in answer.headers.raw_items() if k.lower() != "content-length"]
    headers = Headers([*kept, ("Content-Length", str(len(body)))])
    headers["Content-Encoding"] = "gzip"
    headers["Vary"] = "Accept-Encoding"
    return Response(answer.status_code, answer.reason_phrase, headers, body)


def static(path: str) -> Response:
    """A file of the web client (``/`` is ``index.html``), or 404."""
    if path == "/":
        path = "/index.html"
    if path == "/room-options.js":
        return response(HTTPStatus.OK, ROOM_OPTIONS_JS, "text/javascript")
    if path == "/texts.js":
        return response(HTTPStatus.OK, TEXTS_JS, "text/javascript")
    if path in LANGUAGE_JS:
        return response(HTTPStatus.OK, LANGUAGE_JS[path], "text/javascript")
    if path == "/languages.js":
        return response(HTTPStatus.OK, LANGUAGES_JS, "text/javascript")
    try:
        target = (WEB_ROOT / path.lstrip("/")).resolve()
        if WEB_ROOT in target.parents and target.is_file():
            kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
            shared = path in LIBRARY_FILES
            return response(HTTPStatus.OK, target.read_bytes(), kind, any_origin=shared)
    except (OSError, ValueError) as exc:  # e.g. a name longer than the file system takes
        log.info("HTTP path not served: %s", type(exc).__name__)
    return response(HTTPStatus.NOT_FOUND, "not found\n", "text/plain")


def _malformed(request: Request) -> str | None:
    """What makes ``request`` unanswerable, if anything: a control or non-ASCII character
    in its path, or a header given twice that must come once."""
    if any(not 0x20 < ord(ch) < 0x7F for ch in request.path):
        return "control or non-ASCII character in the path"
    for name in _SINGLE_HEADERS:
        if len(request.headers.get_all(name)) > 1:
            return f"more than one {name} header"
    return None


def response(
    status: HTTPStatus, body: str | bytes, kind: str, *, any_origin: bool = False
) -> Response:
    """An HTTP answer with one ``charset`` on text, never cached, never sniffed; with
    ``any_origin``, readable by pages of any origin (``Access-Control-Allow-Origin: *``)."""
    data = body.encode() if isinstance(body, str) else body
    textual = kind.startswith("text/") or kind.endswith(("json", "javascript"))
    if textual and "charset=" not in kind:
        kind += "; charset=utf-8"  # once: Prometheus's content type names its own
    headers = Headers(
        [
            ("Content-Type", kind),
            ("Content-Length", str(len(data))),
            ("Cache-Control", "no-cache"),
            ("X-Content-Type-Options", "nosniff"),
        ]
    )
    if any_origin:
        headers["Access-Control-Allow-Origin"] = "*"
    return Response(status.value, status.phrase, headers, data)

"""A loopback proxy to a real Joplin that stops answering writes: Joplin dying partway through.

Every request is passed on to Joplin. The write (``POST``, ``PUT``, ``DELETE``) that starts with
``dies_at`` (``"POST /tags"``), once ``after`` such writes went through, is passed on too but its
answer never comes back (the connection is closed), as when Joplin stops after taking a change
in; later writes are not passed on at all (unless ``stays_dead`` is False: then Joplin answers
them again, as after a dropped connection).

    with DyingProxy(joplin.url, dies_at="DELETE /notes", after=1) as proxy:
        store = JoplinStore.open(root, url=proxy.url, token=joplin.token)
"""

from __future__ import annotations

import http.server
import socketserver
import threading
from types import TracebackType

import httpx
from tests.support.joplin import free_port

_WRITES = frozenset({"POST", "PUT", "DELETE"})


class DyingProxy:
    """Joplin behind a proxy that dies at a write: it takes it in and never answers."""

    def __init__(self, upstream: str, *, dies_at: str, after: int = 0, stays_dead: bool = True) -> None:
        self.upstream = upstream
        self.stays_dead = stays_dead
        self.dies_at = dies_at
        self.after = after
        self.died = False
        self.writes: list[str] = []
        """The writes asked for so far (``POST /notes``), the dropped ones included."""
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", free_port()), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> DyingProxy:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    def _handler(self) -> type[http.server.BaseHTTPRequestHandler]:
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base's name
                return

            def _relay(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                dying = False
                if self.command in _WRITES:
                    with proxy._lock:
                        if proxy.died and proxy.stays_dead:  # Joplin is gone: nothing reaches it any more
                            self.close_connection = True
                            return
                        write = f"{self.command} {self.path.split('?')[0]}"
                        proxy.writes.append(write)
                        if write.startswith(proxy.dies_at):
                            dying = proxy.died = proxy.after == 0
                            proxy.after -= 1
                headers = {
                    k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")
                }
                answer = httpx.request(
                    self.command, proxy.upstream + self.path, content=body, headers=headers, timeout=60
                )
                if dying:  # taken in, and never answered
                    self.close_connection = True
                    return
                self.send_response(answer.status_code)
                for key, value in answer.headers.items():
                    if key.lower() not in (
                        "transfer-encoding",
                        "connection",
                        "content-length",
                        "content-encoding",
                    ):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            do_GET = do_POST = do_PUT = do_DELETE = _relay

        return Handler


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

"""A bound on a request's line and headers, before the app sees anything: uvicorn's httptools protocol
reads a head of any size (a 64 MB header was read whole and stalled every other request for seconds).
Past MAX_HEAD_BYTES the connection is answered 431 and closed; bodies are bounded further in (the
gate for /mcp, `server.http.edge` for the pages)."""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

MAX_HEAD_BYTES = 32 * 1024  # a request line and headers; a bearer token or a cookie is far smaller

REFUSAL = b"request line and headers are too large"
RESPONSE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: " + str(len(REFUSAL)).encode() + b"\r\nconnection: close\r\n\r\n" + REFUSAL
)


class BoundedHead(HttpToolsProtocol):
    """Counts the bytes of the head being read (from the end of the previous message to the end of this
    one's headers); a head still unfinished past the bound is refused. Counting only while the head is
    unfinished means a small head followed by a large body in one read is never mistaken for a large head."""

    # where every connection starts (each assigns its own as it reads)
    _reading_head = True
    _head_bytes = 0
    _refused = False

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._reading_head:
            self._head_bytes += len(data)
        super().data_received(data)
        if (
            self._reading_head
            and self._head_bytes > MAX_HEAD_BYTES
            and not self.transport.is_closing()
        ):
            self._refused = True
            self.transport.write(RESPONSE)
            self.transport.close()

    def on_headers_complete(self) -> None:
        self._reading_head = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._reading_head, self._head_bytes = True, 0

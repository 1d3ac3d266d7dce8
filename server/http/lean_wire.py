"""The lean exchange's wire (`server.http.lean`): a request's message read from its body, its dispatch
context, its answer and the response that carries it, each as the SDK's own dispatcher and Streamable
HTTP transport make them in JSON response mode, with the SDK's own message models."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

import anyio
import pydantic_core
from mcp.server.runner import ServerRunner
from mcp.server.streamable_http import REQUEST_CANCELLED
from mcp.shared.dispatcher import CallOptions
from mcp.shared.exceptions import NoBackChannelError
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
from mcp.shared.message import ServerMessageMetadata
from mcp.shared.transport_context import TransportContext
from mcp_types import (
    ErrorData,
    JSONRPCError,
    JSONRPCRequest,
    JSONRPCResponse,
    ProgressToken,
    RequestId,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError
from starlette.types import Send

from server.http.request_state import RequestState

# The dispatcher's own logger: a handler that raises is logged where the SDK's way logs it.
sdk_log = logging.getLogger("mcp.shared.jsonrpc_dispatcher")

_JSON = (b"content-type", b"application/json")


class Dispatch:
    """The request's dispatch context, as the SDK's dispatcher makes it for a JSON-answered POST:
    no back-channel (a server request raises `NoBackChannelError`), and its notifications and
    progress dropped (the transport drops whatever is tied to a request in JSON mode)."""

    __slots__ = (
        "transport",
        "request_id",
        "message_metadata",
        "progress_token",
        "cancelled",
        "_event",
    )
    can_send_request = False

    def __init__(
        self,
        transport: TransportContext,
        request_id: RequestId,
        message_metadata: ServerMessageMetadata,
        progress_token: ProgressToken | None,
    ):
        self.transport = transport
        self.request_id = request_id
        self.message_metadata = message_metadata
        self.progress_token = progress_token
        self.cancelled = False  # the client cancelled it
        self._event: anyio.Event | None = None

    @property
    def cancel_requested(self) -> anyio.Event:
        """Set once the client cancelled the request; made when a handler first asks for it."""
        if self._event is None:
            self._event = anyio.Event()
            if self.cancelled:
                self._event.set()
        return self._event

    def cancel(self) -> None:
        self.cancelled = True
        if self._event is not None:
            self._event.set()

    async def send_raw_request(
        self, method: str, params: Mapping[str, object] | None, opts: CallOptions | None = None
    ) -> dict[str, object]:
        raise NoBackChannelError(method)

    async def notify(
        self, method: str, params: Mapping[str, object] | None, opts: CallOptions | None = None
    ) -> None:
        sdk_log.debug("dropped %s tied to request %r: JSON response mode", method, self.request_id)

    async def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        return None


def cancelled(message: JSONRPCRequest) -> JSONRPCError:
    """A request the client cancelled: this era's wire still ends it, with the transport's error."""
    error = ErrorData(code=REQUEST_CANCELLED, message="Request cancelled")
    return JSONRPCError(jsonrpc="2.0", id=message.id, error=error)


async def answer(
    runner: ServerRunner[object],
    dispatch: Dispatch,
    message: JSONRPCRequest,
    landed: Callable[[], None] | None = None,
) -> JSONRPCResponse | JSONRPCError | None:
    """The dispatcher's answer to a request (`JSONRPCDispatcher._handle_request`): the result, or
    the error its exception maps to; None when the client cancelled it (nothing is written then)."""
    try:
        try:
            result = await runner.on_request(dispatch, message.method, message.params)
        finally:
            if landed is not None:
                landed()
        if dispatch.cancelled:
            return None
        return JSONRPCResponse(jsonrpc="2.0", id=message.id, result=result)
    except Exception as exc:
        error = handler_exception_to_error_data(exc)
        if error is None:
            sdk_log.exception("handler for %r raised", message.method)
            error = ErrorData(code=0, message=str(exc))  # the dispatcher's own mapping
        if dispatch.cancelled:
            return None
        return JSONRPCError(jsonrpc="2.0", id=message.id, error=error)


def request_in(body: bytes, state: RequestState | None) -> JSONRPCRequest | None:
    """The body as the SDK's message model, when it is one request other than `initialize`. The
    gate's parse is used when it has one (the same pydantic-core parse, NaN refused: a body it
    parses, the SDK parses alike)."""
    if state is not None and state.parsed and state.body is body:
        raw: object = state.message
    else:
        try:
            raw = pydantic_core.from_json(body, allow_inf_nan=False)
        except ValueError:
            return None
    try:
        message = jsonrpc_message_adapter.validate_python(raw, by_name=False)
    except ValidationError:
        return None
    if not isinstance(message, JSONRPCRequest) or message.method == "initialize":
        return None
    return message


async def respond(
    send: Send, status: int, answer: JSONRPCResponse | JSONRPCError, sid: str | None
) -> None:
    """The answer as the transport's JSON response sends it (the same headers, in its order)."""
    body = answer.model_dump_json(by_alias=True, exclude_unset=True).encode()
    headers = [_JSON]
    if sid is not None:
        headers.append((b"mcp-session-id", sid.encode("latin-1")))
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})

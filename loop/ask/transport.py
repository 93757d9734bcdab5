"""The live transport to an endpoint: httpx's, with every response body read here, decompressed chunk by chunk
and capped, so a gzip bomb or an endless body stops at `endpoint.max_response_bytes` instead of filling memory.

What is over the cap or in an encoding loop cannot read is an httpx.DecodingError (the endpoint's bad_response).
"""

from __future__ import annotations

import zlib

import httpx

from loop.config import EndpointSettings

ACCEPT_ENCODING = "gzip, deflate"  # the encodings read here (httpx would offer br or zstd when installed)
# Headers that describe the body as it came over the wire, not as it is handed on (decoded, whole).
_WIRE_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


def _decompressor(encoding: str):
    """A zlib decompressor for the response's Content-Encoding, or None for identity."""
    name = encoding.strip().lower()
    if name in ("", "identity"):
        return None
    if name in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if name == "deflate":
        return zlib.decompressobj(32 + zlib.MAX_WBITS)  # zlib-wrapped, or gzip; raw deflate is rare
    raise ValueError(f"unsupported Content-Encoding {encoding!r}")


async def read_bounded(response: httpx.Response, limit: int) -> bytes:
    """The decoded body of a streamed `response`, or ValueError once it is more than `limit` bytes (zlib's
    max_length keeps each step at most what is still allowed, whatever one compressed chunk expands to)."""
    decompress = _decompressor(response.headers.get("content-encoding", ""))
    out = bytearray()
    async for chunk in response.aiter_raw():
        data = chunk
        while data:
            if decompress is None:
                out += data
                data = b""
            else:
                try:
                    out += decompress.decompress(data, limit + 1 - len(out))
                except zlib.error as exc:
                    raise ValueError(f"body does not decompress: {exc}") from None
                data = decompress.unconsumed_tail
            if len(out) > limit:
                raise ValueError(f"body is over {limit} bytes decompressed (endpoint.max_response_bytes)")
    return bytes(out)


class BoundedTransport(httpx.AsyncBaseTransport):
    """Hands on each response read whole, decoded and no larger than `limit` bytes."""

    def __init__(self, inner: httpx.AsyncBaseTransport, limit: int) -> None:
        self.inner, self.limit = inner, limit

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        try:
            body = await read_bounded(response, self.limit)
        except ValueError as exc:
            raise httpx.DecodingError(str(exc), request=request) from None
        finally:
            await response.aclose()
        headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _WIRE_HEADERS]
        return httpx.Response(response.status_code, headers=headers, content=body, request=request,
                              extensions=response.extensions)

    async def aclose(self) -> None:
        await self.inner.aclose()


def live_transport(settings: EndpointSettings) -> BoundedTransport:
    """The transport a live batch (or a recording) talks to the endpoint through."""
    limits = httpx.Limits(max_connections=settings.max_concurrency,
                          max_keepalive_connections=settings.max_concurrency)
    # Plain http never uses TLS: skip loading the CA bundle (~50 ms per Endpoint).
    plain = settings.base_url.lower().startswith("http://")
    return BoundedTransport(httpx.AsyncHTTPTransport(limits=limits, verify=not plain), settings.max_response_bytes)

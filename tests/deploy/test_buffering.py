"""The framing of coinflip.buffering (where a buffered request ends), without a server: test_slow_clients.py runs
the worker itself. A request is handed to a thread exactly when its last byte has arrived; malformed framing ends it
at once (gunicorn's parser then answers 400); a body past the buffer, or headers past 64 KiB, are streamed."""
import pytest

from coinflip.buffering import HEADER_BYTES, INCOMPLETE, MAX_CHUNKS, STREAM, Framing, request_end

HEAD = b"POST /api/surveys/x/reports/ HTTP/1.1\r\nHost: a\r\n"


def grown(data: bytes, step: int = 1, limit: int = 1 << 20):
    """Feed ``data`` to one Framing in steps of ``step`` bytes: the first offset where it answers, and the answer."""
    framing = Framing(limit)
    for size in range(step, len(data) + step, step):
        end = framing.end(data[:size])
        if end is not INCOMPLETE:
            return min(size, len(data)), end
    return None, INCOMPLETE


@pytest.mark.parametrize("request_bytes", [
    b"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
    HEAD + b"Content-Length: 5\r\n\r\nhello",
    HEAD + b"content-length:0\r\n\r\n",
    HEAD + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    HEAD + b"Transfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: x\r\n\r\n",
    HEAD + b"Expect: 100-continue\r\nContent-Length: 2\r\n\r\n{}",
])
@pytest.mark.parametrize("step", [1, 7, 4096])
def test_a_request_ends_exactly_at_its_last_byte(request_bytes, step):
    assert grown(request_bytes, step) == (len(request_bytes), len(request_bytes))
    # A pipelined second request does not move the end of the first.
    assert request_end(request_bytes + b"GET / HTTP/1.1\r\n\r\n") == len(request_bytes)


def test_expect_continue_is_noticed():
    framing = Framing()
    assert framing.end(HEAD + b"Expect: 100-Continue\r\nContent-Length: 2\r\n\r\n") is INCOMPLETE
    assert framing.expect_continue


@pytest.mark.parametrize("headers", [
    b"Content-Length: 1\xc2\xb2\r\n\r\n",  # a non-ASCII digit
    b"Content-Length: -1\r\n\r\n",
    b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n",
    b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n",
    b"Content-Length: 99999999999999999999\r\n\r\n",
])
def test_malformed_framing_ends_at_the_headers(headers):
    assert request_end(HEAD + headers) == len(HEAD + headers)


def test_a_malformed_chunk_ends_the_request_at_once():
    data = HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n"
    assert request_end(data) == len(data)
    data = HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + b"1" * 2000
    assert request_end(data) == len(data)  # a chunk-size line past 1 KiB


def test_large_bodies_and_headers_are_streamed():
    assert request_end(HEAD + b"Content-Length: 2000\r\n\r\n", limit=1000) == STREAM
    chunked = HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + b"400\r\n" + b"a" * 1024 + b"\r\n"
    assert request_end(chunked, limit=1000) == STREAM
    tiny = HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + b"1\r\na\r\n" * (MAX_CHUNKS + 1)
    assert request_end(tiny) == STREAM  # bounds the event loop's work
    assert request_end(HEAD + b"X: " + b"a" * HEADER_BYTES) == STREAM
    assert request_end(HEAD + b"X: " + b"a" * 1000) is INCOMPLETE


def test_each_byte_is_scanned_once():
    """The header search resumes where it stopped: a 64 KiB header block fed byte by byte stays linear."""
    framing, data = Framing(), HEAD + b"X: " + b"a" * 60000
    for size in range(1, len(data) + 97, 97):
        assert framing.end(data[:size]) is INCOMPLETE
    assert framing.searched == len(data) and framing.body is None

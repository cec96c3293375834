"""A minimal Oblivious HTTP relay (RFC 9458 §6.2) for the tests: an HTTP server on 127.0.0.1 that forwards a POST's
``message/ohttp-req`` content — and nothing else of the client's request, no header, no address — to one gateway
URL, and its ``message/ohttp-res`` answer back. Its outgoing connections leave from ``source`` (a loopback address
of its own, e.g. 127.0.0.2), so a gateway test can tell the relay's address from the client's. It answers the
browser's CORS preflight for ``origin`` (the survey's): a relay serving a web page must."""
from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


class Relay:
    """``with Relay(gateway_url, origin) as relay:`` — ``relay.url`` to give the survey; ``relay.seen`` lists what
    each forwarded request's client sent (its address and headers: what the relay, and only it, learns)."""

    def __init__(self, gateway_url: str, origin: str = "", source: str = "127.0.0.2"):
        self.gateway, self.origin, self.source = urlsplit(gateway_url), origin, source
        self.seen: list[dict] = []
        relay = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # a relay keeps no log
                pass

            def _cors(self):
                if relay.origin:
                    self.send_header("Access-Control-Allow-Origin", relay.origin)
                    self.send_header("Access-Control-Allow-Methods", "POST")
                    self.send_header("Access-Control-Allow-Headers", "content-type")
                    self.send_header("Access-Control-Max-Age", "0")

            def do_OPTIONS(self):
                self.send_response(204)
                self._cors()
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                relay.seen.append({"client": self.client_address[0], "headers": dict(self.headers.items())})
                if (self.headers.get("Content-Type") or "").split(";")[0].strip() != "message/ohttp-req":
                    self.send_response(415)
                    self._cors()
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                status, content_type, answer = relay.forward(body)
                self.send_response(status)
                self._cors()
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/relay/"

    def forward(self, body: bytes) -> tuple[int, str, bytes]:
        """POST ``body`` to the gateway from the relay's own address, with only the headers the content needs."""
        connection = http.client.HTTPConnection(self.gateway.hostname, self.gateway.port, timeout=60,
                                                source_address=(self.source, 0))
        try:
            connection.request("POST", self.gateway.path, body=body,
                               headers={"Content-Type": "message/ohttp-req", "Host": self.gateway.netloc})
            response = connection.getresponse()
            return response.status, response.getheader("Content-Type") or "", response.read()
        finally:
            connection.close()

    def __enter__(self) -> Relay:
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

#!/usr/bin/env python3
"""A loopback HTTP peer that answers the way a hostile or broken backend, webhook receiver or
MDM would, so tests can check that Handover's outgoing clients read a few KB at most, give up in
time and count the attempt.

Usage: hostile_peer.py
Prints the port it listens on (127.0.0.1 only) as its first line, then serves until killed.

Every path answers by its first segment, whatever the method:
  /ok/...          200 with an empty body
  /endless/...     200, chunked, 64 KB chunks for as long as the client reads
  /huge/...        200 with Content-Length: 1500000000, then bytes for as long as the client reads
  /trickle/...     200, chunked, 100 bytes every 50 ms, for ever
  /long-error/...  500 with a 1 MB body (Content-Length given)
  /hang/...        reads the request, then never answers
GET /_report answers {"requests": {"<first segment>": count, ...}, "paths": [every path, in order]}.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
COUNTS = {}
PATHS = []
CHUNK = b"x" * 65536


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def handle_any(self):
        if self.path == "/_report":
            with LOCK:
                body = json.dumps({"requests": COUNTS, "paths": PATHS}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.read_body()
        kind = self.path.strip("/").split("/")[0].split("?")[0]
        with LOCK:
            COUNTS[kind] = COUNTS.get(kind, 0) + 1
            PATHS.append(self.path)
        try:
            if kind == "endless" or kind == "trickle":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                while True:
                    if kind == "endless":
                        self.chunk(CHUNK)
                    else:
                        self.chunk(b"y" * 100)
                        self.wfile.flush()
                        time.sleep(0.05)
            elif kind == "huge":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "1500000000")
                self.end_headers()
                while True:
                    self.wfile.write(CHUNK)
            elif kind == "long-error":
                body = b"e" * (1 << 20)
                self.send_response(500)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            elif kind == "hang":
                time.sleep(3600)
            else:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

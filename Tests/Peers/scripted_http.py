#!/usr/bin/env python3
"""A loopback HTTP server that answers from a script, for the SDK's tests of a busy server.

Usage: scripted_http.py SCRIPT
SCRIPT is a JSON list of answers, one per request in order (the last one repeats):
  {"status": 503, "headers": {"Retry-After": "2"}, "body": "{...}"}   an answer
  {"drop": true}                                                       read the request, then
                                                                       close without answering
Every answer closes its connection. Prints the port it listens on (127.0.0.1 only) as its
first line, then serves until killed.
GET /_peer/requests answers every other request received, in order:
  [{"method": "POST", "path": "/...", "headers": {"Name": "value", ...}, "body": "..."}, ...]
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
SCRIPT = json.loads(sys.argv[1])
RECEIVED = []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, headers, body):
        data = body.encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        # One request per connection: a client may send a request again by itself when a kept
        # connection dies under it, and the tests count only the SDK's own attempts.
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        if self.command == "GET" and self.path == "/_peer/requests":
            with LOCK:
                report = json.dumps(RECEIVED)
            return self.send(200, {"Content-Type": "application/json"}, report)
        with LOCK:
            RECEIVED.append({"method": self.command, "path": self.path,
                             "headers": {name: value for name, value in self.headers.items()}, "body": body})
            answer = SCRIPT.pop(0) if len(SCRIPT) > 1 else SCRIPT[0]
        if answer.get("drop"):
            self.close_connection = True
            return
        self.send(answer["status"], answer.get("headers", {}), answer.get("body", ""))

    do_GET = do_POST = do_PUT = do_DELETE = handle_any


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()

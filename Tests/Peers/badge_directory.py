#!/usr/bin/env python3
"""A customer's badge lookup, as Imprivata customers run one, for the tests:
GET /lookup?id=<badge> answers {"user": "<login>"} for a known badge, 404 for another.

  badge_directory.py BADGE=LOGIN [BADGE=LOGIN ...]

GET /slow?id=… never answers (a lookup that hangs until the peer is stopped); GET /broken?id=…
answers 500. It prints
its port as its first line, and records every badge it was asked for at GET /asked.
"""
import json
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

badges = dict(argument.split("=", 1) for argument in sys.argv[1:])
asked = []
never = threading.Event()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *arguments):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        badge = urllib.parse.parse_qs(url.query).get("id", [""])[0]
        if url.path == "/asked":
            return self.answer(200, asked)
        asked.append(badge)
        if url.path == "/slow":
            never.wait()  # set by nobody: the request hangs until the peer is killed
        if url.path == "/broken":
            return self.answer(500, {"error": "directory down"})
        if badge in badges:
            return self.answer(200, {"user": badges[badge]})
        return self.answer(404, {"error": "unknown badge"})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()

#!/usr/bin/env python3
"""A loopback Splunk HTTP Event Collector (HEC), written from Splunk's published HEC reference.

  splunk_hec.py TOKEN

Prints the port it listens on (127.0.0.1 only, plain HTTP/1.1 with keep-alive) as its first
line, then serves until killed. TOKEN is the one HEC token it accepts.

Splunk's pages it follows:
  HTTP Event Collector REST API endpoints (the endpoints below)
    https://help.splunk.com/en/splunk-enterprise/get-data-in/collect-http-event-data/http-event-collector-rest-api-endpoints
  Troubleshoot HTTP Event Collector (the table of HEC status codes, HTTP statuses and texts)
    https://help.splunk.com/en/splunk-enterprise/get-data-in/collect-http-event-data/troubleshoot-http-event-collector
  Format events for HTTP Event Collector (authentication, event metadata, batches)
    https://docs.splunk.com/Documentation/Splunk/latest/Data/FormateventsforHTTPEventCollector
  Automate indexed field extractions with HTTP Event Collector (the "fields" key)
    https://docs.splunk.com/Documentation/Splunk/latest/Data/IFXandHEC

HEC endpoints:
  POST /services/collector, /services/collector/event, /services/collector/event/1.0
      Authentication, in the forms "Format events" lists:
        Authorization: Splunk TOKEN                HTTP authentication
        Authorization: Basic base64(ANY:TOKEN)     basic authentication, the token as the password
        ?token=TOKEN                               query string: off by default in Splunk
                                                   (allowQueryStringAuth), so refused with code 16
      Body: one or more JSON event objects one after another, whitespace between them allowed,
      no array and no commas ({"event":..}{"event":..} or one a line); Content-Encoding: gzip is
      accepted. Each object: "event" (required: a string, number, object or array; not null,
      not ""), and optional "time" (epoch seconds, "<sec>.<ms>", a number or a numeric string),
      "host", "source", "sourcetype", "index" (strings), "fields" (an object whose values are
      strings, numbers or arrays of them: indexed fields are flat). Other keys are not checked
      (they are kept in /control/events).
      Events are taken in order: when event N (counting from 0) is bad, the events before it
      have been taken (as Splunk indexes them) and the answer names N in "invalid-event-number";
      the events from N on are not taken.
  GET /services/collector/health, /services/collector/health/1.0  (no token needed)
      200 {"text":"HEC is healthy","code":17}; while down 503 {"text":"HEC is unhealthy, queues are full","code":18}

Answers (Content-Type: application/json; charset=UTF-8, bodies byte for byte as below):
  200 {"text":"Success","code":0}
  401 {"text":"Token is required","code":2}          no Authorization header (and no ?token=)
  401 {"text":"Invalid authorization","code":3}      an Authorization header that is not "Splunk TOKEN" or Basic
  403 {"text":"Invalid token","code":4}              a token that is not TOKEN (header, Basic or query string)
  400 {"text":"No data","code":5}                    an empty body (or whitespace only)
  400 {"text":"Invalid data format","code":6,"invalid-event-number":N}
                                                     not JSON, not an object (a JSON array is not a batch),
                                                     "time" not a number, a metadata key not a string,
                                                     "fields" not an object, a bad gzip body
  400 {"text":"Event field is required","code":12,"invalid-event-number":N}      no "event", or null
  400 {"text":"Event field cannot be blank","code":13,"invalid-event-number":N}  "event": ""
  400 {"text":"Error in handling indexed fields","code":15,"invalid-event-number":N}
                                                     a "fields" value that is an object (nested)
  400 {"text":"Query string authorization is not enabled","code":16}   a valid token in ?token=
  503 {"text":"Server is busy","code":9}             every HEC request while the peer is down
  404 {"text":"The requested URL was not found on this server.","code":404}
                                                     any other path or method (splunkd's answer; not on the
                                                     reference pages, like the order of the checks)
  Order of the checks: down (9), authentication (2, 3, 4, then 16), body (5), then event by event.

Test controls (not Splunk's):
  POST /control/down      HEC requests answer 503 {"text":"Server is busy","code":9} (health 503, code
                          18) until POST /control/up. Answers {"down": true|false}.
  POST /control/up
  GET  /control/events    every event object taken, in arrival order, as a JSON list of
                          {"request": R, "number": N, "path": P, "event": OBJECT}: R counts the HEC
                          POSTs from 1 (refused ones too), N is the object's place in its request's body
                          (from 0), OBJECT the object as received (all its keys).
  GET  /control/requests  every HEC POST, in order: {"request", "path", "status", "code", "taken" (how
                          many events of it were taken), "invalid_event_number", "authorization",
                          "content_type", "content_encoding", "channel" (X-Splunk-Request-Channel),
                          "user_agent", "bytes" (the body as received)}.
  GET  /control/count     {"events": how many event objects were taken, "requests": how many HEC POSTs}
  POST /control/reset     forgets the events and requests (the numbering starts again at 1); stays down
                          or up as it was.
"""
import base64
import gzip
import json
import math
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EVENT_PATHS = ("/services/collector", "/services/collector/event", "/services/collector/event/1.0")
HEALTH_PATHS = ("/services/collector/health", "/services/collector/health/1.0")
METADATA = ("host", "source", "sourcetype", "index")


def reply(text, code, invalid_event_number=None):
    body = {"text": text, "code": code}
    if invalid_event_number is not None:
        body["invalid-event-number"] = invalid_event_number
    return body


SUCCESS = (200, reply("Success", 0))
TOKEN_REQUIRED = (401, reply("Token is required", 2))
INVALID_AUTHORIZATION = (401, reply("Invalid authorization", 3))
INVALID_TOKEN = (403, reply("Invalid token", 4))
NO_DATA = (400, reply("No data", 5))
SERVER_BUSY = (503, reply("Server is busy", 9))
QUERY_STRING_AUTH = (400, reply("Query string authorization is not enabled", 16))
NOT_FOUND = (404, reply("The requested URL was not found on this server.", 404))
HEALTHY = (200, reply("HEC is healthy", 17))
UNHEALTHY = (503, reply("HEC is unhealthy, queues are full", 18))


class BadEvent(Exception):
    def __init__(self, text, code):
        super().__init__(text)
        self.text = text
        self.code = code


def is_number(value):
    if isinstance(value, bool):
        return False
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return False
    return isinstance(value, (int, float)) and math.isfinite(value)


def check_event(obj):
    """One event object, as the reference pages describe it; raises BadEvent."""
    if not isinstance(obj, dict):
        raise BadEvent("Invalid data format", 6)
    if "event" not in obj or obj["event"] is None:
        raise BadEvent("Event field is required", 12)
    if obj["event"] == "":
        raise BadEvent("Event field cannot be blank", 13)
    if "time" in obj and not is_number(obj["time"]):
        raise BadEvent("Invalid data format", 6)
    for key in METADATA:
        if key in obj and not isinstance(obj[key], str):
            raise BadEvent("Invalid data format", 6)
    if "fields" in obj:
        fields = obj["fields"]
        if not isinstance(fields, dict):
            raise BadEvent("Invalid data format", 6)
        for value in fields.values():
            values = value if isinstance(value, list) else [value]
            if any(isinstance(v, (dict, list)) for v in values):
                raise BadEvent("Error in handling indexed fields", 15)


def split_events(text):
    """Yields the JSON values of a body of concatenated values, then raises BadEvent at the first
    one that does not parse (the caller counts the ones it got for invalid-event-number)."""
    decoder = json.JSONDecoder()
    position = 0
    while True:
        while position < len(text) and text[position] in " \t\r\n":
            position += 1
        if position == len(text):
            return
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            raise BadEvent("Invalid data format", 6)
        yield value


class Collector:
    def __init__(self, token):
        self.token = token
        self.lock = threading.Lock()
        self.down = False
        self.requests = []
        self.events = []

    def authenticate(self, headers, query):
        """(status, body) when the request is refused, None when TOKEN authenticates it."""
        header = headers.get("Authorization")
        if header is not None and header.strip() != "":
            scheme, _, credential = header.strip().partition(" ")
            credential = credential.strip()
            if scheme == "Splunk" and credential:
                return None if credential == self.token else INVALID_TOKEN
            if scheme == "Basic" and credential:
                try:
                    _, _, password = base64.b64decode(credential, validate=True).decode("utf-8").partition(":")
                except (ValueError, UnicodeDecodeError):
                    return INVALID_AUTHORIZATION
                return None if password == self.token else INVALID_TOKEN
            return INVALID_AUTHORIZATION
        tokens = query.get("token")
        if tokens:
            return QUERY_STRING_AUTH if tokens[0] == self.token else INVALID_TOKEN
        return TOKEN_REQUIRED

    def collect(self, path, headers, query, raw):
        """Handles one HEC POST; returns (status, body)."""
        with self.lock:
            number = len(self.requests) + 1
            entry = {
                "request": number, "path": path, "status": None, "code": None, "taken": 0,
                "invalid_event_number": None, "authorization": headers.get("Authorization"),
                "content_type": headers.get("Content-Type"), "content_encoding": headers.get("Content-Encoding"),
                "channel": headers.get("X-Splunk-Request-Channel"), "user_agent": headers.get("User-Agent"),
                "bytes": len(raw),
            }
            self.requests.append(entry)
            status, body = self.answer(number, path, headers, query, raw, entry)
            entry["status"], entry["code"] = status, body["code"]
            entry["invalid_event_number"] = body.get("invalid-event-number")
            return status, body

    def answer(self, number, path, headers, query, raw, entry):
        if self.down:
            return SERVER_BUSY
        refused = self.authenticate(headers, query)
        if refused:
            return refused
        taken = 0
        try:
            if (headers.get("Content-Encoding") or "").strip().lower() == "gzip":
                try:
                    raw = gzip.decompress(raw)
                except (OSError, EOFError):
                    raise BadEvent("Invalid data format", 6)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise BadEvent("Invalid data format", 6)
            if text.strip() == "":
                return NO_DATA
            for obj in split_events(text):
                check_event(obj)
                self.events.append({"request": number, "number": taken, "path": path, "event": obj})
                taken += 1
                entry["taken"] = taken
        except BadEvent as bad:
            return 400, reply(bad.text, bad.code, taken)
        return SUCCESS


def read_body(handler):
    """The request body: Content-Length, or Transfer-Encoding: chunked."""
    if "chunked" in (handler.headers.get("Transfer-Encoding") or "").lower():
        chunks = []
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(chunks)
            chunks.append(handler.rfile.read(size))
            handler.rfile.readline()
    return handler.rfile.read(int(handler.headers.get("Content-Length") or 0))


def serve(token):
    collector = Collector(token)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def version_string(self):
            return "Splunkd"

        def log_message(self, *args):
            pass

        def answer(self, status, body, content_type="application/json; charset=UTF-8"):
            data = json.dumps(body, separators=(",", ":")).encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def route(self, method):
            url = urllib.parse.urlsplit(self.path)
            path = url.path
            query = urllib.parse.parse_qs(url.query)
            body = read_body(self) if method in ("POST", "PUT", "PATCH") or self.headers.get("Content-Length") \
                or self.headers.get("Transfer-Encoding") else b""
            if path in EVENT_PATHS and method == "POST":
                self.answer(*collector.collect(path, self.headers, query, body))
            elif path in HEALTH_PATHS and method == "GET":
                with collector.lock:
                    self.answer(*(UNHEALTHY if collector.down else HEALTHY))
            elif path in ("/control/down", "/control/up") and method == "POST":
                with collector.lock:
                    collector.down = path == "/control/down"
                    self.answer(200, {"down": collector.down}, "application/json")
            elif path == "/control/events" and method == "GET":
                with collector.lock:
                    self.answer(200, collector.events, "application/json")
            elif path == "/control/requests" and method == "GET":
                with collector.lock:
                    self.answer(200, collector.requests, "application/json")
            elif path == "/control/count" and method == "GET":
                with collector.lock:
                    self.answer(200, {"events": len(collector.events), "requests": len(collector.requests)},
                                "application/json")
            elif path == "/control/reset" and method == "POST":
                with collector.lock:
                    collector.events.clear()
                    collector.requests.clear()
                    self.answer(200, {"down": collector.down}, "application/json")
            else:
                self.answer(*NOT_FOUND)

        def do_GET(self):
            self.route("GET")

        def do_POST(self):
            self.route("POST")

        def do_PUT(self):
            self.route("PUT")

        def do_DELETE(self):
            self.route("DELETE")

        def do_PATCH(self):
            self.route("PATCH")

    class Server(ThreadingHTTPServer):
        daemon_threads = True

    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 2 or not sys.argv[1]:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    serve(sys.argv[1])

#!/usr/bin/env python3
"""An event receiver (as a SIEM or a zero-trust proxy would be) for Handover's Shared Signals
transmitter, written with joserfc, not with Handover's code.

  ssf_receiver.py ISSUER CLIENT_ID CLIENT_SECRET [NOW]

ISSUER is Handover's base URL. At its first need the receiver reads ISSUER/.well-known/
ssf-configuration (OpenID Shared Signals Framework 1.0 section 7.1; its issuer must be ISSUER
exactly, section 7.2.4) and the jwks_uri it names, and ISSUER/.well-known/openid-configuration
for the token_endpoint, where it gets a bearer token with client_credentials (RFC 6749 section
4.4), authenticating with client_secret_basic (section 2.3.1: id and secret form-urlencoded, then
Basic). The token is kept, and fetched again once when a call answers 401. NOW, in seconds since
1970, is the time the iat check uses (the tests' clock); by default the wall's time.

It prints its port as its first line and serves on 127.0.0.1:

  POST /events   The push endpoint (RFC 8935 section 2). The Authorization header must be exactly
      "Bearer push-secret" (the value /control/stream gives the transmitter as the stream's
      authorization_header, SSF section 6.1.1), else 401 {"err": "authentication_failed"};
      Content-Type must be application/secevent+jwt. The SET is validated (below); a valid one is
      recorded and answered 202 with no body (RFC 8935 section 2.2); a jti seen before is recorded
      as a repeat and still answered 202. Otherwise 400 {"err", "description"} with a code of
      RFC 8935 section 2.4, or invalid_state (SSF section 8.1.4.1). While the fail count set by
      /control/fail is above zero, a push is answered 503 and the count goes down by one (to
      exercise the transmitter's retries, RFC 8935 section 4).

  Validation of a SET, for push and poll alike:
      compact JWS with alg ES256, signed by the key of the transmitter's JWKS its kid names (the
      set is read again once for an unknown kid) - else invalid_key; header typ secevent+jwt
      (RFC 8417 section 2.3, SSF section 4.1.1) - else invalid_request; iss equal to ISSUER and to
      the stream's iss (SSF sections 4.1.6, 7.2.4) - else invalid_issuer; aud equal to CLIENT_ID or
      a list holding it (RFC 8417 section 2.2, SSF section 4.1.8) - else invalid_audience; jti a
      non-empty string, iat an integer within a day of NOW, no sub (SSF section 4.1.2) and no exp
      (section 4.1.7), a top-level sub_id object with a format (RFC 9493 section 3, SSF section 3),
      events holding exactly one event object (SSF section 4.2.1) - else invalid_request. A
      verification event (SSF section 8.1.4.1) must have sub_id {"format": "opaque", "id": the
      stream's stream_id} (invalid_request), and a state, when it has one, that this receiver asked
      for through /control/verify (invalid_state).

  Control routes (JSON in and out; a failure answers 500 {"error": "..."}):
  POST /control/stream   {"method": "push"|"poll", "events_requested": [...],
                          "description"?, "authorization_header"?}
      Creates a stream at the configuration_endpoint (SSF section 8.1.1.1): push delivers to
      http://127.0.0.1:PORT/events with authorization_header "Bearer push-secret" (unless given);
      poll (RFC 8936) names no endpoint_url. Checks the answer (201; iss is ISSUER; aud is
      CLIENT_ID or holds it, section 8.1.1.1.1; stream_id and events_delivered present; the
      delivery method asked; for poll a delivery.endpoint_url), keeps the stream, and answers it.
  POST /control/verify   {"state"?: "..."}
      POST to the verification_endpoint (SSF section 8.1.4.2) for the kept stream; answers
      {"status": N, "body": ...} (Handover answers 204). The state is allowed before the call.
  POST /control/poll     {"maxEvents"?: n, "returnImmediately"?: bool, "ack"?: bool}
      One poll request (RFC 8936 section 2.4) to the kept poll stream's endpoint_url with the
      bearer token. With ack true, its "ack" lists every valid jti earlier polls returned and no
      request has acknowledged yet, and its "setErrs" (section 2.4.4) reports the SETs earlier
      polls returned that failed validation. Each returned SET is validated as above; its key in
      "sets" must be its jti. Answers {"jtis": [returned jtis], "moreAvailable": bool,
      "acked": [acknowledged in this request], "setErrs": {reported in this request},
      "errors": {jti: {"err", "description"}} for the returned SETs that failed validation}.
  GET  /control/events   {"events": [{"jti", "type", "event", "sub_id", "iat", "txn", "via":
      "push"|"poll", "repeat"?: true}...], "refused": [{"via", "status", "err", "description"}...]}
      in arrival order: every receipt of a valid SET (a jti received before comes again with
      "repeat": true), and every push or polled SET refused (503s of /control/fail included).
  POST /control/wait     {"type"?, "count", "timeout"?: seconds (60)}
      The same answer as /control/events, once `count` valid SETs (of `type`, when given) have
      arrived, not counting repeats, or when the timeout passes.
  POST /control/fail     {"count": n}   the next n pushes are answered 503.
  POST /control/request  {"method", "path", "json"?, "query"?: {...}}
      An authenticated (bearer) request to ISSUER+path; answers {"status": N, "body": the JSON
      answer, or its text, or null}: for the status, subjects, PATCH, PUT and DELETE calls of SSF
      sections 8.1.1 to 8.1.3.
"""
import base64
import json
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from joserfc import jws, jwt
from joserfc.errors import BadSignatureError, JoseError
from ssf_http import POLL, PUSH, opener, parsed, send  # noqa: F401  (beside this script)
from joserfc.jwk import KeySet

PUSH_AUTHORIZATION = "Bearer push-secret"
VERIFICATION = "https://schemas.openid.net/secevent/ssf/event-type/verification"
DAY = 86400


class Refusal(Exception):
    """A SET refused with an error code of RFC 8935 section 2.4 (or SSF's invalid_state)."""

    def __init__(self, err, description):
        super().__init__("%s: %s" % (err, description))
        self.err = err
        self.description = description


class Receiver:
    def __init__(self, issuer, client_id, secret, now=None):
        self.issuer = issuer
        self.client_id = client_id
        self.secret = secret
        self.now = int(now) if now else None
        self.port = None
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)  # notified as each valid SET is recorded
        self.metadata = None  # SSF transmitter configuration metadata (section 7.1)
        self.keys = None
        self.token = None
        self.stream = None
        self.states = set()  # verification states asked for
        self.seen = set()  # jtis of valid SETs received
        self.events = []
        self.refused = []
        self.fail_next = 0
        self.unacked = []  # valid jtis polled and not yet acknowledged (RFC 8936 section 2.4)
        self.unreported = {}  # jti -> error of polled SETs not yet reported in setErrs

    # Discovery and tokens

    def discover(self):
        if self.metadata is None:
            status, raw = send("GET", self.issuer + "/.well-known/ssf-configuration")
            metadata = parsed(raw)
            if status != 200 or not isinstance(metadata, dict):
                raise ValueError("ssf-configuration answered %d: %r" % (status, metadata))
            if metadata.get("issuer") != self.issuer:  # SSF section 7.2.4
                raise ValueError("ssf-configuration names issuer %r, expected %r" % (metadata.get("issuer"), self.issuer))
            self.metadata = metadata
            self.refresh_keys()
        return self.metadata

    def refresh_keys(self):
        status, raw = send("GET", self.discover()["jwks_uri"])
        if status != 200:
            raise ValueError("jwks_uri answered %d" % status)
        self.keys = KeySet.import_key_set(json.loads(raw))

    def fetch_token(self):
        status, raw = send("GET", self.issuer + "/.well-known/openid-configuration")
        configuration = parsed(raw)
        if status != 200 or configuration.get("issuer") != self.issuer:
            raise ValueError("openid-configuration answered %d: %r" % (status, configuration))
        # RFC 6749 section 2.3.1: each of id and secret form-urlencoded, then HTTP Basic.
        credentials = urllib.parse.quote(self.client_id, safe="") + ":" + urllib.parse.quote(self.secret, safe="")
        status, raw = send("POST", configuration["token_endpoint"],
                           urllib.parse.urlencode({"grant_type": "client_credentials"}).encode(), {
                               "Content-Type": "application/x-www-form-urlencoded",
                               "Authorization": "Basic " + base64.b64encode(credentials.encode()).decode(),
                           })
        answer = parsed(raw)
        if status != 200 or not isinstance(answer, dict) or not answer.get("access_token"):
            raise ValueError("the token endpoint answered %d: %r" % (status, answer))
        if str(answer.get("token_type", "")).lower() != "bearer":  # RFC 6749 section 5.1
            raise ValueError("token_type is %r, not Bearer" % answer.get("token_type"))
        return answer["access_token"]

    def call(self, method, url, body=None, timeout=30):
        """A request with the bearer token (RFC 6750 section 2.1); a 401 fetches a new token once."""
        for attempt in (1, 2):
            if self.token is None:
                self.token = self.fetch_token()
            headers = {"Authorization": "Bearer " + self.token, "Accept": "application/json"}
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
            status, raw = send(method, url, data, headers, timeout)
            if status == 401 and attempt == 1:
                self.token = None
                continue
            return status, parsed(raw)

    # Validation of a SET

    def now_seconds(self):
        return self.now if self.now is not None else int(time.time())

    def validate(self, token):
        self.discover()
        try:
            header = jws.extract_compact(token.encode()).headers()
        except (JoseError, ValueError, UnicodeError) as error:
            raise Refusal("invalid_request", "not a compact JWS: %s" % error)
        if header.get("alg") != "ES256":
            raise Refusal("invalid_key", "alg is %r, not ES256" % header.get("alg"))
        if header.get("typ") != "secevent+jwt":  # RFC 8417 section 2.3, SSF section 4.1.1
            raise Refusal("invalid_request", "typ is %r, not secevent+jwt" % header.get("typ"))
        kid = header.get("kid")
        if not any(key.kid == kid for key in self.keys.keys):
            self.refresh_keys()  # a key the transmitter published since: read the set again once
            if not any(key.kid == kid for key in self.keys.keys):
                raise Refusal("invalid_key", "no key with kid %r in the transmitter's JWKS" % kid)
        try:
            claims = jwt.decode(token, self.keys, algorithms=["ES256"]).claims
        except BadSignatureError:
            raise Refusal("invalid_key", "the signature does not verify with key %r" % kid)
        except (JoseError, ValueError) as error:
            raise Refusal("invalid_request", "%s: %s" % (type(error).__name__, error))
        stream = self.stream
        if claims.get("iss") != self.issuer or (stream and claims.get("iss") != stream.get("iss")):
            raise Refusal("invalid_issuer", "iss is %r, expected %r" % (claims.get("iss"), self.issuer))
        audience = claims.get("aud")
        if not (audience == self.client_id or (isinstance(audience, list) and self.client_id in audience)):
            raise Refusal("invalid_audience", "aud is %r, expected %r" % (audience, self.client_id))
        if not isinstance(claims.get("jti"), str) or not claims["jti"]:
            raise Refusal("invalid_request", "no jti")
        iat = claims.get("iat")
        if type(iat) is not int:
            raise Refusal("invalid_request", "iat is %r, not an integer" % iat)
        if abs(iat - self.now_seconds()) > DAY:
            raise Refusal("invalid_request", "iat %d is more than a day from now (%d)" % (iat, self.now_seconds()))
        for name in ("sub", "exp"):  # SSF sections 4.1.2 and 4.1.7
            if name in claims:
                raise Refusal("invalid_request", "an SSF SET must not carry %s" % name)
        sub_id = claims.get("sub_id")
        if not isinstance(sub_id, dict) or not isinstance(sub_id.get("format"), str):
            raise Refusal("invalid_request", "sub_id is %r, not a subject identifier" % sub_id)
        events = claims.get("events")
        if not isinstance(events, dict) or len(events) != 1 or not isinstance(list(events.values())[0], dict):
            raise Refusal("invalid_request", "events must hold exactly one event object: %r" % events)
        event_type, event = list(events.items())[0]
        if event_type == VERIFICATION:  # SSF section 8.1.4.1
            if sub_id.get("format") != "opaque" or (stream and sub_id.get("id") != stream.get("stream_id")):
                raise Refusal("invalid_request", "a verification's sub_id must be opaque with the stream_id: %r" % sub_id)
            with self.lock:
                if "state" in event and event["state"] not in self.states:
                    raise Refusal("invalid_state", "state %r was not asked for" % event["state"])
        return claims

    def record(self, claims, via):
        event_type, event = list(claims["events"].items())[0]
        entry = {"jti": claims["jti"], "type": event_type, "event": event, "sub_id": claims.get("sub_id"),
                 "iat": claims["iat"], "txn": claims.get("txn"), "via": via}
        with self.lock:
            if claims["jti"] in self.seen:
                entry["repeat"] = True
            self.seen.add(claims["jti"])
            self.events.append(entry)
            self.arrived.notify_all()

    def refuse(self, via, status, err, description):
        with self.lock:
            self.refused.append({"via": via, "status": status, "err": err, "description": description})

    # Push (RFC 8935 section 2)

    def push(self, headers, body):
        """Answers (status, JSON body or None) for a pushed SET."""
        with self.lock:
            failing = self.fail_next > 0
            if failing:
                self.fail_next -= 1
        if failing:
            self.refuse("push", 503, None, "failed on purpose (/control/fail)")
            return 503, None
        if headers.get("Authorization") != PUSH_AUTHORIZATION:
            self.refuse("push", 401, "authentication_failed", "Authorization %r" % headers.get("Authorization"))
            return 401, {"err": "authentication_failed", "description": "the Authorization header is not the stream's"}
        try:
            content_type = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if content_type != "application/secevent+jwt":  # RFC 8935 section 2.1
                raise Refusal("invalid_request", "Content-Type is %r" % headers.get("Content-Type"))
            claims = self.validate(body.decode().strip())
        except Refusal as refusal:  # RFC 8935 section 2.3
            self.refuse("push", 400, refusal.err, refusal.description)
            return 400, {"err": refusal.err, "description": refusal.description}
        except UnicodeError:
            self.refuse("push", 400, "invalid_request", "the body is not text")
            return 400, {"err": "invalid_request", "description": "the body is not text"}
        except Exception as error:  # the transmitter's metadata or keys could not be read
            self.refuse("push", 500, None, "%s: %s" % (type(error).__name__, error))
            return 500, {"error": "%s: %s" % (type(error).__name__, error)}
        self.record(claims, "push")
        return 202, None  # RFC 8935 section 2.2

    # Control routes

    def create_stream(self, body):
        metadata = self.discover()
        method = {"push": PUSH, "poll": POLL}[body.get("method")]
        if method not in metadata.get("delivery_methods_supported", []):
            raise ValueError("the transmitter does not list %s" % method)
        delivery = {"method": method}
        if method == PUSH:  # SSF section 6.1.1: the receiver names the URL and its authorization
            delivery["endpoint_url"] = "http://127.0.0.1:%d/events" % self.port
            delivery["authorization_header"] = body.get("authorization_header", PUSH_AUTHORIZATION)
        request = {"delivery": delivery, "events_requested": body.get("events_requested", []),
                   "description": body.get("description", "Handover test receiver")}
        status, stream = self.call("POST", metadata["configuration_endpoint"], request)
        if status != 201 or not isinstance(stream, dict):  # SSF section 8.1.1.1
            raise ValueError("creating the stream answered %d: %r" % (status, stream))
        if stream.get("iss") != self.issuer:
            raise ValueError("the stream's iss is %r, expected %r" % (stream.get("iss"), self.issuer))
        audience = stream.get("aud")  # section 8.1.1.1.1
        if not (audience == self.client_id or (isinstance(audience, list) and self.client_id in audience)):
            raise ValueError("the stream's aud is %r, expected %r" % (audience, self.client_id))
        if not isinstance(stream.get("stream_id"), str) or not isinstance(stream.get("events_delivered"), list):
            raise ValueError("the stream lacks stream_id or events_delivered: %r" % stream)
        answered = stream.get("delivery") or {}
        if answered.get("method") != method:
            raise ValueError("the stream's delivery method is %r, asked %s" % (answered.get("method"), method))
        if method == POLL and not answered.get("endpoint_url"):  # section 6.1.2: the transmitter names it
            raise ValueError("a poll stream without delivery.endpoint_url: %r" % stream)
        with self.lock:
            self.stream = stream
            self.unacked = []
            self.unreported = {}
        return stream

    def kept_stream(self):
        if self.stream is None:
            raise ValueError("no stream: POST /control/stream first")
        return self.stream

    def verify(self, body):
        stream = self.kept_stream()
        request = {"stream_id": stream["stream_id"]}
        if "state" in body:
            request["state"] = body["state"]
            with self.lock:  # before the call: the transmitter may deliver before it answers
                self.states.add(body["state"])
        status, answer = self.call("POST", self.discover()["verification_endpoint"], request)
        return {"status": status, "body": answer}

    def poll(self, body):
        stream = self.kept_stream()
        if stream["delivery"]["method"] != POLL:
            raise ValueError("the kept stream is not a poll stream")
        request = {"returnImmediately": bool(body.get("returnImmediately", False))}  # RFC 8936 section 2.2
        if body.get("maxEvents") is not None:
            request["maxEvents"] = int(body["maxEvents"])
        acked, reported = [], {}
        if body.get("ack"):
            with self.lock:
                acked, reported = list(self.unacked), dict(self.unreported)
            request["ack"] = acked
            if reported:
                request["setErrs"] = reported  # RFC 8936 section 2.4.4
        status, answer = self.call("POST", stream["delivery"]["endpoint_url"], request, timeout=90)
        if status != 200 or not isinstance(answer, dict) or not isinstance(answer.get("sets"), dict):
            raise ValueError("the poll answered %d: %r" % (status, answer))  # RFC 8936 section 2.5
        with self.lock:
            self.unacked = [jti for jti in self.unacked if jti not in acked]
            for jti in reported:
                self.unreported.pop(jti, None)
        jtis, errors = [], {}
        for jti, token in answer["sets"].items():
            jtis.append(jti)
            try:
                if not isinstance(token, str):
                    raise Refusal("invalid_request", "the SET is not a string")
                claims = self.validate(token)
                if claims["jti"] != jti:  # RFC 8936 section 2.3: sets maps each jti to its SET
                    raise Refusal("invalid_request", "listed as %r but its jti is %r" % (jti, claims["jti"]))
            except Refusal as refusal:
                errors[jti] = {"err": refusal.err, "description": refusal.description}
                self.refuse("poll", None, refusal.err, refusal.description)
                with self.lock:
                    self.unreported[jti] = errors[jti]
                continue
            self.record(claims, "poll")
            with self.lock:
                if jti not in self.unacked:
                    self.unacked.append(jti)
        more = answer.get("moreAvailable", False)  # may be omitted, meaning false
        if not isinstance(more, bool):
            raise ValueError("moreAvailable is %r, not a boolean" % more)
        return {"jtis": jtis, "moreAvailable": more, "acked": acked, "setErrs": reported, "errors": errors}

    def request(self, body):
        url = self.issuer + body["path"]
        if body.get("query"):
            url += "?" + urllib.parse.urlencode(body["query"])
        status, answer = self.call(body["method"].upper(), url, body.get("json"))
        return {"status": status, "body": answer}

    def report(self, _body):
        with self.lock:
            return {"events": list(self.events), "refused": list(self.refused)}

    def wait(self, body):
        """Answers the report once `count` valid SETs of `type` have arrived (or `timeout`
        seconds have passed): a test awaits deliveries instead of sleeping."""
        wanted, count = body.get("type"), int(body["count"])
        deadline = time.monotonic() + float(body.get("timeout", 60))

        def arrived():
            return sum(1 for e in self.events if not e.get("repeat") and (wanted is None or e["type"] == wanted)) >= count

        with self.lock:
            while not arrived() and time.monotonic() < deadline:
                self.arrived.wait(max(0.0, deadline - time.monotonic()))
            return {"events": list(self.events), "refused": list(self.refused)}

    def fail(self, body):
        with self.lock:
            self.fail_next = int(body["count"])
            return {"fail_next": self.fail_next}


def serve(issuer, client_id, secret, now=None):
    receiver = Receiver(issuer, client_id, secret, now)
    routes = {
        ("POST", "/control/stream"): receiver.create_stream,
        ("POST", "/control/verify"): receiver.verify,
        ("POST", "/control/poll"): receiver.poll,
        ("GET", "/control/events"): receiver.report,
        ("POST", "/control/wait"): receiver.wait,
        ("POST", "/control/fail"): receiver.fail,
        ("POST", "/control/request"): receiver.request,
    }

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def answer(self, status, body=None):
            self.send_response(status)
            self.send_header("Cache-Control", "no-store")
            if body is None:
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            data = json.dumps(body).encode()
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if status == 401:
                self.send_header("WWW-Authenticate", "Bearer")
            self.end_headers()
            self.wfile.write(data)

        def handle_any(self, method):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
            path = self.path.split("?")[0]
            if method == "POST" and path == "/events":
                self.answer(*receiver.push(self.headers, body))
                return
            route = routes.get((method, path))
            if route is None:
                self.answer(404, {"error": "no route %s %s" % (method, path)})
                return
            try:
                self.answer(200, route(json.loads(body) if body else {}))
            except Exception as error:  # a control call never stops the server
                self.answer(500, {"error": "%s: %s" % (type(error).__name__, error)})

        def do_GET(self):
            self.handle_any("GET")

        def do_POST(self):
            self.handle_any("POST")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.port = server.server_address[1]
    print(receiver.port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) in (4, 5):
        serve(*sys.argv[1:])
    else:
        sys.exit(__doc__)

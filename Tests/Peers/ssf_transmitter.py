#!/usr/bin/env python3
"""The organisation's identity provider as a Shared Signals transmitter (as Okta is one), for
Handover's receiver; written with joserfc, not with Handover's code.

  ssf_transmitter.py [--now NOW]

It prints its port as its first line; its issuer is http://127.0.0.1:PORT. At start it makes an
EC P-256 key (its kid is the key's RFC 7638 thumbprint), which it publishes, and a second key it
never publishes, for forged signatures: that one signs under the published key's kid. NOW, in
seconds since 1970 (the tests' clock), is the default iat; by default the wall's time.

  GET  /.well-known/ssf-configuration   Its metadata (OpenID Shared Signals Framework 1.0
      section 7.1): spec_version, issuer, jwks_uri, delivery_methods_supported.
  GET  /jwks.json                       The published key (RFC 7517).
  POST /poll                            The poll endpoint (RFC 8936 section 2). The Authorization
      header must be exactly "Bearer poll-secret", else 401 {"err": "authentication_failed"}.
      The JSON body may hold ack, setErrs, maxEvents and returnImmediately (section 2.2; anything
      else malformed is 400 {"err": "invalid_request"}, section 2.5.1). The acknowledgements and
      errors are recorded first, and those SETs are not delivered again (section 2.4); then it
      answers {"sets": {jti: SET}, "moreAvailable": bool} (section 2.3) with the queued SETs not
      acknowledged nor reported in error, oldest first, at most maxEvents (none with maxEvents 0,
      section 2.4.2). A SET returned and not acknowledged is returned again by the next polls.
      When nothing is queued and returnImmediately is not true, it holds the request (a long
      poll) until a SET is queued, for at most 10 seconds.

  Control routes (JSON in and out; a failure answers 500 {"error": "..."}). The SET fields are:
      "event_type" (the event's URI), "event" ({} by default), "sub_id" (RFC 9493 section 3,
      SSF section 3; left out when not given), "aud" (left out when not given), "jti" (a fresh
      one by default), "iat" (NOW by default), "iss" (the issuer by default), "txn" (optional),
      "sign_with" ("published", the default, or "unpublished"), and for broken SETs "typ"
      (default secevent+jwt, RFC 8417 section 2.3), "kid" (default the published key's) and
      "claims" ({name: value} set in the claims last; a null value removes that claim). The SET
      is a compact JWS, alg ES256 (SSF section 4.1.1).
  POST /control/set     SET fields -> {"set": compact SET, "jti"}; nothing is sent.
  POST /control/push    {"url", "authorization"?, "content_type"?, and SET fields, or "set": a
      compact SET to send again verbatim}. POSTs it as RFC 8935 section 2.1 says (Content-Type
      application/secevent+jwt unless content_type says otherwise, Accept application/json, and
      the Authorization header given, none when not given); answers {"status": N, "body": the
      JSON answer, or its text, or null, "jti"}.
  POST /control/queue   SET fields, or "set" -> queues it for /poll; answers {"jti"}.
  GET  /control/acks    {"acked": [jtis in acknowledgement order], "setErrs": {jti: error},
      "pending": [jtis queued and neither acknowledged nor in error], "polls": [the poll
      requests' bodies, oldest first]}.
  POST /control/gtr     {"url", "sub_id", "aud"?, "iat"?, "exp"?, "iss"?, "sign_with"?, "claims"?,
      "token"?, "authorization"?}
      A Global Token Revocation request (draft-parecki-oauth-global-token-revocation, sections
      "Revocation Request" and "Request Authentication", as Okta's Universal Logout sends it):
      POST url, Content-Type application/json, body {"sub_id": ...}, Authorization "Bearer JWT"
      where the JWT (header typ JWT, alg ES256, kid) has iss (the issuer), aud (url by default),
      iat (NOW by default), exp (iat + 300 by default; null leaves it out) and a fresh jti, then
      "claims" applied as above. "token" sends that JWT instead; "authorization" sends that
      header instead (null: none). Answers {"status": N, "body": ..., "token": the JWT}.
"""
import argparse
import base64
import json
import threading
import time
import uuid
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from joserfc import jws
from ssf_http import POLL, PUSH, opener, parsed, send  # noqa: F401  (beside this script)
from joserfc.jwk import ECKey

POLL_AUTHORIZATION = "Bearer poll-secret"
LONG_POLL_SECONDS = 10


def claims_of(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


class BadPoll(Exception):
    pass


class Transmitter:
    def __init__(self, now=None):
        self.now = int(now) if now is not None else None
        self.issuer = None
        self.key = ECKey.generate_key("P-256", private=True, auto_kid=True)  # kid: RFC 7638 thumbprint
        self.other_key = ECKey.generate_key("P-256", private=True)  # never published
        self.lock = threading.Lock()
        self.queued = threading.Condition(self.lock)
        self.pending = OrderedDict()  # jti -> SET, for /poll
        self.acked = []
        self.set_errs = {}
        self.polls = []

    def now_seconds(self):
        return self.now if self.now is not None else int(time.time())

    def metadata(self):
        return {
            "spec_version": "1_0",
            "issuer": self.issuer,
            "jwks_uri": self.issuer + "/jwks.json",
            "delivery_methods_supported": [PUSH, POLL],
        }

    def jwks(self):
        return {"keys": [dict(self.key.as_dict(private=False), use="sig", alg="ES256")]}

    def signing_key(self, fields):
        choice = fields.get("sign_with", "published")
        if choice not in ("published", "unpublished"):
            raise ValueError("sign_with is %r, not published or unpublished" % choice)
        return self.key if choice == "published" else self.other_key

    @staticmethod
    def apply(claims, changes):
        for name, value in (changes or {}).items():
            if value is None:
                claims.pop(name, None)
            else:
                claims[name] = value
        return claims

    def sign(self, header, claims, fields):
        header = dict(header, alg="ES256", kid=fields.get("kid", self.key.kid))
        return jws.serialize_compact(header, json.dumps(claims).encode(), self.signing_key(fields))

    def make_set(self, fields):
        """A SET as RFC 8417 section 2 and SSF section 4.1 say: no sub, no exp, one event."""
        if not isinstance(fields.get("event_type"), str):
            raise ValueError("event_type (the event's URI) is required")
        claims = {"iss": fields.get("iss", self.issuer), "jti": fields.get("jti") or uuid.uuid4().hex,
                  "iat": fields.get("iat", self.now_seconds())}
        for name in ("aud", "txn", "sub_id"):
            if name in fields:
                claims[name] = fields[name]
        claims["events"] = {fields["event_type"]: fields.get("event", {})}
        self.apply(claims, fields.get("claims"))
        token = self.sign({"typ": fields.get("typ", "secevent+jwt")}, claims, fields)
        return token, claims.get("jti")

    def set_of(self, fields):
        if "set" in fields:
            token = fields["set"]
            try:
                return token, claims_of(token).get("jti")
            except (ValueError, IndexError, AttributeError):
                return token, None
        return self.make_set(fields)

    # Control routes

    def control_set(self, fields):
        token, jti = self.make_set(fields)
        return {"set": token, "jti": jti}

    def control_push(self, body):
        token, jti = self.set_of(body)
        headers = {"Content-Type": body.get("content_type", "application/secevent+jwt"),  # RFC 8935 section 2.1
                   "Accept": "application/json"}
        if body.get("authorization") is not None:
            headers["Authorization"] = body["authorization"]
        status, raw = send("POST", body["url"], token.encode(), headers)
        return {"status": status, "body": parsed(raw), "jti": jti}

    def control_queue(self, fields):
        token, jti = self.set_of(fields)
        if jti is None:
            raise ValueError("the SET has no jti")
        with self.queued:
            self.pending[jti] = token
            self.queued.notify_all()  # wakes the long polls
        return {"jti": jti}

    def control_acks(self, _body):
        with self.lock:
            return {"acked": list(self.acked), "setErrs": dict(self.set_errs),
                    "pending": list(self.pending), "polls": list(self.polls)}

    def control_gtr(self, body):
        url = body["url"]
        token = body.get("token")
        if token is None:
            iat = body.get("iat", self.now_seconds())
            claims = {"iss": body.get("iss", self.issuer), "aud": body.get("aud", url), "iat": iat,
                      "exp": body.get("exp", iat + 300), "jti": uuid.uuid4().hex}
            if claims["exp"] is None:
                del claims["exp"]
            self.apply(claims, body.get("claims"))
            token = self.sign({"typ": "JWT"}, claims, body)
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "Authorization": "Bearer " + token}
        if "authorization" in body:
            headers.pop("Authorization")
            if body["authorization"] is not None:
                headers["Authorization"] = body["authorization"]
        status, raw = send("POST", url, json.dumps({"sub_id": body.get("sub_id")}).encode(), headers)
        return {"status": status, "body": parsed(raw), "token": token}

    # Poll (RFC 8936 section 2)

    def poll(self, request):
        if not isinstance(request, dict):
            raise BadPoll("the body is not a JSON object")
        ack = request.get("ack", [])
        errors = request.get("setErrs", {})
        most = request.get("maxEvents")
        immediately = request.get("returnImmediately", False)
        if not isinstance(ack, list) or not all(isinstance(jti, str) for jti in ack):
            raise BadPoll("ack is not a list of jtis")
        if not isinstance(errors, dict) or not all(
                isinstance(error, dict) and isinstance(error.get("err"), str) for error in errors.values()):
            raise BadPoll("setErrs is not an object of {err, description}")
        if most is not None and (type(most) is not int or most < 0):
            raise BadPoll("maxEvents is not a non-negative integer")
        if not isinstance(immediately, bool):
            raise BadPoll("returnImmediately is not a boolean")
        with self.queued:
            self.polls.append(request)
            for jti in ack:
                self.acked.append(jti)
                self.pending.pop(jti, None)
            for jti, error in errors.items():
                self.set_errs[jti] = error
                self.pending.pop(jti, None)
            if most != 0 and not immediately and not self.pending:
                self.queued.wait_for(lambda: self.pending, timeout=LONG_POLL_SECONDS)
            items = list(self.pending.items())
            chosen = items if most is None else items[:most]
            return {"sets": dict(chosen), "moreAvailable": len(items) > len(chosen)}


def serve(now=None):
    transmitter = Transmitter(now)
    routes = {
        ("GET", "/.well-known/ssf-configuration"): lambda _body: transmitter.metadata(),
        ("GET", "/jwks.json"): lambda _body: transmitter.jwks(),
        ("POST", "/control/set"): transmitter.control_set,
        ("POST", "/control/push"): transmitter.control_push,
        ("POST", "/control/queue"): transmitter.control_queue,
        ("GET", "/control/acks"): transmitter.control_acks,
        ("POST", "/control/gtr"): transmitter.control_gtr,
    }

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def answer(self, status, body, extra=None):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (extra or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def poll(self, raw):
            if self.headers.get("Authorization") != POLL_AUTHORIZATION:  # RFC 8936 section 3
                self.answer(401, {"err": "authentication_failed", "description": "not the poll endpoint's token"},
                            {"WWW-Authenticate": "Bearer"})
                return
            try:
                self.answer(200, transmitter.poll(json.loads(raw)))
            except (ValueError, BadPoll) as error:  # RFC 8936 section 2.5.1
                self.answer(400, {"err": "invalid_request", "description": str(error)})

        def handle_any(self, method):
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
            path = self.path.split("?")[0]
            if method == "POST" and path == "/poll":
                self.poll(raw)
                return
            route = routes.get((method, path))
            if route is None:
                self.answer(404, {"error": "no route %s %s" % (method, path)})
                return
            try:
                self.answer(200, route(json.loads(raw) if raw else {}))
            except Exception as error:  # a control call never stops the server
                self.answer(500, {"error": "%s: %s" % (type(error).__name__, error)})

        def do_GET(self):
            self.handle_any("GET")

        def do_POST(self):
            self.handle_any("POST")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    transmitter.issuer = "http://127.0.0.1:%d" % server.server_address[1]
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--now", type=int, help="seconds since 1970: the default iat")
    serve(parser.parse_args().now)

#!/usr/bin/env python3
"""A team's backend, written with joserfc (a maintained JOSE library), not with Handover's code.

It checks what Handover publishes the way any resource server would:

  oidc_backend.py verify ISSUER AUDIENCE KIND TOKEN [NOW]
      Reads ISSUER/.well-known/openid-configuration and its jwks_uri, then verifies TOKEN (KIND is
      access or id) with joserfc: ES256 signature by a key of the set, iss, aud, exp, iat, sub,
      sid, jti. Prints the claims as JSON; exits 1 with the reason when a check fails.

  oidc_backend.py revoke-check ISSUER CLIENT_ID CLIENT_SECRET TOKEN
      As a backend with client credentials (client_secret_basic): introspects TOKEN at the
      discovery's introspection_endpoint (RFC 7662; it must be active), revokes it at
      revocation_endpoint (RFC 7009; 200), and introspects again (it must be inactive at once).
      Prints the three answers as JSON; exits 1 with the reason when one is not as expected.

  oidc_backend.py serve ISSUER CLIENT_ID [NOW]
      Serves Back-Channel Logout on loopback: POST /backchannel and POST /backchannel-replay take
      logout_token as a form field and validate it as OpenID Connect Back-Channel Logout 1.0
      section 2.6 says (signature by the JWKS, iss, aud, iat, typ logout+jwt, the events member,
      sid and/or sub, no nonce), and refuse a jti seen before, on either path (section 2.6 step 8
      and the replay advice of section 4). 200 on success, 400 with a JSON error otherwise
      (section 2.8). GET /report answers what was received. It prints its port as its first line.

NOW, in seconds since 1970, is the time the checks of exp and iat use; the tests pass the
server's test clock, which does not run at the wall clock's time.
"""
import json
import sys
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

EVENT = "http://schemas.openid.net/event/backchannel-logout"


def fetch_json(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response), response.headers


def key_set(issuer):
    metadata, _ = fetch_json(issuer + "/.well-known/openid-configuration")
    if metadata["issuer"] != issuer:
        raise ValueError("discovery names issuer %r, expected %r" % (metadata["issuer"], issuer))
    jwks, headers = fetch_json(metadata["jwks_uri"])
    return metadata, KeySet.import_key_set(jwks), headers


def verify(issuer, audience, kind, token, now=None):
    _, keys, _ = key_set(issuer)
    decoded = jwt.decode(token, keys, algorithms=["ES256"])
    claims = {
        "iss": {"essential": True, "value": issuer},
        "aud": {"essential": True, "value": audience},
        "sub": {"essential": True},
        "sid": {"essential": True},
        "jti": {"essential": True},
        "iat": {"essential": True},
        "exp": {"essential": True},
    }
    jwt.JWTClaimsRegistry(now=int(now) if now else None, **claims).validate(decoded.claims)
    if kind == "access" and decoded.claims.get("token_use") != "access":
        raise ValueError("an access token must say token_use: access")
    return {"header": dict(decoded.header), "claims": decoded.claims}


def post_form(url, fields, client_id, secret):
    """A form POST with HTTP Basic client authentication (RFC 6749 section 2.3.1)."""
    import base64
    credentials = urllib.parse.quote(client_id, safe="") + ":" + urllib.parse.quote(secret, safe="")
    request = urllib.request.Request(url, data=urllib.parse.urlencode(fields).encode(), method="POST", headers={
        "Content-Type": "application/x-www-form-urlencoded",
        "Authorization": "Basic " + base64.b64encode(credentials.encode()).decode(),
    })
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
        return response.status, (json.loads(body) if body else None)


def revoke_check(issuer, client_id, secret, token):
    metadata, _, _ = key_set(issuer)
    _, before = post_form(metadata["introspection_endpoint"], {"token": token}, client_id, secret)
    if before.get("active") is not True:
        raise ValueError("the token was not active before the revocation: %r" % before)
    status, _ = post_form(metadata["revocation_endpoint"], {"token": token, "token_type_hint": "access_token"}, client_id, secret)
    if status != 200:
        raise ValueError("revocation answered %d" % status)
    _, after = post_form(metadata["introspection_endpoint"], {"token": token}, client_id, secret)
    if after != {"active": False}:
        raise ValueError("the revoked token still introspects as %r" % after)
    return {"before": before, "revoked": status, "after": after}


class Backend:
    def __init__(self, issuer, client_id, now=None):
        self.now = int(now) if now else None
        self.issuer = issuer
        self.client_id = client_id
        self.keys = None
        self.seen = set()
        self.lock = threading.Lock()
        self.received = []

    def validate(self, token):
        """Back-Channel Logout 1.0 section 2.6, step by step."""
        if self.keys is None:
            _, self.keys, _ = key_set(self.issuer)
        try:
            decoded = jwt.decode(token, self.keys, algorithms=["ES256"])  # steps 1-3: a signed JWT, alg expected, signature
        except JoseError:
            _, self.keys, _ = key_set(self.issuer)  # a key we had not fetched yet: read the set again once
            decoded = jwt.decode(token, self.keys, algorithms=["ES256"])
        if decoded.header.get("typ") != "logout+jwt":
            raise ValueError("typ is %r, not logout+jwt" % decoded.header.get("typ"))
        claims = decoded.claims
        jwt.JWTClaimsRegistry(  # step 4: iss, aud, iat (exp when present)
            now=self.now,
            iss={"essential": True, "value": self.issuer},
            aud={"essential": True, "value": self.client_id},
            iat={"essential": True},
            jti={"essential": True},
        ).validate(claims)
        if not isinstance(claims.get("events"), dict) or claims["events"].get(EVENT) != {}:  # step 5
            raise ValueError("events lacks %s as an empty object" % EVENT)
        if "sid" not in claims and "sub" not in claims:  # step 6
            raise ValueError("neither sid nor sub")
        if "nonce" in claims:  # step 7
            raise ValueError("a logout token must not carry nonce")
        with self.lock:  # step 8 and section 4: a jti seen once is refused
            if claims["jti"] in self.seen:
                raise ValueError("jti %s was used before (replay)" % claims["jti"])
            self.seen.add(claims["jti"])
        return claims


def serve(issuer, client_id, now=None):
    backend = Backend(issuer, client_id, now)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def answer(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/report":
                with backend.lock:
                    self.answer(200, {"received": backend.received})
            else:
                self.answer(404, {"error": "not_found"})

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length).decode()
            entry = {"path": self.path, "content_type": self.headers.get("Content-Type"), "time": time.time()}
            try:
                if self.headers.get("Content-Type", "").split(";")[0] != "application/x-www-form-urlencoded":
                    raise ValueError("the body is not application/x-www-form-urlencoded")
                form = urllib.parse.parse_qs(body)
                token = form.get("logout_token", [None])[0]
                if not token:
                    raise ValueError("no logout_token")
                entry["token"] = token
                entry["claims"] = backend.validate(token)
                entry["valid"] = True
                status, reply = 200, {}
            except (ValueError, JoseError, KeyError) as error:
                entry["valid"] = False
                entry["error"] = "%s: %s" % (type(error).__name__, error)
                status, reply = 400, {"error": "invalid_request", "error_description": entry["error"]}
            with backend.lock:
                backend.received.append(entry)
            self.answer(status, reply)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) in (6, 7) and sys.argv[1] == "verify":
        try:
            print(json.dumps(verify(*sys.argv[2:])))
        except Exception as error:  # the reason, for the test's message
            print("refused: %s: %s" % (type(error).__name__, error))
            sys.exit(1)
    elif len(sys.argv) == 6 and sys.argv[1] == "revoke-check":
        try:
            print(json.dumps(revoke_check(*sys.argv[2:])))
        except Exception as error:
            print("refused: %s: %s" % (type(error).__name__, error))
            sys.exit(1)
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "serve":
        serve(*sys.argv[2:])
    else:
        sys.exit(__doc__)

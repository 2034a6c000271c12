#!/usr/bin/env python3
"""The organisation's identity provider for the tests: oidc-provider-mock (PyPI, built on Authlib),
not Handover's code, serving OpenID Connect on loopback.

  identity_provider.py

It prints its port as its first line; its issuer is http://127.0.0.1:PORT. Besides the mock's own
routes (discovery, /jwks, /oauth2/authorize with its sign-in form, /oauth2/token,
/oauth2/end_session, PUT /users/{sub} to set a person's claims), it adds three routes for tests:

  POST /test/sign            {"claims": {...}, "header": {...}, "key": "provider"|"other"}
      Signs the claims as a compact JWS (RS256 unless the header says otherwise) with the
      provider's own key, or with another RSA key that claims the same kid. With
      "header": {"alg": "none"} it returns an unsigned token. For forged ID tokens.
  POST /test/backchannel     {"uri": ..., "claims": {...}, "typ": "logout+jwt"}
      Signs a logout token with the provider's key and POSTs it, form-encoded as logout_token,
      to the relying party's back-channel logout URI (OpenID Connect Back-Channel Logout 1.0
      section 2.5). Answers {"status": N, "body": "..."}: the relying party's answer.
  POST /test/forge-next      {"claims": {...}, "header": {...}, "key": "provider"|"other"}
      The token endpoint's next answer carries, in place of its ID token, one with the same
      claims changed by "claims" (a null removes one), signed as /test/sign does: how the tests
      put a wrong aud, iss, exp or nonce, alg none or another key's signature through the whole
      sign-in.
  GET /test/issued           The ID tokens the token endpoint issued, newest last.
"""
import base64
import contextlib
import io
import json
import os
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
import warnings

os.environ.setdefault("AUTHLIB_INSECURE_TRANSPORT", "1")  # http on loopback only
warnings.filterwarnings("ignore")

# Authlib announces its own deprecations at import, whatever the filters say: keep them out of
# the test log, and show them only if an import fails.
with contextlib.redirect_stderr(io.StringIO()) as noise:
    try:
        import flask
        import werkzeug.serving
        from joserfc import jws
        from joserfc.jwk import RSAKey

        import oidc_provider_mock
    except ImportError:
        sys.__stderr__.write(noise.getvalue())
        raise

app = oidc_provider_mock.app(require_nonce=True)
other_key = RSAKey.generate_key(2048)
issued = []


def provider_key():
    storage = flask.g.oidc_provider_mock_storage
    return RSAKey.import_key(storage.jwk.as_dict(is_private=True)), storage.jwk.as_dict()["kid"]


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign(claims, header=None, key_name="provider"):
    key, kid = provider_key()
    header = {"alg": "RS256", "kid": kid, **(header or {})}
    if header["alg"] == "none":
        return b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode()) + "."
    return jws.serialize_compact(header, json.dumps(claims).encode(), other_key if key_name == "other" else key)


@app.post("/test/sign")
def test_sign():
    body = flask.request.get_json()
    return flask.jsonify({"token": sign(body["claims"], body.get("header"), body.get("key", "provider"))})


@app.post("/test/backchannel")
def test_backchannel():
    body = flask.request.get_json()
    token = sign(body["claims"], {"typ": body.get("typ", "logout+jwt")})
    data = urllib.parse.urlencode({"logout_token": token}).encode()
    request = urllib.request.Request(body["uri"], data=data, method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return flask.jsonify({"status": response.status, "body": response.read().decode()})
    except urllib.error.HTTPError as error:
        return flask.jsonify({"status": error.code, "body": error.read().decode()})


forgeries = []


@app.post("/test/forge-next")
def test_forge_next():
    forgeries.append(flask.request.get_json())
    return "", 204


def claims_of(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


@app.after_request
def keep_id_tokens(response):
    if flask.request.path == "/oauth2/token" and response.status_code == 200:
        try:
            answer = json.loads(response.get_data())
            if forgeries:
                forgery = forgeries.pop(0)
                claims = claims_of(answer["id_token"])
                for name, value in forgery.get("claims", {}).items():
                    if value is None:
                        claims.pop(name, None)
                    else:
                        claims[name] = value
                answer["id_token"] = sign(claims, forgery.get("header"), forgery.get("key", "provider"))
                response.set_data(json.dumps(answer))
            issued.append(answer["id_token"])
        except (ValueError, KeyError):
            pass
    return response


@app.get("/test/issued")
def test_issued():
    return flask.jsonify(issued)


server = werkzeug.serving.make_server("127.0.0.1", 0, app, threaded=True)
print(server.server_port, flush=True)
sys.stderr = open(os.devnull, "w")  # the mock logs every request
server.serve_forever()

"""What the Shared Signals peers (ssf_receiver.py, ssf_transmitter.py) share: the delivery
methods' URIs (SSF 1.0 section 6.1) and plain HTTP on loopback, with no proxy from the
environment."""
import json
import urllib.error
import urllib.request

PUSH = "urn:ietf:rfc:8935"
POLL = "urn:ietf:rfc:8936"

# No proxy from the environment: every peer is on loopback.
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def send(method, url, data=None, headers=None, timeout=30):
    """One request; its status and body, an HTTP error's included."""
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with opener.open(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def parsed(raw):
    """A body as JSON, else as text; None when empty."""
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode(errors="replace")

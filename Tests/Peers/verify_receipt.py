#!/usr/bin/env python3
"""Verifies handover receipts with joserfc (a maintained JOSE library), not with Handover's code.

  verify_receipt.py [--print-runs] JWKS_FILE_OR_URL < RECEIPTS
      JWKS_FILE_OR_URL is a JSON Web Key Set (RFC 7517 section 5): a file's path, or an
      http:// or https:// URL to GET it from. Reads compact JWS tokens (RFC 7515 section 7.1)
      on stdin, one per line (blank lines are skipped; surrounding whitespace is ignored), and
      checks each:
        - the protected header's alg is ES256, its typ is exactly handover-receipt+jwt, and its
          kid names a key of the set (a token without kid is refused, even when the set has
          one key);
        - the signature verifies with joserfc: jws.deserialize_compact(token, key_set,
          algorithms=["ES256"]), which takes the key of that kid from the set;
        - the payload is a JSON object whose member run is an object holding id, a non-empty
          string.
      When every token passes, prints with --print-runs each receipt's run id, one per line in
      the order read, then
        verified N receipts with joserfc VERSION
      Otherwise prints one line, `refused: line L: REASON`, for the first token that fails (L
      counts stdin's lines from 1, blank ones included) and exits 1. No token at all is refused
      too, so that an empty pipe cannot pass.
"""
import json
import sys
import urllib.request
from importlib.metadata import version

from joserfc import jws
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

ALGORITHM = "ES256"
TYPE = "handover-receipt+jwt"


class Refused(Exception):
    pass


def load_key_set(location):
    if location.startswith(("http://", "https://")):
        with urllib.request.urlopen(location, timeout=10) as response:
            document = json.load(response)
    else:
        with open(location, encoding="utf-8") as file:
            document = json.load(file)
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise ValueError("%s is not a JWK Set: no keys array" % location)
    return KeySet.import_key_set(document)


def verify(token, keys, kids):
    """Returns the run id of a receipt that passes; raises Refused with the reason otherwise."""
    try:
        header = jws.extract_compact(token.encode("ascii")).headers()
    except (JoseError, ValueError) as error:
        raise Refused("not a compact JWS: %s: %s" % (type(error).__name__, error))
    if header.get("alg") != ALGORITHM:
        raise Refused("alg is %r, not %s" % (header.get("alg"), ALGORITHM))
    if header.get("typ") != TYPE:
        raise Refused("typ is %r, not %s" % (header.get("typ"), TYPE))
    if "kid" not in header:
        raise Refused("the header has no kid")
    if header["kid"] not in kids:
        raise Refused("kid %r is not in the key set (it has %s)"
                      % (header["kid"], ", ".join(repr(kid) for kid in sorted(kids)) or "no kid"))
    try:
        signed = jws.deserialize_compact(token, keys, algorithms=[ALGORITHM])
    except (JoseError, ValueError) as error:
        raise Refused("joserfc refuses the signature: %s: %s" % (type(error).__name__, error))
    try:
        claims = json.loads(signed.payload)
    except ValueError as error:
        raise Refused("the payload is not JSON: %s" % error)
    if not isinstance(claims, dict):
        raise Refused("the payload is not a JSON object")
    run = claims.get("run")
    if not isinstance(run, dict):
        raise Refused("the payload has no run object")
    if not isinstance(run.get("id"), str) or not run["id"]:
        raise Refused("run.id is missing or not a non-empty string: %r" % (run.get("id"),))
    return run["id"]


def main():
    arguments = sys.argv[1:]
    print_runs = "--print-runs" in arguments
    arguments = [argument for argument in arguments if argument != "--print-runs"]
    if len(arguments) != 1 or arguments[0].startswith("-"):
        sys.exit(__doc__)
    try:
        keys = load_key_set(arguments[0])
    except Exception as error:  # the reason, for the test's message
        print("refused: the key set: %s: %s" % (type(error).__name__, error))
        sys.exit(1)
    kids = {key.kid for key in keys.keys if key.kid is not None}

    runs = []
    for number, line in enumerate(sys.stdin, start=1):
        token = line.strip()
        if not token:
            continue
        try:
            runs.append(verify(token, keys, kids))
        except Refused as error:
            print("refused: line %d: %s" % (number, error))
            sys.exit(1)
        except Exception as error:  # anything unforeseen still names the line
            print("refused: line %d: %s: %s" % (number, type(error).__name__, error))
            sys.exit(1)
    if not runs:
        print("refused: no receipt on stdin")
        sys.exit(1)
    if print_runs:
        for run in runs:
            print(run)
    print("verified %d receipts with joserfc %s" % (len(runs), version("joserfc")))


if __name__ == "__main__":
    main()

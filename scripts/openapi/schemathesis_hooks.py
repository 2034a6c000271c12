"""Schemathesis hooks for scripts/check-openapi.sh (loaded with SCHEMATHESIS_HOOKS).

`POST /ssf/push` takes one Security Event Token as `application/secevent+jwt` (RFC 8935 section
2.1), a media type schemathesis has no serializer for: the generated value is sent as its text
(a string as it is, anything else as JSON), so the receiver's refusals get fuzzed too.

`ast.parse` is made to run one call at a time. Hypothesis parses source with it to describe the
lambdas in a strategy (hypothesis/internal/lambda_sources.py), and schemathesis runs with
`--workers 2`, two threads. Before 3.11.8 and 3.12.1, CPython kept the AST constructor's
recursion depth in state shared by every thread of the interpreter (python/cpython#106905), so two
threads building ASTs at once fail one of them with "SystemError: AST constructor recursion depth
mismatch": a "Runtime Error" for the operation, and schemathesis exits 1 with no server error.
CI's Python 3.11.7 did that once on `POST /ssf/poll/{streamID}`.
"""
import ast
import json
import threading

import schemathesis

_parse = ast.parse
_parsing = threading.RLock()


def _parse_one_at_a_time(*args, **kwargs):
    with _parsing:
        return _parse(*args, **kwargs)


ast.parse = _parse_one_at_a_time


@schemathesis.serializer("application/secevent+jwt")
def secevent_jwt(ctx, value):
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    return json.dumps(value).encode("utf-8")

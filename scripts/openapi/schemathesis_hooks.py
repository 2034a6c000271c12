"""Schemathesis hooks for scripts/check-openapi.sh (loaded with SCHEMATHESIS_HOOKS).

`POST /ssf/push` takes one Security Event Token as `application/secevent+jwt` (RFC 8935 section
2.1), a media type schemathesis has no serializer for: the generated value is sent as its text
(a string as it is, anything else as JSON), so the receiver's refusals get fuzzed too.
"""
import json

import schemathesis


@schemathesis.serializer("application/secevent+jwt")
def secevent_jwt(ctx, value):
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    return json.dumps(value).encode("utf-8")

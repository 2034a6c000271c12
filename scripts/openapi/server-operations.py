#!/usr/bin/env python3
"""Appends to swift-openapi-generator's Server.swift each operation it registers, as a value.

    scripts/openapi/server-operations.py Sources/HandoverServer/API/Generated/Server.swift

The generated `registerHandlers(on:)` binds every operation to one handler value for the life of
the server, so a handler could learn of its request only from a task-local. The generated
functions that decode a request, call the handler and encode its response are `fileprivate` to
Server.swift; this appends, in that file, a table of them (`UniversalServer.operations`: method,
path template, and the function), so that `APIRoutes` serves each request with a handler made
for that request (its caller and its database). Run by scripts/generate-openapi.sh after the
generator, so `--check` compares the whole file.
"""
import re
import sys

path = sys.argv[1]
text = open(path, encoding="utf-8").read()
register = text[text.index("func registerHandlers("):text.index("extension UniversalServer where APIHandler: APIProtocol")]
found = re.findall(
    r'try await server\.(\w+)\(\s*request: \$0,\s*body: \$1,\s*metadata: \$2\s*\)\s*\},\s*'
    r'method: \.(\w+),\s*path: server\.apiPathComponentsWithServerPrefix\("([^"]+)"\)',
    register)
if not found or len(found) != register.count("transport.register("):
    sys.exit(f"server-operations: read {len(found)} of {register.count('transport.register(')} registrations in {path}")
rows = "\n".join(
    f'            (method: .{method}, path: "{template}", serve: {{ try await $0.{name}(request: $1, body: $2, metadata: $3) }}),'
    for name, method, template in found)
text = text.rstrip("\n") + f"""

// Appended by scripts/openapi/server-operations.py: each registration above as a value, so that a
// route serves its operation with a handler made for the request (APIRoutes).
extension UniversalServer where APIHandler: APIProtocol {{
    /// An operation: its method, its path template (`/api/v1/apps/{{appID}}`), and the generated
    /// function that decodes the request, calls this server's handler and encodes the response.
    internal typealias Operation = (
        method: HTTPTypes.HTTPRequest.Method,
        path: Swift.String,
        serve: @Sendable (Self, HTTPTypes.HTTPRequest, OpenAPIRuntime.HTTPBody?, OpenAPIRuntime.ServerRequestMetadata) async throws
            -> (HTTPTypes.HTTPResponse, OpenAPIRuntime.HTTPBody?)
    )

    /// Every operation `registerHandlers(on:)` registers, in its order.
    internal static var operations: [Operation] {{
        [
{rows}
        ]
    }}
}}
"""
open(path, "w", encoding="utf-8").write(text)
print(f"server-operations: {len(found)} operations appended to {path}", file=sys.stderr)

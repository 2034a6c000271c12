/// The OpenAPI 3.0.3 description of the HTTP API, served at `/openapi.yaml`.
///
/// `OpenAPIDocumentTests` checks that every registered route is described here and that every
/// path here is a registered route; `scripts/check-openapi.sh` validates the document and runs
/// schemathesis against a live server. Change this together with the routes.
///
/// The document is written in parts, one file per concern (`OpenAPIDocument+*.swift`), joined
/// here in the document's order.
enum OpenAPIDocument {
    static let yaml = [header, fleetPaths, sessionPaths, operationPaths, sharedComponents, operationAndSessionSchemas, fleetSchemas]
        .joined(separator: "\n")

    /// `openapi`, `info`, `servers`, `tags`, `security`, and the `paths:` key the path parts follow.
    static let header = #"""
    openapi: 3.0.3
    info:
      title: Handover
      version: "1"
      description: |
        Handover records fleet logout runs for shared iOS devices: a device asks the server to log
        every registered target app out, opens each item's ULC link, and the apps' callbacks (reported
        by the launcher, or landing on the callback page in a browser) finish the run.

        Every route under /api/v1 needs an API key, sent as `Authorization: Bearer hov_…`. A key has
        the `admin` scope (everything) or the `device` scope (one device: start its own runs, read
        them, report their callbacks). No valid key is a 401; a key of the wrong scope is a 403.

        Every error body is JSON: `{"error": code, "reason": sentence, "field": name}`, where `field`
        names the request field at fault when there is one. Dates are ISO 8601 strings in UTC, such as
        `2026-05-01T08:30:00Z`. Absent optional fields are left out of responses, never `null`.
        Request bodies are JSON of at most 16 KB (larger ones are a 413); unknown fields are ignored.
    servers:
      - url: /
    tags:
      - name: registry
        description: Apps, devices and webhooks. Admin scope only.
      - name: runs
        description: Logout runs. Admin scope, or a device key for its own device.
      - name: public
        description: Routes without an API key.
      - name: operations
        description: |
          Out-of-band operations (sign in, enroll, confirm a transaction, deregister) sent to a
          phone by push, QR code or link, and the phones enrolled for them. Admin scope.
      - name: phone
        description: What the phone app calls, authenticated by its enrolled key's signature instead of an API key.
      - name: sessions
        description: |
          Sign in with Apple and the server's own user sessions: short-lived access tokens (ES256
          JWTs sent as `Authorization: Bearer …`) and single-use refresh tokens.
    security:
      - bearerAuth: []
    paths:
    """#
}

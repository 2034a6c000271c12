import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends a run start's `Idempotency-Key` as the draft says it is written: a Structured Field String
/// (draft-ietf-httpapi-idempotency-key-header §2.1; RFC 9651 §3.3.3), the key in double quotes
/// with `"` and `\` escaped. The generated client writes a header parameter URI-encoded (a quote
/// would go out as `%22`), so ``FleetServer`` hands it the bare key and this middleware, the
/// outermost, quotes it once: every attempt ``BusyServerRetry`` sends carries the same field.
struct IdempotencyKeyQuoting: ClientMiddleware {
    /// The field's name.
    static let name = HTTPField.Name("Idempotency-Key")!

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?))
    async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let encoded = request.headerFields[Self.name] {
            request.headerFields[Self.name] = Self.quoted(encoded.removingPercentEncoding ?? encoded)
        }
        return try await next(request, body, baseURL)
    }

    /// `key` as an sf-string.
    static func quoted(_ key: String) -> String {
        "\"" + key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

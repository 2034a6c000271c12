import Vapor

/// A response body produced while it is sent (Server-Sent Events), in a form ``HTTPTransport``
/// can run: Vapor keeps its own stream bodies private to its server.
///
/// ``EventStream`` puts one in the response's storage beside the equivalent Vapor body, so the
/// same response streams under either server.
package struct StreamedBody: Sendable {
    package struct Key: StorageKey {
        package typealias Value = StreamedBody
    }

    /// Writes the body's chunks; the transport ends the response when it returns.
    package let write: @Sendable (any AsyncBodyStreamWriter) async throws -> Void

    package init(write: @escaping @Sendable (any AsyncBodyStreamWriter) async throws -> Void) {
        self.write = write
    }
}

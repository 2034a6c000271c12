import Foundation

/// What the dashboard shows of Shared Signals: each stream with what it has delivered, still
/// owes and had refused, and the latest SETs received from the identity provider. Read by
/// ``streams(on:)`` and ``received(limit:on:)``, which ``SharedSignalsStore``'s file holds.
package enum SharedSignalsReport {
    package struct Stream: Sendable, Equatable {
        package var id: String
        package var receiver: String
        package var method: SignalStream.Method
        package var status: SignalStream.Status
        package var delivered: Int
        package var owed: Int
        package var failed: Int
        package var lastError: String?
    }

    package struct Received: Sendable, Equatable {
        package var jti: String
        package var event: String
        package var outcome: String
        package var at: Date
    }
}

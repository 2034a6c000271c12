import Fluent
import LinkCallbacks
import Foundation
import NIOConcurrencyHelpers
import Vapor

/// What routes and services share: configuration read once at start, and the live parts.
struct ServerContext: Sendable {
    let clock: ServerClock
    let origin: PublicOrigin
    let nonces: CallbackNonce
    let hub: RunEventHub
    let notifier: RunChangeNotifier
    let metrics: ServerMetrics
    let allowsLoopbackWebhooks: Bool
    let associationFiles = AssociationFileCache()
    /// Whether logout actions may be http on loopback with a port (``ServerConfiguration/developerMode``).
    var developerMode: Bool = false

    /// The policy a target app's logout action must pass.
    var logoutActionPolicy: CallbackPolicy { developerMode ? CallbackPolicy(allowsLoopbackHTTP: true) : .default }

    /// The public origin used in links and association files.
    var publicURL: URL { origin.url }

    func runs(_ database: Database) -> LogoutRunService {
        LogoutRunService(database: database, clock: clock, publicURL: publicURL, nonces: nonces, changes: notifier, metrics: metrics)
    }
}

/// The public origin, known only once the port is bound when port 0 was asked for.
final class PublicOrigin: Sendable {
    private let value: NIOLockedValueBox<URL>

    init(_ url: URL) { value = NIOLockedValueBox(url) }

    var url: URL { value.withLockedValue { $0 } }

    func set(_ url: URL) { value.withLockedValue { $0 = url } }
}

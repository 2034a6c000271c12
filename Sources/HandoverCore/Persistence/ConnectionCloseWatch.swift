import NIOConcurrencyHelpers
import PostgresNIO

/// Who is told when a pooled PostgreSQL connection closes: the transaction holding it now, if
/// any. One callback per connection, registered the first time a transaction holds it, instead
/// of one per transaction: a pooled connection lives for hours, and a callback added to its
/// `closeFuture` by every transaction would pile up until it closed.
final class ConnectionCloseWatch: Sendable {
    /// The server's one watch.
    static let shared = ConnectionCloseWatch()

    /// The connections watched, and what to call if each closes now.
    private let holders = NIOLockedValueBox<[ObjectIdentifier: (@Sendable () -> Void)?]>([:])

    /// Calls `onClose` if `connection` closes before ``release(_:)``; at once if it is closed.
    func hold(_ connection: PostgresConnection, onClose: @escaping @Sendable () -> Void) {
        let id = ObjectIdentifier(connection)
        let isNew = holders.withLockedValue { holders in
            let isNew = holders[id] == nil
            holders[id] = .some(onClose)
            return isNew
        }
        guard isNew else { return }
        connection.closeFuture.whenComplete { [self] _ in
            // A closed connection is gone from the pool; its entry goes too.
            let holder = holders.withLockedValue { $0.removeValue(forKey: id) ?? nil }
            holder?()
        }
    }

    /// The transaction holding `connection` has ended.
    func release(_ connection: PostgresConnection) {
        let id = ObjectIdentifier(connection)
        holders.withLockedValue { holders in
            if holders[id] != nil { holders[id] = .some(nil) }
        }
    }
}

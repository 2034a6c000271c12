import FluentKit
import Foundation
@testable import HandoverCore
import HandoverSchema
import Logging
import Testing

/// ``LiveKeys``: the key read of every API request, made in batches.
@Suite(.timeLimit(.minutes(3))) struct LiveKeysTests {
    /// Two hundred requests at once, each with its own answer: live keys found (a viewer's, a
    /// device's), revoked and expired ones refused, unknown and malformed ones not found. The
    /// batches read them in a few statements, not one per request (before: 200).
    @Test(arguments: DomainStore.available) func concurrentReadsShareStatementsAndEachGetsItsOwnAnswer(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let now = database.clock.now()
            let device = try await database.device()
            enum Expected: Equatable { case live(UUID), refused }
            var presented: [(key: String, expected: Expected)] = []
            for index in 0..<160 {
                let scope: APIKeyScope = index.isMultiple(of: 2) ? .viewer : .device
                let (key, row) = APIKey.make(name: "key \(index)", scope: scope, deviceID: scope == .device ? device : nil, now: now,
                                             expiresAt: index % 5 == 1 ? now.addingTimeInterval(-1) : nil)
                if index % 7 == 3 { row.revokedAt = now }
                try await row.create(on: database.db)
                let live = index % 5 != 1 && index % 7 != 3
                presented.append((key, live ? .live(try row.requireID()) : .refused))
            }
            for index in 0..<30 { presented.append(("hov_unknown\(index)", .refused)) }
            for index in 0..<10 { presented.append(("Bearer \(index)", .refused)) }

            let statements = StatementCount()
            let counting = Logger(label: "statements") { _ in StatementCounter(count: statements) }
            let answers = try await database.withSeparateConnections(logging: counting) { counted in
                let keys = LiveKeys(readers: 2) { counted }
                return try await withThrowingTaskGroup(of: (Int, UUID?).self) { group in
                    for (index, (key, _)) in presented.enumerated() {
                        group.addTask { (index, try await keys.live(key, now: now)?.id) }
                    }
                    var answers = [UUID?](repeating: nil, count: presented.count)
                    for try await (index, id) in group { answers[index] = id }
                    return answers
                }
            }
            for (index, (_, expected)) in presented.enumerated() {
                switch expected {
                case .live(let id): #expect(answers[index] == id, "key \(index)")
                case .refused: #expect(answers[index] == nil, "key \(index)")
                }
            }
            // 170 well-formed keys; each batch is one statement.
            #expect((1...85).contains(statements.value), "\(statements.value) statements for 170 reads")
        }
    }

    /// A key revoked before a read begins is refused by that read: nothing is cached.
    @Test(arguments: DomainStore.available) func aKeyRevokedBeforeTheReadIsRefused(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            let now = database.clock.now()
            let (key, row) = APIKey.make(name: "ops", scope: .admin, deviceID: nil, now: now)
            try await row.create(on: database.db)
            let keys = LiveKeys(readers: 2) { database.db }
            #expect(try await keys.live(key, now: now)?.id == row.id)
            row.revokedAt = now
            try await row.update(on: database.db)
            #expect(try await keys.live(key, now: now) == nil)
        }
    }
}

import Crypto
import Foundation
import NIOConcurrencyHelpers
import PostgresNIO

/// Which of the server's SQL statements PostgreSQL keeps prepared, under which names.
///
/// A statement sent unnamed is parsed, analysed and planned by PostgreSQL every time it arrives:
/// in a closed loop of whole hand-overs that was about 29 % of the PostgreSQL backends' CPU
/// (`perf`: parser 5 %, analysis 8 %, planner 16 %). A statement prepared once under a name on a
/// connection is only bound and executed after that, and after five executions PostgreSQL plans
/// it once for all (a generic plan) when that costs no more than planning each time.
///
/// A statement is given a name (``Shape``) on its third sighting: one-off statements (a
/// migration's, an admin command's) stay unnamed, and so does everything once ``limit`` names are
/// handed out, since a connection keeps every statement prepared on it until it closes. The name
/// covers the SQL text and the types of its parameters, so the same text bound with a `NULL` in
/// one place and a value in another is two statements.
///
/// PostgresNIO remembers a failed preparation on a connection and answers every later use of
/// that name with the same error. A preparation fails, for instance, inside a transaction that an
/// earlier error aborted. So after an error the shape's name moves to a new generation (the next
/// use prepares it afresh), and after ``generations`` errors the statement stays unnamed.
package final class PreparedStatements: Sendable {
    /// A statement to run prepared: its name on every connection, its SQL text and its
    /// parameters' types.
    package struct Shape: Sendable, Hashable {
        package let name: String
        package let sql: String
        package let types: [PostgresDataType]
    }

    /// The server's one set of names.
    package static let shared = PreparedStatements()

    /// Sightings before a statement is prepared.
    package let sightings: Int
    /// Names handed out at most; past it every new statement stays unnamed.
    package let limit: Int
    /// Errors after which a statement stays unnamed.
    package let generations: Int
    /// Statements counted at most before the counts of those never named start again: sixteen
    /// times ``limit``, or `Int.max` for a limit so large that the product overflows.
    private let counted: Int

    private struct Entry {
        var seen = 0
        var generation = 0
        var shape: Shape?
        var excluded = false
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var named = 0
    }

    private let state = NIOLockedValueBox(State())

    package init(sightings: Int = 3, limit: Int = 512, generations: Int = 4) {
        self.sightings = max(1, sightings)
        self.limit = limit
        self.generations = generations
        let (product, overflow) = max(0, limit).multipliedReportingOverflow(by: 16)
        counted = overflow ? .max : product
    }

    /// The shape to run `sql` with parameters of `types` as, or `nil` to send it unnamed.
    package func shape(for sql: String, types: [PostgresDataType]) -> Shape? {
        guard Self.isPreparable(sql) else { return nil }
        let key = Key(sql: sql, types: types)
        return state.withLockedValue { state in
            if let shape = state.entries[key]?.shape { return shape }
            var entry = state.entries[key] ?? Entry()
            guard !entry.excluded else { return nil }
            // A statement unnamed for want of names is counted no further than the sightings.
            entry.seen = min(entry.seen, self.sightings - 1) + 1
            if entry.seen >= sightings, state.named < limit {
                entry.shape = Shape(name: Self.name(key, generation: entry.generation), sql: sql, types: types)
                state.named += 1
            } else if state.entries[key] == nil, state.entries.count >= counted {
                // Sightings of statements that never came back: start counting again.
                state.entries = state.entries.filter { $0.value.shape != nil || $0.value.excluded }
            }
            state.entries[key] = entry
            return entry.shape
        }
    }

    /// `shape` failed on a connection: its next use is prepared under a new name, or unnamed once
    /// it has failed ``generations`` times.
    package func failed(_ shape: Shape) {
        let key = Key(sql: shape.sql, types: shape.types)
        state.withLockedValue { state in
            guard var entry = state.entries[key], entry.shape == shape else { return }
            entry.generation += 1
            if entry.generation >= generations {
                entry.excluded = true
                entry.shape = nil
            } else {
                entry.shape = Shape(name: Self.name(key, generation: entry.generation), sql: shape.sql, types: shape.types)
                state.named += 1
            }
            state.entries[key] = entry
        }
    }

    /// Only statements that read or write rows are prepared; schema changes and transaction
    /// control are sent as they are.
    static func isPreparable(_ sql: String) -> Bool {
        // On the text's bytes, ASCII letters folded to upper case: no string is made per statement.
        var word: [UInt8] = []
        for byte in sql.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "("):
                if word.isEmpty { continue }
            case UInt8(ascii: "a")...UInt8(ascii: "z"): word.append(byte - 32); continue
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                // A digit or underscore lengthens the word into a name ("SELECT1" is no keyword).
                word.append(byte); continue
            default: break
            }
            break
        }
        return Self.preparable.contains(word)
    }

    private static let preparable: Set<[UInt8]> = Set(["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"].map { Array($0.utf8) })

    /// A statement's text and its parameters' types: what its name stands for.
    private struct Key: Hashable {
        var sql: String
        var types: [PostgresDataType]
    }

    /// `handover_` and 24 hex digits of the statement's digest, then its generation: within
    /// PostgreSQL's 63 bytes for a name.
    private static func name(_ key: Key, generation: Int) -> String {
        let digest = SHA256.hash(data: Data((key.sql + "\u{0}" + key.types.map { String($0.rawValue) }.joined(separator: ",")).utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        return "handover_\(digest)_\(generation)"
    }
}

import Foundation
import HandoverSchema
import SQLKit

extension CustodyLedger {
    /// The people a batch of check-outs names, in its order: each user by id (refused when no
    /// longer there), each login by email (the user made on first use). A statement per kind for
    /// the whole batch, and one more for the logins seen for the first time.
    static func holders(of people: [CheckOutRequest.Person], on sql: any SQLDatabase, now: Date) async throws -> [Result<Holder, any Error>] {
        var ids: Set<UUID> = [], logins: Set<String> = []
        for person in people {
            switch person {
            case .user(let id): ids.insert(id)
            case .login(let login): logins.insert(login.lowercased())
            }
        }
        // A login is made once, however many taps at once (and on however many instances).
        try await serialize(logins.map { "custody login " + $0 }, on: sql)
        let byID = try await users(where: "id", in: ids.map { SQLBind($0) }, on: sql)
        var byEmail: [String: Holder] = [:]
        for holder in try await users(where: "email", in: logins.map { SQLBind($0) }, on: sql) {
            if let email = holder.email, byEmail[email] == nil { byEmail[email] = holder }
        }
        let missing = logins.filter { byEmail[$0] == nil }.sorted()
        if !missing.isEmpty {
            let made = missing.map { Holder(id: UUID(), fullName: nil, email: $0) }
            try await sql.raw("""
                INSERT INTO users (id, email, email_forwarding_disabled, created_at)
                VALUES \(SQLList(made.map { "(\(bind: $0.id), \(bind: $0.email), \(bind: false), \(bind: now))" as SQLQueryString }))
                """).run()
            for (email, holder) in zip(missing, made) { byEmail[email] = holder }
        }
        let known = Dictionary(byID.map { ($0.id, $0) }) { first, _ in first }
        return people.map { person in
            switch person {
            case .user(let id):
                guard let holder = known[id] else {
                    return .failure(DomainError(.unauthenticated, code: "invalid_access_token", reason: "accessToken: its person no longer exists.",
                                                field: "accessToken"))
                }
                return .success(holder)
            case .login(let login):
                guard let holder = byEmail[login.lowercased()] else {
                    return .failure(DomainError(.storage, code: "storage", reason: "The person \(login) was neither found nor made."))
                }
                return .success(holder)
            }
        }
    }

    /// The users whose `column` is one of `values`, oldest first.
    private static func users(where column: String, in values: [SQLBind], on sql: any SQLDatabase) async throws -> [Holder] {
        guard !values.isEmpty else { return [] }
        return try await sql.raw("""
            SELECT id, full_name, email FROM users WHERE \(ident: column) IN (\(SQLList(values))) ORDER BY created_at, id
            """).all().map { row in
            Holder(id: try row.decode(column: "id", as: UUID.self), fullName: try row.decode(column: "full_name", as: String?.self),
                   email: try row.decode(column: "email", as: String?.self))
        }
    }
}

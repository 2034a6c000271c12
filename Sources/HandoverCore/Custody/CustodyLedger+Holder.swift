import Foundation
import HandoverSchema

extension CustodyLedger {
    /// What a check-out of `holder` serializes on (``CustodyStore/serialize(_:)``): their email,
    /// lowercased, as a badge's login names them; their id when they have none. So a person's
    /// check-outs wait for each other however they come (an access token names the id, a badge the
    /// login), and a login is made once however many taps name it at once.
    static func lockKey(of holder: Holder) -> String {
        holder.email.map(lockKey(ofLogin:)) ?? "custody person " + holder.id.uuidString
    }

    /// ``lockKey(of:)`` for a person known by `login` (lowercased).
    static func lockKey(ofLogin login: String) -> String { "custody login " + login.lowercased() }

    /// The people a batch of check-outs names, in its order: each user by id (refused when no
    /// longer there), each login by email (the user made on first use). A statement per kind for
    /// the whole batch, and one more for the logins seen for the first time (``CustodyStore``).
    /// Between the two reads, the batch serializes on every person's ``lockKey(of:)``, so what the
    /// rest of its transaction reads of their custodies stays true until it commits.
    static func holders(of people: [CheckOutRequest.Person], in store: CustodyStore, now: Date) async throws -> [Result<Holder, any Error>] {
        var ids: Set<UUID> = [], logins: Set<String> = []
        for person in people {
            switch person {
            case .user(let id): ids.insert(id)
            case .login(let login): logins.insert(login.lowercased())
            }
        }
        let byID = try await store.users(ids: ids)
        // A login is made once, however many taps at once (and on however many instances); two
        // check-outs of one person at once (two docks, two instances) wait for each other here.
        try await store.serialize(logins.map(lockKey(ofLogin:)) + byID.map(lockKey(of:)))
        var byEmail: [String: Holder] = [:]
        for holder in try await store.users(emails: logins) {
            if let email = holder.email, byEmail[email] == nil { byEmail[email] = holder }
        }
        let missing = logins.filter { byEmail[$0] == nil }.sorted()
        if !missing.isEmpty {
            let made = missing.map { Holder(id: UUID(), fullName: nil, email: $0) }
            try await store.insertUsers(made, now: now)
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
}

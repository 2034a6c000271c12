import Foundation
import HandoverSchema

extension CustodyLedger {
    /// The people a batch of check-outs names, in its order: each user by id (refused when no
    /// longer there), each login by email (the user made on first use). A statement per kind for
    /// the whole batch, and one more for the logins seen for the first time (``CustodyStore``).
    static func holders(of people: [CheckOutRequest.Person], in store: CustodyStore, now: Date) async throws -> [Result<Holder, any Error>] {
        var ids: Set<UUID> = [], logins: Set<String> = []
        for person in people {
            switch person {
            case .user(let id): ids.insert(id)
            case .login(let login): logins.insert(login.lowercased())
            }
        }
        // A login is made once, however many taps at once (and on however many instances).
        try await store.serialize(logins.map { "custody login " + $0 })
        let byID = try await store.users(ids: ids)
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

import Foundation
@testable import HandoverCore
import PropertyBased
import Testing

/// The open streams' rule, as a value (``StreamLeases``): a stream ends when any credential it was
/// opened with is revoked, or when a check finds its credential no longer live; it is checked
/// again when its credential may expire, and at least every interval. No database, no clock.
@Suite struct StreamLeasesTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aRevocationEndsEveryStreamOpenedWithTheCredentialAndNoOther() {
        var leases = StreamLeases()
        let key = UUID(), session = UUID(), other = UUID()
        let (a, b, c) = (UUID(), UUID(), UUID())
        leases.open(a, credentials: [.apiKey(key)], recheckAt: Self.start)
        leases.open(b, credentials: [.dashboardSession(session), .apiKey(key)], recheckAt: Self.start)
        leases.open(c, credentials: [.dashboardSession(other)], recheckAt: Self.start)
        #expect(Set(leases.revoke([.apiKey(key)])) == [a, b])
        #expect(leases.count == 1)
        #expect(leases.revoke([.apiKey(key), .dashboardSession(session)]).isEmpty, "ended once only")
        #expect(leases.revoke([.dashboardSession(other)]) == [c])
        #expect(leases == StreamLeases(), "nothing is left behind")
    }

    @Test func aCheckEndsTheStreamOrMovesItsNextCheck() {
        var leases = StreamLeases()
        let token = UUID()
        leases.open(token, credentials: [.apiKey(UUID())], recheckAt: Self.start.addingTimeInterval(15))
        #expect(leases.due(now: Self.start.addingTimeInterval(14)).isEmpty)
        let now = Self.start.addingTimeInterval(15)
        #expect(leases.due(now: now) == [token])
        #expect(leases.due(now: now).isEmpty, "a check under way is not started twice")
        // Live for an hour more: checked again after the interval, not in an hour.
        let hourLeft = leases.checked(token, liveUntil: now.addingTimeInterval(3600), now: now, interval: 15)
        #expect(!hourLeft)
        #expect(leases.leases[token]?.recheckAt == now.addingTimeInterval(15))
        // Live for 5 s more (a key about to expire): checked again then.
        let later = now.addingTimeInterval(15)
        #expect(leases.due(now: later) == [token])
        let secondsLeft = leases.checked(token, liveUntil: later.addingTimeInterval(5), now: later, interval: 15)
        #expect(!secondsLeft)
        #expect(leases.leases[token]?.recheckAt == later.addingTimeInterval(5))
        // No longer live: it ends.
        #expect(leases.due(now: later.addingTimeInterval(5)) == [token])
        let gone = leases.checked(token, liveUntil: nil, now: later.addingTimeInterval(5), interval: 15)
        #expect(gone)
        #expect(leases.count == 0)
    }

    @Test func aStreamRevokedWhileItIsCheckedStaysEnded() {
        var leases = StreamLeases()
        let token = UUID(), key = UUID()
        leases.open(token, credentials: [.apiKey(key)], recheckAt: Self.start)
        #expect(leases.due(now: Self.start) == [token])
        #expect(leases.revoke([.apiKey(key)]) == [token])
        let endsAgain = leases.checked(token, liveUntil: .distantFuture, now: Self.start, interval: 15)
        #expect(!endsAgain, "already ended: nothing more to end")
        #expect(leases.count == 0)
    }

    /// Any sequence of opens, revocations, closes and checks: a stream is open exactly when it was
    /// opened and none of its credentials was revoked since, it was not closed, and no check ended it.
    @Test func anySequenceKeepsExactlyTheStreamsNoRevocationEnded() async {
        let steps = Gen<Int>.int(in: 0...3).array(of: 1...60)
        let picks = Gen<Int>.int(in: 0...5).array(of: 60...60)
        await propertyCheck(count: 200, input: steps, picks) { steps, picks in
            let credentials: [RevokedCredential] = (0..<3).map { _ in .apiKey(UUID()) } + (0..<3).map { _ in .dashboardSession(UUID()) }
            var leases = StreamLeases()
            var model: [UUID: Set<RevokedCredential>] = [:]
            var opened: [UUID] = []
            for (index, step) in steps.enumerated() {
                let pick = picks[index % picks.count]
                switch step {
                case 0:
                    let token = UUID(), set: Set = [credentials[pick], credentials[(pick + 1) % credentials.count]]
                    leases.open(token, credentials: set, recheckAt: Self.start)
                    model[token] = set
                    opened.append(token)
                case 1:
                    let ended = Set(leases.revoke([credentials[pick]]))
                    let expected = Set(model.filter { $0.value.contains(credentials[pick]) }.keys)
                    #expect(ended == expected)
                    for token in expected { model[token] = nil }
                case 2:
                    guard !opened.isEmpty else { continue }
                    let token = opened[pick % opened.count]
                    #expect(leases.close(token) == (model[token] != nil))
                    model[token] = nil
                default:
                    for token in leases.due(now: Self.start) {
                        let ends = pick % 2 == 0
                        #expect(leases.checked(token, liveUntil: ends ? nil : Self.start.addingTimeInterval(60), now: Self.start, interval: 15) == ends)
                        if ends { model[token] = nil }
                    }
                }
                #expect(Set(leases.leases.keys) == Set(model.keys))
            }
        }
    }

    /// A person keeps their sessions only when their new grants include every old one.
    @Test func grantsIncludeWhatTheyAllowAndNothingElse() async {
        let roles = Gen<AdminRole?>.element(of: AdminRole.allCases).compactMap { $0 }
        let sites = Gen<String?>.element(of: ["ICU", "Ward 7", "ER"]).compactMap { $0 }.array(of: 0...2)
        let grant = zip(roles, sites).map { role, sites in RoleGrant(role: role, scope: sites.isEmpty ? .allSites : .sites(Set(sites.compactMap { try? SiteName($0) }))) }
        let permissions = grant.array(of: 0...3).map { Permissions(Set($0)) }
        await propertyCheck(count: 300, input: permissions, permissions) { old, new in
            let allowsEverythingOldDid = AdminRole.allCases.allSatisfy { role in
                ([nil] + ["ICU", "Ward 7", "ER"]).allSatisfy { site in !old.allows(role, at: site) || new.allows(role, at: site) }
            }
            #expect(new.includes(old) == allowsEverythingOldDid, "\(old.text) → \(new.text)")
            #expect(new.includes(new))
            #expect(new.includes(Permissions([])))
        }
    }
}

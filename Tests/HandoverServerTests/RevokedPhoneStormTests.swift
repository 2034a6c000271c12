import DeviceSimulator
import Foundation
@testable import HandoverServer
import NIOConcurrencyHelpers
import SQLKit
import Testing

/// Issue 63's "Done when": a phone whose key was revoked keeps retrying from the fleet's address
/// during a shift change (every phone here comes from 127.0.0.1, as a ward's phones do from
/// behind one NAT or proxy), and no request with a valid key answers 429, while the revoked phone
/// is throttled. OWASP's Authentication Cheat Sheet: a lockout must not become a denial of service
/// against the legitimate users; with 256-bit keys a right key tells a guesser nothing.
///
/// The storm is `handover bench shift-change`'s load generator (``ShiftChangeBench``), played
/// in-process against a ``TestServer`` on SQLite: 100 phones beside the rest of `swift test`, and
/// `HANDOVER_REVOKED_STORM_PHONES` of them when set (`.ci/run`'s storm step sets 1,000). The phones
/// arrive at 10 a second, well below what a debug build serves on a slow 2-core machine: the test
/// is about who gets 429, and a load generator whose own pool times out (as a 20-second window of
/// 1,000 phones did on CI) would measure the machine, not the throttle.
@Suite(.serialized, .timeLimit(.minutes(10)), .stopsTestServers) struct RevokedPhoneStormTests {
    static let phones = ProcessInfo.processInfo.environment["HANDOVER_REVOKED_STORM_PHONES"].flatMap(Int.init) ?? 100

    /// What the revoked phone got back.
    final class Answers: Sendable {
        private let box = NIOLockedValueBox((statuses: [Int: Int](), withoutRetryAfter: 0))
        func add(_ status: Int, retryAfter: String?) {
            box.withLockedValue {
                $0.statuses[status, default: 0] += 1
                if status == 429, Int(retryAfter ?? "") ?? 0 < 1 { $0.withoutRetryAfter += 1 }
            }
        }
        var statuses: [Int: Int] { box.withLockedValue { $0.statuses } }
        var total: Int { statuses.values.reduce(0, +) }
        var withoutRetryAfter: Int { box.withLockedValue { $0.withoutRetryAfter } }
    }

    @Test func aRevokedPhoneRetryingThroughAShiftChangeNeverGetsAValidKey429() async throws {
        try await TestServer.with(.sqlite) { test in
            // The manual clock stands still: no deadline fires, so no app stalls; and the wrong-key
            // window never slides, so the revoked phone stays past its limit all storm long.
            let plan = ShiftChangePlan(devices: Self.phones, apps: 7, windowSeconds: max(5, Double(Self.phones) / 10), stallRate: 0,
                                       deadlineSeconds: 60, pageSamples: 0, checksOut: false)
            let bench = ShiftChangeBench(plan: plan, servers: [test.server.baseURL], adminKey: test.adminKey, databaseName: "sqlite")
            let fleet = try await bench.register { _ in }

            // The lost phone: its key is revoked (as the device's page will do), and it retries its hand-over.
            let lost = try await test.registerDevice("ward-7-lost-phone")
            let sql = try #require(test.server.databases.primary as? any SQLDatabase)
            try await sql.raw("UPDATE api_keys SET revoked_at = \(bind: test.clock.now()) WHERE device_id = \(bind: UUID(uuidString: lost.id))").run()
            let answers = Answers()
            let retrying = Task {
                while !Task.isCancelled {
                    if let reply = try? await test.request(.POST, "/api/v1/devices/\(lost.id)/logout-runs", json: [String: Any](), key: lost.key) {
                        answers.add(reply.status, retryAfter: reply.headers.first(name: "Retry-After"))
                    }
                    try? await Task.sleep(for: .milliseconds(25))
                }
            }
            // The storm starts once the address is past the wrong-key limit (30 a minute).
            while answers.total < 40 { try await Task.sleep(for: .milliseconds(20)) }
            let started = ContinuousClock.now
            let figures = await bench.storm(fleet, setupSeconds: 0) { _ in }
            let took = started.duration(to: .now)
            retrying.cancel()
            _ = await retrying.value

            let statuses = answers.statuses
            let seconds = String(format: "%.1f", Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18)
            print("revoked phone storm: \(Self.phones) phones × 7 apps from one address in \(seconds) s; \(figures.answers) requests with valid keys, "
                  + "\(figures.rateLimited) answered 429; \(figures.runs.started) runs started, \(figures.callbacks.recorded) callbacks recorded; "
                  + "the revoked phone sent \(answers.total): \(statuses[401] ?? 0) × 401, \(statuses[429] ?? 0) × 429"
                  + (answers.withoutRetryAfter == 0 ? ", each 429 with Retry-After" : ", \(answers.withoutRetryAfter) 429s without Retry-After"))
            #expect(figures.rateLimited == 0, "no request with a valid key answers 429: \(figures.refusals)")
            #expect(figures.runs.started == Self.phones && figures.runs.refused == 0, "\(figures.refusals)")
            #expect(figures.isClean, "\(figures.refusals)")
            // The revoked phone: its first 30 wrong keys answer 401, every later one 429 with Retry-After.
            #expect(statuses[401] == 30 && (statuses[429] ?? 0) > 10 && statuses.count == 2, "\(statuses)")
            #expect(answers.withoutRetryAfter == 0)
        }
    }
}

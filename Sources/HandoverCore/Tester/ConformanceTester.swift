import Foundation
import HandoverProtocol
import HandoverSchema
import LinkCallbacks

/// The automated ULC conformance tester: creates tests, starts their rounds, records the
/// callbacks that reach `/tester/cb/…`, times rounds out, and drives a simulated app.
///
/// A test has three rounds, in order:
/// 1. **callback**: the app must answer the link on its success URL within the budget (20 s);
/// 2. **duplicate**: the same link, opened twice, must be answered twice;
/// 3. **hostile**: a link whose callbacks point at a second name of this server, outside the
///    app's allowlist, must get no answer (only when the app declares an allowlist). The round
///    waits three times as long as round 1 took, at least 3 s and at most the budget.
/// A failed callback round skips the rest. Everything lives in the database, so a restart
/// loses nothing (its statements are ``TesterStore``'s); the deadlines fire from the scheduler.
package struct ConformanceTester: Sendable {
    /// The tester on a given database, as the server builds it once and its routes call it.
    package typealias OnDatabase = @Sendable (DatabaseHandle) -> ConformanceTester

    package let database: DatabaseHandle
    package let clock: ServerClock
    /// Signs the tester's own callback URLs, as the runs' are signed.
    package let nonces: CallbackNonce
    /// Announces each change to the test's page.
    package let notifier: RunChangeNotifier
    /// Where the tester's own callbacks go (a host an app's allowlist can name).
    package let callbackOrigin: URL
    /// A second name of this server, outside any allowlist, for the hostile round; nil when none.
    package let hostileOrigin: URL?

    /// The tests' statements.
    private var store: TesterStore { TesterStore(database) }

    /// What a test looks like now.
    package struct Snapshot: Sendable {
        package var id: UUID
        package var actionURL: String
        package var association: TesterAssociationReport
        package var declaresAllowlist: Bool
        package var simulatedBehaviour: String?
        package var budgetSeconds: Int
        package var rounds: [TesterRound]
        package var createdAt: Date
        package var verdict: TesterVerdict { TesterVerdict(association: association, rounds: rounds, budgetSeconds: budgetSeconds) }
        /// The round a person should start next, if any.
        package var nextReadyRound: Int? { rounds.firstIndex { $0.status == .ready } }
        /// The index of round `number` (1-based), or `nil` when the test has no such round. Safe
        /// for any `Int`: nothing is subtracted before the range check.
        package func roundIndex(_ number: Int) -> Int? {
            number >= 1 && number <= rounds.count ? number - 1 : nil
        }
        package var isFinished: Bool { verdict.status != .running }
    }

    /// What happened to a callback.
    package enum Recording: Equatable {
        case recorded(TesterRound.Kind)
        case notWaiting
        case unknown
    }

    /// Rounds keep their times to the millisecond (the API's dates are whole seconds).
    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return encoder
    }()

    package static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }()

    // MARK: Creating

    /// Checks the action domain's association file and stores a test with its rounds.
    package func create(action: String, declaresAllowlist: Bool, budgetSeconds: Int, simulatedBehaviour: String?,
                association: TesterAssociationReport) async throws -> UUID {
        let id = UUID()
        let now = clock.now()
        var rounds: [TesterRound] = []
        for (index, kind) in TesterRound.Kind.allCases.enumerated() {
            let number = index + 1
            let nonce = nonces.nonce(item: id, attempt: number)
            let origin: URL? = kind == .hostile ? hostileOrigin : callbackOrigin
            var round = TesterRound(kind: kind, status: .ready, link: "", nonce: nonce)
            if let origin {
                let base = origin.absoluteString + "/tester/cb/\(id.uuidString.lowercased())/\(number)"
                round.link = try UniversalLinkCallback(actionText: action, successText: "\(base)/success?n=\(nonce)",
                                                       errorText: "\(base)/error?n=\(nonce)").text
            }
            if kind == .hostile && !declaresAllowlist {
                round.status = .skipped
                round.detail = "skipped: the app declares no callback allowlist"
            } else if kind == .hostile && origin == nil {
                round.status = .skipped
                round.detail = "skipped: this server has no second origin outside the allowlist (set HANDOVER_TESTER_HOSTILE_URL)"
            }
            rounds.append(round)
        }
        let run = TesterRun()
        run.id = id
        run.actionURL = action
        run.claimingAppID = association.claimingAppID
        run.associationReport = String(decoding: try JSONEncoder.api.encode(association), as: UTF8.self)
        run.declaresAllowlist = declaresAllowlist
        run.simulatedBehaviour = simulatedBehaviour
        run.budgetSeconds = budgetSeconds
        run.rounds = String(decoding: try Self.encoder.encode(rounds), as: UTF8.self)
        run.status = .running
        run.createdAt = now
        run.version = 0
        try await store.create(run)
        return id
    }

    // MARK: Reading

    package func snapshot(_ id: UUID) async throws -> Snapshot? {
        guard let run = try await store.run(id) else { return nil }
        return try Self.snapshot(run)
    }

    package func recent(limit: Int) async throws -> [Snapshot] {
        try await store.recent(limit: limit).map(Self.snapshot)
    }

    package static func snapshot(_ run: TesterRun) throws -> Snapshot {
        Snapshot(id: try run.storedID, actionURL: run.actionURL,
                 association: try JSONDecoder.api.decode(TesterAssociationReport.self, from: Data(run.associationReport.utf8)),
                 declaresAllowlist: run.declaresAllowlist, simulatedBehaviour: run.simulatedBehaviour,
                 budgetSeconds: run.budgetSeconds,
                 rounds: try Self.decoder.decode([TesterRound].self, from: Data(run.rounds.utf8)), createdAt: run.createdAt)
    }

    // MARK: Changing

    /// Starts round `roundNumber` (1-based, as links and pages number them): the clock runs from
    /// now. A number outside the test's rounds (any `Int`, the extremes included) starts nothing.
    @discardableResult
    package func start(_ id: UUID, roundNumber: Int) async throws -> Bool {
        let now = clock.now()
        return try await update(id) { snapshot in
            guard let index = snapshot.roundIndex(roundNumber), snapshot.rounds[index].status == .ready,
                  snapshot.rounds[..<index].allSatisfy({ $0.status != .ready && $0.status != .waiting }) else { return false }
            var window = Double(snapshot.budgetSeconds)
            if snapshot.rounds[index].kind == .hostile, let first = snapshot.rounds.first(where: { $0.kind == .callback })?.elapsed {
                window = min(window, max(3, first * 3))
            }
            snapshot.rounds[index].status = .waiting
            snapshot.rounds[index].startedAt = now
            snapshot.rounds[index].deadlineAt = now.addingTimeInterval(window)
            return true
        }
    }

    /// Records a callback that reached `/tester/cb/<id>/<round>/<outcome>?n=<nonce>`.
    package func record(_ id: UUID, roundNumber: Int, outcome: String, nonce: String, host: String) async throws -> Recording {
        let now = clock.now()
        var result = Recording.unknown
        _ = try await update(id) { snapshot in
            guard let index = snapshot.roundIndex(roundNumber), CallbackNonce.constantTimeEqual(snapshot.rounds[index].nonce, nonce) else {
                result = .unknown
                return false
            }
            var round = snapshot.rounds[index]
            let late = round.status == .passed && round.kind == .hostile
            guard round.status == .waiting || late else {
                result = .notWaiting
                return false
            }
            round.arrivals.append(.init(outcome: outcome, host: host, at: now))
            let seconds = round.startedAt.map { String(format: "%.1f s", now.timeIntervalSince($0)) } ?? "?"
            switch round.kind {
            case .callback:
                if outcome == "success" {
                    round.status = .passed
                    round.detail = "the success URL arrived after \(seconds)"
                } else {
                    round.status = .failed
                    round.detail = "the error URL arrived after \(seconds): the app could not sign out"
                }
            case .duplicate:
                if round.arrivals.count >= 2 {
                    round.status = .passed
                    round.detail = "answered twice (\(round.arrivals.map(\.outcome).joined(separator: ", ")))"
                }
            case .hostile:
                round.status = .failed
                round.detail = "the app opened its \(outcome) URL on \(host), a host outside its allowlist, after \(seconds)"
            }
            snapshot.rounds[index] = round
            Self.skipAfterFailure(&snapshot)
            result = .recorded(round.kind)
            return true
        }
        return result
    }

    /// Ends every round whose deadline passed. Returns how many rounds it ended.
    @discardableResult
    package func fireDue() async throws -> Int {
        // Nearly every pass (ten a second) finds no test running: one small statement says so.
        if try await store.noneRunning() {
            return 0
        }
        let now = clock.now()
        var fired = 0
        for run in try await store.running() {
            guard let snapshot = try? Self.snapshot(run),
                  snapshot.rounds.contains(where: { $0.status == .waiting && ($0.deadlineAt ?? .distantFuture) <= now }) else { continue }
            _ = try await update(snapshot.id) { snapshot in
                var changed = false
                for index in snapshot.rounds.indices where snapshot.rounds[index].status == .waiting
                    && (snapshot.rounds[index].deadlineAt ?? .distantFuture) <= now {
                    var round = snapshot.rounds[index]
                    let window = round.startedAt.flatMap { start in round.deadlineAt.map { $0.timeIntervalSince(start) } } ?? 0
                    switch round.kind {
                    case .callback:
                        round.status = .failed
                        round.detail = "timed out: no answer within the \(snapshot.budgetSeconds) s budget"
                    case .duplicate:
                        round.status = .failed
                        round.detail = round.arrivals.isEmpty
                            ? "timed out: neither opening was answered within \(snapshot.budgetSeconds) s"
                            : "answered once; the second opening got no answer within \(snapshot.budgetSeconds) s"
                    case .hostile:
                        round.status = .passed
                        round.detail = String(format: "nothing arrived within %.0f s: the callback outside the allowlist was not opened", window)
                    }
                    snapshot.rounds[index] = round
                    fired += 1
                    changed = true
                }
                Self.skipAfterFailure(&snapshot)
                return changed
            }
        }
        return fired
    }

    /// A failed callback round leaves nothing to test: the later rounds are skipped.
    private static func skipAfterFailure(_ snapshot: inout Snapshot) {
        guard snapshot.rounds.first?.status == .failed else { return }
        for index in snapshot.rounds.indices.dropFirst() where snapshot.rounds[index].status == .ready {
            snapshot.rounds[index].status = .skipped
            snapshot.rounds[index].detail = "not reached: the callback round failed"
        }
    }

    /// Reads, changes and writes a test back with a version check, retrying when another
    /// request changed it in between. `change` returns whether it changed anything.
    private func update(_ id: UUID, _ change: (inout Snapshot) throws -> Bool) async throws -> Bool {
        for _ in 0..<20 {
            guard let run = try await store.run(id) else { return false }
            var snapshot = try Self.snapshot(run)
            guard try change(&snapshot) else { return false }
            let rounds = String(decoding: try Self.encoder.encode(snapshot.rounds), as: UTF8.self)
            let status = snapshot.verdict.status
            try await store.write(id, version: run.version, rounds: rounds, status: status)
            // Fluent does not report affected rows portably: read back to see whose write won.
            if let after = try await store.run(id), after.version == run.version + 1, after.rounds == rounds {
                await notifier.runChanged(id, on: database)
                return true
            }
        }
        throw TesterError("the test \(id) kept changing under concurrent updates; try again")
    }

    // MARK: Driving a simulated app

    /// Plays every round on the simulator: start, open the link (twice for the duplicate
    /// round), wait for the round to end. Runs until the test is finished.
    package func drive(_ id: UUID, simulator: any TesterSimulator) async {
        guard let first = try? await snapshot(id) else { return }
        for index in first.rounds.indices {
            guard !Task.isCancelled, let current = try? await snapshot(id), current.rounds[index].status == .ready,
                  (try? await start(id, roundNumber: index + 1)) == true else { continue }
            let link = current.rounds[index].link
            await simulator.open(link)
            if current.rounds[index].kind == .duplicate { await simulator.open(link) }
            while !Task.isCancelled {
                _ = try? await fireDue()
                guard let now = try? await snapshot(id), now.rounds[index].status == .waiting else { break }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    package init(database: DatabaseHandle, clock: ServerClock, nonces: CallbackNonce, notifier: RunChangeNotifier, callbackOrigin: URL, hostileOrigin: URL?) {
        self.database = database
        self.clock = clock
        self.nonces = nonces
        self.notifier = notifier
        self.callbackOrigin = callbackOrigin
        self.hostileOrigin = hostileOrigin
    }
}

/// A tester failure that is not the caller's input.
package struct TesterError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

import Foundation

/// After the storm, the custody records read back through `GET /api/v1/custody` (every page, the
/// admin key) and compared with the launchers' check-outs: each phone checked out must have a
/// record of the person its badge names, checked in by the run its launcher started.
struct CustodyReadBack: Sendable {
    /// The server to read from (instances that share a database see the same records).
    var origin: String
    var adminKey: String
    /// Check-outs at or after this moment: the storm's start.
    var since: Date

    /// What the comparison found.
    struct Outcome: Sendable {
        /// Phones whose custody was recorded as the launcher made it.
        var matched = 0
        /// Phones whose custody was missing, held by someone else, or not checked in by its run.
        var unmatched = 0
        /// The mismatches by kind, for the figures' refusals.
        var problems: [String: Int] = [:]
    }

    /// One record of `CustodyPage`, only the fields compared.
    private struct Record: Decodable {
        var deviceID: String
        var personEmail: String?
        var checkedInAt: String?
        var runID: String?
    }

    /// `CustodyPage`.
    private struct Page: Decodable {
        var custodies: [Record]
        var page: Int
        var pageCount: Int
        var total: Int
    }

    func compare(_ checkedOut: [StormTally.CheckedOut], http: BenchHTTP) async -> Outcome {
        var outcome = Outcome()
        guard !checkedOut.isEmpty else { return outcome }
        let records: [Record]
        do {
            records = try await readAll(http)
        } catch {
            outcome.unmatched = checkedOut.count
            outcome.problems["custody unreadable after the storm: \(ShiftChangeLauncher.kind(of: error))", default: 0] += checkedOut.count
            return outcome
        }
        let byDevice = Dictionary(grouping: records) { $0.deviceID.lowercased() }
        for phone in checkedOut {
            let held = byDevice[phone.device.uuidString.lowercased()] ?? []
            let person = BadgeDirectory.login(for: phone.badge)
            let problem: String?
            if held.isEmpty {
                problem = "custody missing after the storm"
            } else if !held.contains(where: { $0.personEmail?.lowercased() == person }) {
                problem = "custody of another person than the badge's"
            } else if let run = phone.run?.uuidString.lowercased(),
                      held.contains(where: { $0.personEmail?.lowercased() == person && $0.checkedInAt != nil && $0.runID?.lowercased() == run }) {
                problem = nil
            } else {
                problem = "custody not checked in by its run"
            }
            if let problem {
                outcome.unmatched += 1
                outcome.problems[problem, default: 0] += 1
            } else {
                outcome.matched += 1
            }
        }
        return outcome
    }

    /// Every page of the custody list since ``since``.
    private func readAll(_ http: BenchHTTP) async throws -> [Record] {
        // The API reads `from` as a date-time to the second.
        let from = Date(timeIntervalSince1970: since.timeIntervalSince1970.rounded(.down))
            .formatted(Date.ISO8601FormatStyle())
        var records: [Record] = []
        var number = 1
        while true {
            let answer = try await http.send(.GET, "\(origin)/api/v1/custody?from=\(from)&page=\(number)", key: adminKey)
            guard answer.isSuccess else {
                throw SimulatorError("page \(number) answered \(answer.status)")
            }
            let page = try answer.decode(Page.self)
            records += page.custodies
            guard number < page.pageCount, number < 100_000 else { return records }
            number += 1
        }
    }
}

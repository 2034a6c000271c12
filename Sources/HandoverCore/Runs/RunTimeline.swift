import Foundation
import HandoverProtocol
import HandoverSchema

/// A run's story in time order, for its dashboard page: the start, every link issued to every
/// app (each attempt, with its deadline), each deadline missed and the reissue it caused, each
/// answer (who reported it, on which attempt), each timeout, the backends told by back-channel
/// logout, the webhooks sent, and the end.
///
/// Built from what the database keeps (the run, its items, `logout_item_reissues`, the outbox
/// rows of webhooks and back-channel logout); nothing here reads the database, so tests build
/// timelines from plain values.
package struct RunTimeline: Sendable, Equatable {
    /// What happened.
    package enum Kind: String, Sendable, Equatable, CaseIterable {
        case started = "started"
        case issued = "issued"
        case reissued = "reissued"
        case answered = "answered"
        case timedOut = "timed-out"
        case finished = "finished"
        case backend = "backend"
        case webhook = "webhook"
    }

    /// One moment of the run.
    package struct Entry: Sendable, Equatable {
        package var at: Date
        /// The app it concerns; nil for the run itself and its webhooks.
        package var app: String?
        package var kind: Kind
        /// What happened, in words.
        package var text: String
        /// Whether it went wrong (a timeout, an app's failure, a failing webhook or backend).
        package var isProblem: Bool
    }

    /// A back-channel logout owed to an app's backend because of this run.
    package struct BackendDelivery: Sendable, Equatable {
        package var app: String
        package var clientID: String
        package var state: BackChannelLogoutState
        package var attempts: Int
        package var createdAt: Date
        package var deliveredAt: Date?
        package var lastStatusCode: Int?
        package var lastError: String?

        package init(app: String, clientID: String, state: BackChannelLogoutState, attempts: Int, createdAt: Date,
                     deliveredAt: Date?, lastStatusCode: Int?, lastError: String?) {
            self.app = app
            self.clientID = clientID
            self.state = state
            self.attempts = attempts
            self.createdAt = createdAt
            self.deliveredAt = deliveredAt
            self.lastStatusCode = lastStatusCode
            self.lastError = lastError
        }
    }

    /// A webhook event about this run.
    package struct WebhookDelivery: Sendable, Equatable {
        package var event: String
        package var url: String
        package var status: WebhookDeliveryStatus
        package var attempts: Int
        package var createdAt: Date
        package var deliveredAt: Date?
        package var lastStatusCode: Int?
        package var lastError: String?

        package init(event: String, url: String, status: WebhookDeliveryStatus, attempts: Int, createdAt: Date,
                     deliveredAt: Date?, lastStatusCode: Int?, lastError: String? = nil) {
            self.event = event
            self.url = url
            self.status = status
            self.attempts = attempts
            self.createdAt = createdAt
            self.deliveredAt = deliveredAt
            self.lastStatusCode = lastStatusCode
            self.lastError = lastError
        }
    }

    /// A reissue, as `logout_item_reissues` keeps it.
    package struct Reissue: Sendable, Equatable {
        package var itemID: UUID
        package var attempt: Int
        package var missedDeadlineAt: Date
        package var issuedAt: Date
        package var deadlineAt: Date

        package init(itemID: UUID, attempt: Int, missedDeadlineAt: Date, issuedAt: Date, deadlineAt: Date) {
            self.itemID = itemID
            self.attempt = attempt
            self.missedDeadlineAt = missedDeadlineAt
            self.issuedAt = issuedAt
            self.deadlineAt = deadlineAt
        }
    }

    /// The moments, oldest first (at one instant, in the order they happened).
    package var entries: [Entry]

    package init(run: LogoutRunView, device: String, reissues: [Reissue], backends: [BackendDelivery], webhooks: [WebhookDelivery]) {
        var entries = [Entry(at: run.createdAt, app: nil, kind: .started,
                             text: "Run started on \(device): \(run.items.count) app\(run.items.count == 1 ? "" : "s") to log out",
                             isProblem: false)]
        let reissuesByItem = Dictionary(grouping: reissues, by: \.itemID)
        for item in run.items.sorted(by: { $0.position < $1.position }) {
            let own = (reissuesByItem[item.id] ?? []).sorted { $0.attempt < $1.attempt }
            // Attempt 1 was issued with the run; each later one by its reissue. An attempt's
            // deadline is the one the next reissue missed, or the item's own for the last.
            let firstDeadline = own.first?.missedDeadlineAt ?? item.deadlineAt
            entries.append(Entry(at: own.isEmpty ? item.issuedAt : run.createdAt, app: item.app, kind: .issued,
                                 text: "Link issued (attempt 1), answer due by \(Self.clock(firstDeadline))", isProblem: false))
            for reissue in own {
                let late = max(0, reissue.issuedAt.timeIntervalSince(reissue.missedDeadlineAt))
                entries.append(Entry(at: reissue.issuedAt, app: item.app, kind: .reissued,
                                     text: "No answer by \(Self.clock(reissue.missedDeadlineAt)) (fired \(Self.milliseconds(late)) after it): "
                                         + "link reissued (attempt \(reissue.attempt)), answer due by \(Self.clock(reissue.deadlineAt))",
                                     isProblem: false))
            }
            guard let finished = item.finishedAt else { continue }
            let took = Self.milliseconds(finished.timeIntervalSince(run.createdAt))
            switch item.status {
            case .succeeded, .failed:
                let answer = item.status == .succeeded ? "logged out" : "reported a failure"
                let by = item.reportedBy.map { $0 == .browser ? " through the browser page" : " through the launcher" } ?? ""
                entries.append(Entry(at: finished, app: item.app, kind: .answered,
                                     text: "Answered: \(answer)\(by), attempt \(item.attempts), \(took) after the start",
                                     isProblem: item.status == .failed))
            case .timedOut:
                entries.append(Entry(at: finished, app: item.app, kind: .timedOut,
                                     text: "Timed out: no answer after \(item.attempts) attempt\(item.attempts == 1 ? "" : "s") (last due \(Self.clock(item.deadlineAt)))",
                                     isProblem: true))
            case .pending:
                break
            }
        }
        for backend in backends {
            var text = "Backend of \(backend.clientID) told by back-channel logout: "
            switch backend.state {
            case .delivered: text += "accepted"
            case .refused: text += "refused"
            case .failed: text += "gave up"
            case .pending: text += backend.attempts == 0 ? "queued" : "still trying"
            }
            text += " after \(backend.attempts) attempt\(backend.attempts == 1 ? "" : "s")"
            if let code = backend.lastStatusCode { text += " (HTTP \(code))" } else if let error = backend.lastError { text += " (\(error.prefix(120)))" }
            entries.append(Entry(at: backend.deliveredAt ?? backend.createdAt, app: backend.app, kind: .backend, text: text,
                                 isProblem: backend.state == .failed || backend.state == .refused
                                     || (backend.state == .pending && (backend.lastStatusCode != nil || backend.lastError != nil))))
        }
        for webhook in webhooks {
            var text = "Webhook \(webhook.event) to \(webhook.url): "
            switch webhook.status {
            case .delivered: text += "delivered"
            case .failed: text += "gave up"
            case .pending: text += webhook.attempts == 0 ? "queued" : "still trying"
            }
            text += " after \(webhook.attempts) attempt\(webhook.attempts == 1 ? "" : "s")"
            if let code = webhook.lastStatusCode { text += " (HTTP \(code))" } else if let error = webhook.lastError { text += " (\(error.prefix(120)))" }
            entries.append(Entry(at: webhook.deliveredAt ?? webhook.createdAt, app: nil, kind: .webhook, text: text,
                                 isProblem: webhook.status == .failed
                                     || (webhook.status == .pending && (webhook.lastStatusCode != nil || webhook.lastError != nil))))
        }
        if let finished = run.finishedAt {
            entries.append(Entry(at: finished, app: nil, kind: .finished,
                                 text: "Run \(run.status.rawValue) in \(Self.milliseconds(finished.timeIntervalSince(run.createdAt)))",
                                 isProblem: run.status == .failed))
        }
        let order = Dictionary(uniqueKeysWithValues: Kind.allCases.enumerated().map { ($1, $0) })
        self.entries = entries.enumerated().sorted { left, right in
            if left.element.at != right.element.at { return left.element.at < right.element.at }
            if left.element.kind != right.element.kind { return order[left.element.kind]! < order[right.element.kind]! }
            return left.offset < right.offset
        }.map(\.element)
    }

    /// A time of day with milliseconds, in UTC (`07:00:30.120`).
    package static func clock(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.hour, .minute, .second, .nanosecond], from: date)
        let millis = min(999, (parts.nanosecond ?? 0) / 1_000_000)
        return String(format: "%02d:%02d:%02d.%03d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, millis)
    }

    /// A duration in words: `840 ms`, `12.4 s`.
    package static func milliseconds(_ seconds: TimeInterval) -> String {
        let millis = Int((seconds * 1000).rounded())
        return millis < 10_000 ? "\(millis) ms" : String(format: "%.1f s", seconds)
    }
}

import Foundation

/// The alerts' service: a pass observes the devices, lets ``AlertRules`` decide, applies the
/// changes, then mails the alerts still owed to their site's contacts. The statements are
/// ``DeviceAlertStore``'s.
///
/// Each alert's mail is an outbox row (the alert's own, leased by ``DeliveryOutbox``): the
/// attempt is counted at lease, the contacts are read at send time, an address already mailed is
/// not mailed again, and a crash mid-send leaves the row due once its lease runs out.
package struct DeviceAlerts: Sendable {
    /// Sends one plain-text mail: to, subject, body.
    package typealias Send = @Sendable (_ to: String, _ subject: String, _ body: String) async throws -> Void

    package let database: DatabaseHandle
    package let settings: AlertSettings
    /// The server's public origin, read when it is needed (a server on port 0 learns its own late).
    package let publicURL: @Sendable () -> URL
    package let clock: ServerClock
    /// The server's mail transport; nil: alerts are not mailed (their webhooks still go).
    package let send: Send?

    /// The mail outbox: the alert rows themselves.
    package static let outbox = DeliveryOutbox(table: "device_alerts", pendingStatus: MailStatus.pending.rawValue, lease: 120, maxAttempts: 10)

    /// Where an alert's mail stands (the row's `status`).
    package enum MailStatus: String, Sendable {
        case pending
        /// Every contact was mailed.
        case sent
        /// No contact for its site, or no mail transport: only its webhook told of it.
        case unmailed = "no_contacts"
        /// Every attempt failed.
        case failed
    }

    package init(database: DatabaseHandle, settings: AlertSettings, publicURL: @escaping @Sendable () -> URL, clock: ServerClock, send: Send?) {
        self.database = database
        self.settings = settings
        self.publicURL = publicURL
        self.clock = clock
        self.send = send
    }

    /// What one pass did.
    package struct Pass: Sendable, Equatable {
        package var raised: [DeviceAlert] = []
        package var cleared = 0
        package var mailed = 0
    }

    /// Raises and clears what the rules decide now, then mails what is owed.
    @discardableResult
    package func pass() async throws -> Pass {
        let now = clock.now()
        let observed = try await DeviceAlertStore.observe(unseenBefore: settings.notSeenAfter.map { now.addingTimeInterval(-$0) }, on: database)
        let open = try await DeviceAlertStore.open(on: database)
        let changes = AlertRules.decide(observed: observed, open: open, notSeenAfter: settings.notSeenAfter, now: now)
        var result = Pass()
        if !changes.isEmpty {
            result.raised = try await database.inTransaction { db in
                try await AuditTrail.batch(on: db, now: now) { try await DeviceAlertStore.apply(changes, publicURL: publicURL(), on: db, now: now) }
            }
            result.cleared = changes.clear.count
        }
        result.mailed = try await mailDue()
        return result
    }

    /// Mails the alerts whose mail is due; returns how many alerts were attempted.
    @discardableResult
    package func mailDue(limit: Int = 50) async throws -> Int {
        let now = clock.now()
        let rows = try await DeviceAlertStore.dueMail(at: now, limit: limit, on: database)
        for row in rows {
            try await mail(row.alert, version: row.version, alreadyMailed: row.alreadyMailed)
        }
        return rows.count
    }

    private func mail(_ alert: DeviceAlert, version: Int, alreadyMailed: Set<String>) async throws {
        let now = clock.now()
        let outbox = Self.outbox
        let attempt: Int
        switch try await DeviceAlertStore.leaseMail(alert.id, version: version, at: now, on: database) {
        case .taken: return
        case .exhausted:
            try await DeviceAlertStore.recordMail(alert.id, attempt: outbox.maxAttempts, status: .failed,
                                                  failure: "the last attempt was cut off", nextAttemptAt: now, on: database)
            return
        case .attempt(let n): attempt = n
        }
        let contacts = settings.contacts(site: alert.site)
        guard let send, !contacts.isEmpty else {
            try await DeviceAlertStore.recordMail(alert.id, attempt: attempt, status: .unmailed,
                                                  failure: send == nil ? "no mail transport is configured" : "no contact for its site", nextAttemptAt: now,
                                                  on: database)
            return
        }
        var mailed = alreadyMailed
        for contact in contacts where !mailed.contains(contact) {
            do {
                try await send(contact, AlertText.subject(alert), AlertText.body(alert, publicURL: publicURL()))
            } catch {
                let last = attempt >= outbox.maxAttempts
                try await DeviceAlertStore.recordMail(alert.id, attempt: attempt, status: last ? .failed : .pending,
                                                      failure: "\(contact): \(error)",
                                                      nextAttemptAt: clock.now().addingTimeInterval(outbox.backoff(afterAttempt: attempt)),
                                                      mailedTo: mailed.sorted().joined(separator: " "), on: database)
                return
            }
            mailed.insert(contact)
            // Recorded at once: a crash now must not mail this contact a second time.
            try await DeviceAlertStore.recordMailed(mailed.sorted().joined(separator: " "), of: alert.id, on: database)
        }
        try await DeviceAlertStore.recordMail(alert.id, attempt: attempt, status: .sent, failure: nil, nextAttemptAt: now, on: database)
    }
}

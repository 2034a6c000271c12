import FluentKit
import Foundation
import SQLKit

/// The Shared Signals area's statements, but for the outbox's writes (``SharedSignalsOutbox``):
/// the streams receivers make (`ssf_streams`) and the subjects they remove from them
/// (`ssf_stream_subjects`); what poll and push read and settle of the outbox (`ssf_events`); the
/// SETs received (`ssf_received`) and the revocation bearers used (``TokenReplayCache``); the
/// people and sessions a SET names; and, under their own types' names for the server, the clients'
/// bearer tokens (``ClientCredentialsTokens``), their grants (``SignalsAudience``) and the
/// dashboard's report (``SharedSignalsReport``).
package struct SharedSignalsStore: Sendable {
    package let database: DatabaseHandle

    package init(_ database: DatabaseHandle) {
        self.database = database
    }

    /// Whether the database speaks SQL, as every statement here needs (SQLite and PostgreSQL do).
    package var speaksSQL: Bool { database is any SQLDatabase }

    private var sql: any SQLDatabase {
        get throws {
            return try ServerDatabases.sql(database, code: "storage")
        }
    }

    // MARK: Streams (the transmitter, SSF §8.1)

    /// Reads how many streams `client` holds.
    package func streamCount(client: String) async throws -> Int {
        try await sql.raw("SELECT COUNT(*) AS n FROM ssf_streams WHERE client_id = \(bind: client)").first()?.decode(column: "n", as: Int.self) ?? 0
    }

    /// Reads the streams of `client` (all of them, oldest first, or the one named).
    package func streams(client: String, id: String?) async throws -> [SignalStream] {
        try await SignalStream.find(clientID: client, id: id, on: sql)
    }

    /// Reads a stream by its id alone (push).
    package func stream(id: String) async throws -> SignalStream? {
        try await SignalStream.find(id: id, on: sql)
    }

    /// Writes a new stream whole.
    package func insert(_ stream: SignalStream) async throws {
        try await stream.save(on: sql, inserting: true)
    }

    /// Writes every field of a stream that exists.
    package func update(_ stream: SignalStream) async throws {
        try await stream.save(on: sql, inserting: false)
    }

    /// Deletes a stream with its subjects and the events it still owed, in one transaction.
    package func delete(_ stream: SignalStream) async throws {
        try await database.inTransaction { db in
            guard let sql = db as? any SQLDatabase else { return }
            try await sql.raw("DELETE FROM ssf_events WHERE stream_id = \(bind: stream.id)").run()
            try await sql.raw("DELETE FROM ssf_stream_subjects WHERE stream_id = \(bind: stream.id)").run()
            try await sql.raw("DELETE FROM ssf_streams WHERE id = \(bind: stream.id)").run()
        }
    }

    /// Writes a stream's new status and, when it is disabled, deletes the events it still owed,
    /// in one transaction.
    package func updateStatus(_ changed: SignalStream) async throws {
        let status = changed.status
        try await database.inTransaction { db in
            guard let sql = db as? any SQLDatabase else { return }
            try await changed.save(on: sql, inserting: false)
            if status == .disabled { try await sql.raw("DELETE FROM ssf_events WHERE stream_id = \(bind: changed.id) AND status = 'pending'").run() }
        }
    }

    /// Deletes the stream's entry for `subject` (the canonical JSON of a subject), removed or not.
    package func forgetSubject(_ subject: String, of stream: SignalStream) async throws {
        try await sql.raw("DELETE FROM ssf_stream_subjects WHERE stream_id = \(bind: stream.id) AND subject = \(bind: subject)").run()
    }

    /// Writes `subject` removed from the stream at `now`.
    package func removeSubject(_ subject: String, from stream: SignalStream, at now: Date) async throws {
        try await sql.raw("""
            INSERT INTO ssf_stream_subjects (id, stream_id, subject, removed, created_at)
            VALUES (\(bind: UUID()), \(bind: stream.id), \(bind: subject), \(bind: true), \(bind: now))
            """).run()
    }

    /// Writes the stream (its verification time) and owes it the verification `event`, in one
    /// transaction.
    package func recordVerification(_ verified: SignalStream, event: SecurityEvent, now: Date) async throws {
        try await database.inTransaction { db in
            guard let sql = db as? any SQLDatabase else { return }
            try await verified.save(on: sql, inserting: false)
            try await SharedSignalsOutbox.insert([(verified.id, event)], on: sql, now: now)
        }
    }

    // MARK: The outbox as poll reads it (RFC 8936)

    /// Settles the events of `stream` whose `jti` the receiver acknowledged: delivered at `now`.
    package func acknowledge(_ jtis: [String], stream: String, at now: Date, in outbox: DeliveryOutbox) async throws {
        try await outbox.settle(jtis, by: "jti", where: DeliveryOutbox.Assignment("stream_id", stream), status: SharedSignalsOutbox.State.delivered.rawValue,
                                failure: nil, sql: sql, setting: [.init("delivered_at", now)])
    }

    /// Settles the event of `stream` the receiver refused: failed, with `failure`.
    package func refuse(_ jti: String, stream: String, failure: String, in outbox: DeliveryOutbox) async throws {
        try await outbox.settle([jti], by: "jti", where: DeliveryOutbox.Assignment("stream_id", stream), status: SharedSignalsOutbox.State.failed.rawValue,
                                failure: failure, sql: sql)
    }

    /// Reads the payloads of the oldest events `stream` still owes, at most `maxEvents` + 1 (one
    /// more than a poll answers, to say whether more are waiting).
    package func owedPayloads(stream: String, maxEvents: Int) async throws -> [String] {
        let rows = try await sql.raw("""
            SELECT jti, payload FROM ssf_events WHERE stream_id = \(bind: stream) AND status = 'pending'
            ORDER BY created_at LIMIT \(unsafeRaw: String(maxEvents + 1))
            """).all()
        return try rows.map { try $0.decode(column: "payload", as: String.self) }
    }

    /// Counts an attempt on each event of `stream` a poll hands out.
    package func countHandedOut(_ jtis: [String], stream: String, in outbox: DeliveryOutbox) async throws {
        try await outbox.countHandedOut(jtis, by: "jti", where: DeliveryOutbox.Assignment("stream_id", stream), sql: sql)
    }

    // MARK: The outbox as push reads it (RFC 8935)

    /// An event owed on a push stream, as push reads it.
    package struct DueEvent: Sendable {
        package var id: UUID
        package var stream: String
        package var version: Int
        package var payload: String
    }

    /// Reads the events due at `now` on enabled push streams, oldest first, at most `limit`.
    package func duePushes(at now: Date, limit: Int) async throws -> [DueEvent] {
        let rows = try await sql.raw("""
            SELECT e.id AS id, e.stream_id AS stream_id, e.version AS version, e.payload AS payload FROM ssf_events e
            JOIN ssf_streams s ON s.id = e.stream_id
            WHERE e.status = 'pending' AND e.next_attempt_at <= \(bind: now) AND s.status = 'enabled' AND s.delivery_method = \(bind: SignalStream.Method.push.rawValue)
            ORDER BY e.created_at LIMIT \(unsafeRaw: String(limit))
            """).all()
        return try rows.map {
            DueEvent(id: try $0.decode(column: "id", as: UUID.self), stream: try $0.decode(column: "stream_id", as: String.self),
                     version: try $0.decode(column: "version", as: Int.self), payload: try $0.decode(column: "payload", as: String.self))
        }
    }

    /// Leases event `id` at `version` for one attempt, counting it (``DeliveryOutbox/lease(_:version:at:sql:setting:)``).
    package func lease(_ id: UUID, version: Int, at now: Date, in outbox: DeliveryOutbox) async throws -> DeliveryOutbox.Leased {
        try await outbox.lease(id, version: version, at: now, sql: sql)
    }

    /// Writes an attempt's result on event `id`: its state, status code and failure, when it is
    /// due again, and when it was delivered (nil unless it was).
    package func record(_ id: UUID, attempt: Int, state: SharedSignalsOutbox.State, statusCode: Int?, failure: String?, nextAttemptAt: Date,
                        deliveredAt: Date?, in outbox: DeliveryOutbox) async throws {
        try await outbox.record(id, attempt: attempt, status: state.rawValue, statusCode: statusCode, failure: failure,
                                nextAttemptAt: nextAttemptAt, sql: sql, setting: [.init("delivered_at", deliveredAt)])
    }

    // MARK: SETs received (the receiver)

    /// Reads whether the SET `jti` of `issuer` was received before.
    package func wasReceived(issuer: String, jti: String) async throws -> Bool {
        try await sql.raw("SELECT 1 AS seen FROM ssf_received WHERE issuer = \(bind: issuer) AND jti = \(bind: jti)").first() != nil
    }

    /// Writes the SET received with its outcome and, unless a concurrent delivery wrote it first,
    /// its `audit` entry, in one transaction.
    package func recordReceived(issuer: String, jti: String, type: String, outcome text: String, at now: Date, audit: AuditEvent) async throws {
        try await database.inTransaction { db in
            guard let sql = db as? any SQLDatabase else { return }
            let inserted = try await sql.raw("""
                INSERT INTO ssf_received (id, issuer, jti, event_types, outcome, received_at)
                VALUES (\(bind: UUID()), \(bind: issuer), \(bind: jti), \(bind: type), \(bind: text), \(bind: now))
                ON CONFLICT (issuer, jti) DO NOTHING RETURNING id
                """).first()
            guard inserted != nil else { return }
            try await AuditTrail.append([audit], on: sql, now: now)
        }
    }

    /// Claims a Global Token Revocation bearer's `jti` until `expiresAt` (``TokenReplayCache``):
    /// false when it was claimed before.
    package func claimRevocation(issuer: String, jti: String, expiresAt: Date, now: Date) async throws -> Bool {
        guard let sql = database as? any SQLDatabase else { throw AuditLogError.noHead }
        return try await TokenReplayCache.claim(.globalTokenRevocation, issuer: issuer, jti: jti, expiresAt: expiresAt, on: sql, now: now)
    }

    /// Deletes the claim on a bearer's `jti` (nothing was done: it may come again).
    package func releaseRevocation(issuer: String, jti: String) async throws {
        guard let sql = database as? any SQLDatabase else { return }
        try await TokenReplayCache.release(issuer: issuer, jti: jti, on: sql)
    }

    // MARK: The people a SET names (``PersonHandOver``)

    /// Reads the users a subject names (``PersonHandOver/users(named:trustedIssuers:handoverIssuer:on:)``).
    package func users(named subject: SubjectIdentifier, trustedIssuers: Set<String>, handoverIssuer: String) async throws -> [UUID] {
        try await PersonHandOver.users(named: subject, trustedIssuers: trustedIssuers, handoverIssuer: handoverIssuer, on: sql)
    }

    /// Reads the dashboard's people a subject names (``PersonHandOver/dashboardPeople(named:trustedIssuers:on:)``).
    package func dashboardPeople(named subject: SubjectIdentifier, trustedIssuers: Set<String>) async throws -> [UUID] {
        try await PersonHandOver.dashboardPeople(named: subject, trustedIssuers: trustedIssuers, on: sql)
    }

    /// Reads the devices `users` hold (an open custody).
    package func devicesHeld(by users: [UUID]) async throws -> [UUID] {
        try await sql.raw("SELECT DISTINCT device_id FROM custodies WHERE checked_in_at IS NULL AND user_id IN (\(binds: users))")
            .all().map { try $0.decode(column: "device_id", as: UUID.self) }
    }

    /// Reads the Native SSO device secrets of `users` not revoked.
    package func liveDeviceSecrets(of users: [UUID]) async throws -> [UUID] {
        try await sql.raw("SELECT id FROM device_secrets WHERE user_id IN (\(binds: users)) AND revoked_at IS NULL")
            .all().map { try $0.decode(column: "id", as: UUID.self) }
    }

    /// Reads the sessions of `users` not revoked.
    package func liveSessions(of users: [UUID]) async throws -> [UUID] {
        try await sql.raw("SELECT id FROM user_sessions WHERE user_id IN (\(binds: users)) AND revoked_at IS NULL")
            .all().map { try $0.decode(column: "id", as: UUID.self) }
    }
}

// MARK: - A stream's row

extension SignalStream {
    fileprivate static let columns: SQLQueryString = """
        id, client_id, delivery_method, endpoint_url, authorization_header, events_requested, events_delivered, description, \
        status, reason, last_verification_at, created_at, updated_at
        """

    fileprivate init(row: any SQLRow) throws {
        id = try row.decode(column: "id", as: String.self)
        clientID = try row.decode(column: "client_id", as: String.self)
        method = Method(rawValue: try row.decode(column: "delivery_method", as: String.self)) ?? .poll
        endpointURL = try row.decode(column: "endpoint_url", as: String?.self)
        sealedAuthorization = try row.decode(column: "authorization_header", as: String?.self)
        eventsRequested = try row.decode(column: "events_requested", as: String?.self).map(Self.list)
        eventsDelivered = Self.list(try row.decode(column: "events_delivered", as: String.self))
        description = try row.decode(column: "description", as: String?.self)
        status = Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .disabled
        reason = try row.decode(column: "reason", as: String?.self)
        lastVerificationAt = try row.decode(column: "last_verification_at", as: Date?.self)
        createdAt = try row.decode(column: "created_at", as: Date.self)
        updatedAt = try row.decode(column: "updated_at", as: Date.self)
    }

    /// Writes the stream whole (insert or replace).
    fileprivate func save(on sql: any SQLDatabase, inserting: Bool) async throws {
        if inserting {
            try await sql.raw("""
                INSERT INTO ssf_streams (\(Self.columns)) VALUES (\(bind: id), \(bind: clientID), \(bind: method.rawValue), \(bind: endpointURL),
                \(bind: sealedAuthorization), \(bind: eventsRequested.map(Self.text)), \(bind: Self.text(eventsDelivered)), \(bind: description),
                \(bind: status.rawValue), \(bind: reason), \(bind: lastVerificationAt), \(bind: createdAt), \(bind: updatedAt))
                """).run()
        } else {
            try await sql.raw("""
                UPDATE ssf_streams SET delivery_method = \(bind: method.rawValue), endpoint_url = \(bind: endpointURL),
                authorization_header = \(bind: sealedAuthorization), events_requested = \(bind: eventsRequested.map(Self.text)),
                events_delivered = \(bind: Self.text(eventsDelivered)), description = \(bind: description), status = \(bind: status.rawValue),
                reason = \(bind: reason), last_verification_at = \(bind: lastVerificationAt), updated_at = \(bind: updatedAt)
                WHERE id = \(bind: id)
                """).run()
        }
    }

    /// The streams of `clientID` (all of them, or the one named).
    fileprivate static func find(clientID: String, id: String?, on sql: any SQLDatabase) async throws -> [SignalStream] {
        let rows: [any SQLRow]
        if let id {
            rows = try await sql.raw("SELECT \(Self.columns) FROM ssf_streams WHERE id = \(bind: id) AND client_id = \(bind: clientID)").all()
        } else {
            rows = try await sql.raw("SELECT \(Self.columns) FROM ssf_streams WHERE client_id = \(bind: clientID) ORDER BY created_at").all()
        }
        return try rows.map(SignalStream.init(row:))
    }

    /// A stream by its id alone (the outbox's push and poll).
    fileprivate static func find(id: String, on sql: any SQLDatabase) async throws -> SignalStream? {
        try await sql.raw("SELECT \(Self.columns) FROM ssf_streams WHERE id = \(bind: id)").first().map(SignalStream.init(row:))
    }
}

// MARK: - The people a subject names

extension PersonHandOver {
    /// The dashboard's people a subject names: by email (compared without case), or by the
    /// `iss_sub` their provider gave them when that issuer is trusted.
    static func dashboardPeople(named subject: SubjectIdentifier, trustedIssuers: Set<String>, on sql: any SQLDatabase) async throws -> [UUID] {
        var found: Set<UUID> = []
        for identifier in subject.simpleIdentifiers {
            let rows: [any SQLRow]
            switch identifier {
            case .email(let email) where email.utf8.count <= 320 && !email.containsControlCharacter:
                rows = try await sql.raw("SELECT id FROM people WHERE LOWER(email) = \(bind: email.lowercased())").all()
            case .issuerSubject(let issuer, let sub) where trustedIssuers.contains(issuer) && sub.utf8.count <= 255:
                rows = try await sql.raw("SELECT id FROM people WHERE issuer = \(bind: issuer) AND subject = \(bind: sub)").all()
            default: continue
            }
            for row in rows { found.insert(try row.decode(column: "id", as: UUID.self)) }
        }
        return found.sorted { $0.uuidString < $1.uuidString }
    }

    /// The users a subject names: by email (RFC 9493 §3.2.2, compared without case), by
    /// Handover's own `iss_sub` (its user id), or by a trusted provider's `iss_sub` whose `sub`
    /// is an email address; an alias names whoever any of its identifiers names.
    static func users(named subject: SubjectIdentifier, trustedIssuers: Set<String>, handoverIssuer: String, on sql: any SQLDatabase) async throws -> [UUID] {
        var emails: Set<String> = [], ids: Set<UUID> = []
        for identifier in subject.simpleIdentifiers {
            switch identifier {
            case .email(let email): emails.insert(email.lowercased())
            case .issuerSubject(let issuer, let sub):
                if issuer == handoverIssuer, let id = UUID(uuidString: sub) { ids.insert(id) } else if trustedIssuers.contains(issuer), sub.contains("@") {
                    emails.insert(sub.lowercased())
                }
            default: continue
            }
        }
        emails = emails.filter { $0.utf8.count <= 320 && !$0.containsControlCharacter }
        var found: Set<UUID> = []
        if !emails.isEmpty {
            for row in try await sql.raw("SELECT id FROM users WHERE LOWER(email) IN (\(binds: Array(emails)))").all() {
                found.insert(try row.decode(column: "id", as: UUID.self))
            }
        }
        if !ids.isEmpty {
            for row in try await sql.raw("SELECT id FROM users WHERE id IN (\(binds: Array(ids)))").all() {
                found.insert(try row.decode(column: "id", as: UUID.self))
            }
        }
        return Array(found)
    }
}

// MARK: - The clients' bearer tokens

extension ClientCredentialsTokens {
    /// A new token for `client`.
    package static func issue(client: String, on sql: any SQLDatabase, now: Date) async throws -> String {
        let token = prefix + BearerSecret.random()
        try await sql.raw("""
            INSERT INTO oauth_client_tokens (id, token_hash, client_id, expires_at, created_at)
            VALUES (\(bind: UUID()), \(bind: BearerSecret.digest(token)), \(bind: client), \(bind: now.addingTimeInterval(lifetime)), \(bind: now))
            """).run()
        // Expired ones go as new ones come: the table holds an hour of tokens.
        try await sql.raw("DELETE FROM oauth_client_tokens WHERE expires_at < \(bind: now.addingTimeInterval(-60))").run()
        return token
    }

    /// The client a live token belongs to, or nil (unknown, expired, or its client gone).
    package static func client(of token: String, on sql: any SQLDatabase, now: Date) async throws -> String? {
        guard token.hasPrefix(prefix), token.utf8.count <= 100, !token.containsControlCharacter else { return nil }
        return try await sql.raw("""
            SELECT t.client_id AS client_id FROM oauth_client_tokens t JOIN oauth_clients c ON c.client_id = t.client_id
            WHERE t.token_hash = \(bind: BearerSecret.digest(token)) AND t.expires_at > \(bind: now)
            """).first()?.decode(column: "client_id", as: String.self)
    }
}

// MARK: - A client's grant

extension SignalsAudience {
    /// Sets `clientID`'s grant; returns its audience now.
    ///
    /// - Throws: ``DomainError`` (404) when no client has that id.
    package static func set(_ grant: Grant, for clientID: String, on sql: any SQLDatabase) async throws -> SignalsAudience {
        guard clientID.count <= 255, !clientID.containsControlCharacter,
              let row = try await sql.raw("""
                  UPDATE oauth_clients SET signals_subjects = \(bind: grant.rawValue) WHERE client_id = \(bind: clientID) RETURNING software_id
                  """).first() else {
            throw DomainError(.notFound, code: "not_found", reason: "No registered client has the client_id '\(clientID.prefix(100))' (POST /oauth/register).")
        }
        return of(clientID: clientID, softwareID: try row.decode(column: "software_id", as: String?.self), grant: grant.rawValue)
    }
}

// MARK: - The dashboard's report

extension SharedSignalsReport {
    /// Every stream, oldest first, with its outbox counted in one read.
    package static func streams(on sql: any SQLDatabase) async throws -> [Stream] {
        try await sql.raw("""
            SELECT s.id AS id, COALESCE(c.client_name, s.client_id) AS receiver, s.delivery_method AS method, s.status AS status,
              (SELECT COUNT(*) FROM ssf_events e WHERE e.stream_id = s.id AND e.status = 'delivered') AS delivered,
              (SELECT COUNT(*) FROM ssf_events e WHERE e.stream_id = s.id AND e.status = 'pending') AS owed,
              (SELECT COUNT(*) FROM ssf_events e WHERE e.stream_id = s.id AND e.status = 'failed') AS failed,
              (SELECT e.last_error FROM ssf_events e WHERE e.stream_id = s.id AND e.last_error IS NOT NULL
               ORDER BY e.next_attempt_at DESC LIMIT 1) AS last_error
            FROM ssf_streams s LEFT JOIN oauth_clients c ON c.client_id = s.client_id ORDER BY s.created_at
            """).all().map { row in
            Stream(id: try row.decode(column: "id", as: String.self), receiver: try row.decode(column: "receiver", as: String.self),
                   method: SignalStream.Method(rawValue: try row.decode(column: "method", as: String.self)) ?? .poll,
                   status: SignalStream.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .disabled,
                   delivered: try row.decode(column: "delivered", as: Int.self), owed: try row.decode(column: "owed", as: Int.self),
                   failed: try row.decode(column: "failed", as: Int.self), lastError: try row.decode(column: "last_error", as: String?.self))
        }
    }

    /// The latest SETs received, newest first.
    package static func received(limit: Int = 20, on sql: any SQLDatabase) async throws -> [Received] {
        try await sql.raw("""
            SELECT jti, event_types, outcome, received_at FROM ssf_received ORDER BY received_at DESC LIMIT \(unsafeRaw: String(limit))
            """).all().map { row in
            Received(jti: try row.decode(column: "jti", as: String.self), event: try row.decode(column: "event_types", as: String.self),
                     outcome: try row.decode(column: "outcome", as: String.self), at: try row.decode(column: "received_at", as: Date.self))
        }
    }
}

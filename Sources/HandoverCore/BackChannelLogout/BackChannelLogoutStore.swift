import FluentKit
import Foundation
import HandoverProtocol
import HandoverSchema
import SQLKit

/// The back-channel logout area's statements: the logout tokens owed to backends
/// (`backchannel_logout_deliveries`), the registry rows that say where they go, and the reads that
/// settle a run's backend-only items.
package struct BackChannelLogoutStore: Sendable {
    package let database: DatabaseHandle

    package init(_ database: DatabaseHandle) { self.database = database }

    // MARK: Recipients

    /// The registered apps that have a `backchannelLogoutURI`.
    package func appsWithBackChannelURI() async throws -> [RegisteredApp] {
        try await RegisteredApp.query(on: database).filter(\.$backchannelLogoutURI != nil).all()
    }

    /// Every fleet backend (an OAuth client that is not an app) with a `backchannel_logout_uri`.
    package func fleetBackends() async throws -> [OAuthClient] {
        try await OAuthClient.query(on: database).filter(\.$softwareID == nil).filter(\.$backchannelLogoutURI != nil).all()
    }

    /// The fleet backend `clientID`, if it has a `backchannel_logout_uri`.
    package func fleetBackend(clientID: String) async throws -> OAuthClient? {
        try await OAuthClient.query(on: database).filter(\.$clientID == clientID).filter(\.$softwareID == nil)
            .filter(\.$backchannelLogoutURI != nil).first()
    }

    // MARK: Deliveries

    /// How many deliveries are owed (or were made) to `clientID` for session `sessionID`.
    package func deliveryCount(clientID: String, sessionID: String) async throws -> Int {
        try await BackChannelLogoutDelivery.query(on: database)
            .filter(\.$clientID == clientID).filter(\.$sessionID == sessionID).count()
    }

    /// Inserts a delivery.
    package func create(_ delivery: BackChannelLogoutDelivery) async throws {
        try await delivery.create(on: database)
    }

    /// The pending deliveries due at `now`, but those to the clients in `full`, soonest first (at
    /// most `limit`).
    package func due(at now: Date, exceptClients full: Set<String>, limit: Int) async throws -> [BackChannelLogoutDelivery] {
        var query = BackChannelLogoutDelivery.query(on: database).filter(\.$status == .pending).filter(\.$nextAttemptAt <= now)
        if !full.isEmpty { query = query.filter(\.$clientID !~ Array(full)) }
        return try await query.sort(\.$nextAttemptAt).limit(limit).all()
    }

    /// The outbox's lease and record on this database; nil when it does not speak SQL.
    package func leases(_ outbox: DeliveryOutbox) -> Leases? {
        guard let sql = database as? any SQLDatabase else { return nil }
        return Leases(outbox: outbox, sql: sql)
    }

    /// Leases and records deliveries through the ``DeliveryOutbox``, on an SQL database.
    package struct Leases: Sendable {
        let outbox: DeliveryOutbox
        let sql: any SQLDatabase

        /// Leases delivery `id` at `version` and counts its attempt (``DeliveryOutbox/lease(_:version:at:sql:setting:)``).
        package func lease(_ id: UUID, version: Int, at now: Date) async throws -> DeliveryOutbox.Leased {
            try await outbox.lease(id, version: version, at: now, sql: sql)
        }

        /// Records an attempt of delivery `id` (``DeliveryOutbox/record(_:attempt:status:statusCode:failure:nextAttemptAt:sql:setting:)``).
        package func record(_ id: UUID, attempt: Int, status: String, statusCode: Int?, failure: String?, nextAttemptAt: Date,
                            setting extra: [DeliveryOutbox.Assignment]) async throws {
            try await outbox.record(id, attempt: attempt, status: status, statusCode: statusCode, failure: failure,
                                    nextAttemptAt: nextAttemptAt, sql: sql, setting: extra)
        }
    }

    // MARK: Runs

    /// Whether none of `runs` owed a backend a token: one indexed probe. False (not known) on a
    /// database that does not speak SQL.
    package func noneOwed(runs: [UUID]) async throws -> Bool {
        guard let sql = database as? any SQLDatabase else { return false }
        return try await sql.raw("SELECT 1 AS owed FROM backchannel_logout_deliveries WHERE run_id IN (\(binds: runs)) LIMIT 1").first() == nil
    }

    /// The deliveries owed for `runs`.
    package func deliveries(ofRuns runs: [UUID]) async throws -> [BackChannelLogoutDelivery] {
        try await BackChannelLogoutDelivery.query(on: database).filter(\.$runID ~~ runs).all()
    }

    /// The deliveries owed for run `runID`.
    package func deliveries(ofRun runID: UUID) async throws -> [BackChannelLogoutDelivery] {
        try await BackChannelLogoutDelivery.query(on: database).filter(\.$runID == runID).all()
    }

    /// The pending items of run `runID`.
    package func pendingItems(ofRun runID: UUID) async throws -> [LogoutItem] {
        try await LogoutItem.query(on: database).filter(\.$runID == runID).filter(\.$status == .pending).all()
    }

    /// The registered apps with these ids (those that still exist).
    package func apps(ids: Set<UUID>) async throws -> [RegisteredApp] {
        try await RegisteredApp.query(on: database).filter(\.$id ~~ ids).all()
    }

    /// The run items' conditional transitions on this database; nil when it does not speak SQL.
    package func itemTransitions() -> LogoutItemTransitions? {
        guard let sql = database as? any SQLDatabase else { return nil }
        return LogoutItemTransitions(sql: sql)
    }
}

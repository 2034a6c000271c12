import Foundation
import HandoverProtocol
import HandoverSchema

/// Writes the logout tokens owed for ended sessions, inside the transaction that ends them: every
/// client that holds a session under that `sid` is owed one.
///
/// - the app the session was issued to (its bundle id is the session's client), when the registry
///   gives it a `backchannelLogoutURI`;
/// - every fleet backend (an OAuth client that is not an app) with a `backchannel_logout_uri`.
///
/// A row already owed for the same client and session is kept, not duplicated. Every token
/// carries both `sid` and `sub`, which satisfies a client whether or not it requires `sid`.
package enum BackChannelLogoutOutbox {
    /// A backend to tell.
    package struct Recipient: Equatable {
        package var clientID: String
        package var uri: String
        package var sessionRequired: Bool
    }

    /// The recipients for a session issued to `clientID` (nil: to no app).
    package static func recipients(clientID: String?, on db: DatabaseHandle) async throws -> [Recipient] {
        let store = BackChannelLogoutStore(db)
        var found: [Recipient] = []
        if let clientID, !clientID.isEmpty {
            for app in try await store.appsWithBackChannelURI() {
                guard let uri = app.backchannelLogoutURI, RegisteredClients.clientIDs(of: app).contains(clientID) else { continue }
                found.append(Recipient(clientID: clientID, uri: uri, sessionRequired: app.backchannelLogoutSessionRequired ?? true))
            }
        }
        for client in try await store.fleetBackends() {
            guard let uri = client.backchannelLogoutURI else { continue }
            found.append(Recipient(clientID: client.clientID, uri: uri, sessionRequired: client.backchannelLogoutSessionRequired))
        }
        var unique: [Recipient] = []
        for recipient in found where !unique.contains(where: { $0.clientID == recipient.clientID }) { unique.append(recipient) }
        return unique
    }

    /// Where `clientID` takes its logout tokens now, as the registry says at send time: the app
    /// whose bundle id it is, else the fleet backend of that id; nil when neither has a
    /// `backchannel_logout_uri` any more.
    package static func currentURI(clientID: String, on db: DatabaseHandle) async throws -> String? {
        let store = BackChannelLogoutStore(db)
        for app in try await store.appsWithBackChannelURI()
        where RegisteredClients.clientIDs(of: app).contains(clientID) {
            if let uri = app.backchannelLogoutURI { return uri }
        }
        return try await store.fleetBackend(clientID: clientID)?.backchannelLogoutURI
    }

    /// Queues one delivery per recipient of each session; returns how many were queued.
    @discardableResult
    package static func enqueue(sessions: [UserSession], reason: String, deviceID: UUID?, runID: UUID? = nil, on db: DatabaseHandle, now: Date) async throws -> Int {
        let store = BackChannelLogoutStore(db)
        var queued = 0
        var byClient: [String?: [Recipient]] = [:]
        for session in sessions {
            guard let sessionID = session.id?.uuidString else { continue }
            let recipients: [Recipient]
            if let known = byClient[session.clientID] { recipients = known } else {
                recipients = try await Self.recipients(clientID: session.clientID, on: db)
                byClient[session.clientID] = recipients
            }
            for recipient in recipients {
                let owed = try await store.deliveryCount(clientID: recipient.clientID, sessionID: sessionID)
                guard owed == 0 else { continue }
                let delivery = BackChannelLogoutDelivery()
                delivery.clientID = recipient.clientID
                delivery.sessionID = sessionID
                delivery.subject = session.userID.uuidString
                delivery.uri = recipient.uri
                delivery.deviceID = deviceID
                delivery.runID = runID
                delivery.reason = reason
                delivery.status = .pending
                delivery.attempts = 0
                delivery.nextAttemptAt = now
                delivery.createdAt = now
                delivery.version = 0
                try await store.create(delivery)
                queued += 1
            }
        }
        return queued
    }
}

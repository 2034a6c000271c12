import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema
import Vapor

/// An app as the API shows it.
struct AppView: Content, Hashable {
    var id: UUID
    var name: String
    var role: String
    var appIDs: [String]
    var logoutAction: String?
    var logoutMethod: LogoutMethod?
    /// x-callback apps: iOS asks the person before it opens a custom scheme, so a hand-over
    /// needs a tap for each.
    var opensWithPrompt: Bool
    var paths: [String]
    var allowedCallbackHosts: [String]
    var deadlineSeconds: Int
    var maxReissues: Int
    var androidPackage: String?
    var androidFingerprints: [String]
    var backchannelLogoutURI: String?
    var backchannelLogoutSessionRequired: Bool?
    var createdAt: Date

    init(_ app: RegisteredApp) throws {
        id = try app.storedID
        name = app.name
        role = app.role.rawValue
        appIDs = app.appIDs
        logoutAction = app.logoutAction
        logoutMethod = app.role == .target ? (app.logoutMethod ?? .ulc) : nil
        opensWithPrompt = logoutMethod == .xCallback
        paths = app.paths
        allowedCallbackHosts = app.allowedCallbackHosts
        deadlineSeconds = app.deadlineSeconds
        maxReissues = app.maxReissues
        androidPackage = app.androidPackage
        androidFingerprints = app.androidFingerprints
        backchannelLogoutURI = app.backchannelLogoutURI
        backchannelLogoutSessionRequired = app.backchannelLogoutSessionRequired
        createdAt = app.createdAt
    }
}

struct DeviceView: Content, Hashable {
    var id: UUID
    var name: String
    var status: DeviceStatus
    var statusReason: String?
    var statusChangedAt: Date?
    var lastCompletedAt: Date?
    var serialNumber: String?
    var mdmDeviceID: String?
    var site: String?
    var createdAt: Date
    var lastRunID: UUID?

    init(_ device: Device) throws {
        id = try device.storedID
        name = device.name
        serialNumber = device.serialNumber
        mdmDeviceID = device.mdmDeviceID
        site = device.site
        status = device.status
        statusReason = device.statusReason
        statusChangedAt = device.statusChangedAt
        lastCompletedAt = device.lastCompletedAt
        createdAt = device.createdAt
        lastRunID = device.lastRunID
    }
}

/// One step of a device's life cycle (`GET /api/v1/devices/{id}/history`).
struct DeviceHistoryView: Content, Hashable {
    var id: UUID
    var event: DeviceHistoryEvent
    var fromStatus: DeviceStatus
    var toStatus: DeviceStatus
    var runID: UUID?
    var reason: String?
    var note: String?
    var actor: String
    var createdAt: Date

    init(_ entry: DeviceHistoryEntry) throws {
        id = try entry.storedID
        event = entry.event
        fromStatus = entry.fromStatus
        toStatus = entry.toStatus
        runID = entry.runID
        reason = entry.reason
        note = entry.note
        actor = entry.actor
        createdAt = entry.createdAt
    }
}

struct WebhookView: Content, Hashable {
    var id: UUID
    var url: String
    var events: [String]
    var createdAt: Date

    init(_ hook: Webhook) throws {
        id = try hook.storedID
        url = hook.url
        events = hook.events
        createdAt = hook.createdAt
    }
}

struct DeliveryView: Content, Hashable {
    var id: UUID
    var event: String
    var status: WebhookDeliveryStatus
    var attempts: Int
    var nextAttemptAt: Date?
    var lastStatusCode: Int?
    var lastError: String?
    var createdAt: Date
    var deliveredAt: Date?

    init(_ delivery: WebhookDelivery) throws {
        id = try delivery.storedID
        event = delivery.event
        status = delivery.status
        attempts = delivery.attempts
        nextAttemptAt = delivery.status == .pending ? delivery.nextAttemptAt : nil
        lastStatusCode = delivery.lastStatusCode
        lastError = delivery.lastError
        createdAt = delivery.createdAt
        deliveredAt = delivery.deliveredAt
    }
}


/// An API key as `GET /api/v1/keys` lists it: never the key itself.
struct APIKeyView: Content, Hashable {
    var id: UUID
    var name: String
    var scope: APIKeyScope
    var prefix: String
    var deviceID: UUID?
    var site: String?
    var createdAt: Date
    var lastUsedAt: Date?
    var expiresAt: Date?
    var revokedAt: Date?

    init(_ key: APIKey) throws {
        id = try key.storedID
        name = key.name
        scope = APIKeyScope(rawValue: key.scope) ?? .device
        prefix = key.keyPrefix
        deviceID = key.deviceID
        site = key.site
        createdAt = key.createdAt
        lastUsedAt = key.lastUsedAt
        expiresAt = key.expiresAt
        revokedAt = key.revokedAt
    }
}

/// One custody as `GET /api/v1/custody` reports it.
struct CustodyRecordView: Content, Hashable {
    var id: UUID
    var deviceID: UUID
    var deviceName: String
    var site: String?
    var userID: UUID
    var personName: String?
    var personEmail: String?
    var checkedOutBy: Custody.CheckOut
    var checkedOutAt: Date
    var checkedInAt: Date?
    var runID: UUID?
    var runStatus: LogoutRunState?
    var appsLeftSignedIn: [String]
    var endedWithoutRun: String?

    init(_ row: CustodyReport.Row) {
        id = row.id
        deviceID = row.deviceID
        deviceName = row.deviceName
        site = row.site
        userID = row.userID
        personName = row.personName
        personEmail = row.personEmail
        checkedOutBy = Custody.CheckOut(rawValue: row.checkedOutBy) ?? .emailLink
        checkedOutAt = row.checkedOutAt
        checkedInAt = row.checkedInAt
        runID = row.runID
        runStatus = row.runStatus
        appsLeftSignedIn = row.appsLeftSignedIn
        endedWithoutRun = row.endedWithoutRun
    }
}

import Fluent
import Foundation
import HandoverCore
import NIOConcurrencyHelpers
import OutOfBand
import QRCode
import Vapor

/// The out-of-band operations API (admin keys): create, read, follow, cancel, QR codes, and the
/// tenant's callback allowlist.
struct OperationRoutes: RouteCollection {
    let context: ServerContext

    func boot(routes: RoutesBuilder) throws {
        let admin = routes.grouped(RequireScope(scopes: [.admin]))
        admin.get("operations", "callback-allowlist", use: getAllowlist)
        admin.put("operations", "callback-allowlist", use: putAllowlist)
        admin.post("operations", use: create)
        admin.get("operations", ":operationID", use: get)
        admin.get("operations", ":operationID", "events", use: events)
        admin.post("operations", ":operationID", "cancel", use: cancel)
        admin.get("operations", ":operationID", "qr.svg", use: qrSVG)
        admin.get("operations", ":operationID", "qr.png", use: qrPNG)
        admin.get("enrolled-devices", use: listDevices)
        admin.get("oob-locks", use: listLocks)
        admin.delete("oob-locks", ":user", use: clearLock)
    }

    /// A user whose out-of-band sign-in is locked after a "this was not me".
    struct LockView: Content {
        var user: String
        var operationID: UUID
        var lockedAt: Date
    }

    /// `GET /api/v1/oob-locks`: the locked users, most recent first.
    @Sendable func listLocks(_ request: Request) async throws -> [LockView] {
        try await OutOfBandLock.query(on: request.db).sort(\.$lockedAt, .descending).limit(1000).all()
            .map { LockView(user: try $0.requireID(), operationID: $0.operationID, lockedAt: $0.lockedAt) }
    }

    /// `DELETE /api/v1/oob-locks/{user}`: lets the user sign in out-of-band again.
    @Sendable func clearLock(_ request: Request) async throws -> HTTPStatus {
        guard let user = request.parameters.get("user"), let lock = try await OutOfBandLock.find(user, on: request.db) else {
            throw APIError(.notFound, code: "not_found", reason: "Out-of-band sign-in is not locked for that user.")
        }
        try await lock.delete(on: request.db)
        return .noContent
    }

    @Sendable func getAllowlist(_ request: Request) async throws -> CallbackAllowlistView {
        try await context.operations(request.db).allowlist()
    }

    @Sendable func putAllowlist(_ request: Request) async throws -> CallbackAllowlistView {
        let input = try request.content.decode(CallbackAllowlistInput.self, using: JSONDecoder.api).checked()
        return try await context.operations(request.db).setAllowlist(hosts: input.hosts, schemes: input.schemes)
    }

    @Sendable func create(_ request: Request) async throws -> Response {
        let operations = context.operations(request.db)
        let input = try request.content.decode(OperationInput.self, using: JSONDecoder.api)
            .checked(allowlist: try await operations.callbackPolicy())
        let view = try await operations.create(input)
        return try await view.encodeResponse(status: .created, for: request)
    }

    @Sendable func get(_ request: Request) async throws -> OperationView {
        try await context.operations(request.db).view(try Self.operationID(request))
    }

    @Sendable func cancel(_ request: Request) async throws -> OperationView {
        try await context.operations(request.db).cancel(try Self.operationID(request))
    }

    /// `text/event-stream`: an `event: operation` with the operation's JSON now and after every
    /// change, until it reaches a final status.
    @Sendable func events(_ request: Request) async throws -> Response {
        let id = try Self.operationID(request)
        let operations = context.operations(request.db)
        let first = try await operations.view(id)
        return Self.stream(first, operations: operations, hub: context.hub)
    }

    /// The event stream of one operation (the API's and the sign-in page's).
    static func stream(_ first: OperationView, operations: OperationService, hub: RunEventHub) -> Response {
        let changes = hub.subscribe(to: first.id)
        let sent = NIOLockedValueBox(false)
        return EventStream.response(changes: changes) {
            let view = sent.withLockedValue { $0 } ? try await operations.view(first.id) : first
            sent.withLockedValue { $0 = true }
            let json = String(decoding: try JSONEncoder.api.encode(view), as: UTF8.self)
            return EventStream.Event(name: "operation", data: json, isFinal: OperationStatus(rawValue: view.status)?.isFinal ?? true)
        }
    }

    @Sendable func qrSVG(_ request: Request) async throws -> Response {
        let code = try await qrCode(request)
        let response = Response(status: .ok, body: .init(string: code.svg(moduleSize: 6, quietZone: 4)))
        response.headers.replaceOrAdd(name: .contentType, value: "image/svg+xml")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }

    @Sendable func qrPNG(_ request: Request) async throws -> Response {
        let code = try await qrCode(request)
        let response = Response(status: .ok, body: .init(data: code.png(scale: 6, quietZone: 4)))
        response.headers.replaceOrAdd(name: .contentType, value: "image/png")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }

    /// The QR code of an operation that still takes an answer: its universal link.
    private func qrCode(_ request: Request) async throws -> QRCode {
        let operations = context.operations(request.db)
        let operation = try await operations.current(try Self.operationID(request))
        guard OperationStatus(rawValue: operation.status)?.acceptsAnswer == true else {
            throw APIError(.gone, code: "operation_ended", reason: "The operation is \(operation.status); its QR code is no longer shown.")
        }
        return try Self.qrCode(for: try await operations.link(of: operation).text)
    }

    static func qrCode(for text: String) throws -> QRCode {
        do { return try QRCode(encoding: text, correction: .medium) } catch {
            throw APIError(.internalServerError, code: "qr_failed", reason: "The link does not fit a QR code: \(error)")
        }
    }

    /// `GET /api/v1/enrolled-devices?user=…`: the phones enrolled for a user (or all, newest first).
    @Sendable func listDevices(_ request: Request) async throws -> [EnrolledDeviceView] {
        var query = EnrolledDevice.query(on: request.db)
        if let user = try? request.query.get(String.self, at: "user") {
            // No handle has control characters (operations refuse them), and PostgreSQL refuses NUL in text.
            guard !user.containsControlCharacter else { return [] }
            query = query.filter(\.$user == user)
        }
        return try await query.sort(\.$enrolledAt, .descending).limit(500).all().map(EnrolledDeviceView.init)
    }

    static func operationID(_ request: Request) throws -> UUID {
        guard let id = request.parameters.get("operationID", as: UUID.self) else {
            throw APIError(.badRequest, code: "invalid_id", reason: "The operation id must be a UUID.")
        }
        return id
    }
}

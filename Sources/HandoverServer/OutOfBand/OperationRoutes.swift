import Foundation
import HandoverCore
import HandoverSchema
import NIOConcurrencyHelpers
import OutOfBand
import QRCode
import Vapor

/// The out-of-band operation routes that are not JSON (admin keys): an operation followed live
/// over server-sent events, and its QR code as SVG or PNG. The JSON operations are generated
/// (``APIHandler``).
struct OperationRoutes: RouteCollection {
    let hub: RunEventHub
    let operations: OperationService.OnDatabase
    let databases: ServerDatabases
    /// The open streams, which end with the key that opened them.
    let streams: OpenStreams
    let clock: ServerClock

    func boot(routes: RoutesBuilder) throws {
        // Following an operation is reading; its QR code carries the link that answers it.
        routes.grouped(RequireScope(role: .viewer)).get("operations", ":operationID", "events", use: events)
        let operators = routes.grouped(RequireScope(role: .operator))
        operators.get("operations", ":operationID", "qr.svg", use: qrSVG)
        operators.get("operations", ":operationID", "qr.png", use: qrPNG)
    }

    /// `text/event-stream`: an `event: operation` with the operation's JSON now and after every
    /// change, until it reaches a final status.
    @Sendable func events(_ request: Request) async throws -> Response {
        let id = try Self.operationID(request)
        let operations = operations(databases.primary)
        let first = try await operations.view(id)
        let principal = try request.principal
        let lease = streams.lease(forKey: principal.keyID, expiresAt: principal.expiresAt, clock: clock, on: databases.reads)
        return Self.stream(first, operations: operations, hub: hub, lease: lease)
    }

    /// The event stream of one operation (the API's, which ends with its key, and the sign-in
    /// page's, which has none).
    static func stream(_ first: OperationView, operations: OperationService, hub: RunEventHub, lease: StreamLease?) -> Response {
        let changes = hub.subscribe(to: first.id)
        let sent = NIOLockedValueBox(false)
        return EventStream.response(changes: changes, lease: lease) {
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
        let operations = operations(databases.primary)
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

    static func operationID(_ request: Request) throws -> UUID {
        guard let id = request.parameters.get("operationID", as: UUID.self) else {
            throw APIError(.badRequest, code: "invalid_id", reason: "The operation id must be a UUID.")
        }
        return id
    }
}

import Fluent
import Foundation
import HandoverCore
import Vapor

/// Out-of-band operations (admin keys): create, read, cancel; the tenant's callback allowlist;
/// the phones enrolled for them, and the users locked after a "this was not me". (Following an
/// operation live and its QR codes are not JSON: ``OperationRoutes``.)
extension APIHandler {
    func createOperation(_ input: Operations.CreateOperation.Input) async throws -> Operations.CreateOperation.Output {
        let body = switch input.body { case .json(let body): body }
        let operations = operations(request.db)
        let view = try await operations.create(try body.checked(allowlist: try await operations.callbackPolicy()))
        return .created(.init(body: .json(view)))
    }

    func getOperation(_ input: Operations.GetOperation.Input) async throws -> Operations.GetOperation.Output {
        let id = try id(input.path.operationID, of: "operation")
        return .ok(.init(body: .json(try await operations(request.db).view(id))))
    }

    func cancelOperation(_ input: Operations.CancelOperation.Input) async throws -> Operations.CancelOperation.Output {
        let id = try id(input.path.operationID, of: "operation")
        return .ok(.init(body: .json(try await operations(request.db).cancel(id))))
    }

    func getCallbackAllowlist(_ input: Operations.GetCallbackAllowlist.Input) async throws -> Operations.GetCallbackAllowlist.Output {
        .ok(.init(body: .json(try await operations(request.db).allowlist())))
    }

    func setCallbackAllowlist(_ input: Operations.SetCallbackAllowlist.Input) async throws -> Operations.SetCallbackAllowlist.Output {
        let update = switch input.body { case .json(let body): try body.checked() }
        let view = try await operations(request.db).setAllowlist(hosts: update.hosts, schemes: update.schemes)
        return .ok(.init(body: .json(view)))
    }

    /// The locked users, most recent first.
    func listOutOfBandLocks(_ input: Operations.ListOutOfBandLocks.Input) async throws -> Operations.ListOutOfBandLocks.Output {
        let locks = try await OutOfBandLock.query(on: request.db).sort(\.$lockedAt, .descending).limit(1000).all()
        return .ok(.init(body: .json(try locks.map { OutOfBandLockView(user: try $0.requireID(), operationID: $0.operationID, lockedAt: $0.lockedAt) })))
    }

    /// Lets the user sign in out-of-band again.
    func clearOutOfBandLock(_ input: Operations.ClearOutOfBandLock.Input) async throws -> Operations.ClearOutOfBandLock.Output {
        let database = request.db
        guard let lock = try await OutOfBandLock.find(input.path.user, on: database) else {
            throw APIError(.notFound, code: "not_found", reason: "Out-of-band sign-in is not locked for that user.")
        }
        try await lock.delete(on: database)
        return .noContent(.init())
    }

    /// The phones enrolled for a user (or all), newest first.
    func listEnrolledDevices(_ input: Operations.ListEnrolledDevices.Input) async throws -> Operations.ListEnrolledDevices.Output {
        var query = EnrolledDevice.query(on: request.db)
        if let user = input.query.user {
            // No handle has control characters (operations refuse them), and PostgreSQL refuses NUL in text.
            guard !user.containsControlCharacter else { return .ok(.init(body: .json([]))) }
            query = query.filter(\.$user == user)
        }
        return .ok(.init(body: .json(try await query.sort(\.$enrolledAt, .descending).limit(500).all().map(EnrolledDeviceView.init))))
    }
}

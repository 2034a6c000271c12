import Foundation
import HandoverCore
import HandoverSchema
import Vapor

/// Out-of-band operations (admin keys): create, read, cancel; the tenant's callback allowlist;
/// the phones enrolled for them, and the users locked after a "this was not me". (Following an
/// operation live and its QR codes are not JSON: ``OperationRoutes``.)
extension APIHandler {
    func createOperation(_ input: Operations.CreateOperation.Input) async throws -> Operations.CreateOperation.Output {
        let body = switch input.body { case .json(let body): body }
        let operations = operations(databases.primary)
        let view = try await operations.create(try body.checked(allowlist: try await operations.callbackPolicy()))
        return .created(.init(body: .json(view)))
    }

    func getOperation(_ input: Operations.GetOperation.Input) async throws -> Operations.GetOperation.Output {
        let id = try id(input.path.operationID, of: "operation")
        return .ok(.init(body: .json(try await operations(databases.primary).view(id))))
    }

    func cancelOperation(_ input: Operations.CancelOperation.Input) async throws -> Operations.CancelOperation.Output {
        let id = try id(input.path.operationID, of: "operation")
        return .ok(.init(body: .json(try await operations(databases.primary).cancel(id))))
    }

    func getCallbackAllowlist(_ input: Operations.GetCallbackAllowlist.Input) async throws -> Operations.GetCallbackAllowlist.Output {
        .ok(.init(body: .json(try await operations(databases.primary).allowlist())))
    }

    func setCallbackAllowlist(_ input: Operations.SetCallbackAllowlist.Input) async throws -> Operations.SetCallbackAllowlist.Output {
        let update = switch input.body { case .json(let body): try body.checked() }
        let view = try await operations(databases.primary).setAllowlist(hosts: update.hosts, schemes: update.schemes)
        return .ok(.init(body: .json(view)))
    }

    /// The locked users, most recent first.
    func listOutOfBandLocks(_ input: Operations.ListOutOfBandLocks.Input) async throws -> Operations.ListOutOfBandLocks.Output {
        let locks = try await operations(databases.primary).locks()
        return .ok(.init(body: .json(try locks.map { OutOfBandLockView(user: try $0.user, operationID: $0.operationID, lockedAt: $0.lockedAt) })))
    }

    /// Lets the user sign in out-of-band again.
    func clearOutOfBandLock(_ input: Operations.ClearOutOfBandLock.Input) async throws -> Operations.ClearOutOfBandLock.Output {
        guard try await operations(databases.primary).unlock(input.path.user) else {
            throw APIError(.notFound, code: "not_found", reason: "Out-of-band sign-in is not locked for that user.")
        }
        return .noContent(.init())
    }

    /// The phones enrolled for a user (or all), newest first.
    func listEnrolledDevices(_ input: Operations.ListEnrolledDevices.Input) async throws -> Operations.ListEnrolledDevices.Output {
        // No handle has control characters (operations refuse them), and PostgreSQL refuses NUL in text.
        if let user = input.query.user, user.containsControlCharacter { return .ok(.init(body: .json([]))) }
        let phones = try await operations(databases.primary).enrolledPhones(of: input.query.user)
        return .ok(.init(body: .json(try phones.map(EnrolledDeviceView.init))))
    }
}

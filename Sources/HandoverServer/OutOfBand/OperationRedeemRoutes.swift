import Foundation
import HandoverCore
import HandoverSchema
import NIOFoundationCompat
import OutOfBand
import HandoverPages
import Vapor

/// What phones reach without an API key: the redeem URL (the signature is the credential),
/// push-token registration (signed too), and the page a universal link shows in a browser.
struct OperationRedeemRoutes: RouteCollection {
    let clock: ServerClock
    let operations: OperationService.OnDatabase
    let databases: ServerDatabases

    func boot(routes: RoutesBuilder) throws {
        let oob = routes.grouped("oob")
        oob.on(.POST, "operations", ":operationID", "redeem", body: .collect(maxSize: "64kb"), use: redeem)
        oob.on(.PUT, "devices", ":deviceID", "push-token", body: .collect(maxSize: "16kb"), use: registerPushToken)
        oob.get("open", use: openInBrowser)
    }

    /// `POST /oob/operations/{id}/redeem`: the phone's signed answer. 200 with the operation when
    /// accepted; otherwise `{"error","reason"}` that the phone shows and passes to `x-error`.
    @Sendable func redeem(_ request: Request) async throws -> OperationView {
        let id = try OperationRoutes.operationID(request)
        let body = request.body.data.map { Data(buffer: $0) } ?? Data()
        return try await operations(databases.primary).redeem(id, body: body)
    }

    /// `PUT /oob/devices/{id}/push-token`: a ``PushTokenRegistration`` signed by the enrolled key.
    @Sendable func registerPushToken(_ request: Request) async throws -> EnrolledDeviceView {
        let body = request.body.data.map { Data(buffer: $0) } ?? Data()
        let registration: PushTokenRegistration
        do { registration = try PushTokenRegistration(json: body) } catch {
            throw APIError(.badRequest, code: "invalid_registration", reason: error.description, field: error.field)
        }
        guard registration.deviceID == request.parameters.get("deviceID") else {
            throw APIError.invalid("deviceID", "the body names another device than the URL")
        }
        let operations = operations(databases.primary)
        guard let device = try await operations.enrolledPhone(registration.deviceID),
              let keys = try? DevicePublicKeys(signingKey: device.signingKey, agreementKey: device.agreementKey) else {
            throw APIError(.notFound, code: "unknown_device", reason: "No enrolled device has this id; enroll it first.")
        }
        guard registration.isValid(for: keys, now: clock.now()) else {
            throw APIError(.forbidden, code: "bad_signature",
                           reason: "The signature is not the enrolled key's, or the timestamp is more than 5 minutes from the server's time.")
        }
        try await operations.setPushToken(registration.token, of: device)
        return EnrolledDeviceView(device)
    }

    /// A universal link lands here only when the app is not installed (or the user long-pressed
    /// and chose the browser): say what to do instead of showing a 404.
    @Sendable func openInBrowser(_ request: Request) async throws -> Response {
        OpenOnPhonePage.page.response(.ok)
    }
}

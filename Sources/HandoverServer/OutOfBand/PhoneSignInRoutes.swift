import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema
import OutOfBand
import QRCode
import HandoverPages
import Vapor

/// "Sign in on this computer with your phone": the web page shows a QR code, a link and a
/// code; the user approves on the enrolled phone, typing that code, and the page signs in
/// live. Also enrollment from a signed-in session (`POST /auth/oob/enroll`).
///
/// The page that started an operation holds a random secret in a cookie (its hash is stored with
/// the operation); only that browser may follow the operation and collect the session, once.
struct PhoneSignInRoutes: RouteCollection {
    let throttle: Throttle
    let clock: ServerClock
    let origin: PublicOrigin
    let hub: RunEventHub
    let operations: OperationService.OnDatabase
    /// Sends operations by APNs, when configured.
    let push: PushSender?
    let sessions: SessionAuthority
    let databases: ServerDatabases

    static let browserCookie = "handover_oob_browser"

    func boot(routes: RoutesBuilder) throws {
        let page = routes.grouped("oob", "sign-in")
        page.get(use: start)
        page.post(use: begin)
        page.get(":operationID", use: show)
        page.get(":operationID", "events", use: events)
        page.post(":operationID", "session", use: collectSession)
        routes.grouped("auth", "oob").grouped(RequireSession(authority: sessions, databases: databases)).post("enroll", use: enroll)
    }

    // MARK: Enrollment from a session

    struct EnrollInput: Content {
        var dispatcher: String?
        var expiresIn: Int?
    }

    /// `POST /auth/oob/enroll`: a registration operation for the signed-in user; the answer
    /// carries the link to open on (or show as a QR code to) the phone to enroll.
    @Sendable func enroll(_ request: Request) async throws -> Response {
        guard let userID = try request.session.userID else { throw APIError(.unauthorized, code: "invalid_access_token", reason: "Bad subject.") }
        let input = request.body.data == nil ? EnrollInput() : try request.content.decode(EnrollInput.self, using: JSONDecoder.api)
        let operations = operations(databases.primary)
        let checked = try NewOperation(type: OperationType.registration.rawValue, user: userID.uuidString.lowercased(),
                                         dispatcher: input.dispatcher ?? OperationDispatcher.link.rawValue, expiresIn: input.expiresIn)
            .checked(allowlist: try await operations.callbackPolicy())
        var view = try await operations.create(checked)
        // Enrolled from a session on a fleet device: the phone belongs to that device.
        if let sessionID = try request.session.sessionID {
            try await operations.bindToFleetDevice(view.id, ofSession: sessionID)
        }
        view.dispatch?.qr = nil  // the QR routes take admin keys; draw the link as a QR code on the page
        return try await view.encodeResponse(status: .created, for: request)
    }

    // MARK: The web page

    @Sendable func start(_ request: Request) async throws -> Response {
        PhoneSignInPage.start.response(.ok)
    }

    @Sendable func begin(_ request: Request) async throws -> Response {
        struct Form: Content { var user: String? }
        let user = ((try? request.content.decode(Form.self))?.user ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(user.count), !user.containsControlCharacter else {
            return PhoneSignInPage.invalidUser.response(.unprocessableEntity)
        }
        if let wait = throttle.attempt(.phoneSignIn, request, key: "user:" + user) {
            let response = PhoneSignInPage.tooManyRequests(wait: wait).response(.tooManyRequests)
            response.headers.replaceOrAdd(name: .retryAfter, value: String(wait))
            return response
        }
        let operations = operations(databases.primary)
        let device = try await operations.enrolledPhone(of: user)
        // Push when the phone can get one; the QR code and the link are on the page either way. A
        // user with no phone (or no such user) gets the same page, with a request no phone can
        // approve: the answer never says whether the user exists.
        let dispatcher: OperationDispatcher = push != nil && device?.pushToken != nil && device?.pushTokenActive == true ? .push : .qr
        let checked = try NewOperation(type: OperationType.authentication.rawValue, user: user, dispatcher: dispatcher.rawValue,
                                         device: device?.id).checked(allowlist: try await operations.callbackPolicy())
        let secret = BearerSecret.random()
        let view = try await operations.create(checked, browserSecretHash: BearerSecret.digest(secret), unknownUsersLookEnrolled: true)
        let response = Response(status: .seeOther)
        response.headers.replaceOrAdd(name: .location, value: "/oob/sign-in/\(view.id.uuidString.lowercased())")
        response.cookies[Self.browserCookie] = HTTPCookies.Value(
            string: secret, maxAge: 900, path: "/oob/sign-in", isSecure: origin.isSecure, isHTTPOnly: true, sameSite: .strict)
        return response
    }

    @Sendable func show(_ request: Request) async throws -> Response {
        let operation = try await ownOperation(request)
        let operations = operations(databases.primary)
        let id = try operation.storedID.uuidString.lowercased()
        guard OperationStatus(rawValue: operation.status)?.acceptsAnswer == true else {
            return PhoneSignInPage.ended(status: operation.status, user: operation.user).response(.ok)
        }
        let link = try await operations.link(of: operation).text
        let qr = try OperationRoutes.qrCode(for: link).svg(moduleSize: 4, quietZone: 4)
        return PhoneSignInPage.approval(
            id: id, code: operation.correctNumber ?? 0, pushDelivered: operation.pushOutcome == PushDeliveryOutcome.delivered.rawValue,
            qrSVG: qr, link: link, status: operation.status, statuses: Self.statusNames).response(.ok)
    }

    @Sendable func events(_ request: Request) async throws -> Response {
        let operation = try await ownOperation(request)
        let operations = operations(databases.primary)
        let first = try await operations.view(try operation.storedID)
        return OperationRoutes.stream(first, operations: operations, hub: hub, lease: nil)
    }

    /// Once the phone approved: starts a session for the user on this browser (a cookie, as the
    /// email sign-in page does) and answers `{"user": …}`. Only once per operation.
    @Sendable func collectSession(_ request: Request) async throws -> Response {
        let operation = try await ownOperation(request)
        guard operation.status == OperationStatus.succeeded.rawValue else {
            throw APIError(.conflict, code: "not_approved", reason: "The phone has not approved this request (it is \(operation.status)).")
        }
        let operations = operations(databases.primary)
        guard try await operations.claimSession(of: try operation.storedID) else {
            throw APIError(.conflict, code: "already_collected", reason: "This request's session was already collected.")
        }
        let user = try await operations.user(forHandle: operation.user)
        // The browser's session hangs off the approving phone's fleet device, when it has one.
        var phone: EnrolledDevice?
        if let phoneID = operation.deviceID { phone = try await operations.phone(phoneID) }
        let grant = try await sessions.startSession(for: user, clientID: "web", deviceID: phone?.fleetDeviceID, checkOut: .outOfBand, on: databases.primary)
        struct Answer: Content { var user: String }
        let response = try await Answer(user: operation.user).encodeResponse(status: .ok, for: request)
        response.cookies["handover_web_session"] = HTTPCookies.Value(
            string: grant.accessToken, maxAge: grant.expiresIn, path: "/", isSecure: origin.isSecure,
            isHTTPOnly: true, sameSite: .lax)
        return response
    }

    /// The operation this browser started: 404 for any other browser.
    private func ownOperation(_ request: Request) async throws -> OutOfBandOperation {
        let operation = try await operations(databases.primary).current(try OperationRoutes.operationID(request))
        guard let secret = request.cookies[Self.browserCookie]?.string, let hash = operation.browserSecretHash,
              BearerSecret.digest(secret) == hash else {
            throw APIError.notFound("sign-in request for this browser")
        }
        return operation
    }

    /// The operation's states the sign-in page's script reacts to, as this server spells them.
    static let statusNames = PhoneSignInPage.StatusNames(
        succeeded: OperationStatus.succeeded.rawValue, cancelled: OperationStatus.cancelled.rawValue,
        failed: OperationStatus.failed.rawValue, expired: OperationStatus.expired.rawValue)

}

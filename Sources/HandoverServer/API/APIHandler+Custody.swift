import Foundation
import HandoverCore
import HandoverSchema
import JWTKit
import SessionTokens
import Vapor

/// `GET /api/v1/custody`: who held which device, paged in the database (issue 40).
extension APIHandler {
    func listCustody(_ input: Operations.ListCustody.Input) async throws -> Operations.ListCustody.Output {
        let query = input.query
        let report = CustodyReport(from: query.from, to: query.to, device: try query.device.map { try id($0, of: "device") },
                                   person: try query.person.map { try id($0, of: "person") }, page: query.page ?? 1)
        let page = try await report.run(on: databases.primary)
        return .ok(.init(body: .json(.init(custodies: page.rows.map(CustodyRecordView.init), page: page.page, pageCount: page.pageCount,
                                           total: page.total))))
    }
}

extension APIHandler {
    /// `POST /api/v1/devices/{deviceID}/custody`: the launcher checks the device out to the person
    /// its access token or badge names.
    func checkOutDevice(_ input: Operations.CheckOutDevice.Input) async throws -> Operations.CheckOutDevice.Output {
        let deviceID = try id(input.path.deviceID, of: "device")
        let principal = try request.principal
        if principal.scope == .device, principal.deviceID != deviceID {
            throw APIError(.forbidden, code: "forbidden", reason: "A device key checks out its own device only.")
        }
        let body = switch input.body { case .json(let body): body }
        let deviceName: String
        let person: CustodyLedger.CheckOutRequest.Person
        let method: Custody.CheckOut
        var badgeDigest: String?
        switch (body.accessToken, body.badge) {
        case (let token?, nil):
            guard let name = try await DeviceStore(databases.reads).name(of: deviceID) else { throw APIError.notFound("device") }
            deviceName = name
            let claims: AccessTokenClaims
            do { claims = try await sessions.authenticate(token, on: databases.reads) } catch {
                throw APIError(.unauthorized, code: "invalid_access_token", reason: "accessToken: not a live access token of this server.",
                               field: "accessToken")
            }
            guard let id = UUID(uuidString: claims.subject.value) else {
                throw APIError(.unauthorized, code: "invalid_access_token", reason: "accessToken: its person no longer exists.", field: "accessToken")
            }
            (person, method) = (.user(id), .launcher)
        case (nil, let badge?):
            let trimmed = badge.trimmingCharacters(in: .whitespaces)
            guard (1...128).contains(trimmed.count), !trimmed.containsControlCharacter else {
                throw APIError.invalid("badge", "give the badge as its reader does: 1 to 128 printable characters")
            }
            let digest = sessions.sealer.keyedDigest(trimmed, purpose: "handover badge")
            // The device and the directory's people with the badge in one read (SCIM, issue 67);
            // the hospital's own lookup after them.
            guard let read = try await DirectoryStore.device(deviceID, badgeHolders: digest, on: databases.reads) else {
                throw APIError.notFound("device")
            }
            deviceName = read.name
            switch DirectoryRules.holder(of: read.holders) {
            case .person(let login): person = .login(login)
            case .deprovisioned:
                throw APIError(.forbidden, code: "badge_deprovisioned",
                               reason: "badge: its person was deprovisioned by the directory (SCIM); this badge checks out nothing.", field: "badge")
            case .ambiguous:
                throw APIError(.conflict, code: "badge_ambiguous",
                               reason: "badge: two active people in the directory carry this badge; correct their employee numbers at the directory.", field: "badge")
            case .noLogin:
                throw APIError(.unprocessableEntity, code: "badge_without_email",
                               reason: "badge: its person has no email address in the directory to be known by on a device.", field: "badge")
            case .unknown:
                guard let badges else {
                    throw APIError(.unprocessableEntity, code: "no_badge_lookup",
                                   reason: "badge: no person provisioned by the directory (SCIM) carries this badge, and this server has no badge lookup (HANDOVER_BADGE_LOOKUP_URL); send the person's accessToken instead.",
                                   field: "badge")
                }
                do { person = .login(try await badges.login(for: trimmed)) } catch {
                    switch error {
                    case .unknownBadge: throw APIError(.notFound, code: "unknown_badge", reason: "badge: \(error.description).", field: "badge")
                    case .unavailable: throw APIError(.serviceUnavailable, code: "badge_lookup_unavailable", reason: "badge: \(error.description).")
                    }
                }
            }
            method = .badge
            badgeDigest = digest
        default:
            guard try await DeviceStore(databases.reads).name(of: deviceID) != nil else { throw APIError.notFound("device") }
            throw APIError(.unprocessableEntity, code: "invalid_field", reason: "Send exactly one of accessToken and badge.")
        }
        // Group-committed: a shift's badge taps share their transactions, as its runs and callbacks do.
        let custody = try await commits.checkOut(CustodyLedger.CheckOutRequest(device: deviceID, person: person, method: method, badgeDigest: badgeDigest),
                                                 ledger: CustodyLedger(limit: sessions.settings.custodyLimit), on: request.application)
        return .created(.init(body: .json(CustodyRecordView(try CustodyReport.Row(custody, deviceName: deviceName)))))
    }
}

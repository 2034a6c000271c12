import Foundation
import HandoverProtocol

/// Jamf Pro's API (https://developer.jamf.com/jamf-pro):
/// - an access token by client credentials, `POST /api/oauth/token` (Jamf Pro 10.49 and later);
/// - the device by serial number, `GET /api/v2/mobile-devices/detail?section=GENERAL&section=HARDWARE&filter=hardware.serialNumber=="…"`,
///   whose `general.managementId` commands address (or the registry's `mdmDeviceID`, taken as that id);
/// - the command, `POST /api/v2/mdm/commands` with `clientData` and `commandData`
///   (`DEVICE_LOCK`, `ENABLE_LOST_MODE`, `DISABLE_LOST_MODE`, `ERASE_DEVICE`); 201 with the
///   command's id (https://developer.jamf.com/jamf-pro/reference/post_v2-mdm-commands);
/// - Return to Service, `ERASE_DEVICE` with `returnToService: {enabled, wifiProfileData,
///   mdmProfileData}`, the profiles base64-encoded (Jamf Pro 10.50 and later,
///   https://developer.jamf.com/jamf-pro/docs/return-to-service-1).
package struct JamfProConnector: MDMConnector {
    package let baseURL: URL
    package let http: MDMHTTP
    package let tokens: ClientCredentialsToken

    package init(baseURL: URL, clientID: String, clientSecret: String, http: MDMHTTP, now: @escaping @Sendable () -> Date) {
        self.baseURL = baseURL
        self.http = http
        tokens = ClientCredentialsToken(http: http, url: baseURL.appendingPathComponent("api/oauth/token"),
                                        form: [("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", clientSecret)],
                                        now: now)
    }

    package func send(_ command: MDMCommandRequest) async throws -> String {
        let managementID = try await managementID(of: command)
        let body = try JSONSerialization.data(withJSONObject: Self.body(command, managementID: managementID), options: [.sortedKeys])
        let answer = try await tokens.authorized(.POST, baseURL.appendingPathComponent("api/v2/mdm/commands"), json: body)
        guard (200..<300).contains(answer.status) else { throw MDMHTTP.failure(answer, "the command") }
        struct Created: Decodable { var id: String }
        let id = (try? JSONDecoder().decode([Created].self, from: answer.body))?.first?.id ?? "?"
        return "Jamf Pro queued \(Self.commandType(command.action)) as command \(id) for management id \(managementID)"
    }

    package func describe(_ command: MDMCommandRequest) -> String {
        let target = command.mdmDeviceID ?? "<general.managementId of serial \(command.serialNumber ?? "?")>"
        // The profiles may hold the Wi-Fi's password: a dry run records their size, not them.
        let body = (try? JSONSerialization.data(withJSONObject: Self.body(command, managementID: target, redactingProfiles: true), options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "POST \(baseURL.appendingPathComponent("api/v2/mdm/commands").absoluteString) \(body)"
    }

    /// `GET /api/v2/mdm/commands?filter=clientManagementId==…;command==…;dateSent=ge=…`.
    package func findSent(_ command: MDMCommandRequest, since: Date) async throws -> String? {
        let managementID = try await managementID(of: command)
        var components = URLComponents(url: baseURL.appendingPathComponent("api/v2/mdm/commands"), resolvingAgainstBaseURL: false)
        let date = since.formatted(.iso8601)
        components?.queryItems = [URLQueryItem(name: "filter",
                                               value: "clientManagementId==\(managementID);command==\(Self.commandType(command.action));dateSent=ge=\(date)")]
        guard let url = components?.url else { return nil }
        let answer = try await tokens.authorized(.GET, url)
        guard (200..<300).contains(answer.status) else { throw MDMHTTP.failure(answer, "the command lookup") }
        struct Page: Decodable {
            package struct Command: Decodable { var uuid: String }
            package var results: [Command]
        }
        guard let found = (try? JSONDecoder().decode(Page.self, from: answer.body))?.results.first else { return nil }
        return "Jamf Pro already had \(Self.commandType(command.action)) as command \(found.uuid) for management id \(managementID)"
    }

    private func managementID(of command: MDMCommandRequest) async throws -> String {
        if let id = command.mdmDeviceID { return id }
        guard let serial = command.serialNumber else {
            throw MDMFailure.permanent(status: nil, detail: "\(command.deviceName) has no serial number or MDM id in the registry; Jamf Pro cannot find it")
        }
        var components = URLComponents(url: baseURL.appendingPathComponent("api/v2/mobile-devices/detail"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "section", value: "GENERAL"), URLQueryItem(name: "section", value: "HARDWARE"),
                                  URLQueryItem(name: "filter", value: "hardware.serialNumber==\"\(serial)\"")]
        guard let url = components?.url else { throw MDMFailure.permanent(status: nil, detail: "no lookup URL for \(serial)") }
        let answer = try await tokens.authorized(.GET, url)
        guard (200..<300).contains(answer.status) else { throw MDMHTTP.failure(answer, "the device lookup") }
        struct Page: Decodable {
            package struct Device: Decodable {
                package struct General: Decodable { var managementId: String? }
                package var general: General?
            }
            package var results: [Device]
        }
        guard let id = (try? JSONDecoder().decode(Page.self, from: answer.body))?.results.first?.general?.managementId else {
            throw MDMFailure.permanent(status: answer.status, detail: "Jamf Pro has no mobile device with serial number \(serial)")
        }
        return id
    }

    package static func commandType(_ action: MDMAction) -> String {
        switch action {
        case .lock: "DEVICE_LOCK"
        case .lostMode: "ENABLE_LOST_MODE"
        case .erase, .returnToService: "ERASE_DEVICE"
        case .disableLostMode: "DISABLE_LOST_MODE"
        }
    }

    package static func body(_ command: MDMCommandRequest, managementID: String, redactingProfiles: Bool = false) -> [String: Any] {
        func encoded(_ profile: Data?) -> String? {
            guard let profile else { return nil }
            return redactingProfiles ? "<base64 of the \(profile.count)-byte profile>" : profile.base64EncodedString()
        }
        var data: [String: Any] = ["commandType": commandType(command.action)]
        switch command.action {
        case .lock:
            data["message"] = command.message
            data["phoneNumber"] = command.phoneNumber
        case .lostMode:
            data["lostModeMessage"] = command.message
            data["lostModePhone"] = command.phoneNumber
            data["lostModeFootnote"] = command.footnote
        case .erase:
            data["preserveDataPlan"] = true
        case .returnToService:
            data["preserveDataPlan"] = true
            var service: [String: Any] = ["enabled": true]
            service["wifiProfileData"] = encoded(command.returnToService?.wifiProfile)
            service["mdmProfileData"] = encoded(command.returnToService?.mdmProfile)
            data["returnToService"] = service
        case .disableLostMode:
            break
        }
        return ["clientData": [["managementId": managementID]], "commandData": data.compactMapValues { $0 }]
    }
}

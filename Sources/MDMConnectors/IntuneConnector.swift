import Foundation
import HandoverProtocol

/// Microsoft Intune through Microsoft Graph (https://learn.microsoft.com/graph/api/resources/intune-devices-manageddevice):
/// - a token from Entra ID by client credentials, `POST {login}/{tenant}/oauth2/v2.0/token` with
///   `scope=https://graph.microsoft.com/.default`;
/// - the device by serial number, `GET /v1.0/deviceManagement/managedDevices?$filter=serialNumber eq '…'`
///   (or the registry's `mdmDeviceID`, taken as the managedDevice id);
/// - the action: `POST /v1.0/…/{id}/remoteLock`, `POST /beta/…/{id}/enableLostMode` and
///   `POST /beta/…/{id}/disableLostMode` (Lost Mode is in Graph's beta only,
///   https://learn.microsoft.com/graph/api/intune-devices-manageddevice-disablelostmode?view=graph-rest-beta)
///   or `POST /v1.0/…/{id}/wipe`; each 204 No Content. Graph has no Return to Service: the
///   configuration refuses it for Intune, and a command that asks for it fails without a request.
package struct IntuneConnector: MDMConnector {
    package let graphBaseURL: URL
    package let http: MDMHTTP
    package let tokens: ClientCredentialsToken

    package init(tenantID: String, clientID: String, clientSecret: String, loginBaseURL: URL, graphBaseURL: URL, http: MDMHTTP,
         now: @escaping @Sendable () -> Date) {
        self.graphBaseURL = graphBaseURL
        self.http = http
        tokens = ClientCredentialsToken(http: http, url: loginBaseURL.appendingPathComponent("\(tenantID)/oauth2/v2.0/token"),
                                        form: [("client_id", clientID), ("scope", "https://graph.microsoft.com/.default"),
                                               ("client_secret", clientSecret), ("grant_type", "client_credentials")],
                                        now: now)
    }

    package func send(_ command: MDMCommandRequest) async throws -> String {
        guard command.action != .returnToService else {
            throw MDMFailure.permanent(status: nil, detail: "Microsoft Graph has no Return to Service; choose erase for Intune")
        }
        let id = try await managedDeviceID(of: command)
        let (url, body) = Self.request(command, deviceID: id, graph: graphBaseURL)
        let answer = try await tokens.authorized(.POST, url, json: body)
        guard (200..<300).contains(answer.status) else { throw MDMHTTP.failure(answer, "the \(url.lastPathComponent) action") }
        return "Intune accepted \(url.lastPathComponent) for managed device \(id) (HTTP \(answer.status))"
    }

    package func describe(_ command: MDMCommandRequest) -> String {
        let (url, body) = Self.request(command, deviceID: command.mdmDeviceID ?? "<id of serial \(command.serialNumber ?? "?")>", graph: graphBaseURL)
        return "POST \(url.absoluteString.removingPercentEncoding ?? url.absoluteString)" + (body.map { " " + String(decoding: $0, as: UTF8.self) } ?? "")
    }

    /// The device's `deviceActionResults` (`GET /v1.0/deviceManagement/managedDevices/{id}`): an
    /// action of this name started since `since`.
    package func findSent(_ command: MDMCommandRequest, since: Date) async throws -> String? {
        let id = try await managedDeviceID(of: command)
        var components = URLComponents(url: graphBaseURL.appendingPathComponent("v1.0/deviceManagement/managedDevices/\(id)"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "$select", value: "id,deviceActionResults")]
        guard let url = components?.url else { return nil }
        let answer = try await tokens.authorized(.GET, url)
        guard (200..<300).contains(answer.status) else { throw MDMHTTP.failure(answer, "the device's action results") }
        struct Device: Decodable {
            package struct Action: Decodable { var actionName: String; var startDateTime: String? }
            package var deviceActionResults: [Action]?
        }
        let name = Self.request(command, deviceID: id, graph: graphBaseURL).0.lastPathComponent
        let actions = (try? JSONDecoder().decode(Device.self, from: answer.body))?.deviceActionResults ?? []
        let started = actions.first { action in
            guard action.actionName.caseInsensitiveCompare(name) == .orderedSame else { return false }
            guard let text = action.startDateTime, let date = try? Date(text, strategy: .iso8601) else { return true }
            return date >= since
        }
        return started.map { _ in "Intune already had \(name) for managed device \(id)" }
    }

    private func managedDeviceID(of command: MDMCommandRequest) async throws -> String {
        if let id = command.mdmDeviceID { return id }
        guard let serial = command.serialNumber else {
            throw MDMFailure.permanent(status: nil, detail: "\(command.deviceName) has no serial number or MDM id in the registry; Intune cannot find it")
        }
        var components = URLComponents(url: graphBaseURL.appendingPathComponent("v1.0/deviceManagement/managedDevices"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "$filter", value: "serialNumber eq '\(serial)'"), URLQueryItem(name: "$select", value: "id,serialNumber")]
        let query = components?.percentEncodedQuery?.replacingOccurrences(of: "'", with: "%27")
        components?.percentEncodedQuery = query
        guard let url = components?.url else { throw MDMFailure.permanent(status: nil, detail: "no lookup URL for \(serial)") }
        let answer = try await tokens.authorized(.GET, url)
        guard (200..<300).contains(answer.status) else { throw MDMHTTP.failure(answer, "the device lookup") }
        struct Page: Decodable {
            package struct Device: Decodable { var id: String }
            package var value: [Device]
        }
        guard let id = (try? JSONDecoder().decode(Page.self, from: answer.body))?.value.first?.id else {
            throw MDMFailure.permanent(status: answer.status, detail: "Intune has no managed device with serial number \(serial)")
        }
        return id
    }

    package static func request(_ command: MDMCommandRequest, deviceID: String, graph: URL) -> (URL, Data?) {
        let path: String
        var body: [String: Any]?
        switch command.action {
        case .lock:
            path = "v1.0/deviceManagement/managedDevices/\(deviceID)/remoteLock"
        case .lostMode:
            path = "beta/deviceManagement/managedDevices/\(deviceID)/enableLostMode"
            body = ["message": command.message, "phoneNumber": command.phoneNumber, "footer": command.footnote].compactMapValues { $0 }
        case .erase, .returnToService:  // Return to Service never gets here (``send(_:)``)
            path = "v1.0/deviceManagement/managedDevices/\(deviceID)/wipe"
            body = ["keepEnrollmentData": false, "keepUserData": false]
        case .disableLostMode:
            path = "beta/deviceManagement/managedDevices/\(deviceID)/disableLostMode"
        }
        return (graph.appendingPathComponent(path), body.flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]) })
    }
}

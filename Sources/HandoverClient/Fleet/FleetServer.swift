import Foundation
import HandoverProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A device's connection to the Handover server: starts logout runs, reads them, and reports
/// the callbacks the launcher receives as universal links.
///
/// ```swift
/// let server = FleetServer(baseURL: URL(string: "https://handover.example.com")!,
///                          deviceID: deviceID, deviceKey: keychain.deviceKey)
/// let run = try await server.startRun()
/// ```
///
/// It uses `URLSession` only, so an iOS launcher links it without any server-side library.
public struct FleetServer: Sendable {
    /// The server's origin, such as `https://handover.example.com`.
    public let baseURL: URL
    /// This device's id in the registry.
    public let deviceID: UUID
    private let connection: HandoverAPIConnection

    /// - Parameters:
    ///   - baseURL: the server's origin, such as `https://handover.example.com`.
    ///   - deviceID: this device's id in the registry.
    ///   - deviceKey: the device's API key (scope `device`), sent as a bearer token.
    ///   - session: the URL session requests go through.
    public init(baseURL: URL, deviceID: UUID, deviceKey: String, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.deviceID = deviceID
        self.connection = HandoverAPIConnection(baseURL: baseURL, key: deviceKey, session: session)
    }

    /// Starts a logout run of `apps` (registered app ids), or of every target app when `nil`.
    public func startRun(apps: [UUID]? = nil) async throws(FleetServerError) -> FleetRun {
        let body: Data?
        if let apps {
            body = try? JSONSerialization.data(withJSONObject: ["apps": apps.map { $0.uuidString.lowercased() }])
        } else {
            body = nil
        }
        return try await connection.decode(FleetRun.self, connection.send("POST", "/api/v1/devices/\(deviceID.uuidString.lowercased())/logout-runs", body: body))
    }

    /// Reads a run as it is now.
    public func run(_ id: UUID) async throws(FleetServerError) -> FleetRun {
        try await connection.decode(FleetRun.self, connection.send("GET", "/api/v1/logout-runs/\(id.uuidString.lowercased())", body: nil))
    }

    /// Reports a callback URL the launcher received, so the server records the item's outcome.
    public func reportCallback(run: UUID, url: URL) async throws(FleetServerError) -> CallbackReportOutcome {
        let body = try? JSONEncoder().encode(CallbackReport(url: url.absoluteString))
        do throws(FleetServerError) {
            let reply = try await connection.send("POST", "/api/v1/logout-runs/\(run.uuidString.lowercased())/callbacks", body: body)
            return .recorded(status: try connection.decode(CallbackReportResult.self, reply).status)
        } catch .rejected(status: 409, error: _, reason: _) {
            return .alreadyRecorded
        } catch .rejected(status: 404, error: "unknown_callback", reason: _) {
            return .unknown
        }
    }
}

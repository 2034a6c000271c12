import Foundation
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
    private let deviceKey: String
    private let session: URLSession

    /// - Parameters:
    ///   - deviceKey: the device's API key (scope `device`), sent as a bearer token.
    public init(baseURL: URL, deviceID: UUID, deviceKey: String, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.deviceID = deviceID
        self.deviceKey = deviceKey
        self.session = session
    }

    /// Starts a logout run of `apps` (registered app ids), or of every target app when `nil`.
    public func startRun(apps: [UUID]? = nil) async throws(FleetServerError) -> FleetRun {
        let body: Data?
        if let apps {
            body = try? JSONSerialization.data(withJSONObject: ["apps": apps.map { $0.uuidString.lowercased() }])
        } else {
            body = nil
        }
        return try await decode(FleetRun.self, send("POST", "/api/v1/devices/\(deviceID.uuidString.lowercased())/logout-runs", body: body))
    }

    /// Reads a run as it is now.
    public func run(_ id: UUID) async throws(FleetServerError) -> FleetRun {
        try await decode(FleetRun.self, send("GET", "/api/v1/logout-runs/\(id.uuidString.lowercased())", body: nil))
    }

    /// Reports a callback URL the launcher received, so the server records the item's outcome.
    public func reportCallback(run: UUID, url: URL) async throws(FleetServerError) -> CallbackReportOutcome {
        let body = try? JSONSerialization.data(withJSONObject: ["url": url.absoluteString])
        do throws(FleetServerError) {
            let reply = try await send("POST", "/api/v1/logout-runs/\(run.uuidString.lowercased())/callbacks", body: body)
            struct Recorded: Decodable { var status: String }
            return .recorded(status: try decode(Recorded.self, reply).status)
        } catch .rejected(status: 409, error: _, reason: _) {
            return .alreadyRecorded
        } catch .rejected(status: 404, error: "unknown_callback", reason: _) {
            return .unknown
        }
    }

    // MARK: HTTP

    private struct Reply {
        var url: String
        var body: Data
    }

    private func send(_ method: String, _ path: String, body: Data?) async throws(FleetServerError) -> Reply {
        let text = baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        guard let url = URL(string: text + path) else {
            throw .unreachable(url: text + path, detail: "the base URL and path do not make a URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(deviceKey)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw .unreachable(url: url.absoluteString, detail: error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else {
            throw .unreadable(url: url.absoluteString, detail: "the answer is not HTTP")
        }
        guard (200..<300).contains(http.statusCode) else {
            struct Problem: Decodable { var error: String; var reason: String }
            let problem = try? JSONDecoder().decode(Problem.self, from: data)
            throw .rejected(status: http.statusCode, error: problem?.error ?? "http_\(http.statusCode)",
                            reason: problem?.reason ?? String(decoding: data.prefix(500), as: UTF8.self))
        }
        return Reply(url: url.absoluteString, body: data)
    }

    private func decode<T: Decodable>(_ type: T.Type, _ reply: Reply) throws(FleetServerError) -> T {
        do {
            return try FleetRun.decoder.decode(type, from: reply.body)
        } catch {
            throw .unreadable(url: reply.url, detail: "\(error)")
        }
    }
}

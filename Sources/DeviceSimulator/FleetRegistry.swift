import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The admin side of the Handover server's registry, as much as the simulator needs: list,
/// create and delete apps, and register a device.
struct FleetRegistry: Sendable {
    let baseURL: URL
    let adminKey: String
    var session: URLSession = .shared

    /// An app as `GET /api/v1/apps` shows it (the fields the simulator compares).
    struct App: Decodable, Sendable {
        var id: UUID
        var name: String
        var role: String
        var appIDs: [String]
        var logoutAction: String?
        var deadlineSeconds: Int
        var maxReissues: Int
    }

    struct CreatedDevice: Decodable, Sendable {
        struct Device: Decodable, Sendable { var id: UUID }
        var device: Device
        var key: String
    }

    func apps() async throws(SimulatorError) -> [App] {
        try decode([App].self, await send("GET", "/api/v1/apps", json: nil))
    }

    func createApp(_ fields: [String: Any]) async throws(SimulatorError) -> App {
        try decode(App.self, await send("POST", "/api/v1/apps", json: fields))
    }

    func deleteApp(_ id: UUID) async throws(SimulatorError) {
        _ = try await send("DELETE", "/api/v1/apps/\(id.uuidString.lowercased())", json: nil)
    }

    func createDevice(name: String) async throws(SimulatorError) -> CreatedDevice {
        try decode(CreatedDevice.self, await send("POST", "/api/v1/devices", json: ["name": name]))
    }

    private func send(_ method: String, _ path: String, json: [String: Any]?) async throws(SimulatorError) -> Data {
        let text = baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        guard let url = URL(string: text + path) else { throw SimulatorError("--server: \(text) does not make a URL with \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(adminKey)", forHTTPHeaderField: "Authorization")
        if let json {
            request.httpBody = try? JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw SimulatorError("--server: \(method) \(url.absoluteString) failed: \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw SimulatorError("--server: \(method) \(path) answered HTTP \(status): \(String(decoding: data.prefix(500), as: UTF8.self))")
        }
        return data
    }

    private func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws(SimulatorError) -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw SimulatorError("--server: the registry's answer could not be read: \(error)")
        }
    }
}

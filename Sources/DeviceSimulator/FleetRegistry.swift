import Foundation
import HandoverClient
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The admin side of the Handover server's registry, as much as the simulator needs: list,
/// create, update and delete apps, and register a device.
struct FleetRegistry: Sendable {
    let connection: HandoverAPIConnection

    init(baseURL: URL, adminKey: String) {
        connection = HandoverAPIConnection(baseURL: baseURL, key: adminKey)
    }

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

    func updateApp(_ id: UUID, _ fields: [String: Any]) async throws(SimulatorError) {
        _ = try await send("PATCH", "/api/v1/apps/\(id.uuidString.lowercased())", json: fields)
    }

    func deleteApp(_ id: UUID) async throws(SimulatorError) {
        _ = try await send("DELETE", "/api/v1/apps/\(id.uuidString.lowercased())", json: nil)
    }

    func createDevice(name: String) async throws(SimulatorError) -> CreatedDevice {
        try decode(CreatedDevice.self, await send("POST", "/api/v1/devices", json: ["name": name]))
    }

    private func send(_ method: String, _ path: String, json: [String: Any]?) async throws(SimulatorError) -> HandoverAPIConnection.Reply {
        do {
            return try await connection.send(method, path, body: json.flatMap { try? JSONSerialization.data(withJSONObject: $0) })
        } catch {
            throw SimulatorError("--server: \(method) \(path): \(error)")
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ reply: HandoverAPIConnection.Reply) throws(SimulatorError) -> T {
        do {
            return try connection.decode(type, reply)
        } catch {
            throw SimulatorError("--server: the registry's answer could not be read: \(error)")
        }
    }
}

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

    /// An app as the registry answers it (openapi.yaml's `App`, generated).
    typealias App = Components.Schemas.App
    /// A device and its key, as `POST /api/v1/devices` answers them.
    typealias CreatedDevice = Components.Schemas.CreatedDevice

    func apps() async throws(SimulatorError) -> [App] {
        try decode([App].self, await send("GET", "/api/v1/apps", body: Data?.none))
    }

    func createApp(_ app: Components.Schemas.AppInput) async throws(SimulatorError) -> App {
        try decode(App.self, await send("POST", "/api/v1/apps", body: app))
    }

    func updateApp(_ id: String, _ update: Components.Schemas.AppUpdate) async throws(SimulatorError) {
        _ = try await send("PATCH", "/api/v1/apps/\(id.lowercased())", body: update)
    }

    func deleteApp(_ id: String) async throws(SimulatorError) {
        _ = try await send("DELETE", "/api/v1/apps/\(id.lowercased())", body: Data?.none)
    }

    func createDevice(name: String) async throws(SimulatorError) -> CreatedDevice {
        try decode(CreatedDevice.self, await send("POST", "/api/v1/devices", body: Components.Schemas.DeviceInput(name: name)))
    }

    private func send(_ method: String, _ path: String, body: (some Encodable)?) async throws(SimulatorError) -> HandoverAPIConnection.Reply {
        do {
            return try await connection.send(method, path, body: try body.map { try JSONEncoder().encode($0) })
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

extension Components.Schemas.App {
    /// The app's id as a UUID (the wire carries it as text).
    var uuid: UUID {
        get throws(SimulatorError) {
            guard let uuid = UUID(uuidString: id) else { throw SimulatorError("--server: the registry answered an app id that is not a UUID: \(id)") }
            return uuid
        }
    }
}

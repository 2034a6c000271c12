import Foundation
import HandoverCore
import HandoverTransport
import NIOCore

extension ConnectionLimits {
    /// Reads the `HANDOVER_*_TIMEOUT` and `HANDOVER_MAX_CONNECTIONS` variables.
    package static func fromEnvironment(_ environment: [String: String]) throws -> ConnectionLimits {
        var limits = ConnectionLimits()
        func seconds(_ name: String) throws -> TimeAmount? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            guard let value = Int(text), (1...3600).contains(value) else {
                throw ConfigurationError(setting: name, problem: "'\(text)' is not a number of seconds", accepted: "1 to 3600")
            }
            return .seconds(Int64(value))
        }
        if let value = try seconds("HANDOVER_IDLE_TIMEOUT") { limits.idleTimeout = value }
        if let value = try seconds("HANDOVER_HEADER_TIMEOUT") { limits.headerTimeout = value }
        if let value = try seconds("HANDOVER_BODY_TIMEOUT") { limits.bodyTimeout = value }
        if let text = environment["HANDOVER_MAX_CONNECTIONS"], !text.isEmpty {
            guard let value = Int(text), (16...1_000_000).contains(value) else {
                throw ConfigurationError(setting: "HANDOVER_MAX_CONNECTIONS", problem: "'\(text)' is not a connection count", accepted: "16 to 1000000")
            }
            limits.maximumConnections = value
        }
        return limits
    }
}

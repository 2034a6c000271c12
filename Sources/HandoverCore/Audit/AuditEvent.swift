import Foundation
import HandoverProtocol

/// One entry of the audit log, as its leaf's bytes encode it: JSON with sorted keys, so the
/// same event is always the same bytes. `handover audit export` writes these bytes (base64) with
/// the entry decoded beside them.
///
/// A person appears by issuer and subject only; names and emails stay in the tables beside the
/// log (people, custody), where retention can remove them without breaking a proof.
package struct AuditEvent: Codable, Sendable, Equatable {
    /// The format's version.
    package var v = 1
    /// What happened: `run.receipt`, `device.<step>` (a device's history event, such as
    /// `device.run_completed`), `admin.<kind>` (such as `admin.signed_in`), `server.started`.
    package var type: String
    /// When, as ``RunReceipt/timestamp(_:)`` writes it.
    package var at: String
    package var actor: AuditActor?
    package var device: UUID?
    package var run: UUID?
    /// What else the event says, as short texts.
    package var detail: [String: String]?
    /// For `run.receipt`: the compact JWS.
    package var receipt: String?

    package init(type: String, at: Date, actor: AuditActor? = nil, device: UUID? = nil, run: UUID? = nil,
                 detail: [String: String]? = nil, receipt: String? = nil) {
        self.type = type
        self.at = RunReceipt.timestamp(at)
        self.actor = actor
        self.device = device
        self.run = run
        self.detail = detail
        self.receipt = receipt
    }

    /// The type of a run's receipt.
    package static let receiptType = "run.receipt"
    /// The type of an alarm the checkpoint pass or the self-check raised (``AuditAlarms``).
    package static let alarmType = "audit.alarm"

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The leaf's exact bytes.
    package func leaf() throws -> Data { try Self.encoder.encode(self) }

    /// Reads a leaf's bytes.
    package static func decode(leaf: Data) throws -> AuditEvent { try JSONDecoder().decode(AuditEvent.self, from: leaf) }
}

/// Who did it: the server itself, an API key, a person (issuer and subject), or, for a device's
/// step, the actor as the device's history records it.
package struct AuditActor: Codable, Sendable, Equatable {
    /// `server`, `key`, `person`, `provider` (the organisation's identity provider) or `recorded`.
    package var kind: String
    /// A key's name and prefix, or the recorded actor.
    package var name: String?
    package var iss: String?
    package var sub: String?

    package static let server = AuditActor(kind: "server")

    package static func person(issuer: String, subject: String) -> AuditActor {
        AuditActor(kind: "person", iss: issuer, sub: subject)
    }

    package init(kind: String, name: String? = nil, iss: String? = nil, sub: String? = nil) {
        self.kind = kind
        self.name = name
        self.iss = iss
        self.sub = sub
    }
}

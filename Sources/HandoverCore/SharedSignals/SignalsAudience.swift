import Foundation

/// Whose events a receiver's streams carry (issue 63). SSF 1.0 §9.2 (Information Harvesting):
/// the transmitter "SHOULD validate that they are permitted to share the information contained
/// within an event with the Event Receiver"; §7.1: with `default_subjects` "ALL", a new stream
/// holds the subjects "appropriate for the stream", which the receiver may then remove and add
/// back (§8.1.3), within what it may see.
///
/// - An app's backend (a client registered with `software_id`, whose `client_id` is the app's
///   bundle id) hears of its own app's sessions: a session whose app is that bundle id.
/// - A client granted the fleet hears of every session and device. A fleet backend (registered
///   without `software_id`, which only an admin can do) has the fleet by default; an admin grants
///   it to an app's backend, or withdraws it, with `PUT /api/v1/signals/clients/{clientID}`,
///   recorded in the audit log (`admin.signals_granted`); ``set(_:for:on:)``, which
///   ``SharedSignalsStore``'s file holds, writes it.
package enum SignalsAudience: Sendable, Equatable {
    /// Every session and device.
    case fleet
    /// The sessions of the app with this bundle id.
    case app(String)

    /// What an admin sets.
    package enum Grant: String, Sendable, CaseIterable {
        case app, fleet
    }

    /// The audience of a client: its grant, or its kind's default.
    package static func of(clientID: String, softwareID: String?, grant: String?) -> SignalsAudience {
        switch grant.flatMap(Grant.init(rawValue:)) {
        case .fleet?: .fleet
        case .app?: .app(clientID)
        case nil: softwareID == nil ? .fleet : .app(clientID)
        }
    }

    /// Whether `event` may go to this audience: the fleet hears everything; an app's backend its
    /// app's sessions (``SecurityEvent/app``), and no event of the fleet's devices.
    package func mayHear(_ event: SecurityEvent) -> Bool {
        switch self {
        case .fleet: true
        case .app(let clientID): event.app == clientID
        }
    }

    /// The grant, as the API answers it.
    package var grant: Grant {
        switch self {
        case .fleet: .fleet
        case .app: .app
        }
    }
}

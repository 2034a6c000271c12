import Foundation

/// A stream's configuration on the wire (SSF 1.0 §8.1.1), field names as the specification
/// spells them. The answer to create, read, update and replace.
package struct StreamConfiguration: Codable, Sendable, Equatable {
    /// `delivery` (SSF §6.1): the method, and the URL the events go to (push) or come from (poll).
    package struct Delivery: Codable, Sendable, Equatable {
        package var method: String
        package var endpoint_url: String?
        /// Push: the `Authorization` value to send with each SET. Read from a request; never
        /// written back in an answer (a secret stays with whoever set it).
        package var authorization_header: String?

        package init(method: String, endpoint_url: String?, authorization_header: String? = nil) {
            self.method = method
            self.endpoint_url = endpoint_url
            self.authorization_header = authorization_header
        }
    }

    package var stream_id: String
    package var iss: String
    package var aud: String
    package var delivery: Delivery
    package var events_supported: [String]
    package var events_requested: [String]?
    package var events_delivered: [String]
    package var description: String?
    package var min_verification_interval: Int

    /// The configuration of `stream` as `transmitter` states it.
    package init(_ stream: SignalStream, transmitter: SharedSignalsTransmitter) {
        stream_id = stream.id
        iss = transmitter.issuer
        aud = stream.clientID
        delivery = Delivery(method: stream.method.rawValue,
                            endpoint_url: stream.method == .push ? stream.endpointURL : transmitter.pollURL(stream: stream.id))
        events_supported = SecurityEventType.supported
        events_requested = stream.eventsRequested
        events_delivered = stream.eventsDelivered
        description = stream.description
        min_verification_interval = Int(SharedSignalsTransmitter.minimumVerificationInterval)
    }
}

/// What a receiver sends to create, update or replace a stream (SSF §8.1.1.1, §8.1.1.3,
/// §8.1.1.4): its own fields, and the transmitter's, which must match when present.
package struct StreamConfigurationRequest: Decodable, Sendable {
    package var stream_id: String?
    package var iss: String?
    package var aud: AudienceClaim?
    package var delivery: StreamConfiguration.Delivery?
    package var events_requested: [String]?
    package var events_delivered: [String]?
    package var description: String?

    package init(stream_id: String? = nil, delivery: StreamConfiguration.Delivery? = nil, events_requested: [String]? = nil,
                 description: String? = nil) {
        self.stream_id = stream_id
        self.delivery = delivery
        self.events_requested = events_requested
        self.description = description
    }
}

/// `aud` as JWT writes it (RFC 7519 §4.1.3): one string, or an array of them.
package struct AudienceClaim: Codable, Sendable, Equatable {
    package var values: [String]

    package init(_ values: [String]) { self.values = values }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let one = try? container.decode(String.self) { values = [one] } else { values = try container.decode([String].self) }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if values.count == 1 { try container.encode(values[0]) } else { try container.encode(values) }
    }
}

/// A stream's status on the wire (SSF §8.1.2): read, and asked for.
package struct StreamStatusBody: Codable, Sendable, Equatable {
    package var stream_id: String
    package var status: String
    package var reason: String?

    package init(stream_id: String, status: String, reason: String?) {
        self.stream_id = stream_id
        self.status = status
        self.reason = reason
    }
}

/// An add-subject or remove-subject request (SSF §8.1.3.2, §8.1.3.3).
package struct StreamSubjectRequest: Decodable, Sendable {
    package var stream_id: String
    package var subject: SubjectIdentifier
    package var verified: Bool?
}

/// A verification request (SSF §8.1.4.2).
package struct VerificationRequest: Decodable, Sendable {
    package var stream_id: String
    package var state: String?
}

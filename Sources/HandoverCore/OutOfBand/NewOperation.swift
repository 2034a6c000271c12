import Foundation
import LinkCallbacks
import OutOfBand

/// The body of `POST /api/v1/operations`.
package struct NewOperation: Codable, Hashable, Sendable {
    package var type: String
    package var user: String
    package var message: String?
    package var dispatcher: String
    package var callbacks: CallbacksInput?
    /// Seconds until the operation expires: 1 to 600, 120 when absent.
    package var expiresIn: Int?
    /// The enrolled device to address; the user's most recently enrolled one when absent.
    package var device: String?

    package struct CallbacksInput: Codable, Hashable, Sendable {
        package var success: String?
        package var error: String?
        package var cancel: String?
    }

    package static let expiryRange = 1...600
    package static let defaultExpiry = 120

    /// The checked form: every field parsed, or a 422 naming the first one at fault.
    package struct Checked {
        package var type: OperationType
        package var user: String
        package var message: String?
        package var dispatcher: OperationDispatcher
        package var callbacks: CallbackTargets?
        package var expiresIn: Int
        package var device: String?
    }

    package func checked(allowlist: CallbackPolicy) throws -> Checked {
        guard let type = OperationType(rawValue: type) else {
            throw DomainError.invalid("type", "'\(type.prefix(40))' is not an operation type; accepted: \(OperationType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let user = try Self.checkUser(user)
        guard let dispatcher = OperationDispatcher(rawValue: dispatcher) else {
            throw DomainError.invalid("dispatcher", "'\(dispatcher.prefix(40))' is not a dispatcher; accepted: \(OperationDispatcher.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if type == .registration, dispatcher == .push {
            throw DomainError.invalid("dispatcher", "a registration cannot be pushed: the phone has no push token before it enrolls; use qr, link or x-callback-link")
        }
        switch (type, message) {
        case (.transactionConfirmation, nil):
            throw DomainError.invalid("message", "a transaction-confirmation needs the text the user approves (1 to \(OperationEnvelope.maximumMessageLength) characters)")
        case (.transactionConfirmation, .some(let text)):
            do { try OperationEnvelope.validateMessage(text) } catch { throw DomainError.invalid("message", "\(error.detail); accepted: \(error.accepted)") }
        case (_, .some):
            throw DomainError.invalid("message", "only a transaction-confirmation carries a message")
        case (_, nil):
            break
        }
        let expiresIn = expiresIn ?? Self.defaultExpiry
        guard Self.expiryRange.contains(expiresIn) else {
            throw DomainError.invalid("expiresIn", "\(expiresIn) seconds is out of range; accepted: 1 to 600 (120 when absent)")
        }
        if let device {
            guard (1...128).contains(device.count), device.allSatisfy(\.isIdentifierCharacter) else {
                throw DomainError.invalid("device", "not a device id; accepted: 1 to 128 of A-Z a-z 0-9 - . _ ~")
            }
            if type == .registration { throw DomainError.invalid("device", "a registration enrolls a new device; leave device out") }
        }
        var targets = CallbackTargets()
        if let callbacks {
            targets.success = try Self.checkTarget(callbacks.success, field: "callbacks.success", allowlist: allowlist)
            targets.error = try Self.checkTarget(callbacks.error, field: "callbacks.error", allowlist: allowlist)
            targets.cancel = try Self.checkTarget(callbacks.cancel, field: "callbacks.cancel", allowlist: allowlist)
        }
        return Checked(type: type, user: user, message: message, dispatcher: dispatcher,
                       callbacks: targets.isEmpty ? nil : targets, expiresIn: expiresIn, device: device)
    }

    package static func checkUser(_ user: String) throws -> String {
        guard (1...200).contains(user.count) else { throw DomainError.invalid("user", "give 1 to 200 characters") }
        guard !user.containsControlCharacter else { throw DomainError.invalid("user", String.controlCharacterAdvice) }
        return user
    }

    /// A target must pass the tenant's allowlist (hosts and custom schemes) and the envelope's rules.
    package static func checkTarget(_ text: String?, field: String, allowlist: CallbackPolicy) throws -> URL? {
        guard let text else { return nil }
        do {
            try allowlist.checkCallback(text, parameter: field, allowsCustomScheme: true)
        } catch {
            throw DomainError.invalid(field, "\(error.detail); accepted: \(error.accepted) (the allowlist is at GET /api/v1/operations/callback-allowlist)")
        }
        guard let url = URL(string: text) else { throw DomainError.invalid(field, "not a URL") }
        return url
    }

    package init(type: String, user: String, message: String? = nil, dispatcher: String, callbacks: CallbacksInput? = nil, expiresIn: Int? = nil, device: String? = nil) {
        self.type = type
        self.user = user
        self.message = message
        self.dispatcher = dispatcher
        self.callbacks = callbacks
        self.expiresIn = expiresIn
        self.device = device
    }
}

/// How an operation reaches the phone.
package enum OperationDispatcher: String, CaseIterable, Sendable {
    /// An APNs push to the device's token (sealed payload).
    case push
    /// A QR code for a second screen (`/api/v1/operations/{id}/qr.svg|png`) holding the universal link.
    case qr
    /// A universal link, for the phone as the only device.
    case link
    /// A custom-scheme x-callback-url link with the allowlisted return targets.
    case xCallbackLink = "x-callback-link"
}

/// The body of `PUT /api/v1/operations/callback-allowlist`.
package struct AllowlistUpdate: Codable, Hashable, Sendable {
    package var hosts: [String]
    package var schemes: [String]?

    package func checked() throws -> (hosts: [String], schemes: [String]) {
        guard hosts.count <= 200 else { throw DomainError.invalid("hosts", "at most 200 entries") }
        do { _ = try HostAllowlist(hosts) } catch {
            throw DomainError.invalid("hosts", "\(error.detail); accepted: \(error.accepted)")
        }
        let schemes = (schemes ?? []).map { $0.lowercased() }
        guard schemes.count <= 50 else { throw DomainError.invalid("schemes", "at most 50 entries") }
        for scheme in schemes {
            let valid = (1...32).contains(scheme.count) && scheme.first!.isASCII && scheme.first!.isLetter
                && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
            guard valid, !["http", "https", "javascript", "data", "file", "vbscript", "blob"].contains(scheme) else {
                throw DomainError.invalid("schemes", "'\(scheme.prefix(40))' is not a custom scheme an app can own; accepted: a letter then letters, digits, + - . (at most 32), not http(s), javascript, data, file, vbscript or blob")
            }
        }
        return (hosts.map { $0.lowercased() }, Array(Set(schemes)).sorted())
    }
}

extension Character {
    /// `A–Z a–z 0–9 - . _ ~`: the characters of operation and device ids.
    package var isIdentifierCharacter: Bool {
        isASCII && (isLetter || isNumber || self == "-" || self == "." || self == "_" || self == "~")
    }
}

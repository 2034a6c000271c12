import Foundation
import HandoverSchema
import SessionTokens

/// Subscribes webhook receivers and rotates their signing secrets.
package struct WebhookRegistrar: Sendable {
    package let clock: ServerClock
    /// What a receiver's URL may point at.
    package let targets: OutboundTargets
    /// Seals the signing secrets kept in the database; nil only when the server has no key.
    package let sealer: SecretSealer?

    /// Validates and stores a webhook; returns it with its signing secret (given, or generated),
    /// which is shown only now. Throws a ``HandoverCore/DomainError`` naming the field that is wrong.
    package func create(url: String, events: [String], secret given: String?, on database: DatabaseHandle) async throws -> (Webhook, String) {
        guard !url.containsControlCharacter else { throw DomainError.invalid("url", String.controlCharacterAdvice) }
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), let host = parsed.host, !host.isEmpty,
              targets.allows(scheme: scheme, host: host) else {
            throw DomainError.invalid("url", "give an https URL such as https://mdm.example.com/hooks/handover (http only on loopback)")
        }
        if let refusal = targets.policy.checkLiteral(host) {
            throw DomainError.invalid("url", refusal.advice(for: "receiver"))
        }
        guard !events.isEmpty else {
            throw DomainError.invalid("events", "subscribe to at least one of \(WebhookOutbox.eventTypes.joined(separator: ", "))")
        }
        for (index, event) in events.enumerated() where !WebhookOutbox.eventTypes.contains(event) {
            throw DomainError.invalid("events[\(index)]", "'\(event)' is not an event; use \(WebhookOutbox.eventTypes.joined(separator: ", "))")
        }
        if let given { try Self.checkSecret(given) }
        let secret = given ?? WebhookSignature.generateSecret()
        let hook = Webhook()
        hook.url = url
        hook.events = Array(Set(events)).sorted()
        hook.secret = try ServerSecrets.seal(secret, sealer: try requireSealer())
        hook.createdAt = clock.now()
        try await RegistryStore(database).create(hook)
        return (hook, secret)
    }

    /// Gives `hook` a new signing secret (`given`, or generated) and returns it. The old one keeps
    /// signing beside it for a day, so receivers can switch over.
    package func rotateSecret(of hook: Webhook, to given: String?, on database: DatabaseHandle) async throws -> String {
        if let given { try Self.checkSecret(given) }
        let sealer = try requireSealer()
        let secret = given ?? WebhookSignature.generateSecret()
        hook.previousSecret = hook.secret
        hook.previousSecretExpiresAt = clock.now().addingTimeInterval(WebhookSignature.rotationOverlap)
        hook.secret = try ServerSecrets.seal(secret, sealer: sealer)
        try await RegistryStore(database).save(hook)
        return secret
    }

    /// A signing secret given by an admin: Standard Webhooks' form.
    package static func checkSecret(_ secret: String) throws {
        guard WebhookSignature.isValidSecret(secret) else {
            throw DomainError.invalid("secret", "give whsec_ and the base64 of 24 to 64 random bytes (Standard Webhooks), "
                                   + "for example from `echo whsec_$(openssl rand -base64 32)`, or leave it out to have one generated")
        }
    }

    private func requireSealer() throws -> SecretSealer {
        guard let sealer else {
            throw DomainError(.storage, code: "internal_error", reason: "The server has no encryption key for secrets.")
        }
        return sealer
    }

    package init(clock: ServerClock, targets: OutboundTargets, sealer: SecretSealer?) {
        self.clock = clock
        self.targets = targets
        self.sealer = sealer
    }
}

import Foundation
import HandoverSchema

/// A key of a person or service, as someone asks for one (the dashboard's Keys form, `handover
/// admin create-key`): a name, a role, and how long it lives. ``init(name:role:expiresIn:)``
/// decides whether the request is right, naming the field at fault and what is accepted;
/// ``issue(now:on:)`` makes and stores it. A device's key is made with its device (the device's
/// page, `POST /api/v1/devices/{deviceID}/key`), never here.
package struct KeyRequest: Sendable, Equatable {
    /// Who or what holds the key: "IT on-call", "ward-7 wall screen". Trimmed; 1 to 100 characters.
    package var name: String
    package var role: AdminRole
    /// How long the key works; nil for a key that works until it is revoked.
    package var lifetime: KeyLifetime?
    /// The one site the key is for, or nil for every site. A site's key opens only the dashboard,
    /// with its role at that site: the API's operations span sites, so it refuses such a key.
    package var site: SiteName?

    /// The longest name, in characters: enough for "ward-7 wall screen, nurses' station north".
    package static let maximumNameLength = 100

    /// Reads a request from a form's text; throws the refusal of the first wrong field
    /// (`name`, `role`, `expiresIn`, `site`), a ``DomainError``.
    package init(name: String, role: String, expiresIn: String?, site: String? = nil) throws {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw DomainError.invalid("name", "give the key a name: who or what holds it, such as \"IT on-call\"") }
        guard trimmed.count <= Self.maximumNameLength else {
            throw DomainError.invalid("name", "\(trimmed.count) characters is too long; at most \(Self.maximumNameLength)")
        }
        guard !trimmed.containsControlCharacter else { throw DomainError.invalid("name", String.controlCharacterAdvice) }
        let roleText = role.trimmingCharacters(in: .whitespaces).lowercased()
        guard let role = AdminRole(rawValue: roleText) else {
            let device = roleText == APIKeyScope.device.rawValue ? " (a device's key is made on its page)" : ""
            throw DomainError.invalid("role", "'\(role.prefix(40))' is not a role\(device); accepted: admin, operator, viewer")
        }
        var lifetime: KeyLifetime?
        if let expiresIn, !expiresIn.trimmingCharacters(in: .whitespaces).isEmpty { lifetime = try KeyLifetime(expiresIn, field: "expiresIn") }
        var siteName: SiteName?
        if let site, !site.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            do throws(SiteNameError) { siteName = try SiteName(site) } catch {
                throw DomainError.invalid("site", "'\(site.prefix(80))' \(error.problem); accepted: \(SiteName.acceptedForm), or nothing for every site")
            }
        }
        self.init(name: trimmed, role: role, lifetime: lifetime, site: siteName)
    }

    package init(name: String, role: AdminRole, lifetime: KeyLifetime?, site: SiteName? = nil) {
        self.name = name
        self.role = role
        self.lifetime = lifetime
        self.site = site
    }

    /// What a key of `role` at `site` (as stored; nil for every site) may do on the dashboard.
    package static func permissions(role: AdminRole, site: String?) -> Permissions {
        guard let site, let name = try? SiteName(site) else { return Permissions([RoleGrant(role: role)]) }
        return Permissions([RoleGrant(role: role, scope: .sites([name]))])
    }

    /// The key's scope: its role.
    package var scope: APIKeyScope {
        switch role {
        case .admin: .admin
        case .operator: .operator
        case .viewer: .viewer
        }
    }

    /// Makes and stores the key; returns the key (shown once) and its row.
    package func issue(now: Date, on database: DatabaseHandle) async throws -> (key: String, row: APIKey) {
        let made = APIKey.make(name: name, scope: scope, deviceID: nil, now: now, expiresAt: lifetime.map { now.addingTimeInterval($0.seconds) })
        made.row.site = site?.text
        try await KeyStore(database).insert(made.row)
        return made
    }
}

/// How long a key works: whole days or hours, from 1 hour to 3,650 days (`90d`, `12h`).
package struct KeyLifetime: Sendable, Equatable {
    package var seconds: TimeInterval

    /// The shortest and longest lifetimes, in seconds.
    package static let accepted: ClosedRange<TimeInterval> = 3600...(3650 * 86_400)
    /// What a lifetime may be, as every refusal says it.
    package static let acceptedForm = "days or hours from 1h to 3650d, such as 90d or 12h"

    /// Reads `90d` or `12h` (case and white space around it ignored); `field` names the setting
    /// at fault in the refusal (`expiresIn`, `--expires-in`).
    package init(_ text: String, field: String) throws {
        let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
        let factor: TimeInterval? = lowered.hasSuffix("d") ? 86_400 : lowered.hasSuffix("h") ? 3600 : nil
        guard let factor, let count = Int(lowered.dropLast()), count > 0, count <= 3650 * 24,
              Self.accepted.contains(TimeInterval(count) * factor) else {
            throw DomainError.invalid(field, "'\(text.prefix(40))' is not a lifetime; accepted: \(Self.acceptedForm)")
        }
        seconds = TimeInterval(count) * factor
    }
}

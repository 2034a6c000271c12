import Foundation

/// Who hears of a device that needs a person, and when a device counts as not seen.
///
/// - **Contacts** (`HANDOVER_ALERT_CONTACTS`, `--alert-contacts`): email addresses for every site
///   (`it@hospital.org`) and a site's own (`ICU=icu-charge@hospital.org icu-lead@hospital.org`),
///   entries separated by commas, a site's addresses by spaces. A site's alert goes to its own
///   contacts and to the fleet's.
/// - **Not seen** (`HANDOVER_NOT_SEEN_AFTER`, `--not-seen-after`): a device whose key has not been
///   used for this long (never used: since it was registered) raises a `not_seen` alert. Off when
///   nil.
///
/// Webhooks subscribed to `device.alert` hear of every alert, whatever the contacts.
public struct AlertSettings: Sendable, Equatable {
    /// Addresses every alert goes to.
    public var fleetContacts: [String]
    /// Addresses by site (compared as ``SiteName`` compares).
    public var siteContacts: [SiteName: [String]]
    /// How long a device may go unseen; nil: never alerted for.
    public var notSeenAfter: TimeInterval?

    public init(fleetContacts: [String] = [], siteContacts: [SiteName: [String]] = [:], notSeenAfter: TimeInterval? = nil) {
        self.fleetContacts = fleetContacts
        self.siteContacts = siteContacts
        self.notSeenAfter = notSeenAfter
    }

    /// The addresses an alert of a device at `site` (as stored) goes to: the site's, then the
    /// fleet's, each once.
    public func contacts(site: String?) -> [String] {
        let key = site.map(SiteName.key(of:))
        let own = siteContacts.first { $0.key.key == key }?.value ?? []
        var seen: Set<String> = []
        return (own + fleetContacts).filter { seen.insert($0).inserted }
    }

    /// Whether any alert may be mailed.
    public var mailsAnyone: Bool { !fleetContacts.isEmpty || siteContacts.values.contains { !$0.isEmpty } }

    /// What ``parseContacts(_:)`` accepts, as its refusals say.
    public static let acceptedContacts = "comma-separated entries, each an address for every site (it@hospital.org) or a site's own, "
        + "SITE=ADDRESS ADDRESS (ICU=icu-charge@hospital.org icu-lead@hospital.org)"

    /// Reads contacts such as `it@hospital.org,ICU=icu-charge@hospital.org icu-lead@hospital.org,Ward 7=w7@hospital.org`
    /// into `self`, or throws naming the entry and what is wrong with it.
    public mutating func parseContacts(_ text: String) throws(AlertSettingsError) {
        for entry in text.split(separator: ",", omittingEmptySubsequences: true) {
            let written = entry.trimmingCharacters(in: .whitespaces)
            guard !written.isEmpty else { continue }
            // `SITE=…` when an '=' comes before any '@' (an address may itself hold an '=').
            let equals = written.firstIndex(of: "="), at = written.firstIndex(of: "@")
            if let equals, at.map({ equals < $0 }) ?? true {
                let site: SiteName
                do throws(SiteNameError) { site = try SiteName(written[..<equals]) } catch {
                    throw AlertSettingsError(entry: written, problem: "\(error)")
                }
                let addresses = try Self.addresses(written[written.index(after: equals)...], entry: written)
                siteContacts[site, default: []].append(contentsOf: addresses)
            } else {
                fleetContacts.append(contentsOf: try Self.addresses(Substring(written), entry: written))
            }
        }
    }

    private static func addresses(_ text: Substring, entry: String) throws(AlertSettingsError) -> [String] {
        let words = text.split(whereSeparator: \.isWhitespace)
        guard !words.isEmpty else { throw AlertSettingsError(entry: entry, problem: "names no address") }
        var found: [String] = []
        for word in words {
            guard let address = EmailAddress(String(word)) else {
                throw AlertSettingsError(entry: entry, problem: "'\(word.prefix(120))' is not an email address")
            }
            found.append(address.normalized)
        }
        return found
    }
}

/// An alert contact that cannot be read: the entry as written and what is wrong with it.
public struct AlertSettingsError: Error, Hashable, Sendable, CustomStringConvertible {
    public var entry: String
    public var problem: String

    public var description: String { "'\(entry.prefix(160))' \(problem)" }
}

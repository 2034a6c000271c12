import Foundation
import HandoverCore

/// The People page's people from the directory (SCIM, issue 67): each with their source, whether
/// a badge is set (never the badge itself), their roles and sites from the directory's groups,
/// and the devices they hold.
package enum DirectorySection {
    package static func render(_ people: [DirectoryListing], provisioningOn: Bool) -> HTML {
        .element("section", ["id": "directory"]) {
            HTML.element("h2") { "From the directory (SCIM)" }
            if people.isEmpty {
                HTML.element("p", ["class": "note"]) {
                    provisioningOn ? "The directory has provisioned nobody yet."
                        : "Provisioning is off: set HANDOVER_SCIM_TOKEN and give Entra ID or Okta this server's /scim/v2 (docs/people-and-roles.md)."
                }
            } else {
                HTML.element("div", ["class": "scroll"]) {
                    HTML.element("table", ["id": "directory-people"]) {
                        HTML.element("tr") {
                            HTML.element("th") { "Name" }; HTML.element("th") { "Login" }; HTML.element("th") { "Source" }
                            HTML.element("th") { "Status" }; HTML.element("th") { "Badge" }; HTML.element("th") { "Roles (sites)" }
                            HTML.element("th") { "Devices held" }; HTML.element("th") { "Changed" }
                        }
                        for person in people {
                            HTML.element("tr", ["id": "directory-\(person.id.uuidString.lowercased())"]) {
                                HTML.element("td") { person.displayName ?? person.userName }
                                HTML.element("td") { person.login ?? "– (no email address)" }
                                HTML.element("td") { person.signsIn ? "SCIM, signs in" : "SCIM" }
                                HTML.element("td") {
                                    person.active ? "active" : person.deprovisionedAt.map { "deprovisioned " + DashboardLayout.time($0) } ?? "inactive"
                                }
                                HTML.element("td") { person.hasBadge ? "set" : "none" }
                                HTML.element("td") { ((try? Permissions(text: person.grants)) ?? Permissions([])).summary }
                                HTML.element("td") { person.devicesHeld.isEmpty ? "none" : person.devicesHeld.joined(separator: ", ") }
                                HTML.element("td") { DashboardLayout.time(person.updatedAt) }
                            }
                        }
                    }
                }
            }
        }
    }
}

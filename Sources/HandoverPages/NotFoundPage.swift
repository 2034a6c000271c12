import Foundation

/// The page a browser gets for a dashboard address that leads nowhere (a mistyped path, a device
/// or run that was deleted, or one outside the person's sites): what happened and where to go on.
/// The server answers it with status 404, where the JSON API answers its error body.
package enum NotFoundPage {
    /// The page for `path` (its first 200 characters shown), saying `reason`.
    package static func page(path: String, reason: String) -> HTMLPage {
        HTMLPage(
            title: "Not found · Handover", heading: "Nothing here",
            paragraphs: ["There is no dashboard page at \(String(path.prefix(200))). \(reason)",
                         "A device, run or app may have been removed, or belong to a site you do not see."],
            extra: .element("p") {
                HTML.element("a", ["href": "/dashboard"]) { "Go to the overview" }
                " · "
                HTML.element("a", ["href": "/dashboard/devices"]) { "search the devices" }
            })
    }
}

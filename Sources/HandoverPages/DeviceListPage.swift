import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema

/// The fleet's devices on the dashboard (`/dashboard/devices`), 50 to a page: the search form
/// (name or serial number, status, a ready-made filter), how many devices match, a row per device
/// with its last run, the pager, and the page for a page number past the last. Every value is in
/// the query string (``link(_:)``), so a view can be bookmarked and shared.
package enum DeviceListPage {
    /// The page's body: the links to add and import devices (an operator's), the search, the
    /// count, the table (each device's last run from `lastRuns`) and the pager.
    @HTMLBuilder
    package static func body(_ search: DeviceSearch, page: DeviceSearch.Page, lastRuns: [UUID: LogoutRun], viewer: DashboardViewer) -> HTML {
        if viewer.may(.operator, everySite: false) {  // DeviceFormRoutes' need
            HTML.element("p") {
                HTML.element("a", ["href": "/dashboard/devices/new"]) { "Add a device" }; " · "
                HTML.element("a", ["href": "/dashboard/devices/import"]) { "Import devices (CSV)" }
            }
        }
        form(search)
        HTML.element("p", ["class": "note", "id": "matches"]) {
            "\(page.total) device\(page.total == 1 ? "" : "s")" + (search == DeviceSearch(sites: search.sites) ? "" : " match")
                + (page.total > DeviceSearch.pageSize ? " · page \(page.page) of \(page.pageCount)" : "")
        }
        if page.devices.isEmpty {
            HTML.element("p", ["class": "note"]) { "No device matches. Clear the search to see them all." }
        } else {
            HTML.element("div", ["class": "scroll"]) {
                HTML.element("table", ["id": "devices"]) {
                    HTML.element("tr") {
                        HTML.element("th") { "Device" }; HTML.element("th") { "Site" }; HTML.element("th") { "Serial number" }
                        HTML.element("th") { "Status" }; HTML.element("th") { "Last run" }
                    }
                    for device in page.devices {
                        let last = device.lastRunID.flatMap { lastRuns[$0] }
                        HTML.element("tr") {
                            HTML.element("td") { DashboardLinks.device(device) }
                            HTML.element("td") { device.site ?? "—" }
                            HTML.element("td") { device.serialNumber ?? "—" }
                            HTML.element("td") { DashboardLayout.badge(device.status) }
                            HTML.element("td") {
                                if let last, let id = last.id {
                                    DashboardLayout.badge(last.status); " "
                                    HTML.element("a", ["href": DashboardLinks.run(id)]) { DashboardLayout.time(last.createdAt) }
                                } else { "never" }
                            }
                        }
                    }
                }
            }
        }
        pager(search, page: page)
    }

    /// The link to a view of the list.
    package static func link(_ search: DeviceSearch) -> String {
        var items: [URLQueryItem] = []
        if !search.text.isEmpty { items.append(URLQueryItem(name: "q", value: search.text)) }
        if let status = search.status { items.append(URLQueryItem(name: "status", value: status.rawValue)) }
        if search.filter != .all { items.append(URLQueryItem(name: "filter", value: search.filter.rawValue)) }
        if search.page > 1 { items.append(URLQueryItem(name: "page", value: String(search.page))) }
        var components = URLComponents()
        components.path = "/dashboard/devices"
        components.queryItems = items.isEmpty ? nil : items
        return components.string ?? "/dashboard/devices"
    }

    /// The search form: text, status and the ready-made filters as links.
    package static func form(_ search: DeviceSearch) -> HTML {
        .element("form", ["method": "get", "action": "/dashboard/devices", "class": "search", "role": "search"]) {
            HTML.element("label") {
                "Name or serial number "
                HTML.element("input", ["type": "search", "name": "q", "value": search.text, "maxlength": "100", "autofocus": "autofocus"])
            }
            HTML.element("label") {
                " Status "
                HTML.element("select", ["name": "status"]) {
                    HTML.element("option", ["value": ""]) { "any" }
                    for status in DeviceStatus.allCases {
                        HTML.element("option", search.status == status ? ["value": status.rawValue, "selected": "selected"] : ["value": status.rawValue]) {
                            status.rawValue.replacingOccurrences(of: "_", with: " ")
                        }
                    }
                }
            }
            " "
            HTML.element("button", ["type": "submit"]) { "Search" }
            HTML.element("p", ["class": "filters"]) {
                for filter in DeviceSearch.Filter.allCases {
                    let target = DeviceSearch(text: search.text, status: search.status, filter: filter)
                    if filter == search.filter {
                        HTML.element("strong") { filter.label }
                    } else {
                        HTML.element("a", ["href": link(target)]) { filter.label }
                    }
                    " "
                }
            }
        }
    }

    /// The body for a page past the last (the server answers it 404): the last page named and
    /// linked (the search kept), rather than an empty list that looks like the end of the fleet.
    @HTMLBuilder
    package static func pastTheLastPage(_ search: DeviceSearch, page: DeviceSearch.Page) -> HTML {
        let last = { var last = search; last.page = page.pageCount; return last }()
        HTML.element("h2") { "No such page" }
        HTML.element("p") {
            "There is no page \(search.page) of this list: \(page.total) device\(page.total == 1 ? "" : "s")"
                + (search == DeviceSearch(page: search.page, sites: search.sites) ? "" : " match") + ", and the last is page \(page.pageCount). "
            HTML.element("a", ["href": link(last)]) { "Go to page \(page.pageCount)" }
        }
    }

    /// Previous and next, when there is more than one page.
    package static func pager(_ search: DeviceSearch, page: DeviceSearch.Page) -> HTML {
        guard page.pageCount > 1 else { return .join([]) }
        var previous = search
        previous.page = page.page - 1
        var next = search
        next.page = page.page + 1
        return .element("nav", ["class": "pager", "aria-label": "pages"]) {
            if page.page > 1 { HTML.element("a", ["href": link(previous), "rel": "prev"]) { "← Previous" } }
            " Page \(page.page) of \(page.pageCount) "
            if page.page < page.pageCount { HTML.element("a", ["href": link(next), "rel": "next"]) { "Next →" } }
        }
    }
}

import Foundation
import HandoverCore

/// The fleet import's pages (`/dashboard/devices/import`, issue 66): the form that takes a CSV
/// file, uploaded or pasted; the preview, with nothing written, of each device that would be
/// added and each refused row with its line, field and reason, and the form that confirms it;
/// and the page of the imported devices' keys, shown once as CSV.
package enum DeviceImportPage {
    /// The form that takes the file, with `error` (a refusal of the last one) above it; the form
    /// takes up to `limitKB` KB.
    package static func uploadForm(csrf: String, error: String?, limitKB: Int) -> HTML {
        .element("section") {
            HTML.element("p") {
                "A CSV file whose first line names the columns: name, and any of serialNumber, mdmDeviceID and site; "
                "or a device export from Jamf Pro or Microsoft Intune, as it comes. You see what would be added and every refused row "
                "before anything is written. "
                "Up to \(limitKB) KB here (about 2,500 devices); a larger file goes in with "
                HTML.element("code") { "handover admin import-devices" }; "."
            }
            if let error { HTML.element("p", ["class": "error", "role": "alert", "id": "error"]) { error } }
            HTML.element("form", ["method": "post", "action": "/dashboard/devices/import/preview", "enctype": "multipart/form-data",
                                  "class": "stack", "id": "import-form"]) {
                DashboardLayout.csrfField(csrf)
                HTML.element("label") { "CSV file"; HTML.element("input", ["type": "file", "name": "file", "accept": ".csv,text/csv"]) }
                HTML.element("label") {
                    "or paste it"
                    HTML.element("textarea", ["name": "csv", "rows": "8", "placeholder": "name,serialNumber,site\nicu-phone-1,C02XK1ABJG5H,ICU"]) { "" }
                }
                HTML.element("button", ["type": "submit"]) { "Preview the import" }
            }
        }
    }

    /// The preview of `csv` from a dry run's `report`: what it would add, what it refuses, and the
    /// confirm form (when there is something to add), which carries the file and `digest`, the
    /// digest of what was shown. `note` (why the preview is shown again) goes above it.
    @HTMLBuilder
    package static func preview(_ preview: DeviceImportReport, csv: String, digest: String, note: String?, csrf: String) -> HTML {
        if let note { HTML.element("p", ["class": "error", "role": "alert"]) { note } }
        HTML.element("p", ["class": "note"]) {
            "Nothing is written yet. "
            preview.export.map { "The file is a \($0) export" + (preview.ignoredColumns.isEmpty ? ". " : "; its columns "
                + preview.ignoredColumns.joined(separator: ", ") + " are left out. ") } ?? ""
        }
        HTML.element("section", ["id": "to-add"]) {
            HTML.element("h2") { "To add (\(preview.imported.count))" }
            if !preview.imported.isEmpty {
                HTML.element("div", ["class": "scroll"]) {
                    HTML.element("table") {
                        HTML.element("tr") {
                            HTML.element("th") { "Line" }; HTML.element("th") { "Name" }; HTML.element("th") { "Site" }
                            HTML.element("th") { "Serial number" }; HTML.element("th") { "MDM id" }
                        }
                        for row in preview.imported {
                            HTML.element("tr") {
                                HTML.element("td") { String(row.line) }; HTML.element("td") { row.name }; HTML.element("td") { row.site ?? "—" }
                                HTML.element("td") { row.serialNumber ?? "—" }; HTML.element("td") { row.mdmDeviceID ?? "—" }
                            }
                        }
                    }
                }
            }
        }
        HTML.element("section", ["id": "refused"]) {
            HTML.element("h2") { "Refused (\(preview.refused.count))" }
            if !preview.refused.isEmpty {
                HTML.element("div", ["class": "scroll"]) {
                    HTML.element("table") {
                        HTML.element("tr") { HTML.element("th") { "Line" }; HTML.element("th") { "Field" }; HTML.element("th") { "Why" } }
                        for row in preview.refused {
                            HTML.element("tr") {
                                HTML.element("td") { String(row.line) }; HTML.element("td") { row.column ?? "—" }; HTML.element("td") { row.reason }
                            }
                        }
                    }
                }
            }
        }
        if preview.imported.isEmpty {
            HTML.element("p") { "Nothing to import. "; HTML.element("a", ["href": "/dashboard/devices/import"]) { "Choose another file" } }
        } else {
            HTML.element("form", ["method": "post", "action": "/dashboard/devices/import", "id": "confirm-import"]) {
                DashboardLayout.csrfField(csrf)
                HTML.element("input", ["type": "hidden", "name": "csv", "value": csv])
                HTML.element("input", ["type": "hidden", "name": "preview", "value": digest])
                HTML.element("button", ["type": "submit"]) { "Import these \(preview.imported.count) device\(preview.imported.count == 1 ? "" : "s")" }
            }
        }
    }

    /// The page after an import: how many devices went in (`imported`), how many rows were left
    /// out (`refused`), and the new devices' keys as CSV (`keysCSV`), shown only now.
    package static func imported(_ imported: Int, refused: Int, keysCSV: String) -> HTML {
        .element("section", ["id": "imported"]) {
            HTML.element("p", ["role": "status"]) {
                "Imported \(imported) device\(imported == 1 ? "" : "s")."
                refused == 0 ? "" : " \(refused) refused row\(refused == 1 ? " was" : "s were") left out."
            }
            HTML.element("p") {
                "Their keys, shown only now, as CSV: copy them into the launchers' managed configuration in your MDM "
                "(the key HandoverDeviceKey)."
            }
            HTML.element("textarea", ["id": "keys", "readonly": "readonly", "rows": "10", "cols": "100"]) { keysCSV }
            HTML.element("p") { HTML.element("a", ["href": "/dashboard/devices"]) { "See the devices" } }
        }
    }
}

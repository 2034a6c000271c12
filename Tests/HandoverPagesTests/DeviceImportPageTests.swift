import Foundation
import HandoverCore
import HandoverPages
import Testing

/// The fleet import's pages from plain values: a row per device to add and per refused row,
/// escaped names, the confirm form only when something would be added, and the keys shown once.
@Suite struct DeviceImportPageTests {
    @Test func thePreviewListsWhatItAddsAndRefusesAndOffersToConfirm() {
        let preview = DeviceImportReport(
            imported: [.init(line: 2, id: UUID(), name: "<script>icu</script>", serialNumber: "C02", mdmDeviceID: nil, site: "ICU", key: nil),
                       .init(line: 3, id: UUID(), name: "icu-2", serialNumber: nil, mdmDeviceID: nil, key: nil)],
            refused: [.init(line: 4, column: "site", reason: "your role does not allow adding devices at Ward 7")],
            dryRun: true, export: "Jamf Pro", ignoredColumns: ["Model"])
        let html = DeviceImportPage.preview(preview, csv: "name\n<script>icu</script>", digest: "d1", note: nil, csrf: "t").rendered
        #expect(html.contains("To add (2)"))
        #expect(html.contains("Refused (1)"))
        #expect(html.contains("<td>2</td><td>&lt;script&gt;icu&lt;/script&gt;</td><td>ICU</td><td>C02</td><td>—</td>"))
        #expect(html.contains("<td>4</td><td>site</td>"))
        #expect(html.contains("The file is a Jamf Pro export; its columns Model are left out. "))
        #expect(!html.contains("<script>"))
        #expect(html.contains("name=\"preview\" value=\"d1\""))
        #expect(html.contains("Import these 2 devices"))
    }

    @Test func nothingToAddOffersNoConfirmForm() {
        let preview = DeviceImportReport(imported: [], refused: [.init(line: 2, column: nil, reason: "no name")], dryRun: true)
        let html = DeviceImportPage.preview(preview, csv: "x", digest: "d", note: "The registry changed.", csrf: "t").rendered
        #expect(html.contains("Nothing to import. "))
        #expect(!html.contains("id=\"confirm-import\""))
        #expect(html.contains("<p class=\"error\" role=\"alert\">The registry changed.</p>"))
    }

    @Test func theUploadFormAndTheImportedKeys() {
        let form = DeviceImportPage.uploadForm(csrf: "t", error: "file: empty", limitKB: 256).rendered
        #expect(form.contains("Up to 256 KB here"))
        #expect(form.contains("id=\"error\">file: empty</p>"))
        let done = DeviceImportPage.imported(1, refused: 2, keysCSV: "line,name\n2,<b>").rendered
        #expect(done.contains("Imported 1 device. 2 refused rows were left out."))
        #expect(done.contains("2,&lt;b&gt;</textarea>"))
    }
}

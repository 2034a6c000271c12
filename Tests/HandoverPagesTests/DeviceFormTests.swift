import Foundation
import HandoverCore
import HandoverPages
import HandoverSchema
import Testing

/// The device forms and the page after an add, rendered from plain values.
@Suite struct DeviceFormTests {
    @Test func theAddFormKeepsTheValuesGivenEscaped() {
        let values = DeviceRegistrar.Fields(name: "\"><script>", serialNumber: "C02", mdmDeviceID: nil, site: "ICU")
        let html = DeviceForm.add(csrf: "t", values: values, error: "A device has this name.").rendered
        #expect(html.contains("<p class=\"error\" id=\"error\">A device has this name.</p>"))
        #expect(html.contains("action=\"/dashboard/devices/new\""))
        #expect(html.contains("value=\"&quot;&gt;&lt;script&gt;\""))
        #expect(!html.contains("<script>"))
        #expect(html.contains("value=\"ICU\""))
        #expect(html.contains(">Add the device</button>"))
    }

    @Test func theEditFormPostsToItsAction() {
        let html = DeviceForm.html(action: "/dashboard/devices/d1/edit", csrf: "t", values: .init(name: "p"), button: "Save", error: nil).rendered
        #expect(html.contains("action=\"/dashboard/devices/d1/edit\""))
        #expect(!html.contains("class=\"error\""))
        #expect(html.contains("<input type=\"hidden\" name=\"csrf\" value=\"t\">"))
    }

    @Test func theAddedPageShowsTheKeyOnce() {
        let device = Device(name: "icu-phone-1", createdAt: Date())
        device.id = UUID()
        let html = DeviceForm.added(device, key: "hov_k").rendered
        #expect(html.contains("<code id=\"device-key\">hov_k</code>"))
        #expect(html.contains(">icu-phone-1</a>."))
    }
}

import Foundation
import HandoverCore
import HandoverPages
import HandoverProtocol
import HandoverSchema
import Testing

/// Retire and delete on a device's page, rendered from plain values.
@Suite struct DeviceRetirementFormTests {
    @Test func aDeviceInTheFleetGetsTheRetireFormAndDeleteOnlyWhenNothingNamesIt() {
        let device = Device(name: "icu-phone-1", createdAt: Date())
        let named = DeviceRetirementForm.html(device, id: "d1", deletable: false, csrf: "t", error: nil).rendered
        #expect(named.contains("Retire or delete"))
        #expect(named.contains("action=\"/dashboard/devices/d1/retire\""))
        #expect(!named.contains("/delete\""))
        #expect(named.contains("It cannot be deleted"))
        let unnamed = DeviceRetirementForm.html(device, id: "d1", deletable: true, csrf: "t", error: nil).rendered
        #expect(unnamed.contains("action=\"/dashboard/devices/d1/delete\""))
    }

    @Test func aRetiredDeviceHasNoRetireFormAndTheRefusalIsEscaped() {
        let device = Device(name: "icu-phone-1", createdAt: Date())
        device.status = .retired
        let html = DeviceRetirementForm.html(device, id: "d1", deletable: false, csrf: "t", error: "<b>no</b>").rendered
        #expect(html.contains("<h2>Retired</h2>"))
        #expect(!html.contains("/retire\""))
        #expect(html.contains("<p class=\"error\" role=\"alert\">&lt;b&gt;no&lt;/b&gt;</p>"))
    }

    @Test func theDeletedPageNamesTheDevice() {
        let html = DeviceRetirementForm.deleted(Device(name: "<script>", createdAt: Date())).rendered
        #expect(html.contains("&lt;script&gt; is deleted, with its history"))
        #expect(DeviceRetirementForm.role == .admin)
    }
}

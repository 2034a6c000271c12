import Foundation
import HandoverCore
import HandoverPages
import HandoverSchema
import Testing

/// A device's API key section and its new-key page, rendered from plain values.
@Suite struct DeviceKeysSectionTests {
    static func key(prefix: String, revokedAt: Date? = nil) -> APIKey {
        let key = APIKey()
        key.keyPrefix = prefix
        key.createdAt = Date(timeIntervalSince1970: 1_700_000_000)
        key.revokedAt = revokedAt
        return key
    }

    @Test func aLiveKeyIsShownWithTheFormsForAnOperator() {
        let html = DeviceKeysSection.html([Self.key(prefix: "hov_abc")], deviceID: "d1", mayChange: true, csrf: "t").rendered
        #expect(html.contains("<code>hov_abc…</code>"))
        #expect(html.contains("last used never"))
        #expect(html.contains("action=\"/dashboard/devices/d1/key/revoke\""))
        #expect(html.contains("Replace the key"))
    }

    @Test func noFormWithoutTheRole() {
        let html = DeviceKeysSection.html([Self.key(prefix: "hov_abc")], deviceID: "d1", mayChange: false, csrf: "t").rendered
        #expect(!html.contains("<form"))
    }

    @Test func withoutALiveKeyItSaysSoAndListsTheRevoked() {
        let revoked = Self.key(prefix: "hov_old", revokedAt: Date(timeIntervalSince1970: 1_700_000_600))
        let html = DeviceKeysSection.html([revoked], deviceID: "d1", mayChange: true, csrf: "t").rendered
        #expect(html.contains("This device has no live key"))
        #expect(html.contains("Give it a new key"))
        #expect(!html.contains("Revoke key"))
        #expect(html.contains("Revoked: hov_old… (2023-11-14 22:23:20)"))
    }

    @Test func theNewKeyPageEscapesTheDeviceName() {
        let device = Device(name: "<script>alert(1)</script>", createdAt: Date())
        let html = DeviceKeysSection.newKey("hov_secret", device: device, deviceID: "d1", replacedAny: true).rendered
        #expect(html.contains("<code id=\"new-key\">hov_secret</code>"))
        #expect(html.contains("Back to &lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!html.contains("<script>"))
        #expect(html.contains("Its previous key is revoked"))
    }
}

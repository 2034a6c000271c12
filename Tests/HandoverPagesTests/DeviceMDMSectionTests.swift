import Foundation
import HandoverCore
import HandoverPages
import HandoverProtocol
import HandoverSchema
import Testing

/// A device page's MDM section, rendered from plain values.
@Suite struct DeviceMDMSectionTests {
    static func command(_ action: MDMAction, _ status: MDMCommandState) -> MDMCommand {
        let command = MDMCommand()
        command.id = UUID(uuidString: "00000000-0000-0000-0000-0000000000AB")
        command.action = action
        command.status = status
        command.connector = "jamf"
        command.attempts = 0
        command.createdAt = Date(timeIntervalSince1970: 1_700_000_000)
        return command
    }

    @Test func aRowPerCommandAndTheEraseFormOnlyForWhoMayConfirm() {
        let device = Device(name: "<script>", createdAt: Date())
        let commands = [Self.command(.lostMode, .sent), Self.command(.erase, .awaitingConfirmation)]
        let html = DeviceMDMSection.html(commands, device: device, id: "d1", csrf: "t", error: nil, mayConfirm: true).rendered
        #expect(html.components(separatedBy: "<tr>").count - 1 == 3)
        #expect(html.contains("lost mode by jamf"))
        #expect(html.contains("<h3>Erase this device?</h3>"))
        #expect(html.contains("/dashboard/devices/d1/mdm-commands/00000000-0000-0000-0000-0000000000ab/confirm-erase"))
        #expect(html.contains("placeholder=\"&lt;script&gt;\""))
        #expect(!html.contains("<script>"))
        let viewer = DeviceMDMSection.html(commands, device: device, id: "d1", csrf: "t", error: nil, mayConfirm: false).rendered
        #expect(!viewer.contains("confirm-erase"))
    }

    @Test func aReturnToServiceSaysWhatFollows() {
        let html = DeviceMDMSection.html([Self.command(.returnToService, .awaitingConfirmation)], device: Device(name: "p", createdAt: Date()),
                                         id: "d1", csrf: "t", error: "Type the name", mayConfirm: true).rendered
        #expect(html.contains("Erase this device and return it to service?"))
        #expect(html.contains("<p class=\"error\" role=\"alert\">Type the name</p>"))
    }
}

import Foundation

/// An alert as its mail says it: the subject names the cause and the device, the body why, since
/// when, and the link to the device's page, where it is acknowledged.
package enum AlertText {
    /// A moment as the mail writes it: `2026-11-29 06:15 UTC`.
    package static func time(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: date)
    }

    /// The mail's subject: `Overdue: ICU-07 (ICU)`.
    package static func subject(_ alert: DeviceAlert) -> String {
        "\(alert.cause.words): \(alert.deviceName)\(alert.site.map { " (\($0))" } ?? "")"
    }

    /// The dashboard page of the alert's device, under the server's public origin.
    package static func page(_ alert: DeviceAlert, publicURL: URL) -> String {
        publicURL.appendingPathComponent("dashboard/devices/\(alert.device.uuidString.lowercased())").absoluteString
    }

    /// The mail's body, plain text.
    package static func body(_ alert: DeviceAlert, publicURL: URL) -> String {
        """
        \(alert.deviceName)\(alert.site.map { " at \($0)" } ?? "") needs a person: \(alert.cause.words.lowercased()).

        Why: \(alert.detail).
        Since: \(time(alert.raisedAt)).

        Its page, where the alert is acknowledged so the others on this list know someone has it:
        \(page(alert, publicURL: publicURL))

        You receive this because HANDOVER_ALERT_CONTACTS names you for \(alert.site ?? "every site").
        """
    }
}

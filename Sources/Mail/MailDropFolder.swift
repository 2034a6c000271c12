import Foundation
import HandoverCore

/// Mail written to a folder instead of sent: one RFC 5322 file (`.eml`, CRLF lines) per
/// message, for development and `handover demo`, where no mail relay runs. A mail client opens
/// the files, and a script reads the sign-in link from them.
///
/// Each file is written under a temporary name and then renamed, so a reader never sees half a
/// message. Names sort by the time they were written: `20261124T061502.123Z-<uuid>.eml`.
package struct MailDropFolder: MailTransport {
    package let folder: URL
    /// The `From` header.
    package var from = "Handover <no-reply@handover.invalid>"
    package var now: @Sendable () -> Date = { Date() }

    /// Creates the folder when it is missing; throws when it cannot be written.
    package init(folder: URL, now: @escaping @Sendable () -> Date = { Date() }) throws {
        self.folder = folder
        self.now = now
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw ConfigurationError(setting: "HANDOVER_MAIL_DROP_DIR", problem: "the folder \(folder.path) cannot be created (\(error.localizedDescription))",
                                     accepted: "a folder this user can write")
        }
        guard FileManager.default.isWritableFile(atPath: folder.path) else {
            throw ConfigurationError(setting: "HANDOVER_MAIL_DROP_DIR", problem: "the folder \(folder.path) is not writable",
                                     accepted: "a folder this user can write")
        }
    }

    package func send(_ message: EmailMessage) async throws {
        let date = now()
        let text = message.lines(from: from, date: date).joined(separator: "\r\n") + "\r\n"
        let name = Self.fileName(at: date)
        let partial = folder.appendingPathComponent(".\(name).partial")
        try Data(text.utf8).write(to: partial)
        try FileManager.default.moveItem(at: partial, to: folder.appendingPathComponent(name))
    }

    package static func fileName(at date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
        return "\(formatter.string(from: date))-\(UUID().uuidString.lowercased()).eml"
    }
}

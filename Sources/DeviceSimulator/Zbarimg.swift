import Foundation

/// Decodes a QR code image with `zbarimg` (zbar-tools): an independent decoder, so the simulated
/// phone reads what a camera would, not what our encoder meant.
public enum Zbarimg {
    /// Where `zbarimg` is on `PATH`, or nil when it is not installed (`apt-get install zbar-tools`).
    public static var path: String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/zbarimg"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The text of the one QR code in `image` (PNG or any format zbar reads).
    public static func decode(_ image: Data, with path: String) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("handover-qr-\(UUID().uuidString).png")
        try image.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        // -Sbinary: the code's bytes as they are. Without it zbar guesses a character set for
        // byte-mode data and converts, which once turned a payload into a control character.
        process.arguments = ["--raw", "-q", "-Sbinary", file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice  // zbar's D-Bus chatter
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "zbarimg found no QR code in the image (exit \(process.terminationStatus))")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

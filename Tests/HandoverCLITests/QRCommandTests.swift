import Foundation
import Testing

/// End-to-end tests of `handover qr`, run as a child process. The decoding test reads the PNG
/// back with zbarimg (Debian package zbar-tools) and is skipped, with a printed reason, without it.
@Suite(.timeLimit(.minutes(5))) struct QRCommandTests {
    static let link = "https://appb.example.com/logout?ulc-success=https%3A%2F%2Fappa.com%2Fok&ulc-error=https%3A%2F%2Fappa.com%2Ferr"

    static func temporaryFile(_ suffix: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("handover-qr-\(UUID().uuidString).\(suffix)")
    }

    @Test(.enabled(if: ZbarImage.isInstalled, "zbarimg is not installed (apt-get install zbar-tools)"),
          arguments: ["L", "M", "Q", "H"])
    func pngDecodesToTheTextWithZbar(ecc: String) async throws {
        let file = Self.temporaryFile("png")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await HandoverBinary.run(["qr", Self.link, "--png", file.path, "--ecc", ecc, "--scale", "4"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("wrote \(file.path): version "))
        #expect(result.stdout.contains("ECC \(ecc)"))
        #expect(try await ZbarImage.decode(file) == Array(Self.link.utf8))
    }

    @Test(.enabled(if: ZbarImage.isInstalled, "zbarimg is not installed (apt-get install zbar-tools)"))
    func standardInputIsEncodedAsItsBytes() async throws {
        let file = Self.temporaryFile("png")
        defer { try? FileManager.default.removeItem(at: file) }
        let input = "line one\nline two: é €\n"
        let result = try await HandoverBinary.run(["qr", "--stdin", "--png", file.path, "--min-version", "5"], stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("version 5 (37×37 modules)"))
        #expect(try await ZbarImage.decode(file) == Array(input.utf8))
    }

    @Test func tooMuchDataIsAUsageErrorNamingTheLimit() async throws {
        let result = try await HandoverBinary.run(["qr", String(repeating: "a", count: 1274), "--ecc", "H"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("1,274 bytes do not fit at ECC H: the most is 1,273"))
        #expect(result.stdout.isEmpty)
    }

    @Test func anUnknownLevelListsTheAcceptedOnes() async throws {
        let result = try await HandoverBinary.run(["qr", "hello", "--ecc", "X"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--ecc: 'X' is not an error correction level. Accepted: L, M, Q, H"))
    }

    @Test func withoutAnOutputFileTheCodeIsDrawnInTheTerminal() async throws {
        let result = try await HandoverBinary.run(["qr", "hello"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 15)  // version 1: 21 modules + 2 × 4 quiet zone = 29 rows, two per line
        #expect(lines.allSatisfy { $0.count == 29 && $0.allSatisfy { " ▀▄█".contains($0) } })
        #expect(lines.first == Substring(String(repeating: "█", count: 29)), "the quiet zone is drawn light")
        #expect(result.stderr.contains("version 1 (21×21 modules), ECC M"))
    }

    @Test func svgIsWritten() async throws {
        let file = Self.temporaryFile("svg")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await HandoverBinary.run(["qr", "hello", "--svg", file.path, "--ecc", "quartile"])
        #expect(result.status == 0)
        let svg = try String(contentsOf: file, encoding: .utf8)
        #expect(svg.hasPrefix("<?xml") && svg.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains("width=\"232\""))  // (21 + 8) modules × 8 px
    }

    @Test func helpTeachesWithExamples() async throws {
        let result = try await HandoverBinary.run(["qr", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Examples:"))
        #expect(result.stdout.contains("--png <file>") && result.stdout.contains("--ecc <level>") && result.stdout.contains("--stdin"))
    }
}

/// `zbarimg --raw -q -Sdisable -Sqrcode.enable -Sbinary`: the bytes of the QR code in an image,
/// exactly as encoded (no charset conversion, and no 1D barcodes "found" among the modules).
enum ZbarImage {
    static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("zbarimg") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    static var isInstalled: Bool {
        if executable == nil { skipNotice }
        return executable != nil
    }

    private static let skipNotice: Void = print("SKIP handover qr decoding tests: zbarimg is not on PATH (apt-get install zbar-tools)")

    static func decode(_ file: URL) async throws -> [UInt8] {
        guard let executable else { throw CocoaError(.fileNoSuchFile) }
        return [UInt8](try await ToolProcess.run(executable, ["--nodbus", "--raw", "-q", "-Sdisable", "-Sqrcode.enable", "-Sbinary", file.path]).output)
    }
}

/// `handover --version` prints the one version (issue 41).
@Suite struct VersionCommandTests {
    @Test func versionPrintsTheVersion() async throws {
        let result = try await HandoverBinary.run(["--version"])
        #expect(result.status == 0 && result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).range(of: #"^\d+\.\d+\.\d+$"#, options: .regularExpression) != nil,
                "\(result.stdout) \(result.stderr)")
    }
}

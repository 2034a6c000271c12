import ArgumentParser
import Foundation
import QRCode

/// `handover qr`: make a QR code for a link or any other data.
struct QRCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qr",
        abstract: "Make a QR code: print it to the terminal, or write a PNG or SVG file.",
        discussion: """
            The data is encoded as bytes (text as UTF-8), in the smallest QR code that holds it at \
            the chosen error correction level:
              L  recovers ~7% of the code    (at most 2,953 bytes)
              M  recovers ~15%, the default  (at most 2,331 bytes)
              Q  recovers ~25%               (at most 1,663 bytes)
              H  recovers ~30%               (at most 1,273 bytes)
            Higher levels survive scuffs and glare better but make a denser code.

            With no --png or --svg, the code is drawn in the terminal with block characters, two \
            module rows per line, ready to scan off the screen. It assumes light text on a dark \
            background; on a light background add --light-background. Details (version, size, \
            mask) go to standard error.

            Examples:
              handover qr 'https://appb.example.com/logout?ulc-success=...'
              handover qr https://example.com --png code.png --scale 4
              handover qr https://example.com --svg code.svg --ecc H
              head -c 500 /dev/urandom | handover qr --stdin --png random.png --ecc L
              handover qr hello --png - > hello.png
            """
    )

    @Argument(help: ArgumentHelp("The text to encode, as UTF-8. Quote it: '&' means something to the shell.", valueName: "text"))
    var text: String?

    @Flag(name: .customLong("stdin"), help: "Encode the bytes read from standard input, whatever they are, instead of <text>.")
    var readsStandardInput = false

    @Option(help: ArgumentHelp("Write a PNG image to this file ('-' for standard output).", valueName: "file"))
    var png: String?

    @Option(help: ArgumentHelp("Write an SVG image to this file ('-' for standard output).", valueName: "file"))
    var svg: String?

    @Option(help: ArgumentHelp("The error correction level: L, M, Q or H (or low, medium, quartile, high).", valueName: "level"))
    var ecc = "M"

    @Option(name: .customLong("min-version"),
            help: ArgumentHelp("The smallest QR version to use, 1 (21×21 modules) to 40 (177×177); larger when the data needs it.",
                               valueName: "n"))
    var minimumVersion = 1

    @Option(help: ArgumentHelp("Pixels per module in the PNG or SVG, 1 to 100.", valueName: "n"))
    var scale = 8

    @Option(name: .customLong("quiet-zone"),
            help: ArgumentHelp("The light border, in modules, 0 to 40. Readers need 4; less only if the page around it is light.",
                               valueName: "n"))
    var quietZone = 4

    @Flag(name: .customLong("light-background"), help: "Draw for a terminal with dark text on a light background.")
    var lightBackground = false

    func validate() throws {
        if readsStandardInput == (text != nil) {
            throw ValidationError(readsStandardInput ? "give either <text> or --stdin, not both." : "give the <text> to encode, or --stdin to read bytes.")
        }
        guard ErrorCorrectionLevel(spelling: ecc) != nil else {
            throw ValidationError("--ecc: '\(ecc)' is not an error correction level. Accepted: \(ErrorCorrectionLevel.acceptedSpellings).")
        }
        guard (1...40).contains(minimumVersion) else {
            throw ValidationError("--min-version: \(minimumVersion) is not a QR version. Accepted: 1 to 40.")
        }
        guard (1...100).contains(scale) else { throw ValidationError("--scale: \(scale) is out of range. Accepted: 1 to 100.") }
        guard (0...40).contains(quietZone) else {
            throw ValidationError("--quiet-zone: \(quietZone) is out of range. Accepted: 0 to 40.")
        }
        if png == "-" && svg == "-" { throw ValidationError("only one of --png and --svg can be '-' (standard output).") }
    }

    func run() async throws {
        let correction = ErrorCorrectionLevel(spelling: ecc)!  // checked in validate()
        let bytes = readsStandardInput ? [UInt8](FileHandle.standardInput.readDataToEndOfFile()) : Array((text ?? "").utf8)
        let code: QRCode
        do {
            code = try QRCode(encoding: bytes, correction: correction, minimumVersion: minimumVersion)
        } catch {
            throw ValidationError(error.description)
        }
        let summary = "version \(code.version) (\(code.size)×\(code.size) modules), ECC \(code.correction), \(code.mask), \(bytes.count) bytes"

        if png == nil && svg == nil {
            print(code.terminalText(quietZone: quietZone, background: lightBackground ? .light : .dark))
            FileHandle.standardError.write(Data((summary + "\n").utf8))
            return
        }
        if let png { try write(code.png(scale: scale, quietZone: quietZone), to: png, option: "--png", summary: summary) }
        if let svg { try write(Data(code.svg(moduleSize: scale, quietZone: quietZone).utf8), to: svg, option: "--svg", summary: summary) }
    }

    private func write(_ data: Data, to path: String, option: String, summary: String) throws {
        if path == "-" {
            FileHandle.standardOutput.write(data)
            FileHandle.standardError.write(Data((summary + "\n").utf8))
            return
        }
        do {
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            throw ValidationError("\(option): cannot write \(path): \(error.localizedDescription)")
        }
        print("wrote \(path): \(summary)")
    }
}

import Foundation
import Testing
@testable import QRCode

/// Generated codes, read back by an independent decoder (zbarimg), byte for byte.
/// Skipped, with a printed reason, when zbarimg is not installed.
@Suite(.enabled(if: Zbar.isInstalled, "zbarimg is not installed (apt-get install zbar-tools)"))
struct ZbarDecodingTests {
    static var zbar: Zbar { Zbar.installed! }

    /// The "done when" check: 200 random inputs of 1 to 1,000 random bytes at each level decode exactly.
    @Test(arguments: ErrorCorrectionLevel.allCases)
    func randomInputsDecodeByteForByte(correction: ErrorCorrectionLevel) async throws {
        let seed = SeededGenerator.runSeed &+ UInt64(correction.tableIndex)
        var random = SeededGenerator(seed: seed)
        let started = Date()
        var samples: [Zbar.Sample] = []
        for index in 0..<200 {
            let bytes = (0..<Int.random(in: 1...1000, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            samples.append(Zbar.Sample(bytes: bytes, label: "input \(index)", code: try QRCode(encoding: bytes, correction: correction)))
        }
        let failures = try await Self.zbar.failures(of: samples)
        let versions = Set(samples.map(\.code.version))
        print("zbarimg: ECC \(correction): \(samples.count - failures.count) of \(samples.count) random inputs decoded "
              + "(versions \(versions.min()!)–\(versions.max()!)) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s; "
              + "seed \(seed) (rerun with QRCODE_TEST_SEED=\(SeededGenerator.runSeed))")
        #expect(failures.isEmpty, "seed \(seed): \(failures.joined(separator: "; "))")
    }

    /// Every version at every level, each filled to capacity so that exactly that version is chosen.
    @Test(arguments: ErrorCorrectionLevel.allCases)
    func everyVersionFilledToCapacityDecodes(correction: ErrorCorrectionLevel) async throws {
        var random = SeededGenerator(seed: SeededGenerator.runSeed &+ 100 &+ UInt64(correction.tableIndex))
        var samples: [Zbar.Sample] = []
        for version in 1...40 {
            let capacity = QRCode.capacity(version: version, correction: correction)
            let bytes = (0..<capacity).map { _ in UInt8.random(in: 0...255, using: &random) }
            let code = try QRCode(encoding: bytes, correction: correction)
            #expect(code.version == version)
            samples.append(Zbar.Sample(bytes: bytes, label: "version \(version) \(correction)", code: code))
        }
        let failures = try await Self.zbar.failures(of: samples, batchSize: 10)
        print("zbarimg: ECC \(correction): versions 1–40 at full capacity: \(40 - failures.count) of 40 decoded")
        #expect(failures.isEmpty, "seed \(SeededGenerator.runSeed): \(failures.joined(separator: "; "))")
    }

    /// All 256 byte values, in order and reversed, at every level and with every mask forced.
    @Test func allByteValuesAndEveryMaskDecode() async throws {
        let all = (0...255).map(UInt8.init)
        var samples: [Zbar.Sample] = []
        for correction in ErrorCorrectionLevel.allCases {
            samples.append(Zbar.Sample(bytes: all, label: "0x00–0xFF \(correction)", code: try QRCode(encoding: all, correction: correction)))
            for mask in Mask.all {
                let bytes = Array(all.reversed().prefix(40 + 20 * mask.reference))
                let code = try QRCode(encoding: bytes, correction: correction, mask: mask)
                #expect(code.mask == mask)
                samples.append(Zbar.Sample(bytes: bytes, label: "\(mask) \(correction)", code: code))
            }
        }
        let failures = try await Self.zbar.failures(of: samples)
        print("zbarimg: all byte values and every mask: \(samples.count - failures.count) of \(samples.count) decoded")
        #expect(failures.isEmpty, "\(failures.joined(separator: "; "))")
    }

    /// Text comes back as its UTF-8, including a ULC logout link.
    @Test func textDecodesAsItsUTF8() async throws {
        let texts = ["https://appb.example.com/logout?ulc-success=https%3A%2F%2Fappa.com%2Fok&ulc-error=https%3A%2F%2Fappa.com%2Ferr",
                     "Grüße, 日本語, emoji 🎉", "a"]
        let samples = try texts.map { Zbar.Sample(bytes: Array($0.utf8), label: $0, code: try QRCode(encoding: $0)) }
        #expect(try await Self.zbar.failures(of: samples).isEmpty)
    }

    /// The uncompressed (stored-block) PNG variant decodes too, as do 2 and 10 pixels per module,
    /// with a minimum version. (zbarimg does not read 1 pixel per module.)
    @Test func storedPNGsAndOtherScalesDecode() async throws {
        let bytes = Array("stored deflate blocks".utf8)
        let code = try QRCode(encoding: bytes, correction: .quartile, minimumVersion: 12)
        #expect(code.version == 12)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qrcode-zbar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [URL] = []
        for (index, png) in [code.png(scale: 4, quietZone: 4, compression: .none), code.png(scale: 2), code.png(scale: 10)].enumerated() {
            let file = folder.appendingPathComponent("\(index).png")
            try png.write(to: file)
            files.append(file)
        }
        let (output, status) = try await Self.zbar.decode(files)
        #expect(status == 0)
        #expect(output == bytes + bytes + bytes)
    }
}

import Foundation
import TestPeers
@testable import QRCode

/// Decodes QR code images with `zbarimg` (Debian package zbar-tools), an independent reader.
///
/// `zbarimg --raw -q -Sdisable -Sqrcode.enable -Sbinary` prints each QR symbol's bytes exactly as
/// encoded: `--raw` skips the charset conversion, `-Sbinary` keeps zbar from guessing a text
/// encoding, and neither adds a newline, so the output of several images is their bytes back to
/// back. `-Sdisable -Sqrcode.enable` turns off the 1D symbologies: otherwise zbar now and then
/// "finds" an Interleaved 2 of 5 barcode in a row of random modules and appends its digits. A batch is checked by
/// cutting that output at the expected lengths; a batch that does not match is decoded again one
/// image at a time to say which image failed. Each zbarimg is waited for on a thread of its own
/// (``ChildProcess``).
struct Zbar {
    let executable: URL

    /// `zbarimg` from PATH, or nil when it is not installed.
    static let installed: Zbar? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("zbarimg")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return Zbar(executable: candidate) }
        }
        return nil
    }()

    /// Why the zbar tests are skipped here, printed once so a skipped run says so.
    static let skipReason = "SKIP zbarimg decoding tests: zbarimg is not on PATH (apt-get install zbar-tools; bash .ci/run installs it)"

    static var isInstalled: Bool {
        if installed == nil { skipNotice }
        return installed != nil
    }

    private static let skipNotice: Void = print(skipReason)

    /// The bytes of every symbol zbarimg reads in `files`, concatenated, and its exit status
    /// (0: all found; 4: some image had no symbol).
    func decode(_ files: [URL]) async throws -> (output: [UInt8], status: Int32) {
        let result = try await ChildProcess.run(executable, ["--nodbus", "--raw", "-q", "-Sdisable", "-Sqrcode.enable", "-Sbinary"] + files.map(\.path))
        return ([UInt8](result.output), result.status)
    }

    /// A code to check: the bytes it should decode to, and a label for failure messages.
    struct Sample: Sendable {
        var bytes: [UInt8]
        var label: String
        var code: QRCode
    }

    /// Writes each sample as a PNG, decodes them in batches, and returns the labels of those that
    /// did not decode to exactly their bytes (empty when all did).
    func failures(of samples: [Sample], scale: Int = 3, batchSize: Int = 40) async throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qrcode-zbar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        var failed: [String] = []
        for batchStart in stride(from: 0, to: samples.count, by: batchSize) {
            let batch = Array(samples[batchStart..<min(batchStart + batchSize, samples.count)])
            var files: [URL] = []
            for (offset, sample) in batch.enumerated() {
                let file = folder.appendingPathComponent("\(batchStart + offset).png")
                try sample.code.png(scale: scale).write(to: file)
                files.append(file)
            }
            let (output, status) = try await decode(files)
            if status == 0 && output == batch.flatMap(\.bytes) { continue }
            for (sample, file) in zip(batch, files) {  // find the culprits one by one
                let single = try await decode([file])
                if single.status != 0 || single.output != sample.bytes {
                    failed.append("\(sample.label): zbarimg exit \(single.status), \(single.output.count) bytes read, "
                                  + "\(sample.bytes.count) expected (version \(sample.code.version), \(sample.code.mask))")
                }
            }
        }
        return failed
    }
}

/// A small, fast, seedable generator (SplitMix64), so a failing random input can be made again.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed for this run: `QRCODE_TEST_SEED` when set, otherwise a fresh random one.
    static let runSeed: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["QRCODE_TEST_SEED"], let seed = UInt64(text) { return seed }
        return UInt64.random(in: 1...UInt64.max)
    }()
}

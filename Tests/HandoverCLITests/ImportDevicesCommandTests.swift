import Foundation
import Testing

/// `handover admin import-devices`, as an IT team runs it on a fleet's spreadsheet.
@Suite(.timeLimit(.minutes(5))) struct ImportDevicesCommandTests {
    @Test func goodRowsAreImportedBadOnesNamedAndTheKeysKeptPrivate() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let csv = folder.appendingPathComponent("fleet.csv")
        try "name,serialNumber\nward-7-phone-1,C02XK1ABJG5H\nward-7-phone-2,C02XK1ABJG5H\n\"ward 7, phone 3\",C02XK1ABJG5J\n".write(to: csv, atomically: true, encoding: .utf8)
        let data = folder.appendingPathComponent("data").path
        try await AdminCommandTests.makeDatabase(in: URL(fileURLWithPath: data))

        let dry = try await HandoverBinary.run(["admin", "import-devices", csv.path, "--dry-run", "--data-dir", data])
        #expect(dry.status == 2 && dry.stdout.contains("2 devices would be imported; 1 row refused."), "\(dry.stdout)\(dry.stderr)")
        #expect(!FileManager.default.fileExists(atPath: csv.path + ".keys.csv"), "a dry run writes nothing")

        let result = try await HandoverBinary.run(["admin", "import-devices", csv.path, "--data-dir", data])
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("2 devices imported; 1 row refused."))
        #expect(result.stdout.contains("refused line 3: serialNumber: C02XK1ABJG5H is already on line 2 of this file"))
        let keys = try String(contentsOfFile: csv.path + ".keys.csv", encoding: .utf8)
        #expect(keys.hasPrefix("line,name,serialNumber,deviceID,key\r\n2,ward-7-phone-1,C02XK1ABJG5H,"))
        #expect(keys.contains("\"ward 7, phone 3\"") && keys.components(separatedBy: ",hov_").count == 3)
        let permissions = try FileManager.default.attributesOfItem(atPath: csv.path + ".keys.csv")[.posixPermissions] as? Int
        #expect(permissions == 0o600)

        let again = try await HandoverBinary.run(["admin", "import-devices", csv.path, "--data-dir", data])
        #expect(again.status == 64 && again.stderr.contains("exists; keys are never written over"), "\(again.stderr)")
        let json = try await HandoverBinary.run(["admin", "import-devices", csv.path, "--data-dir", data, "--keys-out", folder.appendingPathComponent("k2.csv").path, "--json"])
        #expect(json.status == 2 && json.stdout.contains("\"reason\" : \"C02XK1ABJG5H is already registered, to 'ward-7-phone-1'\""), "\(json.stdout)")
        #expect(!json.stdout.contains("hov_"), "the JSON report leaves the keys out")
    }

    /// The keys file is created, exclusively and private, before anything is imported: a path
    /// that cannot be created that way (here a dangling symbolic link, which a check for an
    /// existing file misses and a write would follow) stops the import before it starts, and a
    /// failed import removes the empty file it made.
    @Test func theKeysFileIsCreatedExclusivelyBeforeTheImport() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let csv = folder.appendingPathComponent("fleet.csv")
        try "name,serialNumber\nward-7-phone-1,C02XK1ABJG5H\nward-7-phone-2,C02XK1ABJG5J\n".write(to: csv, atomically: true, encoding: .utf8)
        let data = folder.appendingPathComponent("data").path
        try await AdminCommandTests.makeDatabase(in: URL(fileURLWithPath: data))
        let elsewhere = folder.appendingPathComponent("elsewhere.csv")
        let link = folder.appendingPathComponent("link.csv")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: elsewhere.path)

        let refused = try await HandoverBinary.run(["admin", "import-devices", csv.path, "--data-dir", data, "--keys-out", link.path])
        #expect(refused.status == 64 && refused.stderr.contains("--keys-out"), "\(refused.stdout)\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path), "nothing was written through the link")
        let dry = try await HandoverBinary.run(["admin", "import-devices", csv.path, "--dry-run", "--data-dir", data])
        #expect(dry.status == 0 && dry.stdout.contains("2 devices would be imported; 0 rows refused."), "nothing was imported: \(dry.stdout)")

        let odd = folder.appendingPathComponent("odd.csv")
        try "name,colour\nphone,red\n".write(to: odd, atomically: true, encoding: .utf8)
        let keys = folder.appendingPathComponent("odd-keys.csv")
        let failed = try await HandoverBinary.run(["admin", "import-devices", odd.path, "--data-dir", data, "--keys-out", keys.path])
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: keys.path), "the empty keys file made for a failed import is removed")
    }

    /// A long import goes in batches, each its own transaction, and says how far it is.
    @Test func aLongImportShowsItsProgressBatchByBatch() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let csv = folder.appendingPathComponent("fleet.csv")
        try ("name,serialNumber\n" + (1...30).map { "phone-\($0),SER\($0)" }.joined(separator: "\n")).write(to: csv, atomically: true, encoding: .utf8)
        let data = folder.appendingPathComponent("data").path
        try await AdminCommandTests.makeDatabase(in: URL(fileURLWithPath: data))
        let result = try await HandoverBinary.run(["admin", "import-devices", csv.path, "--data-dir", data, "--batch-size", "10"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for done in [10, 20, 30] { #expect(result.stderr.contains("imported \(done)/30"), "\(result.stderr)") }
        let help = try await HandoverBinary.run(["admin", "import-devices", "--help"])
        #expect(help.stdout.contains("--all-or-nothing") && help.stdout.contains("write lock"), "\(help.stdout)")
    }

    @Test func aFileTooLargeOrWithAnUnknownColumnIsRefusedWhole() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await AdminCommandTests.makeDatabase(in: folder.appendingPathComponent("data"))
        let big = folder.appendingPathComponent("big.csv")
        try Data(repeating: UInt8(ascii: "a"), count: 10 * 1024 * 1024).write(to: big)
        // Nothing can be imported from it: exit status 1, as the help says (it was 64, a usage mistake).
        let tooLarge = try await HandoverBinary.run(["admin", "import-devices", big.path, "--data-dir", folder.appendingPathComponent("data").path])
        #expect(tooLarge.status == 1 && tooLarge.stderr.contains("at most 5242880 (5 MB") && tooLarge.stderr.contains("Nothing was imported."),
                "\(tooLarge.status) \(tooLarge.stderr)")
        // Issue 63, finding 13: a file that is not there is a failure (1), not a usage mistake (64).
        let missing = try await HandoverBinary.run(["admin", "import-devices", folder.appendingPathComponent("nowhere.csv").path,
                                                    "--data-dir", folder.appendingPathComponent("data").path])
        #expect(missing.status == 1 && missing.stderr.contains("nowhere.csv: no such file, or it cannot be read") && missing.stderr.contains("Nothing was imported."),
                "\(missing.status) \(missing.stderr)")
        let odd = folder.appendingPathComponent("odd.csv")
        try "name,colour\nphone,red\n".write(to: odd, atomically: true, encoding: .utf8)
        let unknown = try await HandoverBinary.run(["admin", "import-devices", odd.path, "--data-dir", folder.appendingPathComponent("data").path])
        #expect(unknown.status == 1 && unknown.stderr.contains("'colour', is not a column here; accepted: name, serialNumber, mdmDeviceID"), "\(unknown.stderr)")
        #expect(unknown.stderr.contains("Nothing was imported."))
    }
}

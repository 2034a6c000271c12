import Foundation
import Testing

/// `handover admin …` works on a server's database and never makes one (issue 38): a mistyped
/// `--data-dir` is refused with one line that names the folder and how to create a database, and
/// the folder is left as it was.
@Suite(.timeLimit(.minutes(5))) struct AdminCommandTests {
    static let commands: [[String]] = [
        ["admin", "create-key", "--scope", "admin"],
        ["admin", "import-devices", "FOLDER/fleet.csv"],
        ["admin", "import-devices", "FOLDER/fleet.csv", "--dry-run"],
    ]

    @Test(arguments: commands)
    func aFolderWithNoDatabaseIsRefusedAndLeftEmpty(_ command: [String]) async throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try "name,serialNumber\nphone-1,SER1\n".write(to: folder.appendingPathComponent("fleet.csv"), atomically: true, encoding: .utf8)
        let empty = folder.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let missing = folder.appendingPathComponent("missing/data")
        for data in [empty, missing] {
            let arguments = command.map { $0.replacingOccurrences(of: "FOLDER", with: folder.path) } + ["--data-dir", data.path]
            let result = try await HandoverBinary.run(arguments, timeout: 60)
            let lines = result.stderr.split(whereSeparator: \.isNewline).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            #expect(result.status != 0, "\(arguments): exit 0: \(result.stdout)")
            #expect(lines.count == 1, "\(arguments): \(result.stderr)")
            let line = String(lines.first ?? "")
            #expect(line.contains("--data-dir") && line.contains(data.path) && line.contains("holds no Handover database"), "\(line)")
            #expect(line.contains("handover serve --data-dir \(data.path)"), "says how to create one: \(line)")
            #expect(!result.stdout.contains("hov_"), "no key was made: \(result.stdout)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty.path).isEmpty, "the empty folder stays empty")
        #expect(!FileManager.default.fileExists(atPath: missing.deletingLastPathComponent().path), "no folder was created")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("fleet.csv.keys.csv").path), "no keys file was left")
    }

    @Test func aServersDataDirectoryTakesANewKey() async throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data")
        try await Self.makeDatabase(in: data)
        let result = try await HandoverBinary.run(["admin", "create-key", "--scope", "device", "--name", "ward 7", "--data-dir", data.path], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("hov_"), "\(result.stdout)")
        #expect(result.stderr.isEmpty, "nothing but the key: \(result.stderr)")
    }

    /// `--site` makes a key for one site; a site that cannot be one, or a device key with a site,
    /// is refused by the option's name.
    @Test func aKeyForOneSiteIsMadeAndAWrongSiteIsRefusedByName() async throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data")
        try await Self.makeDatabase(in: data)
        let made = try await HandoverBinary.run(["admin", "create-key", "--scope", "viewer", "--site", "Ward 7", "--data-dir", data.path], timeout: 60)
        #expect(made.status == 0 && made.stdout.hasPrefix("hov_"), "\(made.stderr)")
        for (scope, site, says) in [("viewer", "Ward+7", "--site: 'Ward+7' has '+'"), ("device", "ICU", "--site: a device's key is for its device")] {
            let refused = try await HandoverBinary.run(["admin", "create-key", "--scope", scope, "--site", site, "--data-dir", data.path], timeout: 60)
            #expect(refused.status != 0 && refused.stderr.contains(says), "\(refused.stderr)")
        }
    }

    /// A fresh folder with a new scratch name under the temporary directory.
    static func scratchFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-admin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A server's database in `data`, made as an administrator makes one: `handover serve`
    /// starts once on it and stops.
    static func makeDatabase(in data: URL) async throws {
        let server = try await ServerProcess.start(dataDirectory: data)
        _ = await server.terminate()
    }
}

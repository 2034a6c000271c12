import Foundation
import Testing

/// `handover serve --config FILE` and `handover config check|example` (issue 41): one set of keys
/// with one order, flags over the environment over the file over the defaults.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ConfigCommandTests {
    static func file(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("handover-config-\(UUID().uuidString).yaml")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test func theExampleChecksAndAFileGivesItsSettings() async throws {
        let example = try await HandoverBinary.run(["config", "example"])
        #expect(example.status == 0 && example.stdout.contains("# public-url: https://handover.example.com")
                && example.stdout.contains("# mdm-client-secret:"), "\(example.stdout.prefix(500))")
        let commented = try Self.file(example.stdout)
        defer { try? FileManager.default.removeItem(at: commented) }
        #expect(try await HandoverBinary.run(["config", "check", commented.path]).status == 0, "every line of the example is a comment")

        let settings = try Self.file("""
            # The ward's server
            public-url: https://handover.example.com
            overdue-after: 13h
            lending-periods: "ICU=9h,Ward 7=13h"
            mdm: webhook
            mdm-action: lock
            smtp-password: s3cret-relay
            """)
        defer { try? FileManager.default.removeItem(at: settings) }
        let check = try await HandoverBinary.run(["config", "check", settings.path], environment: ["HANDOVER_CUSTODY_LIMIT": "2"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("public-url: https://handover.example.com    # file, line 2")
                && check.stdout.contains("custody-limit: 2    # environment, HANDOVER_CUSTODY_LIMIT")
                && check.stdout.contains("smtp-password: <hidden, 12 characters>") && !check.stdout.contains("s3cret-relay"), "\(check.stdout)")
    }

    @Test func anUnknownKeyOrABadValueIsRefusedWithItsLine() async throws {
        let typo = try Self.file("public-url: https://handover.example.com\n\noverdue_afer: 13h\n")
        defer { try? FileManager.default.removeItem(at: typo) }
        let refused = try await HandoverBinary.run(["config", "check", typo.path])
        #expect(refused.status == 1 && refused.stderr.contains("\(typo.path):3:") && refused.stderr.contains("did you mean 'overdue-after'?"),
                "\(refused.status) \(refused.stderr)")
        let bad = try Self.file("overdue-after: forever\n")
        defer { try? FileManager.default.removeItem(at: bad) }
        let value = try await HandoverBinary.run(["config", "check", bad.path])
        #expect(value.status == 1 && value.stderr.contains("HANDOVER_OVERDUE_AFTER") && value.stderr.contains("'forever'"), "\(value.stderr)")
        let nested = try Self.file("mdm:\n  url: https://x.example.com\n")
        defer { try? FileManager.default.removeItem(at: nested) }
        let indented = try await HandoverBinary.run(["config", "check", nested.path])
        #expect(indented.status == 1 && indented.stderr.contains(":2:") && indented.stderr.contains("one per line"), "\(indented.stderr)")
    }

    @Test func flagsOverrideTheEnvironmentWhichOverridesTheFile() async throws {
        let settings = try Self.file("public-url: https://file.example.com\n")
        defer { try? FileManager.default.removeItem(at: settings) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-config-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (environment, flags, expected) in [
            ([String: String](), [String](), "https://file.example.com"),
            (["HANDOVER_PUBLIC_URL": "https://environment.example.com"], [], "https://environment.example.com"),
            (["HANDOVER_PUBLIC_URL": "https://environment.example.com"], ["--public-url", "https://flag.example.com"], "https://flag.example.com"),
        ] {
            let server = try await ServerProcess.start(dataDirectory: folder, environment: environment, arguments: ["--config", settings.path] + flags)
            #expect(server.startupText.contains("(public URL \(expected))"), "\(server.startupText)")
            _ = await server.terminate()
        }
    }
}

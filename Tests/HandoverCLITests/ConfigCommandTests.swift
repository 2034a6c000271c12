import Foundation
import TestPeers
import Testing

/// `handover serve --config FILE` and `handover config check|example` (issue 41): one set of keys
/// with one order, flags over the environment over the file over the defaults.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ConfigCommandTests {
    /// A configuration file holding `text`, readable by its owner only unless `mode` says otherwise.
    static func file(_ text: String, mode: Int = 0o600) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("handover-config-\(UUID().uuidString).yaml")
        try Data(text.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        return url
    }

    /// Issue 63, finding 12: a file that holds a secret and that others may read is refused, by
    /// `config check` and by `serve --config`, as ssh refuses such a key: naming the file, its
    /// mode and `chmod 600`. A file without a secret may be readable by anyone.
    @Test func aFileHoldingASecretIsRefusedUnlessOnlyItsOwnerMayReadIt() async throws {
        let secrets = """
            public-url: https://handover.example.com
            admin-oidc-issuer: https://login.example.com
            admin-oidc-client-id: handover-dashboard
            admin-role-map: handover-admins=admin
            admin-oidc-client-secret: oidc-s3cret
            token-encryption-key: \(Self.key)
            ssf-transmitter-issuer: https://idp.example.com
            ssf-transmitter-jwks-url: https://idp.example.com/keys
            ssf-push-authorization: Bearer push-s3cret
            smtp-host: smtp.example.com
            smtp-from: handover@example.com
            smtp-user: handover
            smtp-password: relay-s3cret

            """
        for mode in [0o644, 0o640, 0o604] {
            let open = try Self.file(secrets, mode: mode)
            defer { try? FileManager.default.removeItem(at: open) }
            let check = try await HandoverBinary.run(["config", "check", open.path])
            let octal = "0" + String(mode, radix: 8)
            #expect(check.status == 1 && check.stderr.contains(open.path) && check.stderr.contains("mode \(octal)")
                    && check.stderr.contains("chmod 600 \(open.path)") && check.stderr.contains("admin-oidc-client-secret"),
                    "\(octal): \(check.status) \(check.stdout)\(check.stderr)")
            #expect(!check.stdout.contains("s3cret") && !check.stderr.contains("s3cret"))
        }
        let open = try Self.file(secrets, mode: 0o644)
        defer { try? FileManager.default.removeItem(at: open) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-config-open-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let serve = try await HandoverBinary.run(["serve", "--config", open.path, "--port", "0", "--data-dir", folder.path], timeout: 60)
        #expect(!serve.timedOut && serve.status == 1 && serve.stderr.contains("chmod 600"), "\(serve.status) \(serve.stderr)")
        let owned = try Self.file(secrets)
        defer { try? FileManager.default.removeItem(at: owned) }
        let fine = try await HandoverBinary.run(["config", "check", owned.path])
        #expect(fine.status == 0, "\(fine.stdout)\(fine.stderr)")
        let plain = try Self.file("public-url: https://handover.example.com\n", mode: 0o644)
        defer { try? FileManager.default.removeItem(at: plain) }
        #expect(try await HandoverBinary.run(["config", "check", plain.path]).status == 0, "no secret: anyone may read it")
    }

    /// A valid key: base64 of 32 bytes.
    static let key = Data(repeating: 7, count: 32).base64EncodedString()

    /// `config check` printed a URL's password in clear, and an error that quoted such a URL did too.
    @Test func credentialsInsideURLsAreNeverPrinted() async throws {
        let settings = try Self.file("""
            public-url: https://handover.example.com
            badge-lookup-url: https://lookup:pa55word@badges.example.com/who
            siem-splunk-url: https://hec:splunk-pa55@splunk.example.org:8088
            siem-splunk-token: hec-token
            mdm: jamf
            mdm-action: lock
            mdm-url: https://admin:jamf-pa55@jamf.example.com
            mdm-client-id: handover
            mdm-client-secret: jamf-client-s3cret
            """)
        defer { try? FileManager.default.removeItem(at: settings) }
        let check = try await HandoverBinary.run(["config", "check", settings.path])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(!check.stdout.contains("pa55") && check.stdout.contains("https://lookup:***@badges.example.com/who")
                && check.stdout.contains("https://admin:***@jamf.example.com"), "\(check.stdout)")
        let wrong = try Self.file("badge-lookup-url: ftp://lookup:pa55word@badges.example.com/who\n")
        defer { try? FileManager.default.removeItem(at: wrong) }
        let refused = try await HandoverBinary.run(["config", "check", wrong.path])
        #expect(refused.status == 1 && refused.stderr.contains("\(wrong.path):1: badge-lookup-url: ") && !refused.stderr.contains("pa55word")
                && refused.stderr.contains("ftp://lookup:***@badges.example.com"), "\(refused.stderr)")
    }

    /// `config check` accepted a 3-byte key that `serve` refused: one check for both now.
    @Test func aShortEncryptionKeyIsRefusedByCheckAsByServe() async throws {
        let short = try Self.file("token-encryption-key: YWJj\n")
        defer { try? FileManager.default.removeItem(at: short) }
        let check = try await HandoverBinary.run(["config", "check", short.path])
        #expect(check.status == 1 && check.stderr.contains("\(short.path):1: token-encryption-key: ") && check.stderr.contains("32"), "\(check.status) \(check.stdout)\(check.stderr)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-config-key-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let serve = try await HandoverBinary.run(["serve", "--config", short.path, "--port", "0", "--data-dir", folder.path], timeout: 60)
        #expect(!serve.timedOut && serve.status == 1, "\(serve.status) \(serve.stderr)")
        // The same words from both: the file, its line and its key (issue 66).
        let line = { (text: String) in text.split(separator: "\n").first { $0.contains("token-encryption-key: ") }.map(String.init) ?? "" }
        #expect(!line(check.stderr).isEmpty && line(serve.stderr).hasSuffix(line(check.stderr).replacingOccurrences(of: "Error: ", with: "")),
                "check: \(line(check.stderr)); serve: \(line(serve.stderr))")
    }

    /// A 1.5 GB file was read whole before its size was checked. Its size is now read first (and
    /// at most 1 MB and a byte are ever read), and what is not a regular file (a pipe that never
    /// ends) is refused without being opened for a read that would wait.
    @Test func aFileOverOneMegabyteOrNotAFileIsRefusedWithoutBeingRead() async throws {
        let big = FileManager.default.temporaryDirectory.appendingPathComponent("handover-config-big-\(UUID().uuidString).yaml")
        #expect(FileManager.default.createFile(atPath: big.path, contents: Data("public-url: https://handover.example.com\n".utf8)))
        defer { try? FileManager.default.removeItem(at: big) }
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: 1_610_612_736)  // sparse: no disk used
        try handle.close()
        var arguments = ["config", "check", big.path]
        let timing = FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
        if timing { arguments = ["-f", "peak-rss-kb=%M", HandoverBinary.url.path] + arguments }
        let refused = timing ? try await Self.run("/usr/bin/time", arguments) : try await HandoverBinary.run(arguments)
        #expect(refused.status == 1 && refused.stderr.contains("1610612736 bytes") && refused.stderr.contains("at most 1 MB"), "\(refused.status) \(refused.stderr)")
        if timing, let peak = refused.stderr.split(separator: "\n").last(where: { $0.hasPrefix("peak-rss-kb=") }).flatMap({ Int($0.dropFirst(12)) }) {
            #expect(peak < 300_000, "the check read the file: \(peak) KB at peak")
        }
        let pipe = FileManager.default.temporaryDirectory.appendingPathComponent("handover-config-pipe-\(UUID().uuidString)")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        defer { try? FileManager.default.removeItem(at: pipe) }
        let fifo = try await HandoverBinary.run(["config", "check", pipe.path], timeout: 60)
        #expect(!fifo.timedOut && fifo.status == 1 && fifo.stderr.contains("not a regular file"), "\(fifo.status) \(fifo.stderr)")
    }

    /// A program other than `handover` (here `/usr/bin/time` around it), as `HandoverBinary.run` runs it.
    static func run(_ program: String, _ arguments: [String]) async throws -> HandoverBinary.Result {
        let result = try await ChildProcess.run(URL(fileURLWithPath: program), arguments, environment: nil, input: nil, timeout: 120)
        return HandoverBinary.Result(status: result.status, stdout: result.outputText, stderr: result.errorText, timedOut: result.timedOut)
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
        #expect(value.status == 1 && value.stderr.contains("\(bad.path):1: overdue-after: 'forever'"), "\(value.stderr)")
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

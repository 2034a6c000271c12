import Foundation
import TestPeers
import Testing

/// End-to-end tests of `handover aasa`, run as a child process.
@Suite(.serialized, .timeLimit(.minutes(5))) struct AASACommandTests {
    static let appID = "ABCDE12345.com.example.app"
    static let file = #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/help"},{"/":"/buy/*"}]}]}}"#

    /// `.build/<config>/handover`, found by walking up from this source file to the package root.
    static func binary() throws -> URL {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            let build = directory.appendingPathComponent(".build")
            if FileManager.default.fileExists(atPath: build.path) {
                for candidate in ["debug", "release"] {
                    let url = build.appendingPathComponent(candidate).appendingPathComponent("handover")
                    if FileManager.default.isExecutableFile(atPath: url.path) { return url }
                }
            }
            directory = directory.deletingLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile)
    }

    struct Result { var status: Int32; var output: String }

    /// Runs `handover` to its end on a thread of its own (``ChildProcess``).
    static func run(_ arguments: [String], input: String = "") async throws -> Result {
        let result = try await ChildProcess.run(try binary(), arguments, input: Data(input.utf8))
        return Result(status: result.status, output: result.outputText)
    }

    static func temporaryFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-\(UUID().uuidString).json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func decideAnswersEveryLineAndReportsBadLinesWithoutStopping() async throws {
        let aasa = Self.file
        let input = """
            {"id":1,"aasa":\(aasa),"domain":"example.com","appId":"\(Self.appID)","url":"https://example.com/buy"}
            not json
            {"id":3,"aasa":\(aasa),"domain":"example.com","appId":"\(Self.appID)","url":"https://example.com/buyer"}
            {"id":4,"domain":"example.com","appId":"\(Self.appID)","url":"https://example.com/buy"}
            {"id":5,"aasa":{"applinks":{"details":[{"appIDs":["\(Self.appID)"],"components":[{"/":"/x/*","exclude":true}]}]}},"domain":"example.com","appId":"\(Self.appID)","url":"https://example.com/x/1"}
            """
        let result = try await Self.run(["aasa", "decide"], input: input)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(result.status == 0)
        #expect(lines.count == 5)
        #expect(lines[0] == #"{"id":1,"decision":"match"}"#)
        #expect(lines[1].hasPrefix(#"{"id":null,"error":"#))
        #expect(lines[2] == #"{"id":3,"decision":"no_match"}"#)
        #expect(lines[3].hasPrefix(#"{"id":4,"error":"#))
        #expect(lines[4] == #"{"id":5,"decision":"exclude"}"#)
    }

    @Test func matchPrintsDecisionAndDecidingComponent() async throws {
        let path = try Self.temporaryFile(Self.file)
        let result = try await Self.run(["aasa", "match", path, "--domain", "example.com", "--app", Self.appID, "https://example.com/buy/42", "https://other.com/buy/42"])
        #expect(result.status == 0)
        #expect(result.output.contains(#"https://example.com/buy/42  match by components[1] {"/":"/buy/*"}"#))
        #expect(result.output.contains("https://other.com/buy/42  no match"))
    }

    @Test func diffListsTheURLsWhoseDecisionChangesAndExitsOne() async throws {
        let old = try Self.temporaryFile(Self.file)
        let new = try Self.temporaryFile(#"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/help"},{"/":"/buy/old/*","exclude":true},{"/":"/buy/*"}]}]}}"#)
        let result = try await Self.run(["aasa", "diff", old, new, "--domain", "example.com"])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains(#"ABCDE12345.com.example.app  https://example.com/buy/old/x1  match by details[0].components[1] {"/":"/buy/*"}  →  exclude by details[0].components[1] {"/":"/buy/old/*","exclude":true}"#), "\(result.output)")
        #expect(!result.output.contains("https://example.com/help "), "\(result.output)")
        #expect(try await Self.run(["aasa", "diff", old, old, "--domain", "example.com"]).status == 0)
    }

    @Test func diffDecidesOnlyTheGivenURLs() async throws {
        let old = try Self.temporaryFile(Self.file)
        let new = try Self.temporaryFile(#"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/help"}]}]}}"#)
        let list = try Self.temporaryFile("# probes\nhttps://example.com/buy/42\n\nhttps://example.com/help\n")
        let result = try await Self.run(["aasa", "diff", old, new, "--domain", "example.com", "--urls", list])
        #expect(result.status == 1)
        #expect(result.output.contains("https://example.com/buy/42  match by details[0].components[1]"), "\(result.output)")
        #expect(result.output.contains("1 of 2 decisions changed (2 URLs × 1 apps)"), "\(result.output)")
    }

    @Test func matchExplainsWhatRefusedAURL() async throws {
        let path = try Self.temporaryFile(Self.file)
        let result = try await Self.run(["aasa", "match", path, "--domain", "example.com", "--app", Self.appID, "--explain", "https://example.com/Buy/42"])
        #expect(result.status == 0)
        #expect(result.output.contains(#"no match: closest: $.applinks.details[0].components[1] {"/":"/buy/*"}; path refused it"#), "\(result.output)")
        #expect(result.output.contains(#"it would match with "caseSensitive": false"#), "\(result.output)")
    }

    @Test func checkExitsZeroForValidFileAndOneForErrors() async throws {
        let good = try Self.temporaryFile(Self.file)
        #expect(try await Self.run(["aasa", "check", good]).status == 0)
        let bad = try Self.temporaryFile(#"{"applinks":{"apps":["x"],"details":[{"appIDs":["nope"],"components":[]}]}}"#)
        let result = try await Self.run(["aasa", "check", bad, "--json"])
        #expect(result.status == 1)
        #expect(result.output.contains(#""errors":2"#))
    }

    @Test func checkRefusesPlainHTTPWithoutFlag() async throws {
        let result = try await Self.run(["aasa", "check", "http://127.0.0.1:9/.well-known/apple-app-site-association"])
        #expect(result.status != 0)
    }

    /// A loopback server: a 200 with the file at the well-known path, and a 301 elsewhere.
    static func startServer(_ directory: String) throws -> (SpawnedProgram, Int) {
        let script = """
            import http.server, sys, os, signal, threading
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
            signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
            threading.Timer(60, lambda: os._exit(0)).start()
            os.chdir(sys.argv[1])
            class H(http.server.SimpleHTTPRequestHandler):
                def do_GET(self):
                    if self.path.startswith('/moved'):
                        self.send_response(301); self.send_header('Location', '/.well-known/apple-app-site-association'); self.end_headers(); return
                    name = 'cdn.json' if self.path.startswith('/a/v1/') else 'aasa.json'
                    if not os.path.exists(name):
                        self.send_response(404); self.send_header('Content-Length', '0'); self.end_headers(); return
                    body = open(name,'rb').read()
                    self.send_response(200); self.send_header('Content-Type','application/json'); self.send_header('Content-Length', str(len(body))); self.end_headers(); self.wfile.write(body)
                def log_message(self, *a): pass
            s = http.server.HTTPServer(('127.0.0.1', 0), H)
            print(s.server_address[1], flush=True)
            s.serve_forever()
            """
        let out = ChildProcess.pipe()
        let process = try SpawnedProgram.start(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, directory], output: out)
        var portText = ""
        while !portText.hasSuffix("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            portText += String(decoding: chunk, as: UTF8.self)
        }
        return (process, Int(portText.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
    }

    @Test func checkFetchesOverLoopbackAndRefusesRedirects() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.file.write(to: directory.appendingPathComponent("aasa.json"), atomically: true, encoding: .utf8)
        let (server, port) = try Self.startServer(directory.path)
        defer { server.signal(SIGKILL) }
        #expect(port > 0)
        let ok = try await Self.run(["aasa", "check", "http://127.0.0.1:\(port)/.well-known/apple-app-site-association", "--insecure-http"])
        #expect(ok.status == 0)
        #expect(ok.output.contains("plain http"))
        let moved = try await Self.run(["aasa", "check", "http://127.0.0.1:\(port)/moved", "--insecure-http"])
        #expect(moved.status == 1)
        #expect(moved.output.contains("redirect"))
    }

    /// A local server plays both the origin and Apple's CDN (`/a/v1/<domain>`, from
    /// https://app-site-association.cdn-apple.com/a/v1/<domain>).
    @Test func cdnComparesTheOriginsFileWithTheCDNsCopy() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.file.write(to: directory.appendingPathComponent("aasa.json"), atomically: true, encoding: .utf8)
        let (server, port) = try Self.startServer(directory.path)
        defer { server.signal(SIGKILL) }
        let arguments = ["aasa", "check", "127.0.0.1:\(port)", "--cdn", "--insecure-http", "--cdn-base-url", "http://127.0.0.1:\(port)/a/v1/"]

        let missing = try await Self.run(arguments)
        #expect(missing.status == 1)
        #expect(missing.output.contains("the CDN answers HTTP 404"), "\(missing.output)")

        try Self.file.write(to: directory.appendingPathComponent("cdn.json"), atomically: true, encoding: .utf8)
        let same = try await Self.run(arguments)
        #expect(same.status == 0, "\(same.output)")
        #expect(same.output.contains("byte for byte"), "\(same.output)")

        try #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/help"}]},{"appIDs":["ABCDE12345.com.example.gone"],"components":[{"/":"/*"}]}]}}"#
            .write(to: directory.appendingPathComponent("cdn.json"), atomically: true, encoding: .utf8)
        let stale = try await Self.run(arguments)
        #expect(stale.status == 1)
        #expect(stale.output.contains(#"ABCDE12345.com.example.app: its rules differ; origin [{"/":"/help"}, {"/":"/buy/*"}], CDN [{"/":"/help"}]"#), "\(stale.output)")
        #expect(stale.output.contains("ABCDE12345.com.example.gone: in the CDN's copy, not in the origin's file"), "\(stale.output)")
    }
}

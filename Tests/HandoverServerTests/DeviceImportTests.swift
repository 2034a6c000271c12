import Foundation
@testable import HandoverServer
import HandoverCore
import HandoverSchema
import PropertyBased
import Testing

/// Devices imported from a CSV file: the RFC 4180 reader, and each kind of bad row refused with
/// its line and why while the good rows go in.
@Suite("Device import", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct DeviceImportTests {
    static let field = Gen<Character?>.element(of: Array("ab Z9,\"\r\n;é-=+@\t'")).compactMap { $0 }.string(of: 0...8)

    /// Any rows round-trip through the reader after the writer, whatever the fields hold (commas,
    /// quotes, line breaks), but for the `'` OWASP's advice puts before a field a spreadsheet
    /// would run as a formula; and no field written starts with a formula character.
    @Test func writingThenReadingGivesTheSameRowsWithFormulasNeutralised() async {
        let rows = Self.field.array(of: 1...4).array(of: 1...5)
        await propertyCheck(count: 400, input: rows) { rows in
            let text = CSVWriter.render(rows)
            let read = (try? CSVTable(parsing: text))?.records.map(\.fields) ?? []
            #expect(read.count == rows.count, "\(text.debugDescription)")
            for (written, given) in zip(read, rows) {
                #expect(written.count == given.count)
                for (field, original) in zip(written, given) {
                    #expect(!CSVWriter.startsWithFormula(field), "\(field.debugDescription)")
                    #expect(field == (CSVWriter.startsWithFormula(original) ? "'" + original : original), "\(text.debugDescription)")
                }
            }
        }
    }

    /// Any text at all: reading ends with rows or a typed problem, never a crash.
    @Test func anyTextReadsSafely() async {
        let text = Gen<Character?>.element(of: Array("a,\"\r\n \u{0}\u{FEFF}")).compactMap { $0 }.string(of: 0...60)
        await propertyCheck(count: 500, input: text) { text in
            do {
                let table = try CSVTable(parsing: text)
                #expect(table.records.allSatisfy { $0.line >= 1 && !$0.fields.isEmpty })
            } catch let problem as CSVTable.Problem {
                #expect(!problem.description.isEmpty)
            } catch {
                Issue.record("an untyped error: \(error)")
            }
        }
    }

    @Test func quotedFieldsAndLineNumbers() throws {
        let table = try CSVTable(parsing: "\u{FEFF}name,serial\r\n\"ward 7, phone \"\"2\"\"\",C02X\n\n\"multi\nline\",X\nlast,Y")
        #expect(table.records.map(\.fields) == [["name", "serial"], ["ward 7, phone \"2\"", "C02X"], ["multi\nline", "X"], ["last", "Y"]])
        #expect(table.records.map(\.line) == [1, 2, 4, 6])
        #expect(throws: CSVTable.Problem.unclosedQuote(line: 2)) { try CSVTable(parsing: "a\n\"open,b\n") }
        #expect(throws: CSVTable.Problem.textAfterQuote(line: 1)) { try CSVTable(parsing: "\"a\"b,c") }
    }

    @Test func eachBadRowIsRefusedWithItsLineAndTheGoodRowsAreImported() async throws {
        try await TestServer.with(.sqlite) { test in
            let existing = try await test.request(.POST, "/api/v1/devices", json: ["name": "old phone", "serialNumber": "c02old000001"], key: test.adminKey)
            #expect(existing.status == 201 && existing.json["device"].flatMap { ($0 as? [String: Any])?["serialNumber"] as? String } == "C02OLD000001")
            let csv = """
                Name,Serial Number,mdm_device_id
                ward-7-phone-1,C02XK1ABJG5H,42
                "ward 7, phone 2",c02xk1abjg5j,43
                ward-7-phone-3,C02XK1ABJG5H,44
                ward-7-phone-4,C02OLD000001,45
                ward-7-\u{1B}[31mphone-5,C02XK1ABJG5K,46
                ward-7-phone-6,C02XK1ABJG5L,46,extra
                ward-7-phone-7,not a serial!,47
                ,C02XK1ABJG5M,48
                ward-7-phone-9,,
                """
            let report = try await DeviceImport.run(csv: Data(csv.utf8), dryRun: false, in: test.server.databases, now: Date())
            #expect(report.imported.map(\.name) == ["ward-7-phone-1", "ward 7, phone 2", "ward-7-phone-9"])
            #expect(report.imported.map(\.serialNumber) == ["C02XK1ABJG5H", "C02XK1ABJG5J", nil])
            #expect(report.imported.allSatisfy { $0.key?.hasPrefix("hov_") == true })
            #expect(report.refused.map(\.description) == [
                "line 4: serialNumber: C02XK1ABJG5H is already on line 2 of this file",
                "line 5: serialNumber: C02OLD000001 is already registered, to 'old phone'",
                "line 6: name: remove control characters (such as U+0000 or escape codes); give printable text",
                "line 7: 4 fields, but the header names 3 (name, serialNumber, mdmDeviceID); a field with a comma goes in double quotes",
                "line 8: serialNumber: 'not a serial!' is not a serial number; give 1 to 64 letters, digits, '-', '_' or '.', such as C02XK1ABJG5H",
                "line 9: name: give 1 to 100 characters",
            ])
            let listed = try await test.request(.GET, "/api/v1/devices", key: test.adminKey).array
            #expect(listed.count == 4)
            let key = try #require(report.imported.first?.key)
            #expect(try await test.request(.POST, "/api/v1/devices/\(report.imported[0].id)/logout-runs", key: key).status == 409,
                    "the imported key is the device's own (409: no apps registered yet)")
            #expect(report.keysCSV().hasPrefix("line,name,serialNumber,deviceID,key\r\n2,ward-7-phone-1,C02XK1ABJG5H,"))
            #expect(report.keysCSV().contains("\r\n3,\"ward 7, phone 2\",C02XK1ABJG5J,"))
        }
    }

    @Test func theSiteColumnPutsEachDeviceAtItsSite() async throws {
        try await TestServer.with(.sqlite) { test in
            let csv = """
                name,site
                icu-phone-1,ICU
                ward-3-phone-1,Ward-3
                spare-phone,
                bad-phone,ICU+ward
                ward-7-phone-1,Ward 7
                """
            let report = try await DeviceImport.run(csv: Data(csv.utf8), dryRun: false, in: test.server.databases, now: Date())
            #expect(report.imported.map(\.name) == ["icu-phone-1", "ward-3-phone-1", "spare-phone", "ward-7-phone-1"])
            #expect(report.refused.map(\.description) == [
                "line 5: site: 'ICU+ward' is not a site name: it has '+', which separates sites in the settings that name them; "
                    + "a site name is 1 to 64 characters of printable text (letters of any script, digits, spaces, punctuation), "
                    + "without ',', '=', '+' or '@'; compared ignoring case"])
            let listed = try await test.request(.GET, "/api/v1/devices", key: test.adminKey).array
            #expect(listed.map { $0["site"] as? String } == ["ICU", "Ward-3", nil, "Ward 7"])
            for bad in ["tab\there", String(repeating: "W", count: 65), "ICU,ER"] {
                let refused = try await test.request(.POST, "/api/v1/devices", json: ["name": "x", "site": bad], key: test.adminKey)
                #expect([400, 422].contains(refused.status) && refused.text.contains("site"), "\(refused.text)")
            }
            let spaced = try await test.request(.POST, "/api/v1/devices", json: ["name": "y", "site": " Ward 7 "], key: test.adminKey)
            #expect(spaced.status == 201 && (spaced.json["device"] as? [String: Any])?["site"] as? String == "Ward 7", "trimmed: \(spaced.text)")
        }
    }

    /// Before: a device export from Jamf Pro was refused whole for its header ("column 1 of the
    /// header, 'Display Name', is not a column here"). Now an MDM's export is read as it comes.
    @Test func aJamfProOrIntuneDeviceExportIsReadAsItComes() async throws {
        try await TestServer.with(.sqlite) { test in
            let jamf = """
                Display Name,Serial Number,UDID,Model,Management ID,Site,Last Inventory Update
                ICU phone 1,C02JAMF00001,00008030-001A,iPhone 13,0a7e5c3c-1111-4f0b-9a51-6d7b9f1d2c01,ICU,2026-11-26 07:00:00
                Ward 7 phone 1,C02JAMF00002,00008030-001B,iPhone 13,0a7e5c3c-2222-4f0b-9a51-6d7b9f1d2c02,,2026-11-26 07:00:00
                """
            let fromJamf = try await DeviceImport.run(csv: Data(jamf.utf8), dryRun: false, in: test.server.databases, now: Date())
            #expect(fromJamf.export == "Jamf Pro" && fromJamf.ignoredColumns == ["UDID", "Model", "Last Inventory Update"], "\(fromJamf.ignoredColumns)")
            #expect(fromJamf.imported.map(\.name) == ["ICU phone 1", "Ward 7 phone 1"] && fromJamf.refused.isEmpty, "\(fromJamf.refused)")
            #expect(fromJamf.imported.first?.mdmDeviceID == "0a7e5c3c-1111-4f0b-9a51-6d7b9f1d2c01" && fromJamf.imported.first?.serialNumber == "C02JAMF00001")
            let intune = """
                Device ID,Device name,Managed by,Ownership,Compliance,OS,OS version,Last check-in,Primary user UPN,Serial number,Model
                4b5c6d7e-0000-4aaa-8bbb-1234567890ab,ED-PHONE-3,Intune,Corporate,Compliant,iOS/iPadOS,18.1,2026-11-26 06:58,,C02INTUNE003,iPhone 15
                """
            let fromIntune = try await DeviceImport.run(csv: Data(intune.utf8), dryRun: false, in: test.server.databases, now: Date())
            #expect(fromIntune.export == "Microsoft Intune" && fromIntune.imported.first?.mdmDeviceID == "4b5c6d7e-0000-4aaa-8bbb-1234567890ab"
                    && fromIntune.imported.first?.name == "ED-PHONE-3" && fromIntune.imported.first?.serialNumber == "C02INTUNE003", "\(fromIntune)")
            #expect(fromIntune.ignoredColumns.contains("Primary user UPN") && !fromIntune.ignoredColumns.contains("Device ID"))
            let sites = try await test.request(.GET, "/api/v1/devices?site=ICU", key: test.adminKey).array
            #expect(sites.map { $0["name"] as? String } == ["ICU phone 1"])
        }
    }

    @Test func aFileThatIsNotSuchATableIsRefusedWhole() async throws {
        try await TestServer.with(.sqlite) { test in
            let cases: [(Data, String)] = [
                (Data("name,colour\nphone,red\n".utf8), "column 2 of the header, 'colour', is not a column here"),
                (Data("serialNumber\nC02X\n".utf8), "no 'name' column"),
                (Data("name,name\na,b\n".utf8), "names 'name' twice"),
                (Data([0xFF, 0xFE, 0x00]), "not UTF-8"),
                (Data("name\n\"open\n".utf8), "never closed"),
                (Data(), "no header line"),
                (Data(repeating: UInt8(ascii: "a"), count: 10 * 1024 * 1024), "at most 5242880"),
            ]
            for (data, expected) in cases {
                do {
                    _ = try await DeviceImport.run(csv: data, dryRun: false, in: test.server.databases, now: Date())
                    Issue.record("imported: \(expected)")
                } catch let error as DeviceImportFileError {
                    #expect(error.description.contains(expected), "\(error.description)")
                }
            }
            #expect(try await test.request(.GET, "/api/v1/devices", key: test.adminKey).array.isEmpty)
        }
    }

    /// OWASP's CSV injection advice: a name a spreadsheet would run as a formula is written with
    /// a leading `'`, so opening the keys file runs nothing.
    @Test func theKeysFileNeutralisesFormulas() throws {
        let names = ["=cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)*cmd|' /C calc'!A0", "+HYPERLINK(\"https://evil.example\",\"x\")", "\tTAB", "\rCR", "plain"]
        let report = DeviceImportReport(imported: names.enumerated().map { index, name in
            .init(line: index + 2, id: UUID(), name: name, serialNumber: nil, mdmDeviceID: nil, key: "hov_\(index)")
        }, refused: [], dryRun: false)
        let table = try CSVTable(parsing: report.keysCSV())
        let written = table.records.dropFirst().map { $0.fields[1] }
        #expect(written == names.map { "=+-@\t\r".unicodeScalars.contains($0.unicodeScalars.first!) ? "'" + $0 : $0 })
        #expect(table.records.dropFirst().allSatisfy { record in record.fields.allSatisfy { !Self.startsWithFormula($0) } })
    }

    static func startsWithFormula(_ field: String) -> Bool {
        field.unicodeScalars.first.map { "=+-@\t\r".unicodeScalars.contains($0) } ?? false
    }

    /// Batches: each commits alone, so another writer gets in between them (here the API
    /// registers a device between every two batches, on the server's one SQLite writer).
    @Test func anImportCommitsInBatchesThatLetOtherWritersIn() async throws {
        try await TestServer.with(.sqlite) { test in
            let csv = "name,serialNumber\n" + (1...35).map { "phone-\($0),SER\($0)" }.joined(separator: "\n")
            let seen = ProgressLog()
            let report = try await DeviceImport.run(csv: Data(csv.utf8), dryRun: false, in: test.server.databases, now: Date(),
                                                               batchSize: 10) { done, total in
                let between = try? await test.request(.POST, "/api/v1/devices", json: ["name": "between-\(done)"], key: test.adminKey)
                seen.append(done, total, between?.status ?? 0)
            }
            #expect(report.imported.count == 35)
            #expect(seen.entries.map(\.done) == [10, 20, 30, 35] && seen.entries.allSatisfy { $0.total == 35 }, "\(seen.entries)")
            #expect(seen.entries.map(\.status) == [201, 201, 201, 201], "a writer between batches is served")
            #expect(try await test.request(.GET, "/api/v1/devices", key: test.adminKey).array.count == 39)
        }
    }

    /// `--all-or-nothing`: one transaction; a failure midway leaves nothing imported.
    @Test func allOrNothingImportsEveryRowOrNone() async throws {
        try await TestServer.with(.sqlite) { test in
            let csv = "name,serialNumber\n" + (1...25).map { "phone-\($0),SER\($0)" }.joined(separator: "\n")
            let seen = ProgressLog()
            do {
                _ = try await DeviceImport.run(csv: Data(csv.utf8), dryRun: false, in: test.server.databases, now: Date(),
                                                           batchSize: 10, allOrNothing: true) { done, total in
                    seen.append(done, total, 0)
                    if done == 20 { throw CancellationError() }
                }
                Issue.record("the import went on after its failure")
            } catch let stopped as DeviceImportInterrupted {
                #expect(stopped.report.imported.isEmpty, "nothing was committed")
            }
            #expect(try await test.request(.GET, "/api/v1/devices", key: test.adminKey).array.isEmpty)
            // In batches, the same failure keeps the batches committed before it, and says which.
            do {
                _ = try await DeviceImport.run(csv: Data(csv.utf8), dryRun: false, in: test.server.databases, now: Date(),
                                                           batchSize: 10) { done, _ in
                    if done == 20 { throw CancellationError() }
                }
                Issue.record("the import went on after its failure")
            } catch let stopped as DeviceImportInterrupted {
                #expect(stopped.report.imported.count == 20 && stopped.report.imported.allSatisfy { $0.key != nil })
            }
            #expect(try await test.request(.GET, "/api/v1/devices", key: test.adminKey).array.count == 20)
            // Running it again imports the rest: the rows already imported are refused by serial number.
            let again = try await DeviceImport.run(csv: Data(csv.utf8), dryRun: false, in: test.server.databases, now: Date(), batchSize: 10)
            #expect(again.imported.map(\.name) == (21...25).map { "phone-\($0)" })
            #expect(again.refused.count == 20 && again.refused[0].reason.contains("already registered"))
        }
    }

    @Test func registrationChecksTheIdentifiers() async throws {
        try await TestServer.with(.sqlite) { test in
            let bad = try await test.request(.POST, "/api/v1/devices", json: ["name": "x", "serialNumber": "C02 X"], key: test.adminKey)
            #expect(bad.status == 422 && bad.json["field"] as? String == "serialNumber")
            let badMDM = try await test.request(.POST, "/api/v1/devices", json: ["name": "x", "mdmDeviceID": "a b"], key: test.adminKey)
            #expect(badMDM.status == 422 && badMDM.json["field"] as? String == "mdmDeviceID")
            _ = try await test.request(.POST, "/api/v1/devices", json: ["name": "a", "serialNumber": "C02X1"], key: test.adminKey)
            let twice = try await test.request(.POST, "/api/v1/devices", json: ["name": "b", "serialNumber": "c02x1"], key: test.adminKey)
            #expect(twice.status == 409 && twice.json["error"] as? String == "duplicate_serial", "\(twice.text)")
        }
    }
}

/// What an import's progress reported, in order.
final class ProgressLog: @unchecked Sendable {
    struct Entry: Sendable { var done: Int; var total: Int; var status: Int }
    private let lock = NSLock()
    private var stored: [Entry] = []
    var entries: [Entry] { lock.withLock { stored } }
    func append(_ done: Int, _ total: Int, _ status: Int) { lock.withLock { stored.append(Entry(done: done, total: total, status: status)) } }
}

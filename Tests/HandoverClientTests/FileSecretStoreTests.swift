import Foundation
import HandoverClient
import Testing

@Suite("FileSecretStore", .timeLimit(.minutes(5)))
struct FileSecretStoreTests {
    @Test func writesReplacesReadsAndDeletesOwnerOnlyFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("secret-store-\(UUID().uuidString)")
        let store = FileSecretStore(directory: directory)
        #expect(try store.read("device-session") == nil)
        try store.write("device-session", Data("first".utf8))
        try store.write("device-session", Data("second".utf8))   // replacing an existing file
        #expect(try store.read("device-session") == Data("second".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("device-session").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        try store.delete("device-session")
        #expect(try store.read("device-session") == nil)
        try store.delete("device-session")
        try? FileManager.default.removeItem(at: directory)
    }
}

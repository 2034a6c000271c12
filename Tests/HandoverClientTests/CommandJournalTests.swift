import Foundation
import HandoverClient
import Testing

@Suite(.timeLimit(.minutes(5))) struct CommandJournalTests {
    @Test func savedCommandsComeBackOldestFirst() throws {
        let journal = try CommandJournal(folder: temporaryFolder())
        let older = LogoutCommand(id: "b", link: "https://a.example.com/x", receivedAt: Date(timeIntervalSince1970: 1), state: .journaled)
        let newer = LogoutCommand(id: "a", link: "https://a.example.com/y", receivedAt: Date(timeIntervalSince1970: 2), state: .running(attempt: 1))
        try journal.save(newer)
        try journal.save(older)
        #expect(try journal.load() == [older, newer])
    }

    @Test func savingAgainReplacesTheState() throws {
        let journal = try CommandJournal(folder: temporaryFolder())
        var command = LogoutCommand(id: "c", link: "https://a.example.com/x", receivedAt: Date(timeIntervalSince1970: 1), state: .journaled)
        try journal.save(command)
        command.state = .callbackOpened(.success)
        try journal.save(command)
        #expect(try journal.load() == [command])
    }

    @Test func removedCommandIsGoneAndRemovingTwiceIsHarmless() throws {
        let journal = try CommandJournal(folder: temporaryFolder())
        try journal.save(LogoutCommand(id: "c", link: "https://a.example.com/x", receivedAt: Date(), state: .journaled))
        try journal.remove(id: "c")
        try journal.remove(id: "c")
        #expect(try journal.load().isEmpty)
    }

    @Test func halfWrittenTempFileFromAKillIsIgnored() throws {
        let folder = temporaryFolder()
        let journal = try CommandJournal(folder: folder)
        try Data("{\"id\":".utf8).write(to: folder.appendingPathComponent(".x.command.json.123.tmp"))
        #expect(try journal.load().isEmpty)
    }

    @Test func corruptFileIsAnErrorWithItsPath() throws {
        let folder = temporaryFolder()
        let journal = try CommandJournal(folder: folder)
        try Data("nonsense".utf8).write(to: folder.appendingPathComponent("x.command.json"))
        #expect { try journal.load() } throws: { error in
            (error as? JournalError)?.description.contains("x.command.json") == true
        }
    }
}

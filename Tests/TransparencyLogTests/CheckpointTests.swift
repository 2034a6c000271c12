import Crypto
import Foundation
import PropertyBased
import Testing
@testable import TransparencyLog

/// Checkpoints and signed notes as C2SP `tlog-checkpoint` and `signed-note` write them.
@Suite struct CheckpointTests {
    /// C2SP signed-note's example verifier key and note (its "Example" section, from Go's
    /// golang.org/x/mod/sumdb/note tests): the key PeterNeumann and its signature of "If you think
    /// cryptography is the answer to your problem,\nthen you don't know what your problem is.\n".
    static let vectorKey = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
    static let vectorNote = """
        If you think cryptography is the answer to your problem,
        then you don't know what your problem is.

        — PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=

        """

    @Test func theSpecificationsExampleVerifies() throws {
        let key = try NoteVerifierKey(Self.vectorKey)
        #expect(key.description == Self.vectorKey)
        let note = try SignedNote(serialized: Self.vectorNote)
        #expect(note.text == "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n")
        try note.verify(with: key)
        var changed = note
        changed.text = changed.text.replacingOccurrences(of: "answer", with: "Answer")
        #expect(throws: CheckpointError.badSignature("PeterNeumann")) { try changed.verify(with: key) }
    }

    @Test func aSignedCheckpointRoundTripsAndOnlyItsKeyVerifiesIt() throws {
        let key = try NoteSigningKey(name: "handover.example/audit", privateKey: .init())
        let checkpoint = Checkpoint(origin: "handover.example/audit", size: 1042, rootHash: .leaf([1, 2, 3]))
        let note = try SignedNote.sign(checkpoint.text, with: key)
        let read = try SignedNote(serialized: note.serialized)
        try read.verify(with: try NoteVerifierKey(key.verifier.description))
        #expect(try Checkpoint(text: read.text) == checkpoint)
        let other = try NoteSigningKey(name: "handover.example/audit", privateKey: .init())
        #expect(throws: CheckpointError.self) { try read.verify(with: other.verifier) }
        let stranger = try NoteSigningKey(name: "elsewhere", privateKey: .init())
        #expect(throws: CheckpointError.notSignedByKey("elsewhere")) { try read.verify(with: stranger.verifier) }
    }

    @Test func malformedCheckpointsAreRefusedWithTheirReason() {
        #expect(throws: CheckpointError.self) { try Checkpoint(text: "origin\n12\n") }
        #expect(throws: CheckpointError.self) { try Checkpoint(text: "origin\n012\n\(MerkleHash.empty.base64)\n") }
        #expect(throws: CheckpointError.self) { try Checkpoint(text: "origin\n12\nnot-base64\n") }
        #expect(throws: CheckpointError.self) { try Checkpoint(text: "origin\n12\n\(MerkleHash.empty.base64)") }
        #expect(throws: CheckpointError.self) { try NoteVerifierKey("name+00000000+AAAA") }
    }

    /// C2SP tlog-checkpoint's extension lines, after the root hash: kept, written back, signed
    /// with the rest (Handover marks the start of an epoch with one); an empty one is refused.
    @Test func extensionLinesAreKeptAndSigned() throws {
        let text = "handover.example/audit\n12\n\(MerkleHash.empty.base64)\nhandover-epoch acknowledged\n"
        let checkpoint = try Checkpoint(text: text)
        #expect(checkpoint.extensions == ["handover-epoch acknowledged"] && checkpoint.text == text)
        #expect(try Checkpoint(text: "handover.example/audit\n12\n\(MerkleHash.empty.base64)\n").extensions.isEmpty)
        #expect(throws: CheckpointError.self) { try Checkpoint(text: "handover.example/audit\n12\n\(MerkleHash.empty.base64)\n\n") }
        let key = try NoteSigningKey(name: "handover.example/audit", privateKey: .init())
        let note = try SignedNote.sign(checkpoint.text, with: key)
        try note.verify(with: key.verifier)
        #expect(try Checkpoint(text: note.text) == checkpoint)
    }

    /// The note reader takes any text without crashing, and what it accepts writes back the same.
    @Test func theNoteReaderTakesAnyText() async {
        let alphabet = Array("ab \n—+=/\u{2014}0123456789")
        await propertyCheck(count: 500, input: Gen<Character?>.element(of: alphabet).compactMap { $0 }.array(of: 0...80)) { characters in
            let text = String(characters)
            if let note = try? SignedNote(serialized: text) {
                #expect(note.serialized == text)
            }
            _ = try? Checkpoint(text: text)
            _ = try? NoteVerifierKey(text)
        }
    }
}

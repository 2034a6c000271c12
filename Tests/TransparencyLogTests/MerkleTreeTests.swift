import Crypto
import Foundation
import PropertyBased
import Testing
@testable import TransparencyLog

/// The tree and its proofs against RFC 9162 §2.1, against the Certificate Transparency test
/// vectors, and against the recursive definitions for every size up to 70.
@Suite struct MerkleTreeTests {
    /// The eight leaves of Certificate Transparency's reference tests
    /// (google/certificate-transparency, `cpp/merkletree/merkle_tree_test.cc`; the same in
    /// transparency-dev/merkle `testonly/constants.go`).
    static let vectorLeaves: [[UInt8]] = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657",
                                          "606162636465666768696a6b6c6d6e6f"].map(bytes(hex:))
    /// Their roots at sizes 1 to 8, from the same file.
    static let vectorRoots = [
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    ]

    static func bytes(hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    static func tree(_ entries: [[UInt8]]) -> MerkleTree {
        var tree = MerkleTree()
        for entry in entries { tree.append(entry: entry) }
        return tree
    }

    @Test func theEmptyTreeIsTheHashOfNothing() throws {
        #expect(try MerkleTree().rootHash().hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func rootsMatchCertificateTransparencysVectors() throws {
        let tree = Self.tree(Self.vectorLeaves)
        for (i, expected) in Self.vectorRoots.enumerated() {
            #expect(try tree.rootHash(size: i + 1).hex == expected, "size \(i + 1)")
        }
    }

    /// The frontier gives Certificate Transparency's roots too, and the tree's head at every size
    /// up to 300 (every shape of carry a counter of nine bits makes).
    @Test func theFrontierGivesTheTreesHeadAtEverySize() throws {
        var frontier = MerkleFrontier()
        #expect(frontier.rootHash == MerkleHash.empty)
        for (i, expected) in Self.vectorRoots.enumerated() {
            frontier.append(leafHash: .leaf(Self.vectorLeaves[i]))
            #expect(frontier.rootHash.hex == expected, "size \(i + 1)")
        }
        var tree = MerkleTree(), grown = MerkleFrontier()
        for i in 0..<300 {
            tree.append(entry: Array("entry \(i)".utf8))
            grown.append(leafHash: tree.leafHashes[i])
            #expect(grown.size == i + 1)
            #expect(grown.rootHash == (try tree.rootHash()), "size \(i + 1)")
        }
    }

    /// RFC 9162 §2.1.5's example tree of seven leaves, with the node names the RFC draws.
    @Test func inclusionProofsAreTheRFCsPathsForTheSevenLeafExample() throws {
        let leaves = (0..<7).map { [UInt8]("d\($0)".utf8) }
        let tree = Self.tree(leaves)
        let h = leaves.map { MerkleHash.leaf($0) }
        let (a, b, c, d, e, f, j) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6])
        let g = MerkleHash.node(a, b), hh = MerkleHash.node(c, d), i = MerkleHash.node(e, f)
        let k = MerkleHash.node(g, hh), l = MerkleHash.node(i, j)
        #expect(try tree.rootHash() == .node(k, l))
        // §2.1.5: "The inclusion proof for d0 is [b, h, l]", "for d3 is [c, g, l]", "for d4 is [f, j, k]", "for d6 is [i, k]".
        #expect(try tree.inclusionProof(index: 0, size: 7) == [b, hh, l])
        #expect(try tree.inclusionProof(index: 3, size: 7) == [c, g, l])
        #expect(try tree.inclusionProof(index: 4, size: 7) == [f, j, k])
        #expect(try tree.inclusionProof(index: 6, size: 7) == [i, k])
        // §2.1.5: "The consistency proof between hash0 and hash is PROOF(3, D[7]) = [c, d, g, l]",
        // "between hash1 and hash is PROOF(4, D[7]) = [l]", "between hash2 and hash is PROOF(6, D[7]) = [i, j, k]".
        #expect(try tree.consistencyProof(from: 3, to: 7) == [c, d, g, l])
        #expect(try tree.consistencyProof(from: 4, to: 7) == [l])
        #expect(try tree.consistencyProof(from: 6, to: 7) == [i, j, k])
    }

    @Test func everyProofVerifiesForEverySizeUpToSeventy() throws {
        let tree = Self.tree((0..<70).map { [UInt8]("entry \($0)".utf8) })
        for size in 1...70 {
            let root = try tree.rootHash(size: size)
            for index in 0..<size {
                let path = try tree.inclusionProof(index: index, size: size)
                try MerkleProof.verifyInclusion(leafHash: tree.leafHashes[index], index: index, treeSize: size, path: path, rootHash: root)
                #expect(throws: MerkleProofError.self) {
                    try MerkleProof.verifyInclusion(leafHash: tree.leafHashes[(index + 1) % 70], index: index, treeSize: size, path: path, rootHash: root)
                }
            }
            for from in 0...size {
                let path = try tree.consistencyProof(from: from, to: size)
                try MerkleProof.verifyConsistency(from: from, to: size, fromRoot: try tree.rootHash(size: from), toRoot: root, path: path)
                if from > 0, from < size {
                    #expect(throws: MerkleProofError.self) {
                        try MerkleProof.verifyConsistency(from: from, to: size, fromRoot: .leaf([0xFF]), toRoot: root, path: path)
                    }
                }
            }
        }
    }

    /// Issue 63: the checkpoint pass proves consistency from the tree's right edge and the new
    /// leaves alone. Its proof is RFC 9162 §2.1.4.1's PROOF(m, D[0:n]), hash for hash, for every
    /// 1 ≤ m < n ≤ 70, and verifies by §2.1.4.2.
    @Test func theFrontiersConsistencyProofIsTheTreesForEverySize() throws {
        let tree = Self.tree((0..<70).map { [UInt8]("entry \($0)".utf8) })
        for from in 0...70 {
            let frontier = MerkleFrontier().appending(tree.leafHashes[0..<from])
            #expect(frontier.rootHash == (try tree.rootHash(size: from)))
            for to in from...70 {
                let proof = try frontier.consistencyProof(appending: Array(tree.leafHashes[from..<to]))
                #expect(proof == (try tree.consistencyProof(from: from, to: to)), "PROOF(\(from), D[0:\(to)])")
                try MerkleProof.verifyConsistency(from: from, to: to, fromRoot: frontier.rootHash, toRoot: try tree.rootHash(size: to), path: proof)
            }
        }
    }

    @Test func aChangedHashInAProofIsCaught() async throws {
        let tree = Self.tree((0..<300).map { [UInt8]("entry \($0)".utf8) })
        await propertyCheck(count: 200, input: Gen.int(in: 1...300), Gen.int(in: 0...299), Gen.int(in: 0...40), Gen.uint8()) { size, rawIndex, which, bit in
            let index = rawIndex % size
            var path = try tree.inclusionProof(index: index, size: size)
            let root = try tree.rootHash(size: size)
            guard !path.isEmpty else { return }
            var bytes = path[which % path.count].bytes
            bytes[Int(bit) % 32] ^= 1 << (bit % 8)
            path[which % path.count] = MerkleHash(bytes: bytes)!
            #expect(throws: MerkleProofError.self) {
                try MerkleProof.verifyInclusion(leafHash: tree.leafHashes[index], index: index, treeSize: size, path: path, rootHash: root)
            }
            #expect(throws: MerkleProofError.self) {
                try MerkleProof.verifyInclusion(leafHash: tree.leafHashes[index], index: index, treeSize: size, path: path.dropLast() + [], rootHash: root)
            }
        }
    }

    @Test func sizesOutsideTheTreeAreRefused() throws {
        let tree = Self.tree([[1], [2]])
        #expect(throws: MerkleProofError.sizeOutOfRange(3, treeSize: 2)) { try tree.rootHash(size: 3) }
        #expect(throws: MerkleProofError.indexOutOfRange(2, treeSize: 2)) { try tree.inclusionProof(index: 2, size: 2) }
        #expect(throws: MerkleProofError.sizeOutOfRange(3, treeSize: 2)) { try tree.consistencyProof(from: 1, to: 3) }
    }
}

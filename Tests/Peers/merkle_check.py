#!/usr/bin/env python3
"""Checks Merkle tree proofs as RFC 9162 (Certificate Transparency 2.0) section 2.1 defines them,
with tlog-scales (Florian Larysch's Python library for C2SP tlog-tiles transparency logs, on PyPI:
`pip install tlog-scales`; young, 0.0.x, but kept up, with its own tests and CI), not Handover's
code. .ci/run pins the version this was checked against.

  merkle_check.py < CHECKS.json
      Reads one JSON object on stdin and verifies every proof in it:

        {"inclusion":   [{"leaf": B64, "index": 5, "treeSize": 100, "root": B64, "path": [B64, ...]}, ...],
         "consistency": [{"from": 10, "to": 100, "oldRoot": B64, "newRoot": B64, "path": [B64, ...]}, ...]}

      B64 is standard base64 (RFC 4648 section 4, with padding). "leaf" is the leaf's exact bytes
      (the library hashes it: SHA-256(0x00 || leaf)); "index" counts from 0 as RFC 9162's
      leaf_index does; roots and path entries are 32-byte SHA-256 hashes, each path in the RFC's
      order (inclusion_path of section 2.1.3.1, consistency_path of section 2.1.4.1: the hash
      nearest the leaves first). Either list may be left out, but not both.
      Prints one line per verified proof, then
        verified N inclusion proofs and M consistency proofs with tlog-scales VERSION
      Exits 1 at the first proof that fails, printing one line that names it (its list and its
      position there, counting from 0) and the library's reason. Malformed input (bad base64, a
      hash that is not 32 bytes, a size that is not a non-negative integer, an unknown key) is
      refused the same way before the library is asked.

  merkle_check.py selftest
      Builds the tree of Certificate Transparency's eight test leaves with the library's own log
      writer and checks, against the published vectors: the root of every size 0..8 (size 0 is
      SHA-256("") = e3b0c442...b855, size 8 is 5dc9da79...4328), the leaf and node hashes, the
      library's proofs against the known inclusion and consistency proofs, that those proofs
      verify through this script's JSON path, and that every corruption of them that the
      vectors' own tests try is refused. Then a 37-leaf tree written in three commits: every
      inclusion proof (every leaf, every size) and every consistency proof (0 < from < to <= 37)
      that the library makes verifies through the JSON path, and with one bit flipped does not.

The vectors are those of transparency-dev/merkle (the Go library the Certificate Transparency
and Trillian projects moved their Merkle code to): testonly/constants.go (LeafInputs,
NodeHashes, RootHashes; read at commit 582a6ad190b6848f1d26f8bf08ddef29955d9db1) and
proof/verify_test.go (inclusionProofs, consistencyProofs, and the probes of
corruptInclusionProof and corruptConsistencyProof; read at commit
02194e9afb6c1d95b5381350007963aa70fff472). The same leaves, roots and proofs are in
google/certificate-transparency-go merkletree/merkle_verifier_test.go (getInputs, getRoots,
getInclusionTestVector, getConsistencyProofs).

Why this library hashes and verifies as RFC 9162 does (tlog-scales 0.0.3, from its wheel):
  - tlog_scales/tiles.py, leaf_hash(leaf): `sha256(b'\\x00' + leaf)` (the RFC's leaf hash);
    tlog_scales/utils.py, sha256(data) is hashlib.sha256(data).digest().
  - tlog_scales/tlog.py, InclusionProof.check(leaf_hash, root_hash): commented "RFC 9162,
    section 2.1.3.2", its steps 1-5 in the RFC's words: leaf_index >= tree_size fails, fn/sn,
    `r = sha256(b'\\x01' + p + r)` or `sha256(b'\\x01' + r + p)`, sn must end at 0.
  - tlog_scales/tlog.py, ConsistencyProof.check(old_hash, new_hash): commented "a literal
    translation of RFC 9162, section 2.1.4.2", steps 1-7: an empty path fails, first_hash is
    prepended when first is a power of 2, `fr = sha256(b'\\x01' + c + fr)`,
    `sr = sha256(b'\\x01' + sr + c)`, fr, sr and sn == 0 checked at the end. Before the RFC's
    steps it accepts, with an empty path only, the two cases the RFC leaves out (0 < first <
    second): a tree consistent with itself (same size, same root) and the empty tree
    (size 0 with root SHA-256("")) consistent with any.
  - tlog_scales/reader.py, TilesReader.mth(start, end): `sha256(b'')` for no leaves,
    `sha256(b'\\x01' + mth(left) + mth(right))` split at the largest power of two below the
    size (RFC 9162 section 2.1.1); get_inclusion_proof and get_consistency_proof are the RFC's
    PATH (2.1.3.1) and SUBPROOF (2.1.4.1). tlog_scales/writer.py, TilesWriter.commit stores
    `sha256(b'\\x00' + leaf)` for each leaf.
This script only decodes the JSON and hands the bytes to those functions; it hashes nothing
itself.
"""
import base64
import binascii
import json
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

from tlog_scales import tiles, tlog, writer

LIBRARY = "tlog-scales"
HASH_SIZE = 32


class Refused(Exception):
    pass


def library():
    return "%s %s" % (LIBRARY, version(LIBRARY))


# -- the adapter: JSON in, bytes to the library --------------------------------------------

def decoded(value, what):
    if not isinstance(value, str):
        raise Refused("%s is not a base64 string" % what)
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as error:
        raise Refused("%s is not valid base64 (%s)" % (what, error))


def hash_value(value, what):
    raw = decoded(value, what)
    if len(raw) != HASH_SIZE:
        raise Refused("%s is %d bytes, not a %d-byte SHA-256 hash" % (what, len(raw), HASH_SIZE))
    return raw


def count(value, what):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Refused("%s is not a non-negative integer: %r" % (what, value))
    return value


def path_of(value):
    if not isinstance(value, list):
        raise Refused("path is not a list")
    return [hash_value(item, "path[%d]" % i) for i, item in enumerate(value)]


def fields(item, names):
    if not isinstance(item, dict):
        raise Refused("is not a JSON object")
    unknown = sorted(set(item) - set(names))
    missing = [name for name in names if name not in item]
    if unknown:
        raise Refused("unknown key %s" % ", ".join(unknown))
    if missing:
        raise Refused("missing %s" % ", ".join(missing))


# -- the verification itself: the library's code --------------------------------------------

def verify_inclusion(leaf, index, tree_size, root, path):
    """RFC 9162 section 2.1.3.2, by tlog_scales.tlog.InclusionProof.check."""
    tlog.InclusionProof(leaf_index=index, tree_size=tree_size, node_hashes=list(path)).check(
        tiles.leaf_hash(leaf), root)


def verify_consistency(first, second, first_hash, second_hash, path):
    """RFC 9162 section 2.1.4.2, by tlog_scales.tlog.ConsistencyProof.check."""
    tlog.ConsistencyProof(old_size=first, new_size=second, node_hashes=list(path)).check(
        first_hash, second_hash)


def check_inclusion(item):
    fields(item, ("leaf", "index", "treeSize", "root", "path"))
    index, tree_size = count(item["index"], "index"), count(item["treeSize"], "treeSize")
    leaf, root, path = decoded(item["leaf"], "leaf"), hash_value(item["root"], "root"), path_of(item["path"])
    verify_inclusion(leaf, index, tree_size, root, path)
    return "leaf %d of a tree of %d: included (path of %d)" % (index, tree_size, len(path))


def check_consistency(item):
    fields(item, ("from", "to", "oldRoot", "newRoot", "path"))
    first, second = count(item["from"], "from"), count(item["to"], "to")
    old_root, new_root = hash_value(item["oldRoot"], "oldRoot"), hash_value(item["newRoot"], "newRoot")
    path = path_of(item["path"])
    verify_consistency(first, second, old_root, new_root, path)
    return "tree of %d to tree of %d: consistent (path of %d)" % (first, second, len(path))


def run_checks(document, out):
    """Verifies every check of the document, writing a line for each; raises Refused at the
    first that fails. Returns (inclusion count, consistency count)."""
    if not isinstance(document, dict):
        raise Refused("the input is not a JSON object")
    unknown = sorted(set(document) - {"inclusion", "consistency"})
    if unknown:
        raise Refused("unknown key %s at the top level" % ", ".join(unknown))
    done = {}
    for kind, check in (("inclusion", check_inclusion), ("consistency", check_consistency)):
        items = document.get(kind, [])
        if not isinstance(items, list):
            raise Refused("%s is not a list" % kind)
        for position, item in enumerate(items):
            try:
                line = check(item)
            except Refused as error:
                raise Refused("%s[%d]: %s" % (kind, position, error))
            except (tlog.InclusionProofInvalid, tlog.ConsistencyProofInvalid, ValueError,
                    TypeError) as error:
                raise Refused("%s[%d]%s: %s: %s" % (kind, position, describe(kind, item),
                                                    type(error).__name__, error))
            out.write("%s[%d]: %s\n" % (kind, position, line))
        done[kind] = len(items)
    if not done["inclusion"] and not done["consistency"]:
        raise Refused("no proofs to check: both lists are empty or missing")
    return done["inclusion"], done["consistency"]


def describe(kind, item):
    if kind == "inclusion":
        return " (leaf %s of a tree of %s)" % (item.get("index"), item.get("treeSize"))
    return " (tree of %s to tree of %s)" % (item.get("from"), item.get("to"))


# -- selftest --------------------------------------------------------------------------------

def hd(text):
    return bytes.fromhex(text)


def b64(raw):
    return base64.b64encode(raw).decode()


# transparency-dev/merkle testonly/constants.go: LeafInputs(), NodeHashes(), RootHashes().
CT_LEAVES = [hd(h) for h in ("", "00", "10", "2021", "3031", "40414243", "5051525354555657",
                             "606162636465666768696a6b6c6d6e6f")]
CT_NODES = [
    ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
     "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
     "0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
     "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7",
     "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
     "4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658",
     "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
     "46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1"],
    ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
     "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
     "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
     "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0"],
    ["d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
     "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"],
    ["5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"],
]
CT_ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",  # size 0: SHA-256("")
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",  # size 8
]
# transparency-dev/merkle proof/verify_test.go: inclusionProofs (leaf counted from 1 there, as
# here) and consistencyProofs.
CT_INCLUSION = [
    (1, 1, []),
    (1, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (6, 8, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (3, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (2, 5, ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
]
CT_CONSISTENCY = [
    (1, 1, []),
    (1, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (6, 8, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 5, ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
    (6, 7, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
]
SOME_HASH = hd("abacaba000000000000000000000000000000000000000000060061e00123456")


class SelftestFailed(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise SelftestFailed(message)


def refuses(verify, *arguments):
    try:
        verify(*arguments)
    except (tlog.InclusionProofInvalid, tlog.ConsistencyProofInvalid, ValueError, TypeError):
        return True
    return False


def flipped(path, i, bit):
    wrong = list(path)
    wrong[i] = bytes([wrong[i][0] ^ bit]) + wrong[i][1:]
    return wrong


def inclusion_probes(index, size, root, leaf, path):
    """corruptInclusionProof of proof/verify_test.go (wrong leaf: other bytes, hashed)."""
    probes = [
        ("leafIndex + 1", index + 1, size, root, leaf, path),
        ("leafIndex ^ 2", index ^ 2, size, root, leaf, path),
        ("treeSize * 2", index, size * 2, root, leaf, path),
        ("treeSize / 2", index, size // 2, root, leaf, path),
        ("wrong leaf", index, size, root, b"WrongLeaf", path),
        ("empty root", index, size, hd(CT_ROOTS[0]), leaf, path),
        ("random root", index, size, SOME_HASH, leaf, path),
        ("trailing garbage", index, size, root, leaf, path + [b""]),
        ("trailing root", index, size, root, leaf, path + [root]),
        ("preceding garbage", index, size, root, leaf, [b""] + path),
        ("preceding root", index, size, root, leaf, [root] + path),
    ]
    if index > 0:
        probes.append(("leafIndex - 1", index - 1, size, root, leaf, path))
    for i in range(len(path)):
        probes.append(("modified proof[%d] bit 3" % i, index, size, root, leaf, flipped(path, i, 8)))
    if path:
        probes.append(("removed component", index, size, root, leaf, path[:-1]))
    if len(path) > 1:
        probes.append(("inserted component", index, size, root, leaf, [path[0], SOME_HASH] + path[1:]))
    return probes


def consistency_probes(first, second, root1, root2, path):
    """corruptConsistencyProof of proof/verify_test.go."""
    probes = [
        ("size1 - 1", first - 1, second, root1, root2, path),
        ("size1 + 1", first + 1, second, root1, root2, path),
        ("size1 ^ 2", first ^ 2, second, root1, root2, path),
        ("size2 * 2", first, second * 2, root1, root2, path),
        ("size2 / 2", first, second // 2, root1, root2, path),
        ("wrong root1", first, second, b"WrongRoot", root2, path),
        ("wrong root2", first, second, root1, b"WrongRoot", path),
        ("swapped roots", first, second, root2, root1, path),
        ("empty proof", first, second, root1, root2, []),
        ("trailing garbage", first, second, root1, root2, path + [b""]),
        ("trailing root1", first, second, root1, root2, path + [root1]),
        ("trailing root2", first, second, root1, root2, path + [root2]),
        ("preceding garbage", first, second, root1, root2, [b""] + path),
        ("preceding root1", first, second, root1, root2, [root1] + path),
        ("preceding root2", first, second, root1, root2, [root2] + path),
        ("preceding proof[0]", first, second, root1, root2, [path[0]] + path),
        ("truncated proof", first, second, root1, root2, path[:-1]),
    ]
    for i in range(len(path)):
        probes.append(("modified proof[%d] bit 4" % i, first, second, root1, root2, flipped(path, i, 16)))
    return probes


def through_json(inclusion, consistency):
    """Runs checks through the same path as stdin input; returns the lines written."""
    class Lines:
        def __init__(self):
            self.lines = []

        def write(self, text):
            self.lines.append(text)
    out = Lines()
    document = {"inclusion": inclusion, "consistency": consistency}
    run_checks(json.loads(json.dumps(document)), out)
    return out.lines


def written_log(directory, leaves, batches):
    """A log written with the library's TilesWriter, committing the leaves in `batches` parts."""
    log = writer.TilesWriter.create(Path(directory) / "log", "selftest.invalid/merkle_check")
    step = -(-len(leaves) // batches)
    for start in range(0, len(leaves), step):
        for leaf in leaves[start:start + step]:
            log.add_leaf(leaf)
        log.commit([])
    return log.reader


def selftest():
    lines = []
    with tempfile.TemporaryDirectory() as directory:
        reader = written_log(directory, CT_LEAVES, 2)
        for size, root in enumerate(CT_ROOTS):
            reader.set_size(size)
            got = reader.calculate_root_hash().hex()
            expect(got == root, "the root of the first %d CT leaves is %s, the vectors say %s" % (size, got, root))
        lines.append("roots of the CT test leaves for sizes 0..8 match (size 0: %s..., size 8: %s...)"
                     % (CT_ROOTS[0][:8], CT_ROOTS[8][:8]))
        reader.set_size(8)
        for i, leaf in enumerate(CT_LEAVES):
            expect(tiles.leaf_hash(leaf).hex() == CT_NODES[0][i], "leaf hash %d differs from NodeHashes" % i)
        for level in range(1, 4):
            for i, node in enumerate(CT_NODES[level]):
                width = 1 << level
                got = reader.mth(i * width, (i + 1) * width).hex()
                expect(got == node, "node %d of level %d is %s, NodeHashes says %s" % (i, level, got, node))
        lines.append("leaf hashes (0x00 prefix) and node hashes (0x01 prefix) match NodeHashes")

        probes = 0
        inclusion = []
        for leaf_number, size, vector in CT_INCLUSION:
            index, path, root = leaf_number - 1, [hd(h) for h in vector], hd(CT_ROOTS[size])
            made = reader.get_inclusion_proof(index, size).node_hashes
            expect(made == path, "the library's inclusion proof for leaf %d of %d is not the vector's" % (index, size))
            verify_inclusion(CT_LEAVES[index], index, size, root, path)
            for description, *arguments in inclusion_probes(index, size, root, CT_LEAVES[index], path):
                expect(refuses(verify_inclusion, *arguments),
                       "inclusion of leaf %d of %d verified with %s" % (index, size, description))
                probes += 1
            inclusion.append({"leaf": b64(CT_LEAVES[index]), "index": index, "treeSize": size,
                              "root": b64(root), "path": [b64(h) for h in path]})
        consistency = []
        for first, second, vector in CT_CONSISTENCY:
            path, root1, root2 = [hd(h) for h in vector], hd(CT_ROOTS[first]), hd(CT_ROOTS[second])
            made = reader.get_consistency_proof(first, second).node_hashes
            expect(made == path, "the library's consistency proof %d -> %d is not the vector's" % (first, second))
            verify_consistency(first, second, root1, root2, path)
            if path:
                for description, *arguments in consistency_probes(first, second, root1, root2, path):
                    expect(refuses(verify_consistency, *arguments),
                           "consistency %d -> %d verified with %s" % (first, second, description))
                    probes += 1
            consistency.append({"from": first, "to": second, "oldRoot": b64(root1), "newRoot": b64(root2),
                                "path": [b64(h) for h in path]})
        through_json(inclusion, consistency)
        lines.append("the library's proofs equal the %d inclusion and %d consistency vectors, verify through "
                     "the JSON input, and all %d corruptions of them are refused"
                     % (len(inclusion), len(consistency), probes))

    with tempfile.TemporaryDirectory() as directory:
        leaves = [bytes([i, (i * 7) % 256]) * (i % 3 + 1) for i in range(37)]
        reader = written_log(directory, leaves, 3)
        roots = []
        for size in range(38):
            reader.set_size(size)
            roots.append(reader.calculate_root_hash())
        reader.set_size(37)
        inclusion, consistency = [], []
        for size in range(1, 38):
            for index in range(size):
                path = reader.get_inclusion_proof(index, size).node_hashes
                inclusion.append({"leaf": b64(leaves[index]), "index": index, "treeSize": size,
                                  "root": b64(roots[size]), "path": [b64(h) for h in path]})
                for i in range(len(path)):
                    expect(refuses(verify_inclusion, leaves[index], index, size, roots[size], flipped(path, i, 1)),
                           "inclusion of leaf %d of %d verified with bit 0 of path[%d] flipped" % (index, size, i))
            for first in range(1, size):
                path = reader.get_consistency_proof(first, size).node_hashes
                consistency.append({"from": first, "to": size, "oldRoot": b64(roots[first]),
                                    "newRoot": b64(roots[size]), "path": [b64(h) for h in path]})
                for i in range(len(path)):
                    expect(refuses(verify_consistency, first, size, roots[first], roots[size], flipped(path, i, 1)),
                           "consistency %d -> %d verified with bit 0 of path[%d] flipped" % (first, size, i))
        through_json(inclusion, consistency)
        lines.append("a 37-leaf tree written in 3 commits: all %d inclusion and %d consistency proofs verify "
                     "through the JSON input, none with a bit flipped" % (len(inclusion), len(consistency)))
    return lines


def main():
    if sys.argv[1:] == ["selftest"]:
        try:
            for line in selftest():
                print(line)
        except (SelftestFailed, Refused, tlog.InclusionProofInvalid, tlog.ConsistencyProofInvalid) as error:
            print("selftest failed: %s: %s" % (type(error).__name__, error))
            sys.exit(1)
        print("selftest passed with %s" % library())
    elif not sys.argv[1:]:
        try:
            try:
                document = json.load(sys.stdin)
            except ValueError as error:
                raise Refused("stdin is not JSON: %s" % error)
            inclusions, consistencies = run_checks(document, sys.stdout)
        except Refused as error:
            sys.stdout.flush()
            print("refused: %s" % error)
            sys.exit(1)
        print("verified %d inclusion proofs and %d consistency proofs with %s"
              % (inclusions, consistencies, library()))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()

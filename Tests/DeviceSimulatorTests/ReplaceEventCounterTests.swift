@testable import DeviceSimulator
import PropertyBased
import Testing

/// The shift-change bench counts the live overview's `replace` events as they arrive, in chunks
/// cut anywhere (issue 37: it counts bytes now, not Foundation strings).
struct ReplaceEventCounterTests {
    /// Pieces of an event stream: the counted marker, a cut-off beginning of it, other events.
    static let pieces = ["event: replace\n", "event: rep", "data: <section id=\"fleet\">\n", "\n", "event: ping\n", "e"]

    @Test func eventsSplitAcrossChunksCountOnce() {
        var counter = ReplaceEventCounter()
        #expect(counter.count(Array("data: x\n\nevent: repl".utf8)) == 0)
        #expect(counter.count(Array("ace\ndata: y\n\nevent: replace\nevent: replace\n".utf8)) == 3)
        #expect(counter.count(Array("".utf8)) == 0)
        #expect(counter.count(Array("event: replac".utf8)) == 0)
        #expect(counter.count(Array("e".utf8)) == 1)
    }

    /// Whatever the stream and wherever the chunks are cut, the counts add up to the markers
    /// written.
    @Test func theCountIsTheMarkersWrittenWhereverTheChunksAreCut() async {
        let stream = Gen<Int>.int(in: 0...(Self.pieces.count - 1)).array(of: 0...60)
        let cuts = Gen<Int>.int(in: 1...40).array(of: 1...40)
        await propertyCheck(count: 300, input: stream, cuts) { stream, cuts in
            let bytes = Array(stream.map { Self.pieces[$0] }.joined().utf8)
            let written = stream.filter { $0 == 0 }.count
            var counter = ReplaceEventCounter()
            var counted = 0, start = 0, cut = 0
            while start < bytes.count {
                let end = min(bytes.count, start + cuts[cut % cuts.count])
                counted += counter.count(bytes[start..<end])
                start = end
                cut += 1
            }
            #expect(counted == written)
        }
    }
}

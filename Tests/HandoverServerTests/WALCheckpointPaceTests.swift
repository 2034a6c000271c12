import HandoverCore
import Testing

/// SQLite's background checkpoint sets its pause from how fast the log grows (issue 37).
@Suite struct WALCheckpointPaceTests {
    /// Passes that each find `added` new pages, from a pace whose last pass found `start` frames.
    static func pace(after added: [Int], start: Int = 0) -> WALCheckpointPace {
        var pace = WALCheckpointPace()
        var frames = start
        pace.passed(logFrames: frames)
        for pages in added {
            frames += pages
            pace.passed(logFrames: frames)
        }
        return pace
    }

    @Test func anIdleLogIsLookedAtEveryHundredMilliseconds() {
        #expect(WALCheckpointPace().pause == .milliseconds(100))
        #expect(Self.pace(after: [0, 0, 0]).pause == .milliseconds(100))
        // A shift change's log (about 930 pages per 100 ms) stays near the longest pause.
        #expect(Self.pace(after: [930, 930, 930]).pause == .milliseconds(100))
    }

    @Test func aFastLogIsCheckpointedAboutAThousandPagesAtATime() {
        // 2,400 pages per 100 ms (the closed loop): a pass about every 42 ms.
        let pace = Self.pace(after: [2_400])
        #expect(pace.pause > .milliseconds(41) && pace.pause < .milliseconds(42))
        // The next pass, after that pause, finds 1,000 pages: the pause holds.
        var next = pace
        next.passed(logFrames: 2_400 + 1_000)
        #expect(next.pause > .milliseconds(41) && next.pause < .milliseconds(42))
        // Faster still: never below 25 ms.
        #expect(Self.pace(after: [50_000]).pause == .milliseconds(25))
    }

    @Test func aLogStartedOverCountsEveryFrameAsNew() {
        // 9,000 frames, then the writer starts the log over and 500 frames are in it.
        var pace = Self.pace(after: [9_000])
        #expect(pace.pause == .milliseconds(25))
        pace.passed(logFrames: 500)
        // 500 pages in 25 ms: a pass every 50 ms would copy 1,000.
        #expect(pace.pause == .milliseconds(50))
    }
}

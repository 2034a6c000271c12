extension MatchProgram {
    /// `VariableSearch` over the flat program: a backtracking search for programs with variables.
    /// Failed (token, position) states of the main program are remembered in `failed` (when
    /// given), so no state is explored twice.
    struct Search {
        let run: Run
        let tokens: UnsafeBufferPointer<WildcardPattern.Token>
        let subject: UnsafeBufferPointer<UInt8>
        let failed: UnsafeMutablePointer<Bool>?
        let failedCount: Int

        func match(from startToken: Int, at startPosition: Int) -> Bool {
            let memo = startToken * (subject.count + 1) + startPosition
            if let failed, memo < failedCount, failed[memo] { return false }
            let literals = run.literals
            var t = startToken, p = startPosition
            var result = false
            walk: while true {
                if t == tokens.count { result = p == subject.count; break walk }
                switch tokens[t] {
                case let .literal(start, length):
                    guard WildcardPattern.literalMatches(literals, start, length, subject, p) else { break walk }
                    p += length
                    t += 1
                case .one:
                    guard p < subject.count else { break walk }
                    p = WildcardPattern.nextScalar(subject, p)
                    t += 1
                case .star:
                    if t + 1 == tokens.count { result = true; break walk }
                    var q = p
                    while true {
                        if match(from: t + 1, at: q) { result = true; break walk }
                        if q >= subject.count { break walk }
                        q = WildcardPattern.nextScalar(subject, q)
                    }
                case .variable(let v):
                    let variable = run.variables[v]
                    let next = t + 1
                    if variable.keyLength > 0 {
                        // Every alternative is a literal of this length: at most one can match.
                        let length = variable.keyLength
                        guard p + length <= subject.count else { break walk }
                        var key: UInt64 = 0
                        for index in 0..<length { key |= UInt64(subject[p + index]) << (8 * index) }
                        var low = variable.keyStart, high = variable.keyEnd
                        while low < high {
                            let middle = (low + high) / 2
                            if run.variableKeys[middle] < key { low = middle + 1 } else { high = middle }
                        }
                        if low < variable.keyEnd, run.variableKeys[low] == key, match(from: next, at: p + length) { result = true }
                        break walk
                    }
                    if p < subject.count {
                        let entry = variable.tableStart + Int(subject[p])
                        for k in run.firstByteTable[entry]..<run.firstByteTable[entry + 1] where alternative(run.alternativeList[k], at: p, then: next) {
                            result = true; break walk
                        }
                    }
                    for k in variable.unanchoredStart..<variable.unanchoredEnd where alternative(run.alternativeList[k], at: p, then: next) {
                        result = true; break walk
                    }
                    break walk
                }
            }
            if !result, let failed, memo < failedCount { failed[memo] = true }
            return result
        }

        /// Whether alternative `index` matches at `position` such that the main program then
        /// matches from token `next` wherever the alternative ends.
        @inline(__always)
        private func alternative(_ index: Int, at position: Int, then next: Int) -> Bool {
            let alternative = run.alternatives[index]
            let altTokens = UnsafeBufferPointer(rebasing: run.tokens[alternative.tokenStart..<(alternative.tokenStart + alternative.tokenCount)])
            return continueAlternative(altTokens, 0, position, next)
        }

        private func continueAlternative(_ altTokens: UnsafeBufferPointer<WildcardPattern.Token>, _ startToken: Int, _ startPosition: Int, _ next: Int) -> Bool {
            let literals = run.literals
            var t = startToken, p = startPosition
            while t < altTokens.count {
                switch altTokens[t] {
                case let .literal(start, length):
                    guard WildcardPattern.literalMatches(literals, start, length, subject, p) else { return false }
                    p += length
                case .one:
                    guard p < subject.count else { return false }
                    p = WildcardPattern.nextScalar(subject, p)
                case .star:
                    var q = p
                    while true {
                        if continueAlternative(altTokens, t + 1, q, next) { return true }
                        if q >= subject.count { return false }
                        q = WildcardPattern.nextScalar(subject, q)
                    }
                case .variable:
                    return false
                }
                t += 1
            }
            return match(from: next, at: p)
        }
    }
}

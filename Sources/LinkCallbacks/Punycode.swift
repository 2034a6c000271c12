/// Punycode (RFC 3492), the encoding behind IDNA's `xn--` labels.
enum Punycode {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700
    private static let initialBias = 72, initialN = 128

    /// Encodes one label's scalars; `nil` only on arithmetic overflow.
    static func encode(_ input: [Unicode.Scalar]) -> String? {
        var output = input.filter(\.isASCII).map { Character($0) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append("-") }
        var n = initialN, delta = 0, bias = initialBias
        while handled < input.count {
            guard let m = input.map({ Int($0.value) }).filter({ $0 >= n }).min() else { return nil }
            let (step, overflow1) = (m - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow1 else { return nil }
            let (sum, overflow2) = delta.addingReportingOverflow(step)
            guard !overflow2 else { return nil }
            delta = sum
            n = m
            for scalar in input {
                let c = Int(scalar.value)
                if c < n { delta += 1 }
                if c == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, handled + 1, handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return String(output)
    }

    /// Decodes the text after `xn--`; `nil` when it is not valid Punycode.
    static func decode(_ input: String) -> [Unicode.Scalar]? {
        let scalars = Array(input.unicodeScalars)
        guard scalars.allSatisfy(\.isASCII) else { return nil }
        var output: [Unicode.Scalar] = []
        var start = 0
        if let dash = scalars.lastIndex(of: "-") {
            output = Array(scalars[..<dash])
            start = dash + 1
        }
        var n = initialN, i = 0, bias = initialBias
        var position = start
        while position < scalars.count {
            let oldI = i
            var w = 1
            var k = base
            while true {
                guard position < scalars.count, let value = digitValue(scalars[position]) else { return nil }
                position += 1
                let (product, overflow1) = value.multipliedReportingOverflow(by: w)
                guard !overflow1 else { return nil }
                let (sum, overflow2) = i.addingReportingOverflow(product)
                guard !overflow2 else { return nil }
                i = sum
                let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if value < t { break }
                let (weight, overflow3) = w.multipliedReportingOverflow(by: base - t)
                guard !overflow3 else { return nil }
                w = weight
                k += base
            }
            let count = output.count + 1
            bias = adapt(i - oldI, count, oldI == 0)
            let (next, overflow4) = n.addingReportingOverflow(i / count)
            guard !overflow4, next <= 0x10FFFF, let scalar = Unicode.Scalar(UInt32(next)) else { return nil }
            n = next
            i %= count
            output.insert(scalar, at: i)
            i += 1
        }
        return output
    }

    private static func adapt(_ delta: Int, _ numPoints: Int, _ firstTime: Bool) -> Int {
        var delta = firstTime ? delta / damp : delta / 2
        delta += delta / numPoints
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    private static func digit(_ value: Int) -> Character {
        Character(Unicode.Scalar(UInt8(value < 26 ? value + 97 : value + 22)))
    }

    private static func digitValue(_ scalar: Unicode.Scalar) -> Int? {
        switch scalar {
        case "a"..."z": return Int(scalar.value) - 97
        case "A"..."Z": return Int(scalar.value) - 65
        case "0"..."9": return Int(scalar.value) - 22
        default: return nil
        }
    }
}

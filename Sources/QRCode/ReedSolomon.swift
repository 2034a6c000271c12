/// Reed–Solomon error correction codewords, as QR codes compute them.
///
/// For `degree` error correction codewords the generator polynomial is
/// g(x) = (x − α⁰)(x − α¹)…(x − α^(degree−1)) over ``GaloisField``; the codewords are the
/// remainder of data(x) · x^degree divided by g(x). A reader can then correct up to degree / 2
/// wrong codewords in the block.
struct ReedSolomon: Sendable {
    /// The number of error correction codewords each block gets.
    let degree: Int

    /// g(x)'s coefficients from x^(degree−1) down to x⁰; the leading coefficient (1) is implicit.
    let generator: [UInt8]

    init(degree: Int) {
        precondition((1...255).contains(degree), "Reed–Solomon degree must be 1 to 255")
        self.degree = degree
        // Start from g(x) = 1 and multiply by (x − αⁱ) for each i; in GF(256), − is +.
        var coefficients = [UInt8](repeating: 0, count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                coefficients[j] = GaloisField.multiply(coefficients[j], root)
                if j + 1 < degree { coefficients[j] ^= coefficients[j + 1] }
            }
            root = GaloisField.multiply(root, 2)
        }
        generator = coefficients
    }

    /// The `degree` error correction codewords for `data`.
    func errorCorrection(for data: some Collection<UInt8>) -> [UInt8] {
        var remainder = [UInt8](repeating: 0, count: degree)
        for byte in data {
            let factor = byte ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            if factor == 0 { continue }
            for i in 0..<degree { remainder[i] ^= GaloisField.multiply(generator[i], factor) }
        }
        return remainder
    }

    /// The syndromes S_i = c(αⁱ) of a received block (data followed by error correction), for
    /// i in 0..<degree. All are zero exactly when the block is a valid codeword.
    func syndromes(of block: [UInt8]) -> [UInt8] {
        (0..<degree).map { i in
            let x = GaloisField.power(i)
            var value: UInt8 = 0
            for byte in block { value = GaloisField.multiply(value, x) ^ byte }  // Horner, highest power first
            return value
        }
    }
}

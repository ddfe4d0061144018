import ArgumentParser

/// A byte count such as `4096`, `10K`, `5M` or `1G` (binary multiples).
package struct ByteCountArgument: ExpressibleByArgument {
    package let value: Int64

    package init?(argument: String) {
        let multipliers: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = argument.uppercased()
        var multiplier: Int64 = 1
        if digits.hasSuffix("IB") { digits.removeLast(2) } else if digits.hasSuffix("B") { digits.removeLast() }
        if let last = digits.last, let factor = multipliers[last] {
            multiplier = factor
            digits.removeLast()
        }
        guard let number = Int64(digits), number >= 0 else { return nil }
        let (product, overflow) = number.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        value = product
    }
}

/// Verification throughput on one core as the verify benchmarks measure it: a raw signature
/// check and a verifier with its chain cache alternating over the same inputs, then a verifier
/// validating the chain every time over a prefix of them.
public struct VerificationRates: Sendable {
    /// How many distinct inputs the cached run verified.
    public var count: Int
    /// The raw signature check (with its SHA-256) on the same signatures, per second.
    public var rawVerifyRate: Double
    /// Tally with the chain cached, per second.
    public var cachedRate: Double
    /// The median over rounds of cached rate ÷ raw rate.
    public var cachedToRawMedian: Double
    /// How many inputs the uncached run verified.
    public var uncachedCount: Int
    /// Tally validating the chain every time, per second.
    public var uncachedRate: Double

    /// What the measured inputs are called in a failure's description.
    struct Wording {
        /// "… cached `verifications` failed".
        var verifications: String
        /// "uncached run rejected N `items`".
        var items: String
    }

    /// Measures `raw`, `cached` and `uncached` over `items`.
    ///
    /// `cached` verifies the first input once before the timing, to fill its cache. The raw and
    /// cached runs then alternate in `rounds` slices of the items, so that a burst of load from
    /// another tenant of the machine hits both alike; the ratio reported is the median of the
    /// rounds' ratios. `uncached` runs last over the first `uncachedCount` inputs.
    /// - Parameters:
    ///   - items: each input the verifiers verify, with the raw check's input for the same
    ///     signature, prepared outside the timing.
    ///   - rounds: how many alternating slices.
    ///   - uncachedCount: how many inputs the slower uncached run verifies.
    ///   - wording: what the inputs are called when one fails.
    ///   - raw: whether one prepared signature verifies.
    ///   - cached: whether the verifier with a chain cache accepts one input.
    ///   - uncached: whether the verifier without a chain cache accepts one input.
    /// - Throws: ``VerifyBenchmark/Failure`` when there is nothing to verify or any input does
    ///   not verify: a figure for failures is no figure.
    static func measure<Input, Prepared>(
        _ items: [(input: Input, prepared: Prepared)], rounds: Int, uncachedCount: Int, wording: Wording,
        raw: (Prepared) -> Bool, cached: (Input) async -> Bool, uncached: (Input) async -> Bool
    ) async throws -> VerificationRates {
        guard let first = items.first else { throw VerifyBenchmark.Failure(description: "nothing to verify") }
        let clock = ContinuousClock()
        _ = await cached(first.input)  // warm the cache

        var rawTime = Duration.zero
        var cachedTime = Duration.zero
        var ratios: [Double] = []
        let sliceSize = max(1, items.count / max(1, rounds))
        for start in stride(from: 0, to: items.count, by: sliceSize) {
            let range = start..<min(start + sliceSize, items.count)
            var rawValid = 0
            let rawSlice = clock.measure {
                for item in items[range] where raw(item.prepared) { rawValid += 1 }
            }
            var cachedValid = 0
            let begin = clock.now
            for item in items[range] where await cached(item.input) { cachedValid += 1 }
            let cachedSlice = clock.now - begin
            guard rawValid == range.count, cachedValid == range.count else {
                throw VerifyBenchmark.Failure(
                    description:
                        "\(range.count - rawValid) raw and \(range.count - cachedValid) cached \(wording.verifications) failed")
            }
            rawTime += rawSlice
            cachedTime += cachedSlice
            ratios.append(rawSlice.seconds / cachedSlice.seconds)
        }

        let subset = items.prefix(max(1, min(uncachedCount, items.count)))
        var uncachedValid = 0
        let uncachedStart = clock.now
        for item in subset where await uncached(item.input) { uncachedValid += 1 }
        let uncachedTime = clock.now - uncachedStart
        guard uncachedValid == subset.count else {
            throw VerifyBenchmark.Failure(description: "uncached run rejected \(subset.count - uncachedValid) \(wording.items)")
        }

        return VerificationRates(
            count: items.count,
            rawVerifyRate: Double(items.count) / rawTime.seconds,
            cachedRate: Double(items.count) / cachedTime.seconds,
            cachedToRawMedian: ratios.sorted()[ratios.count / 2],
            uncachedCount: subset.count,
            uncachedRate: Double(subset.count) / uncachedTime.seconds)
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The disk's own speed, as a baseline measured in the same run as a benchmark: 4 KB appended
/// to a file and made durable with `fsync`, the way every durable commit ends. On a shared
/// machine it moves by an order of magnitude from minute to minute, and with it every figure
/// that waits for a commit.
enum DurableWriteBaseline {
    /// `count` appends of 4 KB to `file`, each followed by `fsync`, timed one by one.
    static func measure(_ count: Int, file: URL) throws -> [UInt64] {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard descriptor >= 0 else { throw ClientBenchmark.Failure(description: "cannot open \(file.path) for the durable write baseline") }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0x5A, count: 4096)
        var samples: [UInt64] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            let start = ContinuousClock.now
            let written = block.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == block.count, fsync(descriptor) == 0 else {
                throw ClientBenchmark.Failure(description: "the durable write baseline failed: errno \(errno)")
            }
            samples.append(ClientBenchmark.nanoseconds(ContinuousClock.now - start))
        }
        return samples
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes for standard output, written in large blocks: when asked, and whenever more than
/// ``limit`` bytes wait, instead of one `write` per line.
struct OutputBuffer {
    /// The bytes waiting to be written.
    var bytes: [UInt8] = []
    /// How many bytes may wait before ``flushIfFull()`` writes them.
    let limit: Int
    private let descriptor: Int32

    /// Why standard output could not be written.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(descriptor: Int32 = STDOUT_FILENO, limit: Int = 256 << 10) {
        self.descriptor = descriptor
        self.limit = limit
        bytes.reserveCapacity(limit + 64 << 10)
    }

    /// Writes the waiting bytes if there are more than ``limit``.
    /// - Throws: ``Failure`` when the write fails.
    mutating func flushIfFull() throws {
        if bytes.count > limit { try flush() }
    }

    /// Writes every waiting byte.
    /// - Throws: ``Failure`` when the write fails (a closed pipe, a full disk).
    mutating func flush() throws {
        var failure: Int32 = 0
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written >= 0 {
                    offset += written
                } else if errno != EINTR {
                    failure = errno
                    return
                }
            }
        }
        bytes.removeAll(keepingCapacity: true)
        if failure != 0 { throw Failure(description: "cannot write the output: \(String(cString: strerror(failure)))") }
    }
}

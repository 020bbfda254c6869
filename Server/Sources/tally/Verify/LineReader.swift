import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file descriptor in large chunks and hands out its lines, split on LF bytes.
///
/// Line n is what lies between the (n−1)th and the nth LF; bytes after the last LF form one
/// more line, and nothing after a final LF forms none. (So a CRLF file's lines end in CR, and
/// an empty line is a line.) Lines are never copied one by one: each is a slice of the chunk
/// it was read in.
struct LineReader {
    /// Why the input could not be read.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let descriptor: Int32
    private let chunkSize: Int
    /// The start of a line whose end has not been read yet.
    private var partial: [UInt8] = []
    private var ended = false

    /// Reads `descriptor` (left open) `chunkSize` bytes at a time.
    init(descriptor: Int32, chunkSize: Int = 1 << 20) {
        self.descriptor = descriptor
        self.chunkSize = chunkSize
    }

    /// The next lines, in order; nil once every line was handed out.
    /// - Throws: ``Failure`` when reading fails.
    mutating func next() throws -> [ArraySlice<UInt8>]? {
        while true {
            if ended {
                guard !partial.isEmpty else { return nil }
                defer { partial = [] }
                return [partial[...]]
            }
            let chunk = try Self.readChunk(descriptor, upTo: chunkSize)
            guard !chunk.isEmpty else {
                ended = true
                continue
            }
            // Lines found with memchr: the generic split, byte by byte, cost a tenth of a batch's time.
            var lines: [ArraySlice<UInt8>] = []
            var start = 0
            chunk.withUnsafeBufferPointer { buffer in
                let base = buffer.baseAddress!
                while start < buffer.count, let found = memchr(base + start, 0x0A, buffer.count - start) {
                    let end = base.distance(to: UnsafePointer(found.assumingMemoryBound(to: UInt8.self)))
                    lines.append(chunk[start..<end])
                    start = end + 1
                }
            }
            guard !lines.isEmpty else {
                partial.append(contentsOf: chunk)
                continue
            }
            if !partial.isEmpty {
                partial.append(contentsOf: lines[0])
                lines[0] = partial[...]
            }
            partial = Array(chunk[start...])
            return lines
        }
    }

    /// Reads up to `size` bytes (default 1 MiB) from `descriptor`; empty at the end of the input.
    /// - Throws: ``Failure`` when reading fails.
    static func readChunk(_ descriptor: Int32, upTo size: Int = 1 << 20) throws -> [UInt8] {
        var failure: Int32 = 0
        let chunk = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            while true {
                let result = read(descriptor, buffer.baseAddress, buffer.count)
                if result >= 0 {
                    count = result
                    return
                }
                count = 0
                if errno != EINTR {
                    failure = errno
                    return
                }
            }
        }
        if failure != 0 { throw Failure(description: String(cString: strerror(failure))) }
        return chunk
    }
}

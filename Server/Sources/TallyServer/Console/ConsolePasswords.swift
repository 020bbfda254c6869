import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import TallyCore
import _CryptoExtras

/// Operators' passwords, kept as scrypt hashes: `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`, the
/// salt and hash in base64. scrypt costs memory as well as time, so a stolen table is slow to
/// attack on any hardware; the parameters are in each hash, so they can grow later.
public enum ConsolePasswords: Sendable {
    /// The shortest password an operator may have.
    public static let minimumLength = 12

    /// The cost of new hashes: N = 2^15, r = 8, p = 1 (32 MiB, about 0.1 s on one core).
    static let logRounds = 15
    static let blockSize = 8
    static let parallelism = 1

    /// A new hash of `password` with a random salt.
    public static func hash(_ password: String) throws -> String {
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let key = try derive(password, salt: salt, logRounds: logRounds, blockSize: blockSize, parallelism: parallelism)
        return "scrypt$\(logRounds)$\(blockSize)$\(parallelism)$\(Data(salt).base64EncodedString())$\(Data(key).base64EncodedString())"
    }

    /// Whether `password` is the one `hash` was made from; false for a hash it cannot read.
    public static func verify(_ password: String, hash: String) -> Bool {
        let parts = hash.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "scrypt", let logRounds = Int(parts[1]), (10...20).contains(logRounds),
            let blockSize = Int(parts[2]), (1...16).contains(blockSize), let parallelism = Int(parts[3]), (1...4).contains(parallelism),
            let salt = Data(base64Encoded: String(parts[4])), let expected = Data(base64Encoded: String(parts[5])), expected.count == 32,
            let key = try? derive(password, salt: Array(salt), logRounds: logRounds, blockSize: blockSize, parallelism: parallelism)
        else { return false }
        return ConstantTime.equal(key, Array(expected))
    }

    private static func derive(_ password: String, salt: [UInt8], logRounds: Int, blockSize: Int, parallelism: Int) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: 32, rounds: 1 << logRounds, blockSize: blockSize, parallelism: parallelism)
        return key.withUnsafeBytes { Array($0) }
    }
}

/// Comparisons whose time does not depend on where two secrets first differ: digests byte by
/// byte, without stopping at the first difference.
enum ConstantTime {
    static func equal(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    static func equal(_ left: String, _ right: String) -> Bool {
        // Compared as digests, so that the lengths do not show either.
        equal(Array(SHA256.hash(data: Data(left.utf8))), Array(SHA256.hash(data: Data(right.utf8))))
    }
}

/// Checks sign-in passwords off Swift's shared threads (a hash takes about 0.1 s of one core),
/// at most ``maximumAtOnce`` at a time: past that, sign-in is refused as busy instead of queuing
/// work that would slow every other request.
final class PasswordHashing: Sendable {
    static let maximumAtOnce = 2
    private let running = NIOLockedValueBox(0)

    /// Whether `password` matches `hash`.
    /// - Throws: ``ConsoleRefusal/busy`` when as many checks are running already.
    func verify(_ password: String, hash: String) async throws -> Bool {
        let admitted = running.withLockedValue { count in
            guard count < Self.maximumAtOnce else { return false }
            count += 1
            return true
        }
        guard admitted else { throw ConsoleRefusal.busy }
        defer { running.withLockedValue { $0 -= 1 } }
        return try await NIOThreadPool.singleton.runIfActive { ConsolePasswords.verify(password, hash: hash) }
    }
}

import Foundation

/// What identifies a chain in ``ChainCache``: two strings compared exactly, the `x5c[0]` and
/// `x5c[1]` of a JWS, or a receipt's certificates and signer.
struct ChainKey: Hashable, Sendable {
    /// `x5c[0]`; for a receipt, its signer identifier in base64.
    let leaf: String
    /// `x5c[1]`; for a receipt, its `certificates` field in base64.
    let intermediate: String
    /// Hashed once: the strings are kilobytes long and looked up on every verification.
    private let digest: Int

    /// The key of a JWS chain.
    init(leaf: String, intermediate: String) {
        self.leaf = leaf
        self.intermediate = intermediate
        var hasher = Hasher()
        hasher.combine(leaf)
        hasher.combine(intermediate)
        digest = hasher.finalize()
    }

    /// The key of a receipt's chain: its `certificates` field and its signer's identifier, exactly as encoded.
    init(certificates: some Collection<UInt8>, signer: some Collection<UInt8>) {
        self.init(leaf: Data(signer).base64EncodedString(), intermediate: Data(certificates).base64EncodedString())
    }

    func hash(into hasher: inout Hasher) { hasher.combine(digest) }

    static func == (lhs: ChainKey, rhs: ChainKey) -> Bool {
        lhs.digest == rhs.digest && lhs.leaf == rhs.leaf && lhs.intermediate == rhs.intermediate
    }
}

/// Chains that passed ``ChainValidator``, keyed by what they were built from.
///
/// Bounded: when full, the least recently used chain is dropped. Thread-safe with a lock,
/// not an actor, because a lookup is a few hundred nanoseconds and sits on every verification.
final class ChainCache<Chain: Sendable>: @unchecked Sendable {
    typealias Key = ChainKey

    private struct Entry {
        let chain: Chain
        var lastUse: UInt64
        var revocationCheckedAt: Date?
    }

    let capacity: Int
    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    private var clock: UInt64 = 0
    private var inserted = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The cached chain and when its revocation status was last confirmed.
    func lookup(_ key: Key) -> (chain: Chain, revocationCheckedAt: Date?)? {
        lock.lock()
        defer { lock.unlock() }
        guard var entry = entries[key] else { return nil }
        clock &+= 1
        entry.lastUse = clock
        entries[key] = entry
        return (entry.chain, entry.revocationCheckedAt)
    }

    func insert(_ chain: Chain, for key: Key) {
        guard capacity > 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        clock &+= 1
        if entries[key] == nil, entries.count >= capacity,
            let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
        {
            entries.removeValue(forKey: oldest)
        }
        entries[key] = Entry(chain: chain, lastUse: clock, revocationCheckedAt: entries[key]?.revocationCheckedAt)
        inserted += 1
    }

    /// How many chains were validated and stored since the cache was made.
    var insertions: Int {
        lock.lock()
        defer { lock.unlock() }
        return inserted
    }

    func markRevocationChecked(_ key: Key, at date: Date) {
        lock.lock()
        defer { lock.unlock() }
        entries[key]?.revocationCheckedAt = date
    }

    /// How many chains are cached.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }
}

import Foundation
import Testing

@testable import TallyServer

/// Identifiers read as what they claim to be, and do not repeat.
@Suite struct RandomIDTests {
    @Test func aUUIDIsAVersionFourUUIDInLowerCase() throws {
        var seen = Set<String>()
        for _ in 0..<2_000 {
            let text = RandomID.uuid()
            let uuid = try #require(UUID(uuidString: text), "\(text)")
            #expect(uuid.uuidString.lowercased() == text)
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 4, "version 4: \(text)")
            #expect(bytes[8] >> 6 == 0b10, "RFC 4122 variant: \(text)")
            seen.insert(text)
        }
        #expect(seen.count == 2_000)
    }

    @Test func aTimeOrderedUUIDIsVersionSevenWithItsTimeFirst() throws {
        let millis: Int64 = 1_790_000_123_456
        var seen = Set<String>()
        for _ in 0..<2_000 {
            let text = RandomID.uuidV7(millis: millis)
            let uuid = try #require(UUID(uuidString: text), "\(text)")
            #expect(uuid.uuidString.lowercased() == text)
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 7, "version 7: \(text)")
            #expect(bytes[8] >> 6 == 0b10, "RFC 4122 variant: \(text)")
            #expect(bytes.prefix(6).reduce(Int64(0)) { $0 << 8 | Int64($1) } == millis, "\(text)")
            seen.insert(text)
        }
        #expect(seen.count == 2_000)
        let later = [millis, millis + 1, millis + 86_400_000].map { RandomID.uuidV7(millis: $0).prefix(13) }
        #expect(later == later.sorted() && Set(later).count == 3)
    }

    @Test func eventIDsAreTwentySixCharactersOfTheAlphabetTheirRandomPartEachVaries() {
        let alphabet = Set("0123456789abcdefghjkmnpqrstvwxyz")
        var seen = Set<String>()
        var perPosition = [Set<Character>](repeating: [], count: 16)
        for _ in 0..<2_000 {
            let id = Outbox.newID(at: 1_790_000_000_000)
            #expect(id.hasPrefix("evt_") && id.count == 30, "\(id)")
            for (index, character) in id.dropFirst(4).enumerated() {
                #expect(alphabet.contains(character), "\(id)")
                if index >= 10 { perPosition[index - 10].insert(character) }
            }
            seen.insert(id)
        }
        #expect(seen.count == 2_000)
        // Each random position draws on the whole alphabet: no character is fixed or reused from another's bits.
        #expect(perPosition.allSatisfy { $0.count == 32 }, "\(perPosition.map(\.count))")
    }

    @Test func eventIDsSortByTheirTime() {
        // Ten characters of 5 bits: milliseconds up to 2^50, past the year 37,000.
        let times: [Int64] = [0, 1, 31, 32, 1_790_000_000_000, 1_790_000_000_001, 1_790_000_086_400, 1 << 49, (1 << 50) - 1]
        let ids = times.map { Outbox.newID(at: $0) }
        #expect(ids.map { $0.prefix(14) } == ids.map { $0.prefix(14) }.sorted())
        #expect(Set(ids.map { $0.prefix(14) }).count == times.count, "each time its own prefix")
        #expect(Outbox.newID(at: 0).hasPrefix("evt_0000000000"))
        #expect(Outbox.newID(at: 33).hasPrefix("evt_0000000011"))
        #expect(Outbox.newID(at: -5).hasPrefix("evt_0000000000"), "before 1970 counts as 1970")
    }
}

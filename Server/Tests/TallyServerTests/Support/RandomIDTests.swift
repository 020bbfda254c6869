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

    @Test func eventIDsAreTwentySixCharactersOfTheAlphabetAndEachVaries() {
        let alphabet = Set("0123456789abcdefghjkmnpqrstvwxyz")
        var seen = Set<String>()
        var perPosition = [Set<Character>](repeating: [], count: 26)
        for _ in 0..<2_000 {
            let id = Outbox.newID()
            #expect(id.hasPrefix("evt_") && id.count == 30, "\(id)")
            for (index, character) in id.dropFirst(4).enumerated() {
                #expect(alphabet.contains(character), "\(id)")
                perPosition[index].insert(character)
            }
            seen.insert(id)
        }
        #expect(seen.count == 2_000)
        // Each position draws on the whole alphabet: no character is fixed or reused from another's bits.
        #expect(perPosition.allSatisfy { $0.count == 32 }, "\(perPosition.map(\.count))")
    }
}

import Foundation
import TallyCore
import TallyTestSupport
import TallyTesting
import Testing
import X509

@testable import TallyVerify

/// Seeded mutations of real and minted receipts: whatever the bytes, the verifier answers
/// with a verdict, never crashes, never accepts content other than what was signed, and its
/// parsers read a number of element headers bounded by the input's length.
@Suite struct ReceiptFuzzTests {
    typealias Options = TestReceiptAuthority.SigningOptions

    /// Minted receipts in both encodings, and the real ones when the vectors are present.
    static func seeds() throws -> [(name: String, bytes: [UInt8], roots: [Certificate])] {
        let authority = ReceiptFixtures.authority
        var seeds: [(String, [UInt8], [Certificate])] = [
            ("minted DER", try authority.sign(ReceiptFixtures.receipt()), [authority.root]),
            ("minted BER", try authority.sign(ReceiptFixtures.receipt(), options: Options(encoding: .indefiniteLength(chunkSize: 50))), [authority.root]),
            (
                "minted signed attributes", try authority.sign(ReceiptFixtures.receipt(), options: Options(digest: .sha1, signedAttributes: true)),
                [authority.root]
            ),
        ]
        if Vectors.available {
            let apple = [AppleRootCertificates.appleRootCA]
            let xcode = try CertificateLoading.certificates(from: Array(Vectors.data("receipts/StoreKitTestCertificate.cer")))
            seeds.append(
                (
                    "receipt-sandbox-g5", Base64.decode(try Vectors.text("receipts/receipt-sandbox-g5").filter { !$0.isWhitespace }.utf8, alphabet: .standard)!,
                    apple
                ))
            seeds.append(
                ("receipt-xcode", Base64.decode(try Vectors.text("receipts/receipt-xcode").filter { !$0.isWhitespace }.utf8, alphabet: .standard)!, xcode))
            seeds.append(("hannes_mac_mindnode_receipt", Array(try Vectors.data("receipts/hannes_mac_mindnode_receipt")), apple))
        }
        return seeds
    }

    @Test func mutatedReceiptsGetVerdictsWithinBoundedWork() async throws {
        var generator = SeededGenerator(seed: 0x7A11_5EED)
        var inputs = 0
        var totalWork = 0
        var totalBytes = 0
        for seed in try Self.seeds() {
            let verifier = Self.verifier(roots: seed.roots)
            let original = try #require(await verifier.verify(seed.bytes).value, "\(seed.name) must verify before it is mutated")
            for round in 0..<400 {
                let mutated = Self.mutate(seed.bytes, round: round, using: &generator)
                inputs += 1
                totalBytes += mutated.count
                let work = Self.parseWork(mutated)
                #expect(work <= 2 * (4 * mutated.count + 64) + 2, "\(seed.name) round \(round): \(work) reads for \(mutated.count) bytes")
                totalWork += work
                if let verified = await verifier.verify(mutated).value {
                    // A mutation outside the signed content (an unused certificate, say) may
                    // still verify, but never as a different receipt.
                    #expect(verified.payload == original.payload, "\(seed.name) round \(round) verified as a different receipt")
                }
            }
        }
        #expect(inputs >= 1200)
        // Across all inputs the parsers read fewer headers than there were bytes.
        #expect(totalWork < totalBytes)
    }

    @Test func mutatedPayloadsSignedAnewDecodeOrAreRefused() async throws {
        // Signed, so they reach the payload decoder: it must decode them or say why not.
        var generator = SeededGenerator(seed: 0x9A71_0AD5)
        let payload = ReceiptBuilder(ReceiptFixtures.receipt()).payload()
        let verifier = ReceiptFixtures.verifier(bundleID: .any) { $0.acceptsMissingEnvironment = true }
        var codes: Set<String> = []
        for round in 0..<300 {
            let mutated = Self.mutate(payload, round: round, using: &generator)
            var work = 0
            _ = try? ReceiptPayloadDecoder.decode(mutated, work: &work)
            #expect(work <= 2 * (4 * mutated.count + 64) + 2, "round \(round): \(work) reads for \(mutated.count) bytes")
            let result = await verifier.verify(try ReceiptFixtures.authority.sign(payload: mutated))
            codes.insert(result.failure?.code.rawValue ?? "valid")
            if result.value == nil, let code = result.failure?.code {
                #expect([.payloadNotDecodable, .wrongEnvironment, .certificateExpired, .certificateNotYetValid].contains(code), "round \(round): \(code)")
            }
        }
        #expect(codes.contains("valid") && codes.contains("payload_not_decodable"))
    }

    @Test(arguments: [1_000, 100_000])
    func nestingBombsAreRefusedQuickly(depth: Int) async throws {
        let verifier = ReceiptFixtures.verifier()
        let indefinite = [[UInt8]](repeating: [0x30, 0x80], count: depth).flatMap { $0 }
        var definite: [UInt8] = []
        for _ in 0..<min(depth, 2_000) {
            let count = UInt32(definite.count)
            definite = [0x30, 0x84, UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)] + definite
        }
        let signedData: [UInt8] = [0x30, 0x80, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02, 0xA0, 0x80]
        let chunks = signedData + [[UInt8]](repeating: [0x24, 0x80], count: depth).flatMap { $0 }
        for bomb: [UInt8] in [indefinite, definite, chunks] {
            #expect(Self.parseWork(bomb) <= 30)
            #expect(await verifier.verify(bomb).failure?.code == .malformedReceipt)
        }
    }

    // MARK: - Helpers

    static func verifier(roots: [Certificate]) -> ReceiptVerifier {
        var configuration = ReceiptVerifier.Configuration(bundleID: .any, environments: [.production, .sandbox, .xcode], rootCertificates: roots)
        configuration.acceptsMissingEnvironment = true
        return ReceiptVerifier(configuration, now: { Date(timeIntervalSince1970: 4_102_444_800) })
    }

    /// Element headers the envelope and payload parsers read for `bytes`, whether or not they succeed.
    static func parseWork(_ bytes: [UInt8]) -> Int {
        var containerWork = 0
        guard let container = try? ReceiptContainer(bytes, work: &containerWork) else { return containerWork }
        var payloadWork = 0
        _ = try? ReceiptPayloadDecoder.decode(container.content, work: &payloadWork)
        return containerWork + payloadWork
    }

    /// One seeded mutation: bit flips, a truncation, a length byte rewritten, bytes inserted or
    /// removed, or a slice duplicated.
    static func mutate(_ bytes: [UInt8], round: Int, using generator: inout SeededGenerator) -> [UInt8] {
        var output = bytes
        guard !output.isEmpty else { return output }
        let at = Int.random(in: 0..<output.count, using: &generator)
        switch round % 6 {
        case 0:
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                output[Int.random(in: 0..<output.count, using: &generator)] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
            }
        case 1:
            output = Array(output[..<at])
        case 2:
            // Rewrite a byte that follows a likely tag with a length form: short, long, indefinite, reserved.
            let forms: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0x81, 0x82, 0x84, 0x85, 0xFF]
            if let tag = output[at...].indices.first(where: { [0x30, 0x31, 0x04, 0x24, 0xA0, 0x02].contains(output[$0]) }), tag + 1 < output.count {
                output[tag + 1] = forms[Int.random(in: 0..<forms.count, using: &generator)]
            }
        case 3:
            output.insert(contentsOf: (0..<Int.random(in: 1...4, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }, at: at)
        case 4:
            output.removeSubrange(at..<min(output.count, at + Int.random(in: 1...8, using: &generator)))
        default:
            let end = min(output.count, at + Int.random(in: 1...64, using: &generator))
            output.insert(contentsOf: output[at..<end], at: end)
        }
        return output
    }
}

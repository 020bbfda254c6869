import Foundation
import NIOCore
import TallyCore
import Testing

@testable import TallyServer

/// `ResponseJSON` answers with the very bytes `TallyAPI.encoder()` writes.
@Suite struct ResponseJSONTests {
    /// Strings that need every kind of escape, and some that need none.
    static let strings: [String] = [
        "", "credits", "pro", "a\"b", "back\\slash", "\\\"", "path/with/slashes", "</script>",
        "tab\there", "line\nfeed", "cr\rlf\n", "\u{8}\u{c}", "\u{0}", "\u{1}\u{1f}\u{7f}", "\u{1b}[0m",
        (0..<32).map { String(UnicodeScalar(UInt8($0))) }.joined(),
        "Кредити", "日本語", "emoji 👍🏽 and ZWJ 👨‍👩‍👧", "e\u{301}", "\u{2028}\u{2029}", "\u{feff}bom",
        "mixed \"Київ\"\\\n/\u{0}✓", String(repeating: "long ", count: 200),
    ]

    /// Dates with and without milliseconds, around the epoch and far out.
    static let dates: [Date] = [
        Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_767_225_600),
        Date(timeIntervalSince1970: 1_767_225_600.123), Date(timeIntervalSince1970: 1_767_225_600.999),
        Date(timeIntervalSince1970: 1_767_225_600.0005), Date(timeIntervalSince1970: -1.5),
        Date(timeIntervalSince1970: 253_402_300_799.999), Date(timeIntervalSince1970: 951_782_400.001),
    ]

    static let integers: [Int64] = [0, 1, -1, 42, 1_000_000, Int64.max, Int64.min]

    /// Deterministic variety: every optional both present and absent, arrays empty to long.
    static func accounts() -> [AccountResponse] {
        var generator = SplitMix(seed: 7)
        func pick<T>(_ values: [T]) -> T { values[Int(generator.next() % UInt64(values.count))] }
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { generator.next() % 2 == 0 ? nil : value() }
        func count() -> Int { pick([0, 0, 1, 2, 3, 7]) }

        var accounts: [AccountResponse] = [
            AccountResponse(userID: "", appAccountToken: UUID(), balances: [], entitlements: [], subscriptions: [])
        ]
        for _ in 0..<400 {
            let balances = (0..<count()).map { _ in
                Balance(
                    currency: pick(strings), available: pick(integers), held: pick(integers), debt: pick(integers),
                    allowance: maybe(
                        Balance.AllowanceState(
                            granted: pick(integers), used: pick(integers),
                            held: pick(integers), periodEnd: pick(dates))),
                    spendable: pick(integers))
            }
            let entitlements = (0..<count()).map { _ in
                Entitlement(
                    id: pick(strings), active: generator.next() % 2 == 0, productID: pick(strings),
                    expiresAt: maybe(pick(dates)), inGracePeriod: generator.next() % 2 == 0,
                    willRenew: maybe(generator.next() % 2 == 0))
            }
            let subscriptions = (0..<count()).map { _ in
                SubscriptionInfo(
                    originalTransactionID: pick(strings), productID: pick(strings), status: SubscriptionState(rawValue: pick(strings)),
                    expiresAt: maybe(pick(dates)), willRenew: maybe(generator.next() % 2 == 0),
                    gracePeriodExpiresAt: maybe(pick(dates)))
            }
            accounts.append(
                AccountResponse(
                    userID: pick(strings), appAccountToken: UUID(), balances: balances,
                    entitlements: entitlements, subscriptions: subscriptions))
        }
        return accounts
    }

    @Test func accountAnswersAreTheEncodersBytes() throws {
        let encoder = TallyAPI.encoder()
        for account in Self.accounts() {
            let expected = try encoder.encode(account)
            let written = Data(ResponseJSON.encode(account).readableBytesView)
            #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
            let parsed = try JSONSerialization.jsonObject(with: written) as? NSDictionary
            let reference = try JSONSerialization.jsonObject(with: expected) as? NSDictionary
            #expect(parsed != nil && parsed == reference)
            // What TallyKit reads back is the same too (dates lose what is finer than milliseconds either way).
            let decoder = TallyAPI.decoder()
            let readBack = try decoder.decode(AccountResponse.self, from: written)
            #expect(readBack == (try decoder.decode(AccountResponse.self, from: expected)))
        }
    }

    /// The written bytes are the encoder's, and read back to the same value.
    static func expectEncodersBytes<Value: ResponseJSONWritable & Decodable & Equatable>(_ value: Value) throws {
        let expected = try TallyAPI.encoder().encode(value)
        let written = Data(ResponseJSON.encode(value).readableBytesView)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(ResponseJSON.text(value) == String(decoding: expected, as: UTF8.self))
        let decoder = TallyAPI.decoder()
        #expect(try decoder.decode(Value.self, from: written) == (try decoder.decode(Value.self, from: expected)))
    }

    @Test func purchaseAndSpendAnswersAreTheEncodersBytes() throws {
        var generator = SplitMix(seed: 11)
        func pick<T>(_ values: [T]) -> T { values[Int(generator.next() % UInt64(values.count))] }
        let accounts = Self.accounts()
        for index in 0..<300 {
            let account = accounts[index % accounts.count]
            let granted = (0..<pick([0, 1, 2, 3])).map { _ in Amount(currency: pick(Self.strings), amount: pick(Self.integers)) }
            // What a transaction grants, as kept with it.
            try Self.expectEncodersBytes(granted)
            try Self.expectEncodersBytes(
                PurchaseResponse(
                    transactionID: pick(Self.strings), productID: pick(Self.strings), granted: granted,
                    balances: account.balances, entitlements: account.entitlements, replayed: generator.next() % 2 == 0))
            let balance =
                account.balances.first ?? Balance(currency: "credits", available: 0, held: 0, debt: 0, allowance: nil, spendable: 0)
            try Self.expectEncodersBytes(
                SpendResponse(
                    spendID: pick(Self.strings), currency: pick(Self.strings), amount: pick(Self.integers),
                    fromAllowance: pick(Self.integers), fromBalance: pick(Self.integers), balance: balance,
                    replayed: generator.next() % 2 == 0))
        }
    }

    @Test func eventDataIsTheEncodersBytes() throws {
        var generator = SplitMix(seed: 13)
        func pick<T>(_ values: [T]) -> T { values[Int(generator.next() % UInt64(values.count))] }
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { generator.next() % 3 == 0 ? nil : value() }
        try Self.expectEncodersBytes(TallyEventData(userID: nil))
        for _ in 0..<400 {
            var data = TallyEventData(userID: maybe(pick(Self.strings)))
            data.appUserID = maybe(pick(Self.strings))
            data.transactionID = maybe(pick(Self.strings))
            data.originalTransactionID = maybe(pick(Self.strings))
            data.productID = maybe(pick(Self.strings))
            data.productKind = maybe(pick(Self.strings))
            data.quantity = maybe(pick(Self.integers))
            data.environment = maybe(pick(Self.strings))
            data.price = maybe(pick(Self.integers))
            data.priceCurrency = maybe(pick(Self.strings))
            data.storefront = maybe(pick(Self.strings))
            data.amounts = maybe((0..<pick([0, 1, 2])).map { _ in Amount(currency: pick(Self.strings), amount: pick(Self.integers)) })
            data.clawedBack = maybe(
                (0..<pick([0, 1, 2])).map { _ in
                    TallyEventData.ClawedBack(currency: pick(Self.strings), removed: pick(Self.integers), debt: pick(Self.integers))
                })
            data.currency = maybe(pick(Self.strings))
            data.amount = maybe(pick(Self.integers))
            data.used = maybe(pick(Self.integers))
            data.spendID = maybe(pick(Self.strings))
            data.reservationID = maybe(pick(Self.strings))
            data.reason = maybe(pick(Self.strings))
            data.reference = maybe(pick(Self.strings))
            data.source = maybe(pick(Self.strings))
            data.entitlements = maybe((0..<pick([0, 1, 3])).map { _ in pick(Self.strings) })
            data.expiresAt = maybe(pick(Self.dates))
            data.notificationType = maybe(pick(Self.strings))
            data.subtype = maybe(pick(Self.strings))
            data.actor = maybe(pick(Self.strings))
            try Self.expectEncodersBytes(data)
        }
    }

    @Test(arguments: strings) func stringsEscapeAsTheEncoderDoes(_ string: String) throws {
        var json = ResponseJSON()
        json.string(string)
        let written = Data(json.buffer.readableBytesView)
        let expected = try TallyAPI.encoder().encode(string)
        #expect(written == expected)
        let parsed = try JSONSerialization.jsonObject(with: written, options: .fragmentsAllowed) as? String
        let reference = try JSONSerialization.jsonObject(with: expected, options: .fragmentsAllowed) as? String
        #expect(parsed != nil && parsed == reference)
        // A leading U+FEFF is the one character JSONSerialization drops (it reads it as a byte order mark).
        #expect(try JSONDecoder().decode(String.self, from: written) == string)
    }

    @Test func escapesAreTheShortOnes() {
        var json = ResponseJSON()
        json.string("\"\\/\n\r\t\u{8}\u{c}\u{0}\u{1f}é")
        #expect(String(buffer: json.buffer) == #""\"\\/\n\r\t\b\f\u0000\u001fé""#)
    }

    @Test func absentOptionalsAreLeftOutNotNull() {
        let entitlement = Entitlement(id: "pro", active: true, productID: "p", inGracePeriod: false)
        #expect(String(buffer: ResponseJSON.encode(entitlement)) == #"{"active":true,"id":"pro","in_grace_period":false,"product_id":"p"}"#)
    }
}

/// A small seeded generator, so a failure repeats.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

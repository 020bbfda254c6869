import Foundation
import Testing

@testable import TallyKit

/// What a person reads when something goes wrong: every error the issue names has a title, a
/// message and a button in English and in Ukrainian, from the string tables.
@Suite struct ErrorPresentationTests {
    /// The errors a purchase screen must explain, with a word each message must contain.
    static let named: [(TallyError.Code, english: String, ukrainian: String, action: ErrorPresentation.Action)] = [
        (.networkError, "connection", "з'єднання", .tryAgain),
        (.verificationFailed, "confirm", "підтвердити", .tryAgain),
        (.productNotFound, "available", "недоступний", .ok),
        (.paymentDeclined, "payment", "Платіж", .ok),
        (.restoreFailed, "restore", "відновити", .tryAgain),
        (.insufficientCredits, "credits", "кредит", .ok),
        (.purchaseInProgress, "purchase", "покупка", .ok),
        (.storeUnavailable, "nothing was charged", "не списано", .tryAgain),
        (.offerNotEligible, "regular price", "звичайною ціною", .ok),
    ]

    @Test(arguments: named.indices)
    func eachNamedErrorSpeaksBothLanguages(index: Int) {
        let (code, english, ukrainian, action) = Self.named[index]
        let error = TallyError(code, "detail for logs")
        let en = error.presentation(in: .english)
        let uk = error.presentation(in: .ukrainian)
        #expect(en.action == action && uk.action == action)
        #expect(en.title.lowercased() != uk.title.lowercased(), "the Ukrainian table is read, not the English one")
        #expect((en.title + " " + en.message).lowercased().contains(english.lowercased()), "\(en)")
        #expect((uk.title + " " + uk.message).lowercased().contains(ukrainian.lowercased()), "\(uk)")
        // A key that is missing comes back as the key itself: none may show.
        for text in [en.title, en.message, en.actionTitle, uk.title, uk.message, uk.actionTitle] {
            #expect(!text.hasPrefix("error.") && !text.hasPrefix("action.") && !text.isEmpty, "\(text)")
        }
        #expect(!en.message.contains("detail for logs"), "the reason is for logs, never for people")
    }

    @Test func theButtonSaysTryAgainOrOK() {
        #expect(TallyError(.networkError, "").presentation(in: .english).actionTitle == "Try Again")
        #expect(TallyError(.networkError, "").presentation(in: .ukrainian).actionTitle == "Спробувати ще раз")
        #expect(TallyError(.purchaseInProgress, "").presentation(in: .ukrainian).actionTitle == "OK")
    }

    @Test func everyCodeHasAPresentationWithoutRawKeys() {
        let codes: [TallyError.Code] = [
            .networkUnavailable, .networkError, .serverUnavailable, .rateLimited, .verificationFailed, .verificationUnavailable,
            .productNotFound, .paymentDeclined, .paymentNotAllowed, .restoreFailed, .insufficientCredits, .purchaseInProgress,
            .unusedCreditExists, .transactionBelongsToAnotherUser, .orderFailed, .reservationClosed, .invalidRequest,
            .unauthorized, .storageFailed, .notStarted, .storeUnavailable, .offerNotEligible, .configurationInvalid,
        ]
        for code in codes {
            for language in TallyLanguage.all {
                let shown = TallyError(code, "").presentation(in: language)
                #expect(!shown.title.contains("."), "\(code) in \(language.code): \(shown.title)")
                #expect(!shown.message.hasPrefix("error."), "\(code) in \(language.code): \(shown.message)")
            }
        }
    }

    /// Ukrainian counts take one of three forms: 1, 21 одна; 2–4, 22–24 кілька; 0, 5–20, 25 багато.
    @Test(
        arguments: [
            (1, "У вас 1 кредит."), (2, "У вас 2 кредити."), (4, "У вас 4 кредити."), (5, "У вас 5 кредитів."),
            (11, "У вас 11 кредитів."), (12, "У вас 12 кредитів."), (21, "У вас 21 кредит."), (22, "У вас 22 кредити."),
            (0, "У вас 0 кредитів."), (111, "У вас 111 кредитів."), (1_000_001, "У вас 1000001 кредит."),
        ] as [(Int64, String)])
    func ukrainianCreditsTakeTheRightPluralForm(count: Int64, expected: String) {
        let shown = TallyError(.insufficientCredits, "", currency: "credits", available: count).presentation(in: .ukrainian)
        #expect(shown.message.hasSuffix(expected), "\(shown.message)")
    }

    @Test func englishCountsAndSecondsReadNaturally() {
        let one = TallyError(.insufficientCredits, "", currency: "credits", available: 1).presentation(in: .english)
        let many = TallyError(.insufficientCredits, "", currency: "seconds", available: 90).presentation(in: .english)
        let ukSeconds = TallyError(.insufficientCredits, "", currency: "seconds", available: 3).presentation(in: .ukrainian)
        #expect(one.message.contains("1 credit") && !one.message.contains("1 credits"), "\(one.message)")
        #expect(many.message.contains("90 seconds"), "\(many.message)")
        #expect(ukSeconds.message.hasSuffix("Залишилося 3 секунди."), "\(ukSeconds.message)")
    }

    @Test func pluralCategoriesFollowCLDR() {
        let uk = { (n: Int64) in PluralCategory(n, language: .ukrainian) }
        #expect([1, 21, 101, 1_001].map(uk) == [.one, .one, .one, .one])
        #expect([2, 3, 4, 22, 34, 102].map(uk) == [.few, .few, .few, .few, .few, .few])
        #expect([0, 5, 11, 12, 13, 14, 20, 25, 111, 112].map(uk) == Array(repeating: .many, count: 10))
        #expect(PluralCategory(1, language: .english) == .one)
        #expect(PluralCategory(0, language: .english) == .other)
    }

    @Test func errorsAreEqualByCodeAndLocalizedForFoundation() {
        #expect(TallyError(.networkError, "a") == TallyError(.networkError, "b"))
        #expect(TallyError(.networkError, "a") != TallyError(.serverUnavailable, "a"))
        let error: any Error = TallyError(.paymentDeclined, "card declined")
        #expect(!error.localizedDescription.isEmpty)
        #expect(!error.localizedDescription.contains("card declined"))
    }

    @Test func anInsufficientCreditsAlertOffersToBuyInBothLanguages() throws {
        let error = TallyError(.insufficientCredits, "needs 3", currency: "credits", available: 2)
        let english = try #require(InsufficientCreditsAlert(error, language: .english))
        #expect(english.title == "Not enough credits")
        #expect(english.message.contains("2 credits"), "\(english.message)")
        #expect(english.buyTitle == "Buy Credits" && english.cancelTitle == "Not Now")
        #expect(english.currency == "credits")
        let ukrainian = try #require(InsufficientCreditsAlert(error, language: .ukrainian))
        #expect(ukrainian.message.contains("2 кредити"), "\(ukrainian.message)")
        #expect(ukrainian.buyTitle == "Купити кредити" && ukrainian.cancelTitle == "Не зараз")
        let seconds = try #require(InsufficientCreditsAlert(TallyError(.insufficientCredits, "", currency: "seconds", available: 30), language: .english))
        #expect(seconds.buyTitle == "Buy More Time")
        #expect(InsufficientCreditsAlert(TallyError(.networkError, ""), language: .english) == nil, "only for insufficient_credits")
    }
}

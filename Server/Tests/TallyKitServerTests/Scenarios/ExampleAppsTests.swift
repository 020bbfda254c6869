import AstrologyReports
import Foundation
import PhotoCredits
import TallyCore
import TallyKit
import TallyKitTesting
import TallyTestSupport
import TallyTesting
import Testing

/// The example apps in Examples/ as their customers use them, on the simulated App Store: the
/// photo app on a Tally server in this process, the reports app on the device.
@Suite(.timeLimit(.minutes(2))) struct ExampleAppsTests {
    struct GeneratorFailed: Error {}

    // MARK: The photo app (SwiftUI, server credits)

    @MainActor
    static func photoStudio(
        _ device: Device, _ server: LiveServer, generator: @escaping PhotoStudio.Generator = { Data($0.utf8) }
    ) async throws -> PhotoStudio {
        let saved = SavedCredentials(file: device.folder.appendingPathComponent("credentials.json"))
        let credentials = try await saved.load(server: server.baseURL)
        #expect(try await saved.load(server: server.baseURL) == credentials, "the app signs up once per install")
        let manager = try await device.launch(
            delivery: ServerDelivery(baseURL: server.baseURL, credentials: credentials), database: try await device.database(),
            configuration: PhotoStudio.configuration(for: credentials, language: .english))
        let studio = PhotoStudio(manager: manager, language: .english, generator: generator)
        await studio.credits.update()
        return studio
    }

    @MainActor
    @Test func twoFreePhotosThenTheAlertThenAPackFromThePaywallThenAPhoto() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            try await Self.photoJourney(device, server)
        }
    }

    @MainActor
    static func photoJourney(_ device: Device, _ server: LiveServer) async throws {
        let studio = try await photoStudio(device, server)
        #expect(studio.credits.balance == 2, "two free credits on sign-up")
        #expect(studio.credits.displayedText(in: .english) == "2 credits")
        await studio.generate(prompt: "a cat astronaut")
        await studio.generate(prompt: "a fox in the snow")
        #expect(studio.photos.map(\.prompt) == ["a fox in the snow", "a cat astronaut"])
        #expect(try await studio.manager.available("credits") == 0)

        await studio.generate(prompt: "a third one")
        let shortOfCredits = studio.shortOfCredits
        let alert = try #require(shortOfCredits, "no credit left: the alert, not an error")
        #expect(alert.buyTitle == "Buy Credits")
        #expect(studio.photos.count == 2)
        studio.openPaywall()
        #expect(studio.shortOfCredits == nil && studio.isShowingPaywall)

        await studio.paywall.load()
        #expect(studio.paywall.items.map(\.id) == PhotoStudio.packs)
        #expect(studio.paywall.items.first?.buttonTitle == "Buy for $1.99", "\(studio.paywall.items)")
        let outcome = await studio.paywall.purchase("com.tally.photo.credits.10")
        guard case .purchased(let receipt)? = outcome else { throw KitTestFailure("expected a purchase, got \(String(describing: outcome))") }
        #expect(receipt.granted == [Amount(currency: "credits", amount: 10)])
        // The models follow the account on their own tasks, and the header counts for 0.6 s in
        // frames on the main actor that the whole suite's parallel tests share: 30 s by default
        // (10 s were once not enough there).
        await eventually("the header's count to 10") { studio.credits.balance == 10 && !studio.credits.isAnimating }
        #expect(studio.credits.displayed == 10, "the header counted up to the new balance")

        await studio.generate(prompt: "a third one")
        #expect(studio.photos.count == 3)
        #expect(try await studio.manager.available("credits") == 9)
    }

    @MainActor
    @Test func aPhotoThatFailsCostsNothing() async throws {
        let device = try await Device()
        try await LiveServer.run(time: device.time) { server in
            try await Self.failedPhoto(device, server)
        }
    }

    @MainActor
    static func failedPhoto(_ device: Device, _ server: LiveServer) async throws {
        let studio = try await photoStudio(device, server) { _ in throw GeneratorFailed() }
        await studio.generate(prompt: "a cat astronaut")
        #expect(studio.photos.isEmpty)
        #expect(studio.failure == "The photo could not be made. Your credit was not used.")
        #expect(studio.shortOfCredits == nil)
        #expect(try await studio.manager.available("credits") == 2)
    }

    // MARK: The reports app (UIKit, on the device)

    @MainActor
    static func reportShelf(
        _ device: Device, writer: @escaping ReportShelf.Writer = { kind, profile in "\(kind.rawValue) for \(profile)" }
    )
        async throws -> ReportShelf
    {
        let database = try await device.database()
        let ledger = try await OnDeviceLedger(
            database: database, catalog: Kit.onDeviceCatalog, verifier: Kit.verifier(now: { device.now }),
            deviceVerificationID: device.deviceVerificationID, now: { device.now },
            uptime: { device.uptime })
        let manager = try await device.launch(delivery: ledger, database: database, configuration: ReportShelf.configuration(language: .english))
        let shelf = ReportShelf(manager: manager, language: .english, writer: writer)
        await shelf.refresh()
        return shelf
    }

    @MainActor
    @Test func aLockedReportOpensItsPaywallAndOnceBoughtIsWrittenForItsCredit() async throws {
        let device = try await Device()
        let shelf = try await Self.reportShelf(device)
        var changes = 0
        shelf.onChange = { _ in changes += 1 }
        #expect(shelf.unlocked.isEmpty)

        // Tap 1: the report. No credit: its paywall.
        guard case .paywall(let paywall) = await shelf.open(.career, for: "me") else { throw KitTestFailure("expected the paywall") }
        await paywall.load()
        #expect(paywall.items.map(\.id) == [ReportShelf.Kind.career.productID])
        #expect(paywall.items.first?.buttonTitle == "Buy for $4.99")
        // Tap 2: buy (the store's sheet is the third).
        let outcome = await paywall.purchase(ReportShelf.Kind.career.productID)
        guard case .purchased = outcome else { throw KitTestFailure("expected a purchase, got \(String(describing: outcome))") }
        #expect(paywall.items.first?.button == .disabled, "a second credit is not sold while the first is unused")
        await shelf.refresh()
        #expect(shelf.unlocked == [.career])

        guard case .report(let report) = await shelf.open(.career, for: "me") else { throw KitTestFailure("expected the report") }
        #expect(report.text == "career for me")
        #expect(shelf.unlocked.isEmpty, "the credit went into the report")
        #expect(changes == 2, "the screen was told after the purchase and after the report")
        let history = try await shelf.manager.creditHistory(currency: "report.career")
        #expect(history.acquisitions.count == 1)
        #expect(history.consumptions.map(\.reference) == ["me"], "the credit is recorded as used for this profile")
    }

    @MainActor
    @Test func aReportThatFailsToBeWrittenKeepsItsCredit() async throws {
        let device = try await Device()
        let shelf = try await Self.reportShelf(device) { _, _ in throw GeneratorFailed() }
        guard case .paywall(let paywall) = await shelf.open(.wellness, for: "me") else { throw KitTestFailure("expected the paywall") }
        await paywall.load()
        _ = await paywall.purchase(ReportShelf.Kind.wellness.productID)
        guard case .failed(let message) = await shelf.open(.wellness, for: "me") else { throw KitTestFailure("expected a failure") }
        #expect(message == "The report could not be written. Your credit was not used.")
        await shelf.refresh()
        #expect(shelf.unlocked == [.wellness])
    }
}

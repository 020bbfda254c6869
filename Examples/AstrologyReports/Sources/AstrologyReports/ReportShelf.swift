public import Foundation
public import TallyKit

/// The astrology app's reports, one credit each, bought and kept on the device with no backend.
/// Tapping a report with a credit writes it and spends the credit only once it is written;
/// without one, it opens the paywall for that report: two taps to the payment sheet.
///
/// For UIKit: ``onChange`` is called on the main actor after every change.
@MainActor
public final class ReportShelf {
    /// A kind of report, sold as its own consumable.
    public enum Kind: String, CaseIterable, Sendable {
        case personality, career, relationship, wellness

        /// The App Store product.
        public var productID: String { "com.tally.zorya.report.\(rawValue)" }
        /// The credit it grants.
        public var currency: String { "report.\(rawValue)" }
    }

    /// A written report.
    public struct Report: Sendable, Hashable {
        public let kind: Kind
        public let profileID: String
        public let text: String
    }

    /// What tapping a report leads to.
    public enum Opening: Sendable {
        /// The report, written; its credit is spent.
        case report(Report)
        /// No credit: the paywall for this report.
        case paywall(PaywallModel)
        /// Something failed, said for the customer; nothing was spent.
        case failed(String)
    }

    /// Writes a report for a profile: the app's AI backend.
    public typealias Writer = @Sendable (_ kind: Kind, _ profileID: String) async throws -> String

    /// The purchase manager.
    public let manager: PurchaseManager
    /// The language of every text.
    public let language: TallyLanguage
    /// The reports with a credit to use.
    public private(set) var unlocked: Set<Kind> = []
    /// The reports written, newest first.
    public private(set) var reports: [Report] = []
    /// Called after every change.
    public var onChange: (@MainActor (ReportShelf) -> Void)?
    private let writer: Writer

    /// - Parameters:
    ///   - manager: the purchase manager, started.
    ///   - language: the language of every text.
    ///   - writer: writes a report.
    public init(manager: PurchaseManager, language: TallyLanguage = .preferred, writer: @escaping Writer) {
        self.manager = manager
        self.language = language
        self.writer = writer
    }

    /// The manager's settings: every report, and no second purchase of a report while its credit is unused.
    public static func configuration(language: TallyLanguage) -> PurchaseManager.Configuration {
        var configuration = PurchaseManager.Configuration(productIDs: Kind.allCases.map(\.productID))
        configuration.language = language
        configuration.blocksPurchaseWhileCreditUnused = true
        return configuration
    }

    /// The app's Apple ID, as the catalog (`tally.json`) has it: Production purchases carry it.
    public static let appAppleID: Int64 = 6_450_000_001

    /// Sets the app up at launch: the catalog bundled with the app (`tally.json`), the manager
    /// on the device (bundle id from `Bundle.main`, Production and Sandbox, Apple's roots), in
    /// Debug builds Xcode's StoreKit testing certificate when the app bundles it, then starts it.
    /// - Parameters:
    ///   - store: the App Store adapter, made once at launch.
    ///   - language: the language of every text.
    ///   - bundle: where `tally.json` (and in Debug `StoreKitTestCertificate.cer`) are.
    ///   - database: the device's database; the standard one by default.
    ///   - xcodeTestingCertificate: Xcode's certificate when not read from `bundle` (tests).
    ///   - writer: writes a report.
    /// - Returns: the shelf, its manager started.
    /// - Throws: ``TallyError`` when the catalog is missing or wrong, or the set-up is refused.
    public static func launch(
        store: any Store, language: TallyLanguage, bundle: Bundle = .main, database: LocalDatabase? = nil,
        xcodeTestingCertificate: Data? = nil, writer: @escaping Writer
    ) async throws -> ReportShelf {
        guard let file = bundle.url(forResource: "tally", withExtension: "json") else {
            throw TallyError(.configurationInvalid, "tally.json is not in the app's bundle: add Examples/tally.json to the app target")
        }
        let catalog = try OnDeviceCatalog.load(contentsOf: file)
        let manager = try await PurchaseManager.onDevice(
            catalog: catalog, appAppleID: appAppleID,
            xcodeTestingCertificate: xcodeTestingCertificate ?? Self.xcodeTestingCertificate(in: bundle),
            configuration: configuration(language: language), store: store, database: database)
        await manager.start()
        return ReportShelf(manager: manager, language: language, writer: writer)
    }

    /// Xcode's StoreKit testing certificate, in Debug builds only, when the app bundles it
    /// (`App/StoreKitTestCertificate.cer`: open `Tally.storekit` in Xcode, Editor ▸ Save Public
    /// Certificate). Release builds never trust it: anyone can make such a certificate.
    /// - Parameter bundle: the app's bundle.
    /// - Returns: the certificate's bytes, or `nil`.
    public static func xcodeTestingCertificate(in bundle: Bundle) -> Data? {
        #if DEBUG
        return bundle.url(forResource: "StoreKitTestCertificate", withExtension: "cer").flatMap { try? Data(contentsOf: $0) }
        #else
        return nil
        #endif
    }

    /// Reads which reports have a credit.
    public func refresh() async {
        var unlocked: Set<Kind> = []
        for kind in Kind.allCases where await manager.lockState(kind.currency) == .unlocked { unlocked.insert(kind) }
        self.unlocked = unlocked
        onChange?(self)
    }

    /// What tapping a report does: with a credit, writes the report and spends the credit;
    /// without one, returns the paywall for it.
    public func open(_ kind: Kind, for profileID: String) async -> Opening {
        let writer = writer
        do {
            let text = try await manager.consume(kind.currency, for: profileID) { try await writer(kind, profileID) }
            let report = Report(kind: kind, profileID: profileID, text: text)
            reports.insert(report, at: 0)
            await refresh()
            return .report(report)
        } catch let error as TallyError where error.code == .insufficientCredits {
            return .paywall(PaywallModel(manager: manager, productIDs: [kind.productID], language: language))
        } catch let error as TallyError {
            return .failed(error.presentation(in: language).message)
        } catch {
            // The writer failed: the credit was held, then released.
            return .failed(
                language == .ukrainian
                    ? "Звіт не вдалося написати. Кредит не списано." : "The report could not be written. Your credit was not used.")
        }
    }
}

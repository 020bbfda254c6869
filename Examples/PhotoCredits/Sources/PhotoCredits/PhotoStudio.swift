public import Foundation
public import Observation
public import TallyKit

/// The AI photo app's state: the credits header, the paywall of credit packs, the photos made,
/// and the alert when credits run out. Credits are kept by a Tally server: 2 on sign-up, 1 per
/// photo, 10, 50 or 100 per pack.
@available(iOS 17, macOS 14, *)
@MainActor
@Observable
public final class PhotoStudio {
    /// A photo made from a prompt.
    public struct Photo: Identifiable, Sendable, Hashable {
        public let id: String
        public let prompt: String
        public let image: Data
    }

    /// Makes a photo from a prompt: the app's AI backend.
    public typealias Generator = @Sendable (_ prompt: String) async throws -> Data

    /// The credit packs on sale, smallest first.
    public static let packs = ["com.tally.photo.credits.10", "com.tally.photo.credits.50", "com.tally.photo.credits.100"]

    /// The purchase manager.
    public let manager: PurchaseManager
    /// The header's balance.
    public let credits: CreditsBalanceModel
    /// The credit packs.
    public let paywall: PaywallModel
    /// The language of every text.
    public let language: TallyLanguage
    /// The photos made, newest first.
    public private(set) var photos: [Photo] = []
    /// Set when a photo needs a credit the customer does not have: show it, then the paywall.
    public var shortOfCredits: InsufficientCreditsAlert?
    /// Whether the paywall is shown.
    public var isShowingPaywall = false
    /// Whether a photo is being made.
    public private(set) var isGenerating = false
    /// Why the last photo failed, for anything but missing credits.
    public var failure: String?
    private let generator: Generator

    /// - Parameters:
    ///   - manager: the purchase manager, started.
    ///   - language: the language of every text.
    ///   - generator: makes a photo from a prompt.
    public init(manager: PurchaseManager, language: TallyLanguage = .preferred, generator: @escaping Generator) {
        self.manager = manager
        self.language = language
        self.generator = generator
        credits = CreditsBalanceModel(manager: manager, currency: "credits")
        paywall = PaywallModel(manager: manager, productIDs: Self.packs, language: language)
    }

    /// The manager's settings for a customer signed up as `credentials`: the packs, and the
    /// cache scoped to the user so that another account on the same phone starts clean.
    public static func configuration(for credentials: ServerDelivery.Credentials, language: TallyLanguage) -> PurchaseManager.Configuration {
        var configuration = PurchaseManager.Configuration(productIDs: packs)
        configuration.scope = credentials.userID
        configuration.language = language
        return configuration
    }

    /// Makes a photo for one credit. The credit is held while the photo is made and spent only
    /// when it is: a failed photo costs nothing. With no credit left, ``shortOfCredits`` is set.
    public func generate(prompt: String) async {
        guard !isGenerating else { return }
        isGenerating = true
        defer { isGenerating = false }
        let id = UUID().uuidString
        let generator = generator
        do {
            let image = try await manager.consume("credits", amount: 1, for: id) { try await generator(prompt) }
            photos.insert(Photo(id: id, prompt: prompt, image: image), at: 0)
        } catch let error as TallyError {
            if let alert = InsufficientCreditsAlert(error, language: language) {
                shortOfCredits = alert
            } else {
                failure = error.presentation(in: language).message
            }
        } catch {
            // The generator failed: the credit was held, then released.
            failure =
                language == .ukrainian
                ? "Фото не вдалося створити. Кредит не списано." : "The photo could not be made. Your credit was not used."
        }
    }

    /// What the alert's buy button does: closes it and opens the paywall.
    public func openPaywall() {
        shortOfCredits = nil
        isShowingPaywall = true
    }
}

/// The customer's sign-up with the Tally server, kept in a file in the app's sandbox (which iOS
/// encrypts until the phone is first unlocked), so the app signs up once per install.
public struct SavedCredentials: Sendable {
    /// The file.
    public let file: URL

    /// - Parameter file: where the credentials are kept.
    public init(file: URL) {
        self.file = file
    }

    /// The app's file in Application Support.
    public static func standard() throws -> SavedCredentials {
        let folder = try FileManager.default.url(for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        return SavedCredentials(file: folder.appendingPathComponent("tally-credentials.json"))
    }

    /// The saved credentials, or new ones from the server (saved before they are returned).
    public func load(server: URL, transport: any HTTPTransport = URLSessionTransport()) async throws -> ServerDelivery.Credentials {
        if let data = try? Data(contentsOf: file), let saved = try? JSONDecoder().decode(ServerDelivery.Credentials.self, from: data) {
            return saved
        }
        let fresh = try await ServerDelivery.register(baseURL: server, transport: transport)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(fresh).write(to: file, options: .atomic)
        return fresh
    }
}

#if canImport(SwiftUI)
public import Foundation
public import SwiftUI
public import TallyKit
import TallyUI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The photo app: the credits header, a prompt, the photos, the paywall of packs and the alert
/// when credits run out. Launching signs up with the Tally server once and starts the manager.
@available(iOS 17, macOS 14, *)
public struct PhotoCreditsApp: App {
    /// The app's Tally server (``PhotoServer``).
    public nonisolated static let server = PhotoServer.url(info: Bundle.main.infoDictionary ?? [:])

    @State private var studio: PhotoStudio?
    @State private var problem: String?

    /// Made once, at launch, so that StoreKit's early transactions are kept and a second
    /// launch attempt listens on the same store.
    private let store: any Store

    public init() {
        store = DeviceStore.automatic()
    }

    public var body: some Scene {
        WindowGroup {
            if let studio {
                StudioScreen(studio: studio)
            } else if let problem {
                // A server that is down now may be up in a moment: the launch can be tried again.
                VStack(spacing: 12) {
                    Text(problem)
                    Button("Try Again") {
                        self.problem = nil
                        Task { await launch() }
                    }
                }
                .padding()
            } else {
                Text("…").padding().onAppear { Task { await launch() } }
            }
        }
    }

    /// Makes the store first (so StoreKit's early transactions are kept), then signs up with the
    /// server once per install and starts the manager.
    private func launch() async {
        let language = TallyLanguage.preferred
        do {
            let credentials = try await SavedCredentials.standard().load(server: Self.server)
            let manager = try await PurchaseManager.server(
                url: Self.server, credentials: credentials, productIDs: PhotoStudio.packs,
                configuration: PhotoStudio.configuration(for: credentials, language: language), store: store)
            await manager.start()
            studio = PhotoStudio(manager: manager, language: language) { prompt in try await PhotoBackend.generate(prompt) }
        } catch {
            problem = (error as? TallyError)?.presentation(in: language).message ?? "\(error)"
        }
    }
}

/// The app's AI backend (not part of Tally).
@available(iOS 17, macOS 14, *)
enum PhotoBackend {
    static func generate(_ prompt: String) async throws -> Data {
        var request = URLRequest(url: PhotoCreditsApp.server.appendingPathComponent("photos"))
        request.httpMethod = "POST"
        request.httpBody = Data(prompt.utf8)
        return try await URLSession.shared.data(for: request).0
    }
}

/// The main screen.
@available(iOS 17, macOS 14, *)
struct StudioScreen: View {
    @Bindable var studio: PhotoStudio
    @State private var prompt = ""

    var body: some View {
        NavigationView {
            List {
                Section(header: CreditsBalanceView(model: studio.credits, language: studio.language)) {
                    TextField("A cat astronaut, watercolour", text: $prompt)
                    Button(studio.isGenerating ? "…" : "Generate") { Task { await studio.generate(prompt: prompt) } }
                        .disabled(studio.isGenerating || prompt.isEmpty)
                    if let failure = studio.failure { Text(failure).foregroundColor(.red) }
                }
                ForEach(studio.photos) { photo in Text(photo.prompt) }
            }
            .navigationTitle("Photos")
        }
        .insufficientCreditsAlert($studio.shortOfCredits) { studio.openPaywall() }
        .sheet(isPresented: $studio.isShowingPaywall) {
            PaywallView(
                model: studio.paywall,
                links: PaywallLinks(
                    terms: URL(string: "https://www.apple.com/legal/internet-services/itunes/dev/stdeula/")!,
                    privacy: URL(string: "https://tally.example.com/privacy")!))
        }
    }
}
#endif

#if canImport(UIKit) && canImport(SwiftUI) && !os(watchOS)
public import TallyKit
import TallyCore
import TallyUI
public import UIKit

/// The reports screen: a button per report, 🔒 without a credit. A tap writes the report or
/// presents the paywall for it; once bought, the paywall closes and the report is written.
/// It sets the app up at launch: the on-device ledger, the manager, the shelf.
@available(iOS 14, *)
public final class ReportsViewController: UIViewController {
    private let store: any Store
    private var shelf: ReportShelf?
    private let stack = UIStackView()
    private let profileID = "me"

    /// - Parameter store: the App Store adapter, made at launch (`DeviceStore.automatic`).
    public init(store: any Store) {
        self.store = store
        super.init(nibName: nil, bundle: nil)
    }

    @available(*, unavailable)
    public required init?(coder: NSCoder) { fatalError("made in code") }

    public override func viewDidLoad() {
        super.viewDidLoad()
        title = "Zorya"
        stack.axis = .vertical
        stack.spacing = 12
        stack.frame = view.bounds
        stack.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        view.addSubview(stack)
        Task { await launch() }
    }

    private func launch() async {
        let language = TallyLanguage.preferred
        do {
            let shelf = try await ReportShelf.launch(store: store, language: language) { kind, _ in try await ReportWriter.write(kind) }
            shelf.onChange = { [weak self] shelf in self?.render(shelf) }
            self.shelf = shelf
            await shelf.refresh()
        } catch {
            show(title: "Zorya", message: (error as? TallyError)?.presentation(in: language).message ?? "\(error)")
        }
    }

    private func render(_ shelf: ReportShelf) {
        for view in stack.arrangedSubviews { view.removeFromSuperview() }
        for kind in ReportShelf.Kind.allCases {
            let button = UIButton(type: .system)
            button.setTitle((shelf.unlocked.contains(kind) ? "" : "🔒 ") + kind.rawValue.capitalized, for: .normal)
            button.addAction(UIAction { [weak self] _ in self?.open(kind) }, for: .touchUpInside)
            stack.addArrangedSubview(button)
        }
    }

    private func open(_ kind: ReportShelf.Kind) {
        guard let shelf else { return }
        Task {
            switch await shelf.open(kind, for: profileID) {
            case .report(let report): show(title: kind.rawValue.capitalized, message: report.text)
            case .failed(let message): show(title: kind.rawValue.capitalized, message: message)
            case .paywall(let paywall): presentPaywall(paywall, then: kind)
            }
        }
    }

    /// The paywall for one report; once it is bought, the paywall closes and the report is written.
    private func presentPaywall(_ paywall: PaywallModel, then kind: ReportShelf.Kind) {
        let links = PaywallLinks(
            terms: URL(string: "https://www.apple.com/legal/internet-services/itunes/dev/stdeula/")!,
            privacy: URL(string: "https://zorya.example.com/privacy")!)
        let controller = PaywallViewController(model: paywall, links: links)
        paywall.onChange = { [weak self, weak controller] model in
            guard model.lastPurchase != nil else { return }
            controller?.dismiss(animated: true) { self?.open(kind) }
        }
        present(controller, animated: true)
    }

    private func show(title: String, message: String) {
        let alert = UIAlertController(title: title, message: message, preferredStyle: .alert)
        alert.addAction(UIAlertAction(title: "OK", style: .default))
        present(alert, animated: true)
    }
}

/// The app's delegate: makes the store at launch (so StoreKit's early transactions are kept)
/// and shows the reports.
@available(iOS 14, *)
public final class ReportsAppDelegate: UIResponder, UIApplicationDelegate {
    public var window: UIWindow?

    public func application(
        _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        let kinds = Dictionary(uniqueKeysWithValues: ReportShelf.Kind.allCases.map { ($0.productID, ProductKind.consumable) })
        let window = UIWindow(frame: UIScreen.main.bounds)
        window.rootViewController = UINavigationController(rootViewController: ReportsViewController(store: DeviceStore.automatic(productKinds: kinds)))
        window.makeKeyAndVisible()
        self.window = window
        return true
    }
}

/// The app's AI backend (not part of Tally).
enum ReportWriter {
    static func write(_ kind: ReportShelf.Kind) async throws -> String {
        "Your \(kind.rawValue) reading…"
    }
}
#endif

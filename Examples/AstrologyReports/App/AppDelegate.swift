// The one file of the Xcode app target: it adds the AstrologyReports library, makes the store
// at launch (so StoreKit's early transactions are kept) and shows the reports.
import AstrologyReports
import TallyKit
import UIKit

@main
final class AppDelegate: UIResponder, UIApplicationDelegate {
    var window: UIWindow?

    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let store = DeviceStore.automatic(productKinds: Dictionary(uniqueKeysWithValues: ReportShelf.Kind.allCases.map { ($0.productID, .consumable) }))
        let window = UIWindow(frame: UIScreen.main.bounds)
        window.rootViewController = UINavigationController(rootViewController: ReportsViewController(store: store))
        window.makeKeyAndVisible()
        self.window = window
        return true
    }
}

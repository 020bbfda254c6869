#if canImport(SwiftUI)
public import SwiftUI
#endif
#if canImport(UIKit) && !os(watchOS)
public import UIKit
#endif
#if canImport(SwiftUI) || (canImport(UIKit) && !os(watchOS))
public import TallyKit
#endif

#if canImport(SwiftUI)
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, *)
extension View {
    /// Shows the ``TallyKit/InsufficientCreditsAlert`` while `alert` holds one: its message with
    /// the balance, a button that runs `buy` (open the paywall) and one that closes it.
    ///
    /// ```swift
    /// @State var shortOfCredits: InsufficientCreditsAlert?
    /// content.insufficientCreditsAlert($shortOfCredits) { showPaywall = true }
    /// ```
    @MainActor
    public func insufficientCreditsAlert(_ alert: Binding<InsufficientCreditsAlert?>, buy: @escaping () -> Void) -> some View {
        self.alert(isPresented: Binding(get: { alert.wrappedValue != nil }, set: { if !$0 { alert.wrappedValue = nil } })) {
            let shown = alert.wrappedValue
            return Alert(
                title: Text(shown?.title ?? ""), message: Text(shown?.message ?? ""),
                primaryButton: .default(Text(shown?.buyTitle ?? ""), action: buy),
                secondaryButton: .cancel(Text(shown?.cancelTitle ?? "")))
        }
    }
}
#endif

#if canImport(UIKit) && !os(watchOS)
extension InsufficientCreditsAlert {
    /// The alert as a `UIAlertController`: its buy button runs `buy` (open the paywall), the other closes it.
    /// - Parameter buy: what the buy button does.
    @MainActor
    public func alertController(buy: @escaping @MainActor () -> Void) -> UIAlertController {
        let controller = UIAlertController(title: title, message: message, preferredStyle: .alert)
        controller.addAction(UIAlertAction(title: cancelTitle, style: .cancel, handler: nil))
        controller.addAction(UIAlertAction(title: buyTitle, style: .default) { _ in buy() })
        return controller
    }
}
#endif

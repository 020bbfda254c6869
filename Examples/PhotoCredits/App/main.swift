// The one file of the Xcode app target (iOS 17 or later, as the app's state is @Observable): it
// adds the PhotoCredits library and starts its app.
import PhotoCredits

if #available(iOS 17, macOS 14, *) {
    PhotoCreditsApp.main()
} else {
    fatalError("PhotoCredits needs iOS 17 or macOS 14: set the app target's deployment target to it")
}

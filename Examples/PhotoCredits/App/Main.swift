// The one file of the Xcode app target: it adds the PhotoCredits library and starts its app.
import PhotoCredits

@main
enum Main {
    @MainActor static func main() {
        PhotoCreditsApp.main()
    }
}

// The one file of the Xcode app target (iOS 14 or later): it adds the AstrologyReports library
// and runs UIKit with its application delegate.
import AstrologyReports
import UIKit

_ = UIApplicationMain(CommandLine.argc, CommandLine.unsafeArgv, nil, NSStringFromClass(ReportsAppDelegate.self))

import Foundation
import Testing
@testable import KeyedArchive

/// The class names written for Foundation's value types and C structs are the same on Linux and on Apple
/// platforms, whatever each platform's runtime calls the type: checked as pure functions of the runtime name, with
/// the names each platform gives (Linux: `Foundation.CGPoint`, `FoundationEssentials.Decimal`; Apple platforms:
/// `__C.CGPoint`, `__C.NSDecimal`).
@Suite("Portable type names")
struct PortableTypeNameTests {
    @Test(arguments: ["CGPoint", "CGSize", "CGRect", "CGVector", "CGAffineTransform", "_NSRange"])
    func aFoundationCStructHasOneNameOnEveryPlatform(name: String) {
        #expect(portableCodableTypeName("__C." + name) == "Foundation." + name)
        #expect(portableCodableTypeName("Foundation." + name) == "Foundation." + name)
        #expect(portableCodableTypeName("App.Box<__C.\(name)>") == "App.Box<Foundation.\(name)>")
        #expect(portableCodableTypeName("Swift.Dictionary<Swift.String, __C.\(name)>")
                == "Swift.Dictionary<Swift.String, Foundation.\(name)>")
    }

    /// `Decimal` is the C struct `NSDecimal` on Apple platforms, `CGFloat` is CoreGraphics' there: inside a generic
    /// type's arguments they are named as on Linux (`Foundation.Decimal` after the module move, `Foundation.CGFloat`).
    @Test func decimalAndCGFloatInsideAGenericTypeHaveOneName() {
        #expect(portableCodableTypeName("App.Box<__C.NSDecimal>") == "App.Box<Foundation.Decimal>")
        #expect(portableCodableTypeName("App.Box<FoundationEssentials.Decimal>") == "App.Box<Foundation.Decimal>")
        #expect(portableCodableTypeName("App.Box<CoreGraphics.CGFloat>") == "App.Box<Foundation.CGFloat>")
        #expect(portableCodableTypeName("App.Box<Foundation.CGFloat>") == "App.Box<Foundation.CGFloat>")
        #expect(portableCodableTypeName("CoreGraphics.CGColor") == "CoreGraphics.CGColor")
        #expect(codableArchivedClassName(of: [String: Decimal].self) == "Swift.Dictionary<Swift.String, Foundation.Decimal>")
        #expect(codableArchivedClassName(of: [CGFloat].self) == "Swift.Array<Foundation.CGFloat>")
    }

    @Test func otherCTypesAndLookalikesKeepTheirNames() {
        #expect(portableCodableTypeName("__C.timespec") == "__C.timespec")
        #expect(portableCodableTypeName("__C.CGPointer") == "__C.CGPointer")
        #expect(portableCodableTypeName("My__C.CGPoint") == "My__C.CGPoint")
        #expect(portableCodableTypeName("App.__C.CGPoint") == "App.__C.CGPoint")
        #expect(portableCodableTypeName("App.Model") == "App.Model")
    }

    @Test func foundationEssentialsTypesAreNamedAfterFoundation() {
        #expect(portableCodableTypeName("FoundationEssentials.Calendar") == "Foundation.Calendar")
        #expect(portableCodableTypeName("App.Box<FoundationEssentials.URLComponents, __C.CGRect>")
                == "App.Box<Foundation.URLComponents, Foundation.CGRect>")
    }

    /// This platform's runtime names give the portable names.
    @Test func thisPlatformsRuntimeNamesArePortable() {
        #expect(codableArchivedClassName(of: CGPoint.self) == "Foundation.CGPoint")
        #expect(codableArchivedClassName(of: CGSize.self) == "Foundation.CGSize")
        #expect(codableArchivedClassName(of: CGRect.self) == "Foundation.CGRect")
        #expect(codableArchivedClassName(of: NSRange.self) == "Foundation._NSRange")
        #expect(codableArchivedClassName(of: [CGPoint].self) == "Swift.Array<Foundation.CGPoint>")
    }

    /// The names earlier versions wrote for the Foundation value types a model holds come from the type's name in
    /// Swift code, never from the runtime (on Apple platforms `String(describing: Decimal.self)` is `NSDecimal`).
    @Test func bridgedValueTypesReadTheNamesEarlierVersionsWrote() {
        #expect(foundationBridgedLegacyClassNames(swiftTypeName: "Decimal") == ["FoundationEssentials.Decimal", "Foundation.Decimal"])
        #expect(FoundationBridgedObject<Decimal>.legacyClassNames == ["FoundationEssentials.Decimal", "Foundation.Decimal"])
        #expect(FoundationBridgedObject<Locale>.legacyClassNames == ["FoundationEssentials.Locale", "Foundation.Locale"])
        #expect(FoundationBridgedObject<TimeZone>.legacyClassNames == ["FoundationEssentials.TimeZone", "Foundation.TimeZone"])
        #expect(FoundationBridgedObject<DateInterval>.legacyClassNames
                == ["FoundationEssentials.DateInterval", "Foundation.DateInterval"])
        #expect(FoundationBridgedObject<Calendar>.legacyClassNames == ["FoundationEssentials.Calendar", "Foundation.Calendar"])
        #expect(FoundationBridgedObject<DateComponents>.legacyClassNames
                == ["FoundationEssentials.DateComponents", "Foundation.DateComponents"])
    }
}

import Testing
import KeyedArchiveTestSupport

// Where the built tools are found from the image that holds the test code, without /proc: a test bundle on
// Darwin (a directory the runner loads with dlopen) and the test executable on Linux.

@Suite struct BuiltProductsTests {
    @Test func aDarwinTestBundlesProductsAreBesideTheBundle() {
        let image = "/work/.build/arm64-apple-macosx/debug/KeyedArchivePackageTests.xctest/Contents/MacOS/KeyedArchivePackageTests"
        #expect(BuiltProducts.productDirectories(besideImage: image) == [
            "/work/.build/arm64-apple-macosx/debug",
            "/work/.build/arm64-apple-macosx/debug/KeyedArchivePackageTests.xctest/Contents/MacOS",
        ])
    }

    @Test func aLinuxTestExecutablesProductsAreInItsFolder() {
        #expect(BuiltProducts.productDirectories(besideImage: "/work/.build/debug/KeyedArchivePackageTests.xctest")
            == ["/work/.build/debug"])
        #expect(BuiltProducts.productDirectories(besideImage: "/usr/bin/runner") == ["/usr/bin"])
        #expect(BuiltProducts.productDirectories(besideImage: "runner") == [])
    }

    @Test func theToolsThisTargetDependsOnAreFound() {
        #expect(BuiltProducts.executable("atomic-write-crash-child") != nil)
    }
}

import Testing
import QuakeFormat
@testable import QuakeSync

/// How the sync's client words the failures no retry cures (issue 69), against the texts
/// swift-nio and AsyncHTTPClient give them.
@Suite struct FetchFailureTests {
    /// An error that describes itself as NIO's resolver failure does.
    struct DescribedError: Error, CustomStringConvertible {
        var description: String
    }

    @Test func anUnknownHostIsNamedInOneLine() {
        let nio = DescribedError(description: "DNS error: SocketAddressError.UnknownHost: Name or service not known "
            + "(error -2) for host quakes.example, port 80")
        #expect(HTTPFetcher.unresolvedHost(nio) == "quakes.example")
        let nxdomain = DescribedError(description: "NXDOMAIN")
        #expect(HTTPFetcher.unresolvedHost(nxdomain) == "the host")
        let refused = DescribedError(description: "connect(descriptor:addr:size:): Connection refused (errno: 111)")
        #expect(HTTPFetcher.unresolvedHost(refused) == nil)
        #expect(HTTPFetcher.describe(refused) == "connection refused")
    }

    @Test func aServiceSourceGetsItsTrailingSlash() {
        let bare = "http://127.0.0.1:8080/fdsnws/event/1"
        #expect(SyncSource.fdsn(bare).normalized == .fdsn(bare + "/"))
        #expect(SyncSource.fdsn(bare + "/query").normalized == .fdsn(bare + "/"))
        #expect(SyncSource.feed(bare + "/x.geojson").normalized == .feed(bare + "/x.geojson"))
    }
}

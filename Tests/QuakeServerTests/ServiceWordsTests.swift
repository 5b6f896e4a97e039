import Foundation
import HummingbirdTesting
import Testing
@testable import QuakeServer

/// The service's words for dates that do not exist and regions across 180° (issue 69).
@Suite struct ServiceWordsTests {
    static let q = "/fdsnws/event/1/query?"

    @Test func impossibleDatesAndRegionsAcross180AreExplained() async throws {
        let cases = [
            (Self.q + "starttime=2024-02-30", "February 2024 has 29 days"),
            (Self.q + "starttime=2023-01-01&endtime=2023-02-29", "February 2023 has 28 days"),
            (Self.q + "starttime=2023-13-01", "there is no month 13"),
            (Self.q + "starttime=2023-01-01T24:00:00", "there is no hour 24"),
            (Self.q + "minlongitude=170&maxlongitude=-170", "maxlongitude=190"),
            ("/api/day?day=2024-02-30", "February 2024 has 29 days"),
            ("/api/day?minlongitude=170&maxlongitude=-170", "maxlongitude=190"),
        ]
        try await ServedStore.app().test(.router) { client in
            for (uri, words) in cases {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .badRequest, "\(uri)")
                    #expect(String(buffer: response.body).contains(words), "\(uri): \(String(buffer: response.body))")
                }
            }
            // the spelling the error gives is one the service takes
            try await client.execute(uri: Self.q + "minlongitude=170&maxlongitude=190&format=text", method: .get) {
                response in
                #expect(response.status == .ok || response.status == .noContent)
            }
        }
    }
}

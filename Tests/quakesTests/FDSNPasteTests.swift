import Foundation
import Testing

/// The CLI takes every FDSN value the service takes: one list of query strings, pasted both ways
/// (as `count?QS` to a local `quakes serve`, and as `quakes count --name value ...`), gives the
/// same counts, and the same refusals.
@Suite struct FDSNPasteTests {
    static let accepted = [
        "starttime=2019-07-06T03:19:53&endtime=2019-07-06T03:19:53.040",
        "starttime=2019-07-06T03:19:53.040&endtime=2019-07-06T03:19:53.040",
        "start=2016-04-25&end=2016-04-26",
        "minlongitude=170&maxlongitude=190",
        "minlongitude=-190&maxlongitude=-170&minmagnitude=4",
        "minlongitude=-360&maxlongitude=360&minmag=6",
        "minlat=30&maxlat=40&minlon=-120&maxlon=-115&maxmag=1.5",
        "latitude=35.77&longitude=-117.6&maxradiuskm=20&minmagnitude=3",
        "lat=35.77&lon=-117.6&minradius=1&maxradius=2",
        "latitude=35.77&longitude=-117.6&minradiuskm=50&maxradiuskm=80",
        "eventid=ci38457511",
        "eventid=ci38457511&contributor=ci",
        "contributor=us&starttime=2018-05-01&endtime=2018-05-31",
        "contributor=ak,hv&minmagnitude=2",
        "catalog=ci&eventtype=earthquake&magnitudetype=ml&mindepth=5&maxdepth=10",
        "reviewstatus=reviewed&minmagnitude=5",
        "reviewstatus=all&maxmagnitude=0",
        "updatedafter=2019-07-10&maxmagnitude=2",
        "includeallorigins=false&includearrivals=false&minmagnitude=6",
        "placecontains=ridgecrest&magtype=mw",
        "mindepth=-1&maxdepth=0&endtime=2019-07-01",
        // digits past the millisecond never widen the window (the M7.1 is at 03:19:53.040)
        "eventid=ci38457511&starttime=2019-07-06T03:19:53.0401",
        "eventid=ci38457511&endtime=2019-07-06T03:19:53.0409",
        "eventid=ci38457511&starttime=2019-07-06T03:19:53.0399&endtime=2019-07-06T03:19:53.0401",
        "starttime=2019-07-06T03:19:53.0405&endtime=2019-07-06T03:19:53.0405",
        "start=2019-07-06T03:19:53.0401&end=2019-07-06T03:19:53.0409",
    ]
    static let refused = [
        "maxlongitude=400",
        "minlongitude=100&maxlongitude=50",
        "starttime=2019-07-02&endtime=2019-07-01",
        "minlatitude=10&maxlatitude=5",
        "minradius=1",
        "latitude=35&longitude=-117&minradius=3&maxradius=2",
        "reviewstatus=sometimes",
        "endtime=yesterday",
    ]

    static func flags(_ qs: String) -> [String] {
        qs.split(separator: "&").flatMap { pair -> [String] in
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            return ["--" + kv[0], kv.count > 1 ? kv[1] : ""]
        }
    }

    /// The service's answer to `count?qs`: the status and the body.
    static func fetch(_ port: Int, _ qs: String) throws -> (Int, String) {
        let script = """
            import sys, urllib.request, urllib.error
            try:
                r = urllib.request.urlopen("http://127.0.0.1:\(port)/fdsnws/event/1/count?" + sys.argv[1])
                print(r.status); print(r.read().decode().strip())
            except urllib.error.HTTPError as e:
                print(e.code); print(e.read().decode().strip().splitlines()[0] if e.code != 204 else "")
            """
        let r = try CLI.exec(ServeTests.python, ["-c", script, qs])
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return (Int(lines.first ?? "") ?? -1, lines.count > 1 ? lines[1] : "")
    }

    @Test(.enabled(if: CLI.hasRealFeeds, "needs ../shared/usgs (real USGS feeds; see README)"),
          .enabled(if: ServeTests.pythonHas("urllib"), "needs the venv's python (make test makes it)"))
    func aQueryStringPastedBothWaysGivesTheSameAnswer() throws {
        let store = try ServeTests.store("fdsn-paste")
        let server = try ServeTests.Server(store: store)
        var nonzero = 0
        for qs in Self.accepted {
            let (status, body) = try Self.fetch(server.port, qs)
            #expect(status == 200 || (status == 204 && body.isEmpty), "\(qs): the service answered \(status) \(body)")
            let cli = try CLI.run(["count", "--store", store] + Self.flags(qs))
            #expect(cli.status == 0, "\(qs): \(cli.stderr)")
            let want = status == 204 ? "0" : body
            #expect(cli.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == want, "\(qs): CLI \(cli.stdout) service \(body)")
            if body != "0" { nonzero += 1 }
        }
        // the list is not a list of empty answers
        #expect(nonzero >= Self.accepted.count - 6)
        for qs in Self.refused {
            let (status, body) = try Self.fetch(server.port, qs)
            #expect(status == 400, "\(qs): the service answered \(status) \(body)")
            let cli = try CLI.run(["count", "--store", store] + Self.flags(qs))
            #expect(cli.status == 2, "\(qs): the CLI exited \(cli.status): \(cli.stderr)")
            #expect(cli.stderr.split(separator: "\n").count <= 2, "\(qs): \(cli.stderr)")
        }
    }
}

import Foundation
import Testing

/// `agg --format arrow|parquet` (issue 72): typed columns read back by pyarrow, each column's type
/// checked and each value equal to the same question's `agg --format json` answer (sums, averages
/// and deviations to 1e-12: see check_agg_columns.py); and `nst` and `magNst` as int64 in
/// `query --format arrow|parquet`, equal to the CSV.
@Suite struct AggColumnsTests {
    static let timestamp = "timestamp[ms, tz=UTC]"

    /// Generated events, plus a few whose magnitude, magType, depth and station counts are null,
    /// whose `nst` is written `12.0`, and an earthquake alone in its year (so its deviations are null).
    static let store: String = {
        let dir = CLI.tempDir("agg-columns")
        _ = try? CLI.run(["generate", "--rows", "4000", "--years", "2021-2023", "--out", dir + "/feed",
                          "--seed", "72"])
        let header = "time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type,"
            + "horizontalError,depthError,magError,magNst,status,locationSource,magSource\n"
        let odd = header
            + "2022-03-01T01:02:03.004Z,10,20,,,,12.0,,,,zz,odd1,,\"5 km N of Nowhere, Alaska\",earthquake,"
            + ",,,3,reviewed,zz,zz\n"
            + "2022-03-01T07:00:00.000Z,10,20,5,,,,,,,zz,odd2,2022-03-02T00:00:00.000Z,Nowhere,earthquake,"
            + ",,,,reviewed,zz,zz\n"
            + "1999-12-31T23:59:59.999Z,-10,-20,0,4.2,mb,0,,,,zz,odd3,,,earthquake,,,,7,reviewed,zz,zz\n"
        try? odd.write(toFile: dir + "/feed/odd.csv", atomically: true, encoding: .utf8)
        _ = try? CLI.run(["load", "--store", dir + "/s", dir + "/feed"])
        return dir + "/s"
    }()

    static func check(_ kind: String, _ path: String, json: String, types: String) throws -> CLI.Result {
        let script = CLI.packageRoot.appendingPathComponent("Tests/quakesTests/Python/check_agg_columns.py").path
        return try CLI.exec(ParquetExportTests.python, [script, kind, path, json, types])
    }

    /// Asks `agg` one question as JSON, as an Arrow stream on stdout and in `--out`, and as Parquet
    /// in `--out` and on stdout, and has pyarrow compare each with the JSON under `types`
    /// (column name and pyarrow type, in column order).
    func compare(_ question: [String], _ types: KeyValuePairs<String, String>, tag: String) throws {
        let dir = CLI.tempDir("agg-columns-" + tag)
        let arguments = ["agg", "--store", Self.store] + question
        let json = try CLI.run(arguments + ["--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        try json.stdout.write(toFile: dir + "/answer.json", atomically: true, encoding: .utf8)
        let typeMembers = types.map { name, type in "\"\(name)\":\"\(type)\"" }.joined(separator: ",")
        try ("{" + typeMembers + "}").write(toFile: dir + "/types.json", atomically: true, encoding: .utf8)
        let outputs: [(kind: String, path: String, run: CLI.Result)] = [
            ("arrow", dir + "/stdout.arrow", try CLI.exec(CLI.binary, arguments + ["--format", "arrow"],
                                                          stdoutFile: dir + "/stdout.arrow")),
            ("arrow", dir + "/out.arrow", try CLI.run(arguments + ["--format", "arrow", "--out", dir + "/out.arrow"])),
            ("parquet", dir + "/out.parquet",
             try CLI.run(arguments + ["--format", "parquet", "--out", dir + "/out.parquet"])),
            ("parquet", dir + "/stdout.parquet",
             try CLI.exec(CLI.binary, arguments + ["--format", "parquet", "--out", "-"],
                          stdoutFile: dir + "/stdout.parquet")),
        ]
        for output in outputs {
            #expect(output.run.status == 0, "\(question) \(output.path): \(output.run.stderr)")
            let result = try Self.check(output.kind, output.path, json: dir + "/answer.json",
                                        types: dir + "/types.json")
            #expect(result.status == 0 && result.stdout.hasPrefix("ok rows="),
                    "\(question) \(output.path): \(result.stdout)\(result.stderr)")
        }
    }

    @Test(.enabled(if: ServeTests.pythonHas("pyarrow"), "needs pyarrow in the venv (make test installs it)"))
    func keysAndMetricsKeepTheirTypes() throws {
        try compare(["--by", "year", "--by", "month", "--by", "magType", "--metrics",
                     "count,count(mag),count(distinct net),avg(mag),sum(depth),stddev(mag),median(depth),"
                        + "p90(mag),min(time),max(updated)"],
                    ["year": "int64", "month": Self.timestamp, "magType": "string", "count": "int64",
                     "count(mag)": "int64", "count(distinct net)": "int64", "avg(mag)": "double",
                     "sum(depth)": "double", "stddev(mag)": "double", "median(depth)": "double", "p90(mag)": "double",
                     "min(time)": Self.timestamp, "max(updated)": Self.timestamp],
                    tag: "calendar")
        try compare(["--by", "time:6h", "--by", "mag:0.5", "--by", "hourofday", "--metrics",
                     "count,min(mag),median(time),avg(time),p50(updated)", "--sort", "count:desc", "--limit", "500"],
                    ["time:6h": Self.timestamp, "mag:0.5": "double", "hourofday": "int64", "count": "int64",
                     "min(mag)": "double", "median(time)": Self.timestamp, "avg(time)": Self.timestamp,
                     "p50(updated)": Self.timestamp],
                    tag: "buckets")
        try compare(["--by", "day", "--by", "dayofweek", "--by", "quarter", "--by", "region", "--metrics",
                     "count,max(mag),count(distinct place),max(nst)", "--min-mag", "2"],
                    ["day": Self.timestamp, "dayofweek": "int64", "quarter": "int64", "region": "string",
                     "count": "int64", "max(mag)": "double", "count(distinct place)": "int64", "max(nst)": "double"],
                    tag: "parts")
        try compare(["--by", "week", "--by", "net", "--by", "hour", "--by", "depth:10",
                     "--metrics", "count,avg(magNst)", "--having", "count >= 2"],
                    ["week": Self.timestamp, "net": "string", "hour": Self.timestamp, "depth:10": "double",
                     "count": "int64", "avg(magNst)": "double"],
                    tag: "week")
        try compare(["--metrics", "count,count(distinct magType),stddev(depth)"],
                    ["count": "int64", "count(distinct magType)": "int64", "stddev(depth)": "double"], tag: "whole")
        try compare(["--by", "place", "--metrics", "count,max(time)", "--min-mag", "99"],
                    ["place": "string", "count": "int64", "max(time)": Self.timestamp], tag: "empty")
    }

    @Test(.enabled(if: ServeTests.pythonHas("pyarrow"), "needs pyarrow in the venv (make test installs it)"))
    func nullKeysAndMetricsAreNulls() throws {
        let dir = CLI.tempDir()
        let arguments = ["agg", "--store", Self.store, "--by", "magType", "--by", "mag:1", "--metrics",
                         "count,avg(mag),stddev(depth),min(updated)", "--net", "zz",
                         "--format", "parquet", "--out", dir + "/nulls.parquet"]
        #expect(try CLI.run(arguments).status == 0)
        let script = """
            import pyarrow.parquet as pq, sys
            rows = pq.read_table(sys.argv[1]).to_pylist()
            null_keys = [r for r in rows if r["magType"] is None and r["mag:1"] is None]
            first = null_keys[0] if null_keys else {}
            print(len(null_keys), first.get("count"), first.get("avg(mag)"), first.get("stddev(depth)"),
                  first.get("min(updated)"))
            """
        let read = try CLI.exec(ParquetExportTests.python, ["-c", script, dir + "/nulls.parquet"])
        #expect(read.stdout == "1 2 None None 2022-03-02 00:00:00+00:00\n", "\(read.stdout)\(read.stderr)")
    }

    @Test func outputPathRules() throws {
        let dir = CLI.tempDir()
        let base = ["agg", "--store", Self.store, "--by", "net"]
        let noOut = try CLI.run(base + ["--format", "parquet"])
        #expect(noOut.status == 2 && noOut.stderr.contains("--format parquet needs --out FILE"), "\(noOut.stderr)")
        let textOut = try CLI.run(base + ["--format", "csv", "--out", dir + "/x.csv"])
        #expect(textOut.status == 2 && textOut.stderr.contains("--out goes with --format arrow, parquet or svg"))
        let missing = dir + "/no/such/dir/x.parquet"
        for format in ["arrow", "parquet"] {
            let failed = try CLI.run(base + ["--format", format, "--out", missing])
            #expect(failed.status == 1 && failed.stderr.contains(missing), "\(format): \(failed.stderr)")
            let full = try CLI.run(base + ["--format", format, "--out", "/dev/full"])
            #expect(full.status == 1 && full.stderr.contains("/dev/full"), "\(format): \(full.stderr)")
        }
        // a symlink is written through and stays a link; an existing file is replaced only when complete
        try "old".write(toFile: dir + "/target.parquet", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.parquet",
                                                   withDestinationPath: "target.parquet")
        #expect(try CLI.run(base + ["--format", "parquet", "--out", dir + "/link.parquet"]).status == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/link.parquet")
        #expect(attributes[.type] as? FileAttributeType == .typeSymbolicLink)
        let written = try Data(contentsOf: URL(fileURLWithPath: dir + "/target.parquet"))
        #expect(written.prefix(4) == Data("PAR1".utf8) && written.suffix(4) == Data("PAR1".utf8))
        let arrow = try CLI.run(base + ["--format", "arrow", "--out", dir + "/link.parquet"])
        #expect(arrow.status == 0)
        let stream = try Data(contentsOf: URL(fileURLWithPath: dir + "/target.parquet"))
        let endOfStream = Data([0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0])
        #expect(stream.prefix(4) == Data([0xFF, 0xFF, 0xFF, 0xFF]) && stream.suffix(8) == endOfStream)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(names.allSatisfy { !$0.hasPrefix(".") }, "no temporary left: \(names)")
    }

    @Test(.enabled(if: ServeTests.pythonHas("pyarrow"), "needs pyarrow in the venv (make test installs it)"))
    func stationCountsAreIntegersInQueryOutput() throws {
        let dir = CLI.tempDir()
        let fields = ["--fields", "time,id,nst,magNst,mag,felt"]
        for (tag, question) in [("all", ["--sort", "time:asc"]), ("odd", ["--net", "zz"]),
                                ("old", ["--to", "2000-01-01"])] {
            let arguments = ["query", "--store", Self.store] + question
            for (set, extra) in [("fields", fields), ("csv", [])] {
                let csv = try CLI.run(arguments + extra + ["--format", "csv"])
                #expect(csv.status == 0, "\(csv.stderr)")
                let name = dir + "/\(tag)-\(set)"
                try csv.stdout.write(toFile: name + ".csv", atomically: true, encoding: .utf8)
                let arrow = try CLI.exec(CLI.binary, arguments + extra + ["--format", "arrow"],
                                         stdoutFile: name + ".arrow")
                let parquet = try CLI.run(arguments + extra + ["--format", "parquet", "--out", name + ".parquet"])
                #expect(arrow.status == 0 && parquet.status == 0, "\(arrow.stderr)\(parquet.stderr)")
                for kind in ["arrow", "parquet"] {
                    let result = try ArrowAndParquetResultTests.check(kind, name + "." + kind, csv: name + ".csv")
                    #expect(result.status == 0 && result.stdout.hasPrefix("ok rows="),
                            "\(name).\(kind): \(result.stdout)")
                }
            }
        }
        // the odd events hold what they were given: 12.0 is 12, 0 is 0, an empty field null
        let script = """
            import pyarrow as pa, pyarrow.parquet as pq, sys
            table = pq.read_table(sys.argv[1])
            rows = {r["id"]: (r["nst"], r["magNst"]) for r in table.to_pylist()}
            types = (table.schema.field("nst").type, table.schema.field("magNst").type)
            print(*types, rows["odd1"], rows["odd2"], rows["odd3"])
            """
        let all = try CLI.run(["query", "--store", Self.store, "--format", "parquet", "--out", dir + "/odd.parquet",
                               "--net", "zz"])
        #expect(all.status == 0, "\(all.stderr)")
        let read = try CLI.exec(ParquetExportTests.python, ["-c", script, dir + "/odd.parquet"])
        #expect(read.stdout == "int64 int64 (12, 3) (None, None) (0, 7)\n", "\(read.stdout)\(read.stderr)")
    }
}

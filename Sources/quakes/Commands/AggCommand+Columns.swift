import Foundation
import QuakeFormat
import QuakeInterchange
import QuakeStore

extension AggCommand {
    /// `--format arrow|parquet`: the groups as typed columns. Parquet goes to `--out` (`-` is
    /// standard output, as for `query`); Arrow to `--out` when given, else to standard output.
    /// A file is written beside its path and renamed into place once complete, so a failed
    /// write leaves the path as it was and is an error naming it.
    func writeColumns(_ table: AggregateTable) throws {
        switch output {
        case .parquet:
            try ParquetFileWriter.write(table, to: out ?? "-")
        default:
            guard let out else {
                ArrowStreamWriter(sink: Console.out, columns: []).write(table)
                return
            }
            let file = try OutputSink(path: out)
            ArrowStreamWriter(sink: file, columns: []).write(table)
            try file.finish()
        }
    }
}

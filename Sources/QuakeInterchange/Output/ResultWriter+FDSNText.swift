import QuakeFormat
import QuakeStore
extension ResultWriter {
    /// The header line of the FDSN event service's `format=text`, as the USGS service writes it.
    package static let fdsnTextHeader =
        "#EventID|Time|Latitude|Longitude|Depth/km|Author|Catalog|Contributor|ContributorID|"
        + "MagType|Magnitude|MagAuthor|EventLocationName"

    /// The fields an FDSN text line is made of, in order.
    package static let fdsnTextColumns: [Column] = [
        .id, .time, .latitude, .longitude, .depth, .locationSource, .net, .magType, .mag, .magSource, .place,
    ]

    /// One FDSN text line, as the USGS service writes it: the time without a zone letter,
    /// Author = locationSource, Catalog and Contributor = net, ContributorID = id,
    /// MagAuthor = magSource. A `|` or line break inside a value becomes a space.
    package func fdsnText(_ batch: RowBatch, _ row: Int, _ sink: OutputSink) {
        func text(_ column: Column) {
            let texts = batch.text[column.rawValue]
            for x in texts.bytes[texts.range(row)] {
                sink.buffer.append(x == UInt8(ascii: "|") || x == 10 || x == 13 ? UInt8(ascii: " ") : x)
            }
        }
        func number(_ column: Column) {
            let value = batch.ints[column.rawValue][row]
            if value != RowBatch.null { ScaledDecimal.format(value, into: &sink.buffer) }
        }
        func bar() { sink.buffer.append(UInt8(ascii: "|")) }
        text(.id)
        bar()
        let time = batch.ints[Column.time.rawValue][row]
        if time != RowBatch.null {
            Timestamp.format(time, into: &sink.buffer)
            sink.buffer.removeLast()  // the "Z": the service writes UTC times bare
        }
        bar()
        number(.latitude)
        bar()
        number(.longitude)
        bar()
        number(.depth)
        bar()
        text(.locationSource)
        bar()
        text(.net)
        bar()
        text(.net)
        bar()
        text(.id)
        bar()
        text(.magType)
        bar()
        number(.mag)
        bar()
        text(.magSource)
        bar()
        text(.place)
        sink.buffer.append(10)
        sink.maybeFlush()
    }
}

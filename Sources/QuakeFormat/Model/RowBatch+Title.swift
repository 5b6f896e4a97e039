extension RowBatch {
    /// The columns a made title is made of.
    package static let titleSources: ColumnSet = [.mag, .type, .place]

    /// Fills every row without a stored title with USGS's (``USGSTitle``), when the batch holds
    /// the magnitude, type and place it is made of: what a reader of the store is shown.
    package mutating func makeTitles() {
        let titles = text[Column.title.rawValue]
        let magnitudes = ints[Column.mag.rawValue]
        let types = text[Column.type.rawValue]
        let places = text[Column.place.rawValue]
        guard titles.count == count, magnitudes.count == count, types.count == count, places.count == count,
              (0..<count).contains(where: titles.isNull) else { return }
        var made = ByteArena()
        made.bytes.reserveCapacity(titles.bytes.count + places.bytes.count + count * 12)
        made.ends.reserveCapacity(count)
        var title: [UInt8] = []
        for row in 0..<count {
            guard titles.isNull(row) else {
                made.append(from: titles, row: row)
                continue
            }
            title.removeAll(keepingCapacity: true)
            USGSTitle.append(mag: magnitudes[row], type: types.bytes[types.range(row)],
                             place: places.bytes[places.range(row)], into: &title)
            made.append(title)
        }
        text[Column.title.rawValue] = made
    }
}

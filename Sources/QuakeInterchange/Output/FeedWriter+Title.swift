import QuakeFormat
import QuakeStore

extension FeedWriter {
    /// The GeoJSON `title` of an event stored without one (a CSV feed has no title, and a store
    /// keeps none that follows from the event's fields): USGS's, from ``USGSTitle``.
    package static func usgsTitle(mag: Int64, type: some Collection<UInt8>, place: some Collection<UInt8>,
                                  into out: inout [UInt8]) {
        USGSTitle.append(mag: mag, type: type, place: place, into: &out)
    }
}

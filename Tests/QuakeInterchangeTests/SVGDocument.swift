import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An SVG document read back with Foundation's `XMLParser`: its elements in document order, each
/// with its attributes, its text, and the ids of the groups it lies in.
final class SVGDocument: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""
        var groups: [String]

        func number(_ name: String) -> Double? { attributes[name].flatMap(Double.init) }
    }

    private(set) var elements: [Element] = []
    private var open: [Int] = []
    private(set) var parsed = false

    /// `text` parsed; `parsed` is false when it is not well-formed XML.
    init(_ text: String) {
        super.init()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = self
        parsed = parser.parse()
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        let groups = open.compactMap { elements[$0].name == "g" ? elements[$0].attributes["id"] : nil }
        elements.append(Element(name: elementName, attributes: attributeDict, groups: groups))
        open.append(elements.count - 1)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?) {
        _ = open.popLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let last = open.last { elements[last].text += string }
    }

    /// The elements named `name` inside the group `group` (any depth).
    func elements(_ name: String, in group: String) -> [Element] {
        elements.filter { $0.name == name && $0.groups.contains(group) }
    }

    /// The element whose id is `id`.
    func element(id: String) -> Element? { elements.first { $0.attributes["id"] == id } }

    /// The texts of the legend's lines.
    var legendTexts: [String] { elements("text", in: "legend").map(\.text) }

    /// The root element.
    var root: Element? { elements.first }
}

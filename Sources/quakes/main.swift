import QuakeStore
import Foundation

let args = CommandLine.arguments
let store = try Store.openOrCreate(path: args[1])
let s = try store.load(Array(args.dropFirst(2)), options: {
    var o = LoadOptions()
    o.onReject = { r in FileHandle.standardError.write(("reject: \(r)\n").data(using: .utf8)!) }
    o.onMessage = { m in FileHandle.standardError.write(("\(m)\n").data(using: .utf8)!) }
    return o
}())
print(s)
print(store.manifest.rows, store.manifest.partitions.count)

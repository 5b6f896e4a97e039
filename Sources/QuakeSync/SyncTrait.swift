// QuakeSync's HTTP client comes with the package trait `Sync` (on by default). A client that
// depends on the package with `traits: []` and links QuakeSync gets this line, not a missing module.
#if !Sync
#error("QuakeSync needs the package trait Sync: .package(url: ..., traits: [\"Sync\"])")
#endif

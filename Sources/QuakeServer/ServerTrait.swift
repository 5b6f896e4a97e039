// QuakeServer's HTTP server comes with the package trait `Server` (on by default). A client that
// depends on the package with `traits: []` and links QuakeServer gets this line, not a missing module.
#if !Server
#error("QuakeServer needs the package trait Server: .package(url: ..., traits: [\"Server\"])")
#endif

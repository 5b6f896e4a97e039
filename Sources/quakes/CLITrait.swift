// The quakes command comes with the package trait `CLI` (on by default), which brings
// swift-argument-parser, the server and the sync.
#if !CLI
#error("the quakes command needs the package trait CLI (the default)")
#endif

import QuakeServer

extension ErrorMessage {
    /// The line for a server that cannot listen: what is wrong, and the flag that changes it.
    static func line(_ e: ServeError) -> String {
        switch e.kind {
        case .portInUse: return "\(e): pick another with --port"
        case .badHost: return "\(e): pick another with --host"
        case .portNeedsPrivilege: return "\(e): pick one above 1023 with --port"
        case .cannotListen: return "\(e) (see --host and --port)"
        }
    }
}

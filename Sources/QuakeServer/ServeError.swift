import Foundation
import NIOCore

/// Why the server could not start listening, for a message that says which option to change.
package struct ServeError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// Another process listens on the port.
        case portInUse
        /// The host is neither an address of this machine nor a name that resolves.
        case badHost
        /// A port below 1024 without the privilege to bind it.
        case portNeedsPrivilege
        /// Anything else the system refused; ``detail`` says what.
        case cannotListen
    }

    package var kind: Kind
    package var host: String
    package var port: Int
    package var detail: String

    package init(_ kind: Kind, host: String, port: Int, detail: String = "") {
        self.kind = kind
        self.host = host
        self.port = port
        self.detail = detail
    }

    /// The error binding `host:port` failed with, in these terms; nil for another error.
    package init?(binding error: any Error, host: String, port: Int) {
        if let ioError = error as? IOError {
            switch ioError.errnoCode {
            case EADDRINUSE: self.init(.portInUse, host: host, port: port)
            case EADDRNOTAVAIL: self.init(.badHost, host: host, port: port)
            case EACCES, EPERM: self.init(.portNeedsPrivilege, host: host, port: port)
            default: self.init(.cannotListen, host: host, port: port, detail: "\(ioError)")
            }
        } else if error is SocketAddressError || error is SocketAddressError.UnknownHost {
            self.init(.badHost, host: host, port: port)
        } else {
            return nil
        }
    }

    package var description: String {
        switch kind {
        case .portInUse: return "port \(port) is in use"
        case .badHost: return "cannot bind host '\(host)': not a local address or resolvable name"
        case .portNeedsPrivilege: return "port \(port) needs privileges to bind"
        case .cannotListen: return "cannot listen on \(host):\(port): \(detail)"
        }
    }
}

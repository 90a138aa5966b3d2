//! Which `Host` names an MCP server over HTTP answers: the guard against
//! DNS rebinding that still lets clients reach it by address, by name and
//! through proxies.
//!
//! A rebinding attack needs a DNS name the attacker controls that resolves
//! to the server, so a request naming an IP address (any address: a client
//! using the machine's own, a proxy forwarding to it) cannot be one; nor
//! can the loopback names. Other names are answered only when listed.

use std::net::{IpAddr, SocketAddr};

use hyper::http::uri::Authority;

/// The names a server answers besides IP addresses and loopback names.
#[derive(Clone, Debug)]
pub(super) struct HostCheck {
    any: bool,
    /// Lower-case names, each with the one port it allows (or any port).
    names: Vec<(String, Option<u16>)>,
}

/// Why a request's `Host` was not answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum HostRefusal {
    /// A name the server was not told to answer.
    NotAllowed(String),
    /// A value that is no `host[:port]`.
    Malformed(String),
}

impl HostCheck {
    /// Answers `allowed` (entries `name` or `name:port`; `"*"` is any
    /// name), checked up front so a typo fails the start, not each client.
    pub(super) fn new(allowed: &[String]) -> Result<Self, String> {
        let mut check = HostCheck {
            any: false,
            names: Vec::new(),
        };
        for entry in allowed {
            let entry = entry.trim();
            if entry == "*" {
                check.any = true;
                continue;
            }
            let authority = Authority::try_from(entry)
                .ok()
                .filter(|a| !a.host().is_empty() && !entry.contains('/') && !entry.contains('@'))
                .ok_or_else(|| {
                    format!(
                        "the allowed host {entry:?} is not a host name with an optional port (e.g. mcp.example.com or mcp.example.com:8931)"
                    )
                })?;
            check
                .names
                .push((normalize(authority.host()), authority.port_u16()));
        }
        Ok(check)
    }

    /// Whether a request naming `host` (its `Host` header or HTTP/2
    /// `:authority`) to a server listening on `local` is answered.
    pub(super) fn allows(&self, host: &str, local: SocketAddr) -> Result<(), HostRefusal> {
        if self.any {
            return Ok(());
        }
        let authority =
            Authority::try_from(host).map_err(|_| HostRefusal::Malformed(host.to_owned()))?;
        let name = normalize(authority.host());
        if name.parse::<IpAddr>().is_ok() || name == "localhost" || name.ends_with(".localhost") {
            return Ok(());
        }
        let port = authority.port_u16();
        let listed = self
            .names
            .iter()
            .any(|(n, p)| *n == name && p.is_none_or(|p| Some(p) == port));
        if listed || name == local.ip().to_string() {
            Ok(())
        } else {
            Err(HostRefusal::NotAllowed(host.to_owned()))
        }
    }
}

/// Lower case, without an IPv6 literal's brackets and a trailing dot.
fn normalize(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

impl HostRefusal {
    /// The message a refused client reads.
    pub(super) fn message(&self) -> String {
        match self {
            HostRefusal::NotAllowed(host) => format!(
                "this MCP server does not answer to the Host {host:?}: a name it was not given could be a DNS rebinding attack. Add `{}` to the server's allowed hosts (HttpLimits::allowed_hosts), or reach it by IP address or localhost",
                host.rsplit_once(':')
                    .filter(|(_, p)| p.parse::<u16>().is_ok())
                    .map_or(host.as_str(), |(h, _)| h)
            ),
            HostRefusal::Malformed(host) => {
                format!("the Host header {host:?} is not a host name with an optional port")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local() -> SocketAddr {
        "0.0.0.0:8931".parse().unwrap()
    }

    fn check(allowed: &[&str]) -> HostCheck {
        HostCheck::new(&allowed.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn addresses_and_loopback_names_are_always_answered() {
        let none = check(&[]);
        for host in [
            "127.0.0.1:8931",
            "10.0.0.11:8931",
            "10.0.0.11",
            "[::1]:8931",
            "[fe80::1]",
            "localhost:8931",
            "LOCALHOST",
            "app.localhost:80",
        ] {
            assert_eq!(none.allows(host, local()), Ok(()), "{host}");
        }
    }

    #[test]
    fn other_names_only_when_listed() {
        let none = check(&[]);
        assert_eq!(
            none.allows("mcp.example.com:8931", local()),
            Err(HostRefusal::NotAllowed("mcp.example.com:8931".into()))
        );
        let listed = check(&["MCP.example.com", "upstream:8931"]);
        assert_eq!(listed.allows("mcp.example.com", local()), Ok(()));
        assert_eq!(listed.allows("mcp.example.com.:443", local()), Ok(()));
        assert_eq!(listed.allows("upstream:8931", local()), Ok(()));
        assert!(listed.allows("upstream:9000", local()).is_err());
        assert!(listed.allows("upstream", local()).is_err());
        assert!(listed.allows("evil.example.com", local()).is_err());
        assert_eq!(check(&["*"]).allows("anything.example", local()), Ok(()));
    }

    #[test]
    fn malformed_values_are_named() {
        assert!(matches!(
            check(&[]).allows("a b", local()),
            Err(HostRefusal::Malformed(_))
        ));
        let err = HostCheck::new(&["http://x/".to_owned()]).unwrap_err();
        assert!(err.contains("http://x/"), "{err}");
        let refused = HostRefusal::NotAllowed("mcp.example.com:8931".into()).message();
        assert!(
            refused.contains("Add `mcp.example.com` to the server's allowed hosts")
                && refused.contains("HttpLimits::allowed_hosts"),
            "{refused}"
        );
    }
}

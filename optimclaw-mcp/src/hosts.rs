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
    /// `:authority`) is answered.
    pub(super) fn allows(&self, host: &str) -> Result<(), HostRefusal> {
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
        if listed {
            Ok(())
        } else {
            Err(HostRefusal::NotAllowed(host.to_owned()))
        }
    }
}

/// Which browser origins may call: a request with an `Origin` header is
/// answered only when the origin is on this machine (a loopback name or
/// address, or the address listened on), is a listed host, or is listed
/// itself. A page elsewhere (including one at a foreign IP address) gets
/// 403: a browser sends its `Origin`, so a foreign page cannot make a
/// visitor's browser call the server. Requests without `Origin` (programs,
/// not browsers) pass.
#[derive(Clone, Debug)]
pub(super) struct OriginCheck {
    hosts: HostCheck,
    /// Listed origins, lower case: `scheme://host[:port]`, the port may be `*`.
    listed: Vec<String>,
}

impl OriginCheck {
    pub(super) fn new(hosts: HostCheck, allowed_origins: &[String]) -> Self {
        OriginCheck {
            hosts,
            listed: allowed_origins
                .iter()
                .map(|o| normalize_origin(o.trim_end_matches('/')))
                .collect(),
        }
    }

    /// Whether a request from `origin` to a server on `local` is answered.
    pub(super) fn allows(&self, origin: &str, local: Option<SocketAddr>) -> bool {
        let origin = normalize_origin(origin);
        if self.listed.iter().any(|l| origin_matches(l, &origin)) {
            return true;
        }
        let Some((_, authority)) = origin.split_once("://") else {
            // `null` (a sandboxed page, a file) and anything else.
            return false;
        };
        let Ok(authority) = Authority::try_from(authority) else {
            return false;
        };
        let name = normalize(authority.host());
        let on_this_machine = match name.parse::<IpAddr>() {
            Ok(ip) => ip.is_loopback() || local.is_some_and(|l| l.ip() == ip),
            Err(_) => name == "localhost" || name.ends_with(".localhost"),
        };
        on_this_machine
            || self.hosts.any
            || self
                .hosts
                .names
                .iter()
                .any(|(n, p)| *n == name && p.is_none_or(|p| Some(p) == authority.port_u16()))
    }
}

/// Lower case, without the scheme's default port.
fn normalize_origin(origin: &str) -> String {
    let origin = origin.trim().to_ascii_lowercase();
    for (scheme, port) in [("https://", ":443"), ("http://", ":80")] {
        if origin.starts_with(scheme)
            && let Some(bare) = origin.strip_suffix(port)
        {
            return bare.to_owned();
        }
    }
    origin
}

/// `listed` is an origin, or one with `:*` for any port.
fn origin_matches(listed: &str, origin: &str) -> bool {
    match listed.strip_suffix(":*") {
        Some(prefix) => {
            origin == prefix
                || origin
                    .strip_prefix(prefix)
                    .and_then(|rest| rest.strip_prefix(':'))
                    .is_some_and(|port| port.parse::<u16>().is_ok())
        }
        None => listed == origin,
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

    fn local() -> Option<SocketAddr> {
        "0.0.0.0:8931".parse().ok()
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
            assert_eq!(none.allows(host), Ok(()), "{host}");
        }
    }

    #[test]
    fn other_names_only_when_listed() {
        let none = check(&[]);
        assert_eq!(
            none.allows("mcp.example.com:8931"),
            Err(HostRefusal::NotAllowed("mcp.example.com:8931".into()))
        );
        let listed = check(&["MCP.example.com", "upstream:8931"]);
        assert_eq!(listed.allows("mcp.example.com"), Ok(()));
        assert_eq!(listed.allows("mcp.example.com.:443"), Ok(()));
        assert_eq!(listed.allows("upstream:8931"), Ok(()));
        assert!(listed.allows("upstream:9000").is_err());
        assert!(listed.allows("upstream").is_err());
        assert!(listed.allows("evil.example.com").is_err());
        assert_eq!(check(&["*"]).allows("anything.example"), Ok(()));
    }

    fn origins(allowed_hosts: &[&str], allowed_origins: &[&str]) -> OriginCheck {
        let listed: Vec<String> = allowed_origins.iter().map(|s| (*s).to_owned()).collect();
        OriginCheck::new(check(allowed_hosts), &listed)
    }

    #[test]
    fn foreign_origins_are_refused_by_default() {
        let none = origins(&[], &[]);
        let local: Option<SocketAddr> = "10.0.0.11:8931".parse().ok();
        for origin in [
            "http://localhost:3000",
            "http://127.0.0.1:8931",
            "http://[::1]:8931",
            "http://app.localhost",
            "http://10.0.0.11:8931",
        ] {
            assert!(none.allows(origin, local), "{origin}");
        }
        for origin in [
            "http://evil.example.com",
            "https://evil.example.com:8931",
            "http://203.0.113.9",
            "http://localhost.evil.example",
            "null",
            "garbage",
        ] {
            assert!(!none.allows(origin, local), "{origin}");
        }
    }

    #[test]
    fn listed_hosts_and_origins_are_allowed() {
        let local = local();
        let listed = origins(
            &["mcp.example.com"],
            &["https://app.example.com", "http://dev.example:*"],
        );
        assert!(listed.allows("https://mcp.example.com", local));
        assert!(listed.allows("HTTPS://APP.example.com", local));
        assert!(listed.allows("https://app.example.com:443", local));
        assert!(
            origins(&[], &["https://app.example.com:443"]).allows("https://app.example.com", local)
        );
        assert!(listed.allows("http://dev.example:5173", local));
        assert!(listed.allows("http://dev.example", local));
        assert!(!listed.allows("https://app.example.com.evil.example", local));
        assert!(!listed.allows("http://dev.example:5173.evil", local));
        assert!(!listed.allows("https://other.example.com", local));
        assert!(origins(&["*"], &[]).allows("https://anything.example", local));
    }

    #[test]
    fn malformed_values_are_named() {
        assert!(matches!(
            check(&[]).allows("a b"),
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

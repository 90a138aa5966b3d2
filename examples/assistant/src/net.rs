//! HTTP restricted to an allowlist of endpoints, including after redirects.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use optimclaw::ToolError;
use url::Url;

/// Endpoints the `http`, `web_fetch` and `message` tools may reach.
///
/// An entry is a URL prefix: `https://api.example.com` allows every path
/// on that host; `http://127.0.0.1:8080/hooks/` only paths under `/hooks/`.
/// Scheme, host and port must match exactly.
#[derive(Clone, Debug, Default)]
pub struct Allowlist {
    entries: Vec<Url>,
}

impl Allowlist {
    /// Parses entries; each must be an absolute `http` or `https` URL.
    pub fn new<I, S>(entries: I) -> Result<Self, String>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.as_ref().trim();
            if entry.is_empty() || entry.starts_with('#') {
                continue;
            }
            let url = Url::parse(entry).map_err(|e| format!("allowlist entry {entry:?}: {e}"))?;
            if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
                return Err(format!(
                    "allowlist entry {entry:?}: expected an http(s) URL with a host"
                ));
            }
            out.push(url);
        }
        Ok(Allowlist { entries: out })
    }

    /// The entries.
    pub fn entries(&self) -> &[Url] {
        &self.entries
    }

    /// Whether `url` is allowed.
    pub fn allows(&self, url: &Url) -> bool {
        self.entries.iter().any(|e| {
            e.scheme() == url.scheme()
                && e.host_str().map(str::to_ascii_lowercase)
                    == url.host_str().map(str::to_ascii_lowercase)
                && e.port_or_known_default() == url.port_or_known_default()
                && url.path().starts_with(e.path())
        })
    }

    /// Parses `url` and checks it, with an error a model can act on.
    pub fn check(&self, url: &str) -> Result<Url, ToolError> {
        let parsed = Url::parse(url.trim())
            .map_err(|e| ToolError::new(format!("invalid URL {url:?}: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(ToolError::new(format!(
                "only http and https URLs are fetched, not {:?}",
                parsed.scheme()
            )));
        }
        if !self.allows(&parsed) {
            let allowed: Vec<&str> = self.entries.iter().map(Url::as_str).collect();
            return Err(ToolError::new(format!(
                "{} is not on the allowlist; allowed: {}",
                redact_url(&parsed),
                if allowed.is_empty() {
                    "nothing (configure allowlist.txt)".to_owned()
                } else {
                    allowed.join(", ")
                }
            )));
        }
        Ok(parsed)
    }
}

/// A URL without credentials or query, for messages.
pub fn redact_url(url: &Url) -> String {
    let mut u = url.clone();
    let _ = u.set_username("");
    let _ = u.set_password(None);
    u.set_query(None);
    u.to_string()
}

/// Whether an address is on the public internet: not private, loopback,
/// link-local, shared (CGNAT), unspecified, broadcast or documentation.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let shared = v4.octets()[0] == 100 && (64..128).contains(&v4.octets()[1]);
            !(v4.is_private()
                || v4.is_loopback()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_documentation()
                || shared)
        }
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public(IpAddr::V4(v4)),
            None => {
                !(v6.is_loopback()
                    || v6.is_unspecified()
                    || v6.is_unique_local()
                    || v6.is_unicast_link_local())
            }
        },
    }
}

/// Resolves host names for the client, dropping non-public addresses
/// unless private networks are allowed. Checked at connection time, so it
/// holds for redirects and for names that change what they resolve to.
struct PublicOnly {
    allow_private: bool,
}

impl reqwest::dns::Resolve for PublicOnly {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow_private = self.allow_private;
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let kept: Vec<SocketAddr> = found
                .iter()
                .copied()
                .filter(|a| allow_private || is_public(a.ip()))
                .collect();
            if kept.is_empty() {
                let seen: Vec<String> = found.iter().map(|a| a.ip().to_string()).collect();
                return Err(format!(
                    "{host} resolves only to private or local addresses ({}); they are refused unless private networks are allowed (--allow-private), or list the address itself",
                    seen.join(", ")
                )
                .into());
            }
            Ok(Box::new(kept.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// A client whose redirects are followed (when `follow_redirects`) only to
/// allowlisted URLs and whose host names must resolve to public addresses
/// (unless `allow_private`). URLs with a literal IP address are not
/// resolved: an allowlist entry naming an address allows exactly that
/// address.
pub fn client(
    allowlist: &Allowlist,
    timeout: Duration,
    allow_private: bool,
    follow_redirects: bool,
) -> reqwest::Client {
    // reqwest is built without a TLS provider of its own; ring is ours.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let policy_list = allowlist.clone();
    let policy = reqwest::redirect::Policy::custom(move |attempt| {
        if !follow_redirects {
            attempt.stop()
        } else if attempt.previous().len() >= 5 {
            attempt.error("more than 5 redirects")
        } else if policy_list.allows(attempt.url()) {
            attempt.follow()
        } else {
            let target = redact_url(attempt.url());
            attempt.error(format!(
                "redirect to {target}, which is not on the allowlist"
            ))
        }
    });
    reqwest::Client::builder()
        .redirect(policy)
        .dns_resolver(std::sync::Arc::new(PublicOnly { allow_private }))
        .timeout(timeout)
        .user_agent(concat!("optimclaw-assistant/", env!("CARGO_PKG_VERSION")))
        .build()
        .expect("the HTTP client configuration is valid")
}

/// Reads at most `cap` bytes of a response body; says whether it was cut.
pub async fn read_capped(
    mut response: reqwest::Response,
    cap: usize,
) -> Result<(Vec<u8>, bool), ToolError> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| ToolError::new(format!("reading the response failed: {}", describe(&e))))?
    {
        let room = cap - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}

/// A reqwest error as one line (its kind, then each cause), without the
/// URL: its query may hold credentials.
pub fn describe(err: &reqwest::Error) -> String {
    let what = if err.is_timeout() {
        "the request timed out"
    } else if err.is_connect() {
        "could not connect"
    } else {
        "the request failed"
    };
    format!("{what}{}", optimclaw::error_causes(err))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowlist_matches_scheme_host_port_and_path_prefix() {
        let list =
            Allowlist::new(["https://api.example.com", "http://127.0.0.1:8080/hooks/"]).unwrap();
        assert!(list.check("https://api.example.com/v1/x?q=1").is_ok());
        assert!(list.check("https://API.example.com/").is_ok());
        assert!(list.check("http://api.example.com/").is_err(), "scheme");
        assert!(list.check("https://api.example.com:8443/").is_err(), "port");
        assert!(
            list.check("https://evil.com/?https://api.example.com")
                .is_err()
        );
        assert!(list.check("https://api.example.com.evil.com/").is_err());
        assert!(list.check("http://127.0.0.1:8080/hooks/a").is_ok());
        assert!(
            list.check("http://127.0.0.1:8080/admin").is_err(),
            "path prefix"
        );
        assert!(list.check("file:///etc/passwd").is_err());
        assert!(Allowlist::new(["ftp://x"]).is_err());
    }

    #[test]
    fn private_addresses_are_recognised() {
        for private in [
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "127.0.0.1",
            "169.254.1.1",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fc00::1",
            "fe80::1",
            "::ffff:10.0.0.1",
        ] {
            assert!(!is_public(private.parse().unwrap()), "{private}");
        }
        for public in ["1.1.1.1", "93.184.216.34", "2606:4700::1111"] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }
}

//! The `mcpServers` config shape most MCP hosts use: one entry per server
//! (a program to start, or a URL with headers), and reading a whole file.

use std::collections::BTreeMap;
use std::path::Path;

use hyper::http::{HeaderName, HeaderValue};
use serde::Deserialize;

/// One entry of the common `mcpServers` config shape: a stdio server
/// (`command`, `args`, `env`) or a streamable HTTP one (`url`, `headers`).
/// Read a whole file with [`load_servers_file`], or build one in code for
/// [`McpClient::connect`](super::McpClient::connect).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct ServerConfig {
    /// The program of a stdio server.
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Its environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The URL of a streamable HTTP server.
    pub url: Option<String>,
    /// HTTP headers sent with every request to `url`, e.g.
    /// `{"Authorization": "Bearer ${NODE_A_TOKEN}"}`; `${NAME}` is replaced
    /// by the environment variable `NAME` (an unset one is an error), so
    /// tokens need not sit in the file.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
}

impl ServerConfig {
    /// The headers with `${NAME}` replaced from the environment: the bearer
    /// token of an `Authorization: Bearer …` header apart, then the others.
    pub(super) fn http_headers(
        &self,
    ) -> Result<
        (
            Option<String>,
            std::collections::HashMap<HeaderName, HeaderValue>,
        ),
        String,
    > {
        let mut bearer = None;
        let mut others = std::collections::HashMap::new();
        for (name, value) in &self.headers {
            let value = expand_env(value).map_err(|var| {
                format!("header {name}: the environment variable {var} is not set")
            })?;
            if name.eq_ignore_ascii_case("authorization")
                && let Some((scheme, token)) = value.trim().split_once(' ')
                && scheme.eq_ignore_ascii_case("bearer")
            {
                bearer = Some(token.trim().to_owned());
                continue;
            }
            let header = HeaderName::try_from(name.as_str())
                .map_err(|_| format!("{name:?} is not a valid HTTP header name"))?;
            let value = HeaderValue::try_from(value).map_err(|_| {
                format!("header {name}: the value is not a valid HTTP header value")
            })?;
            others.insert(header, value);
        }
        Ok((bearer, others))
    }
}

/// `text` with every `${NAME}` replaced by the environment variable; the
/// name of the first unset one otherwise.
fn expand_env(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let name = &rest[start + 2..start + end];
        out.push_str(&std::env::var(name).map_err(|_| name.to_owned())?);
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `{"mcpServers": {name: ServerConfig}}`: the file Claude Desktop, Cursor
/// and most MCP hosts use, so users can point the program at the file they
/// already have.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct ServersFile {
    /// Servers by name.
    #[serde(rename = "mcpServers", default)]
    pub servers: BTreeMap<String, ServerConfig>,
}

/// Why an `mcpServers` file could not be read ([`load_servers_file`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServersFileError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not an `mcpServers` JSON file.
    #[error("{} is not a valid mcpServers file: {source}", path.display())]
    Parse {
        /// The file.
        path: std::path::PathBuf,
        /// Where and why.
        #[source]
        source: serde_json::Error,
    },
}

/// Reads an `mcpServers` config file.
pub fn load_servers_file(path: &Path) -> Result<ServersFile, ServersFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| ServersFileError::Read {
        path: path.to_owned(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| ServersFileError::Parse {
        path: path.to_owned(),
        source,
    })
}

//! Access keys for MCP over HTTP: bearer tokens, each with a [`ToolScope`].

use std::path::{Path, PathBuf};

use hyper::HeaderMap;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use optimclaw::{ScopeError, ToolScope};

/// Tokens shorter than this are refused: they could be guessed.
pub const MIN_TOKEN_CHARS: usize = 16;

/// The environment variable [`HttpAuth::from_env`] reads.
pub const TOKEN_ENV: &str = "OPTIMCLAW_MCP_TOKEN";

/// Why access keys could not be set up ([`HttpAuth`]).
///
/// Its text is complete on its own (it includes the cause's);
/// [`source`](std::error::Error::source) gives the typed cause.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// A token is too short or holds whitespace.
    #[error(
        "an MCP access token needs at least {MIN_TOKEN_CHARS} characters and no spaces (e.g. the output of `openssl rand -hex 32`)"
    )]
    WeakToken,
    /// The token in [`TOKEN_ENV`] is too short or holds whitespace.
    #[error(
        "{TOKEN_ENV}: an MCP access token needs at least {MIN_TOKEN_CHARS} characters and no spaces (e.g. the output of `openssl rand -hex 32`)"
    )]
    WeakEnvToken,
    /// The token file could not be read.
    #[error("cannot read the token file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A line of the token file holds a weak token.
    #[error(
        "{} line {line}: an MCP access token needs at least {MIN_TOKEN_CHARS} characters and no spaces (e.g. the output of `openssl rand -hex 32`)",
        path.display()
    )]
    WeakTokenAt {
        /// The file.
        path: PathBuf,
        /// The line (from 1).
        line: usize,
    },
    /// A line of the token file holds a bad tool pattern.
    #[error("{} line {line}: {source}", path.display())]
    Pattern {
        /// The file.
        path: PathBuf,
        /// The line (from 1).
        line: usize,
        /// The pattern.
        #[source]
        source: ScopeError,
    },
    /// The token file holds no token.
    #[error("the token file {} holds no token", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
}

#[derive(Clone)]
struct AccessKey {
    /// SHA-256 of the token: compared in constant time, and the token
    /// itself is not kept in memory.
    digest: [u8; 32],
    scope: ToolScope,
}

/// Who may use an MCP server over HTTP.
///
/// Every request must carry `Authorization: Bearer TOKEN` with a known
/// token; otherwise it gets HTTP 401 with `WWW-Authenticate: Bearer`.
/// Each token has a [`ToolScope`]: `tools/list`, `tool_info` and
/// `tools/call` on its requests know only the tools in it.
///
/// ```
/// use optimclaw::ToolScope;
/// use optimclaw_mcp::HttpAuth;
/// let auth = HttpAuth::new()
///     .key("a-long-random-admin-token", ToolScope::all())
///     .unwrap()
///     .key("a-long-random-github-token", ToolScope::new(["github__*"]).unwrap())
///     .unwrap();
/// assert_eq!(auth.len(), 2);
/// assert!(HttpAuth::new().key("short", ToolScope::all()).is_err());
/// ```
#[derive(Clone, Default)]
pub struct HttpAuth {
    keys: Vec<AccessKey>,
}

impl std::fmt::Debug for HttpAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpAuth")
            .field("keys", &self.keys.len())
            .finish()
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl HttpAuth {
    /// No keys yet (and so no access until one is added).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a token for the tools in `scope`. Tokens need at least
    /// [`MIN_TOKEN_CHARS`] characters, without whitespace.
    pub fn key(mut self, token: &str, scope: ToolScope) -> Result<Self, AuthError> {
        let token = token.trim();
        if token.chars().count() < MIN_TOKEN_CHARS || token.contains(char::is_whitespace) {
            return Err(AuthError::WeakToken);
        }
        self.keys.push(AccessKey {
            digest: digest(token),
            scope,
        });
        Ok(self)
    }

    /// One token, for every tool.
    pub fn token(token: &str) -> Result<Self, AuthError> {
        Self::new().key(token, ToolScope::all())
    }

    /// The token in [`TOKEN_ENV`] (every tool), if set.
    pub fn from_env() -> Option<Result<Self, AuthError>> {
        let token = std::env::var(TOKEN_ENV).ok()?;
        Some(Self::token(&token).map_err(|_| AuthError::WeakEnvToken))
    }

    /// Keys from a file: one per line, the token then the tool patterns it
    /// may reach (none: every tool); blank lines and `#` comments skipped.
    ///
    /// ```text
    /// # admin
    /// 3f1c9a0e5b7d2468ace13579bdf02468
    /// # GitHub tools and echo only
    /// 9b8a7c6d5e4f30211203f4e5d6c7b8a9 github__* echo
    /// ```
    pub fn from_file(path: &Path) -> Result<Self, AuthError> {
        let text = std::fs::read_to_string(path).map_err(|source| AuthError::Read {
            path: path.to_owned(),
            source,
        })?;
        let mut auth = Self::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut fields = line.split_whitespace();
            let token = fields.next().unwrap_or_default();
            let patterns: Vec<&str> = fields.collect();
            let scope = if patterns.is_empty() {
                ToolScope::all()
            } else {
                ToolScope::new(patterns).map_err(|source| AuthError::Pattern {
                    path: path.to_owned(),
                    line: n + 1,
                    source,
                })?
            };
            auth = auth.key(token, scope).map_err(|_| AuthError::WeakTokenAt {
                path: path.to_owned(),
                line: n + 1,
            })?;
        }
        if auth.keys.is_empty() {
            return Err(AuthError::Empty {
                path: path.to_owned(),
            });
        }
        Ok(auth)
    }

    /// How many keys there are.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there is no key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The request's key (its index, for per-key quotas) and scope, or why
    /// it has none.
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<(usize, ToolScope), Refusal> {
        let Some(value) = headers.get(hyper::header::AUTHORIZATION) else {
            return Err(Refusal::Missing);
        };
        let presented = value
            .to_str()
            .ok()
            .and_then(|v| {
                let (scheme, token) = v.trim().split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
            })
            .ok_or(Refusal::Invalid)?;
        let presented = digest(presented);
        // Every key is compared (no early exit), each in constant time.
        let mut found: Option<(usize, &ToolScope)> = None;
        for (index, key) in self.keys.iter().enumerate() {
            if bool::from(key.digest.ct_eq(&presented)) {
                found = Some((index, &key.scope));
            }
        }
        found
            .map(|(index, scope)| (index, scope.clone()))
            .ok_or(Refusal::Invalid)
    }
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No `Authorization` header.
    Missing,
    /// A header that is not a known bearer token.
    Invalid,
}

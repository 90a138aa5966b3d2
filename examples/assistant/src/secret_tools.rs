//! Secrets: values go in, only references and fingerprints come out.

use optimclaw::{ToolContext, ToolError, tool};
use serde_json::{Value, json};

use crate::core_tools::app;
use crate::secrets::SecretInfo;

/// Store a secret (API key, token, password) under a name, bound to the
/// URL prefixes it may be sent to. The value is never shown again: use
/// `{{secret:NAME}}` in http URLs, headers or bodies to those URLs.
#[tool(deferred, asks = ["store my password for the email server"], keywords = ["credential", "password", "token", "api key", "store", "save", "keep", "securely"],
    examples = [{"name": "GITHUB_TOKEN", "value": "ghp_example", "allowed_urls": ["https://api.github.com"]}], destructive, idempotent)]
fn secrets_set(
    ctx: &ToolContext,
    /// The secret's name, e.g. github_token.
    name: String,
    /// The value.
    value: String,
    /// URL prefixes the value may be sent to, e.g. https://api.github.com;
    /// without any, the secret cannot be used until stored again with some.
    #[arg(default)]
    allowed_urls: Vec<String>,
) -> Result<SecretInfo, ToolError> {
    app(ctx)?.secrets.set(&name, &value, &allowed_urls)
}

/// Describe a stored secret: its length, a fingerprint and the reference to
/// use in http requests. The value itself is never returned.
#[tool(deferred, keywords = ["credential", "password", "token", "api key", "lookup", "describe", "value"], read_only)]
fn secrets_get(
    ctx: &ToolContext,
    /// The secret's name.
    name: String,
) -> Result<SecretInfo, ToolError> {
    app(ctx)?.secrets.get(&name)
}

/// List the names of stored secrets (never their values).
#[tool(deferred, keywords = ["credential", "password", "token", "api key", "saved", "stored"], read_only)]
fn secrets_list(ctx: &ToolContext) -> Result<Vec<SecretInfo>, ToolError> {
    app(ctx)?.secrets.list()
}

/// Delete a stored secret.
#[tool(deferred, keywords = ["credential", "password", "token", "api key", "remove", "revoke"], destructive, idempotent)]
fn secrets_delete(
    ctx: &ToolContext,
    /// The secret's name.
    name: String,
) -> Result<Value, ToolError> {
    if !app(ctx)?.secrets.delete(&name)? {
        return Err(ToolError::new(format!("no secret is named {name:?}")));
    }
    Ok(json!({"deleted": name}))
}

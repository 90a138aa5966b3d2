//! Secrets in a file only its owner can read (mode 0600). A secret's value
//! never leaves this module toward the model: tools get references
//! (`{{secret:NAME}}`) that are expanded just before a request is sent —
//! and only in requests to the URL prefixes the secret is bound to — and
//! every tool's output is redacted of every known value, also re-encoded
//! (see [`crate::redact`]).

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use optimclaw::ToolError;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use url::Url;

use crate::net::{Allowlist, redact_url};
use crate::redact::Redactor;

/// One stored secret.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Entry {
    value: String,
    /// URL prefixes the value may be sent to (scheme, host, port and path
    /// prefix, as in the allowlist); empty: nowhere.
    #[serde(default)]
    allow: Vec<String>,
}

/// The file's entries: `{"value", "allow"}`, or a bare string (a secret
/// stored before bindings existed, bound nowhere).
#[derive(Deserialize)]
#[serde(untagged)]
enum Stored {
    Bound(Entry),
    Bare(String),
}

/// When the store file last changed, to know when to rebuild the redactor.
type Stamp = Option<(SystemTime, u64)>;

/// The secret store.
#[derive(Debug)]
pub struct SecretStore {
    path: PathBuf,
    lock: Mutex<()>,
    redactor: Mutex<Option<(Stamp, Arc<Redactor>)>>,
}

/// What a model may learn about a secret.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema, PartialEq, Eq)]
pub struct SecretInfo {
    /// Its name.
    pub name: String,
    /// How many characters the value has.
    pub length: usize,
    /// The first 8 hex digits of the value's SHA-256, to tell values apart.
    pub fingerprint: String,
    /// What to write in an `http` URL, header or body to use the value.
    pub reference: String,
    /// The URL prefixes the value may be sent to (empty: nowhere yet).
    pub allowed_urls: Vec<String>,
}

/// Secret names: letters, digits, `_`, `-`, `.`; 1 to 64 characters.
pub fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
}

impl SecretStore {
    /// A store in `path` (created on first write).
    pub fn new(path: &Path) -> Self {
        SecretStore {
            path: path.to_owned(),
            lock: Mutex::new(()),
            redactor: Mutex::new(None),
        }
    }

    fn read(&self) -> Result<BTreeMap<String, Entry>, ToolError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str::<BTreeMap<String, Stored>>(&text)
                .map(|map| {
                    map.into_iter()
                        .map(|(name, stored)| match stored {
                            Stored::Bound(entry) => (name, entry),
                            Stored::Bare(value) => (
                                name,
                                Entry {
                                    value,
                                    allow: Vec::new(),
                                },
                            ),
                        })
                        .collect()
                })
                .map_err(|_| {
                    ToolError::new(
                        "the secret store is damaged (not a JSON object of {\"value\", \"allow\"} entries); fix or remove it",
                    )
                }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(ToolError::new(format!(
                "cannot read the secret store: {}",
                e.kind()
            ))),
        }
    }

    fn write(&self, map: &BTreeMap<String, Entry>) -> Result<(), ToolError> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| {
                ToolError::new(format!("cannot create the secrets folder: {}", e.kind()))
            })?;
        }
        let tmp = self.path.with_extension("tmp");
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(|e| ToolError::new(format!("cannot write the secret store: {}", e.kind())))?;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))
            .and_then(|()| {
                file.write_all(
                    serde_json::to_string_pretty(map)
                        .unwrap_or_default()
                        .as_bytes(),
                )
            })
            .and_then(|()| file.sync_all())
            .and_then(|()| std::fs::rename(&tmp, &self.path))
            .map_err(|e| ToolError::new(format!("cannot write the secret store: {}", e.kind())))
    }

    fn info(name: &str, entry: &Entry) -> SecretInfo {
        let digest = Sha256::digest(entry.value.as_bytes());
        SecretInfo {
            name: name.to_owned(),
            length: entry.value.chars().count(),
            fingerprint: digest.iter().take(4).map(|b| format!("{b:02x}")).collect(),
            reference: format!("{{{{secret:{name}}}}}"),
            allowed_urls: entry.allow.clone(),
        }
    }

    fn check_name(name: &str) -> Result<(), ToolError> {
        if valid_name(name) {
            Ok(())
        } else {
            Err(ToolError::new(
                "secret names use letters, digits, `_`, `-` and `.` (1 to 64 characters)",
            ))
        }
    }

    /// Stores a value that may be sent only to URLs under the `allow`
    /// prefixes (`https://api.github.com`, `http://127.0.0.1:8080/hooks/`;
    /// none: nowhere until stored again with prefixes).
    pub fn set(&self, name: &str, value: &str, allow: &[String]) -> Result<SecretInfo, ToolError> {
        Self::check_name(name)?;
        if value.is_empty() {
            return Err(ToolError::new("the secret's value is empty"));
        }
        let parsed = Allowlist::new(allow)
            .map_err(|e| ToolError::new(format!("{e}; allowed_urls takes http(s) URL prefixes")))?;
        let entry = Entry {
            value: value.to_owned(),
            allow: parsed.entries().iter().map(|u| u.to_string()).collect(),
        };
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut map = self.read()?;
        map.insert(name.to_owned(), entry.clone());
        self.write(&map)?;
        self.forget_redactor();
        Ok(Self::info(name, &entry))
    }

    /// What is known about a secret, without its value.
    pub fn get(&self, name: &str) -> Result<SecretInfo, ToolError> {
        Self::check_name(name)?;
        let map = self.read()?;
        map.get(name).map(|e| Self::info(name, e)).ok_or_else(|| {
            ToolError::new(format!(
                "no secret is named {name:?}; secrets_list shows the names"
            ))
        })
    }

    /// Every secret, without values.
    pub fn list(&self) -> Result<Vec<SecretInfo>, ToolError> {
        Ok(self.read()?.iter().map(|(k, v)| Self::info(k, v)).collect())
    }

    /// Deletes a secret; whether it existed.
    pub fn delete(&self, name: &str) -> Result<bool, ToolError> {
        Self::check_name(name)?;
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut map = self.read()?;
        let existed = map.remove(name).is_some();
        if existed {
            self.write(&map)?;
            self.forget_redactor();
        }
        Ok(existed)
    }

    /// Replaces `{{secret:NAME}}` with values for a request to `target`.
    /// Unknown names, and secrets not bound to a prefix of `target`, are
    /// errors that name the secret and the host, never a value. Also
    /// returns whether any secret was used.
    pub fn expand_for(&self, text: &str, target: &Url) -> Result<(String, bool), ToolError> {
        if !text.contains("{{secret:") {
            return Ok((text.to_owned(), false));
        }
        let map = self.read()?;
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("{{secret:") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 9..];
            let Some(end) = after.find("}}") else {
                return Err(ToolError::new("an unterminated {{secret:…}} reference"));
            };
            let name = &after[..end];
            let entry = map.get(name).ok_or_else(|| {
                ToolError::new(format!("{{{{secret:{name}}}}} names no stored secret"))
            })?;
            let bound = Allowlist::new(&entry.allow).map_err(ToolError::new)?;
            if !bound.allows(target) {
                let host = target.host_str().unwrap_or("?");
                let to = if entry.allow.is_empty() {
                    "nowhere yet (store it again with secrets_set and allowed_urls)".to_owned()
                } else {
                    entry.allow.join(", ")
                };
                return Err(ToolError::new(format!(
                    "the secret {name} may not be sent to {host} ({}): it is bound to {to}",
                    redact_url(target)
                )));
            }
            out.push_str(&entry.value);
            rest = &after[end + 2..];
        }
        out.push_str(rest);
        Ok((out, true))
    }

    fn forget_redactor(&self) {
        *self.redactor.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// The redactor for the values stored now (rebuilt when the file
    /// changes).
    fn redactor(&self) -> Option<Arc<Redactor>> {
        let stamp: Stamp = std::fs::metadata(&self.path)
            .ok()
            .and_then(|m| Some((m.modified().ok()?, m.len())));
        let mut cached = self.redactor.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((seen, redactor)) = cached.as_ref()
            && *seen == stamp
            && stamp.is_some()
        {
            return Some(Arc::clone(redactor));
        }
        let map = self.read().ok()?;
        let redactor = Arc::new(Redactor::new(
            map.iter().map(|(k, e)| (k.as_str(), e.value.as_str())),
        ));
        *cached = Some((stamp, Arc::clone(&redactor)));
        Some(redactor)
    }

    /// `text` with every stored value (of 4 or more characters), runs of
    /// 8 or more of its characters, and their common re-encodings replaced
    /// by `[secret:NAME]`; `None` when there is nothing to hide.
    pub fn filter(&self, text: &str) -> Option<String> {
        self.redactor()?.redact(text)
    }

    /// [`filter`](Self::filter), keeping `text` when nothing is hidden.
    pub fn redact(&self, text: &str) -> String {
        self.filter(text).unwrap_or_else(|| text.to_owned())
    }
}

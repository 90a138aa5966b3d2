//! Secrets in a file only its owner can read (mode 0600). A secret's value
//! never leaves this module toward the model: tools get references
//! (`{{secret:NAME}}`) that are expanded just before a request is sent, and
//! tool output is redacted of every known value.

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use optimclaw::ToolError;
use sha2::{Digest, Sha256};

/// The secret store.
#[derive(Debug)]
pub struct SecretStore {
    path: PathBuf,
    lock: Mutex<()>,
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
    /// What to write in an `http` header or body to use the value.
    pub reference: String,
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
        }
    }

    fn read(&self) -> Result<BTreeMap<String, String>, ToolError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text).map_err(|_| {
                ToolError::new(
                    "the secret store is damaged (not a JSON object of strings); fix or remove it",
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(ToolError::new(format!(
                "cannot read the secret store: {}",
                e.kind()
            ))),
        }
    }

    fn write(&self, map: &BTreeMap<String, String>) -> Result<(), ToolError> {
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

    fn info(name: &str, value: &str) -> SecretInfo {
        let digest = Sha256::digest(value.as_bytes());
        SecretInfo {
            name: name.to_owned(),
            length: value.chars().count(),
            fingerprint: digest.iter().take(4).map(|b| format!("{b:02x}")).collect(),
            reference: format!("{{{{secret:{name}}}}}"),
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

    /// Stores a value.
    pub fn set(&self, name: &str, value: &str) -> Result<SecretInfo, ToolError> {
        Self::check_name(name)?;
        if value.is_empty() {
            return Err(ToolError::new("the secret's value is empty"));
        }
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut map = self.read()?;
        map.insert(name.to_owned(), value.to_owned());
        self.write(&map)?;
        Ok(Self::info(name, value))
    }

    /// What is known about a secret, without its value.
    pub fn get(&self, name: &str) -> Result<SecretInfo, ToolError> {
        Self::check_name(name)?;
        let map = self.read()?;
        map.get(name).map(|v| Self::info(name, v)).ok_or_else(|| {
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
        }
        Ok(existed)
    }

    /// Replaces `{{secret:NAME}}` with values. Unknown names are an error
    /// that names the reference, never a value.
    pub fn expand(&self, text: &str) -> Result<String, ToolError> {
        if !text.contains("{{secret:") {
            return Ok(text.to_owned());
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
            let value = map.get(name).ok_or_else(|| {
                ToolError::new(format!("{{{{secret:{name}}}}} names no stored secret"))
            })?;
            out.push_str(value);
            rest = &after[end + 2..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// Replaces every stored value (of 4 or more characters) in `text` with
    /// `[secret:NAME]`.
    pub fn redact(&self, text: &str) -> String {
        let Ok(map) = self.read() else {
            return text.to_owned();
        };
        let mut out = text.to_owned();
        let mut values: Vec<(&String, &String)> =
            map.iter().filter(|(_, v)| v.len() >= 4).collect();
        values.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
        for (name, value) in values {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), &format!("[secret:{name}]"));
            }
        }
        out
    }
}

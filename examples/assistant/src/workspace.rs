//! Paths confined to a workspace folder: `..`, absolute paths and symlinks
//! that leave it are refused, and so are special files.

use std::path::{Component, Path, PathBuf};

use optimclaw::ToolError;

/// The folder file tools and `shell` work in.
#[derive(Clone, Debug)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// Uses `root` (created if missing) as the workspace.
    pub fn new(root: &Path) -> std::io::Result<Self> {
        std::fs::create_dir_all(root)?;
        Ok(Workspace {
            root: root.canonicalize()?,
        })
    }

    /// The canonical root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a path given by a model to a path inside the workspace.
    ///
    /// Refused: empty paths, absolute paths, `..` components, and paths
    /// whose existing part resolves (through symlinks) outside the root.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        let trimmed = path.trim();
        if trimmed.is_empty() {
            return Err(ToolError::new(
                "the path is empty; give a path relative to the workspace",
            ));
        }
        if trimmed.contains('\0') {
            return Err(ToolError::new("the path contains a NUL character"));
        }
        let rel = Path::new(trimmed);
        let mut clean = PathBuf::new();
        for component in rel.components() {
            match component {
                Component::Normal(part) => clean.push(part),
                Component::CurDir => {}
                Component::ParentDir => {
                    return Err(ToolError::new(format!(
                        "the path {trimmed:?} uses `..`; paths must stay inside the workspace"
                    )));
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(ToolError::new(format!(
                        "the path {trimmed:?} is absolute; give a path relative to the workspace"
                    )));
                }
            }
        }
        let full = self.root.join(&clean);
        // The longest existing ancestor decides where symlinks lead.
        let mut existing = full.as_path();
        let mut rest = Vec::new();
        while !existing.exists() && existing.symlink_metadata().is_err() {
            match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_owned());
                    existing = parent;
                }
                _ => break,
            }
        }
        let resolved = existing.canonicalize().map_err(|e| {
            ToolError::new(format!(
                "cannot resolve {trimmed:?}: {e} (a dangling symlink?)"
            ))
        })?;
        if !resolved.starts_with(&self.root) {
            return Err(ToolError::new(format!(
                "the path {trimmed:?} leads outside the workspace (through a symlink); refused"
            )));
        }
        let mut out = resolved;
        for part in rest.into_iter().rev() {
            out.push(part);
        }
        Ok(out)
    }

    /// Resolves a path that must be an existing regular file.
    pub fn existing_file(&self, path: &str) -> Result<PathBuf, ToolError> {
        let full = self.resolve(path)?;
        let meta = std::fs::metadata(&full)
            .map_err(|e| ToolError::new(format!("cannot read {path:?}: {e}")))?;
        if !meta.is_file() {
            return Err(ToolError::new(format!(
                "{path:?} is not a regular file (directories, devices, sockets and pipes are refused)"
            )));
        }
        Ok(full)
    }

    /// The path relative to the root, for answers.
    pub fn display(&self, path: &Path) -> String {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        let s = rel.to_string_lossy().into_owned();
        if s.is_empty() { ".".to_owned() } else { s }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        assert!(ws.resolve("notes/a.txt").unwrap().starts_with(ws.root()));
        assert!(ws.resolve("./a.txt").is_ok());
        for bad in ["../x", "a/../../x", "/etc/passwd", "", "  "] {
            assert!(ws.resolve(bad).is_err(), "{bad}");
        }
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.root().join("link")).unwrap();
        let err = ws.resolve("link/secret.txt").unwrap_err();
        assert!(err.to_string().contains("outside the workspace"), "{err}");
    }
}

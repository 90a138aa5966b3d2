//! Deferred file tools, confined to the workspace.

use optimclaw::{ToolContext, ToolError, tool};
use serde_json::{Value, json};

use crate::core_tools::app;

/// A matcher for a glob relative to `root`.
fn glob_matcher(
    root: &std::path::Path,
    pattern: &str,
) -> Result<ignore::overrides::Override, ToolError> {
    ignore::overrides::OverrideBuilder::new(root)
        .add(pattern)
        .and_then(|b| b.build())
        .map_err(|e| ToolError::new(format!("invalid glob {pattern:?}: {e}")))
}

/// List the entries of a folder in the workspace.
#[tool(deferred, keywords = ["ls", "directory", "folder", "files", "browse", "contents", "inside"], read_only)]
fn list_dir(
    ctx: &ToolContext,
    /// Folder relative to the workspace ("." for the root).
    #[arg(default = String::from("."))]
    path: String,
) -> Result<Vec<Value>, ToolError> {
    let app = app(ctx)?;
    let dir = app.workspace.resolve(&path)?;
    let entries = std::fs::read_dir(&dir)
        .map_err(|e| ToolError::new(format!("cannot list {path:?}: {e}")))?;
    let mut out: Vec<Value> = entries
        .flatten()
        .map(|e| {
            let meta = e.metadata().ok();
            let kind = match &meta {
                Some(m) if m.is_dir() => "dir",
                Some(m) if m.is_file() => "file",
                _ => "other",
            };
            json!({"name": e.file_name().to_string_lossy(), "kind": kind, "bytes": meta.map(|m| m.len())})
        })
        .collect();
    out.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    Ok(out)
}

/// Find files in the workspace whose paths match a glob such as `**/*.rs`.
#[tool(deferred, asks = ["find all the pdf files", "which python files are in src?"], keywords = ["find", "files", "pattern", "wildcard", "search", "extension", "recursive"], read_only)]
fn glob(
    ctx: &ToolContext,
    /// The glob, relative to the workspace, e.g. `src/**/*.rs`.
    pattern: String,
    /// How many paths at most.
    #[arg(default = 200)]
    limit: usize,
) -> Result<Vec<String>, ToolError> {
    let app = app(ctx)?;
    let matcher = glob_matcher(app.workspace.root(), &pattern)?;
    let mut out = Vec::new();
    for entry in ignore::WalkBuilder::new(app.workspace.root())
        .hidden(false)
        .build()
        .flatten()
    {
        if entry.file_type().is_some_and(|t| t.is_file())
            && matcher.matched(entry.path(), false).is_whitelist()
        {
            out.push(app.workspace.display(entry.path()));
            if out.len() >= limit.clamp(1, 10_000) {
                break;
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Search file contents in the workspace with a regular expression; returns
/// matching lines with their file and line number.
#[tool(deferred, keywords = ["search", "find", "text", "regex", "contents", "mention", "lines containing", "code"],
    examples = [{"pattern": "TODO", "include": "*.rs", "limit": 20}], read_only)]
fn grep(
    ctx: &ToolContext,
    /// The regular expression (Rust syntax; `(?i)` for case-insensitive).
    pattern: String,
    /// Only files whose path matches this glob, e.g. `*.md`.
    include: Option<String>,
    /// How many matching lines at most.
    #[arg(default = 100)]
    limit: usize,
) -> Result<Vec<Value>, ToolError> {
    let app = app(ctx)?;
    let re =
        regex::Regex::new(&pattern).map_err(|e| ToolError::new(format!("invalid regex: {e}")))?;
    let filter = include
        .map(|g| glob_matcher(app.workspace.root(), &g))
        .transpose()?;
    let mut out = Vec::new();
    for entry in ignore::WalkBuilder::new(app.workspace.root())
        .build()
        .flatten()
    {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if let Some(f) = &filter
            && !f.matched(entry.path(), false).is_whitelist()
        {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            if re.is_match(line) {
                out.push(json!({"file": app.workspace.display(entry.path()), "line": n + 1, "text": line.chars().take(300).collect::<String>()}));
                if out.len() >= limit.clamp(1, 5_000) {
                    return Ok(out);
                }
            }
        }
    }
    Ok(out)
}

/// Apply a unified diff (as made by `diff -u` or git) to one file in the workspace.
#[tool(deferred, keywords = ["patch", "diff", "edit", "modify", "change"],
    examples = [{"path": "notes.txt", "patch": "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-old line\n+new line\n"}], destructive)]
fn apply_patch(
    ctx: &ToolContext,
    /// The file to change, relative to the workspace.
    path: String,
    /// The unified diff for that file.
    patch: String,
) -> Result<Value, ToolError> {
    let app = app(ctx)?;
    let full = app.workspace.existing_file(&path)?;
    let original = std::fs::read_to_string(&full)
        .map_err(|e| ToolError::new(format!("cannot read {path:?}: {e}")))?;
    let parsed = diffy::Patch::from_str(&patch)
        .map_err(|e| ToolError::new(format!("the patch cannot be parsed: {e}")))?;
    let patched = diffy::apply(&original, &parsed).map_err(|e| {
        ToolError::new(format!(
            "the patch does not apply to {path:?}: {e}; read the file and make a fresh diff"
        ))
    })?;
    std::fs::write(&full, &patched)
        .map_err(|e| ToolError::new(format!("cannot write {path:?}: {e}")))?;
    Ok(
        json!({"path": app.workspace.display(&full), "hunks": parsed.hunks().len(), "bytes": patched.len()}),
    )
}

/// Size, kind and modification time of a path in the workspace.
#[tool(deferred, keywords = ["stat", "size", "metadata", "exists", "modified", "big", "bytes"], read_only)]
fn file_info(
    ctx: &ToolContext,
    /// Path relative to the workspace.
    path: String,
) -> Result<Value, ToolError> {
    let app = app(ctx)?;
    let full = app.workspace.resolve(&path)?;
    let Ok(meta) = std::fs::metadata(&full) else {
        return Ok(json!({"path": path, "exists": false}));
    };
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| jiff::Timestamp::try_from(t).ok())
        .map(|t| t.to_string());
    Ok(
        json!({"path": app.workspace.display(&full), "exists": true, "kind": if meta.is_dir() { "dir" } else if meta.is_file() { "file" } else { "other" }, "bytes": meta.len(), "modified": modified}),
    )
}

/// Move or rename a file or folder within the workspace.
#[tool(deferred, keywords = ["rename", "mv", "relocate"], destructive)]
fn file_move(
    ctx: &ToolContext,
    /// The current path.
    from: String,
    /// The new path.
    to: String,
) -> Result<Value, ToolError> {
    let app = app(ctx)?;
    let src = app.workspace.resolve(&from)?;
    let dst = app.workspace.resolve(&to)?;
    if dst.exists() {
        return Err(ToolError::new(format!(
            "{to:?} exists; remove it first or pick another name"
        )));
    }
    std::fs::rename(&src, &dst)
        .map_err(|e| ToolError::new(format!("cannot move {from:?}: {e}")))?;
    Ok(json!({"moved": app.workspace.display(&src), "to": app.workspace.display(&dst)}))
}

/// Delete a file (or an empty folder) in the workspace.
#[tool(deferred, keywords = ["remove", "rm", "erase", "trash", "get rid of"], destructive, idempotent)]
fn file_delete(
    ctx: &ToolContext,
    /// Path relative to the workspace.
    path: String,
) -> Result<Value, ToolError> {
    let app = app(ctx)?;
    let full = app.workspace.resolve(&path)?;
    if full == app.workspace.root() {
        return Err(ToolError::new("the workspace root cannot be deleted"));
    }
    let meta = std::fs::symlink_metadata(&full)
        .map_err(|_| ToolError::new(format!("{path:?} does not exist")))?;
    if meta.is_dir() {
        std::fs::remove_dir(&full).map_err(|e| {
            ToolError::new(format!("cannot delete folder {path:?} (is it empty?): {e}"))
        })?;
    } else {
        std::fs::remove_file(&full)
            .map_err(|e| ToolError::new(format!("cannot delete {path:?}: {e}")))?;
    }
    Ok(json!({"deleted": path}))
}

/// Create a folder (and its parents) in the workspace.
#[tool(deferred, keywords = ["mkdir", "directory", "folder", "create"], idempotent)]
fn make_dir(
    ctx: &ToolContext,
    /// Path relative to the workspace.
    path: String,
) -> Result<Value, ToolError> {
    let app = app(ctx)?;
    let full = app.workspace.resolve(&path)?;
    std::fs::create_dir_all(&full)
        .map_err(|e| ToolError::new(format!("cannot create {path:?}: {e}")))?;
    app.workspace.resolve(&path)?;
    Ok(json!({"created": app.workspace.display(&full)}))
}

/// Delete a memory by id.
#[tool(deferred, keywords = ["memory", "memories", "forget", "remove", "erase"], destructive, idempotent)]
fn memory_delete(
    ctx: &ToolContext,
    /// The memory's id (from memory_search).
    id: i64,
) -> Result<Value, ToolError> {
    if !app(ctx)?
        .memory
        .delete(id)
        .map_err(|e| ToolError::new(e.to_string()))?
    {
        return Err(ToolError::new(format!("no memory has id {id}")));
    }
    Ok(json!({"deleted": id}))
}

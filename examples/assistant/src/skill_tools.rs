//! Skills: Markdown files with YAML front matter (`name`, `description`,
//! `tags`) in the skills folder.

use std::path::{Path, PathBuf};

use optimclaw::{ToolContext, ToolError, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::core_tools::app;

#[derive(Debug, Deserialize)]
struct FrontMatter {
    name: String,
    description: String,
    #[serde(default)]
    tags: Vec<String>,
}

/// A skill.
#[derive(Debug, Serialize, JsonSchema, PartialEq)]
struct Skill {
    /// Its name.
    name: String,
    /// What it is for.
    description: String,
    /// Its tags.
    tags: Vec<String>,
    /// The file, relative to the skills folder.
    file: String,
}

/// Splits `---\nYAML\n---\nbody`.
fn parse_skill(text: &str) -> Result<(FrontMatter, &str), String> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("a skill starts with YAML front matter between `---` lines")?;
    let end = rest
        .find("\n---")
        .ok_or("the front matter has no closing `---` line")?;
    let meta: FrontMatter =
        serde_yaml_ng::from_str(&rest[..end]).map_err(|e| format!("invalid front matter: {e}"))?;
    if meta.description.trim().is_empty() {
        return Err("the front matter needs a non-empty `description`".into());
    }
    let body = rest[end + 4..].trim_start_matches(['-', '\r', '\n']);
    Ok((meta, body))
}

fn skill_path(dir: &Path, name: &str) -> Result<PathBuf, ToolError> {
    if !crate::secrets::valid_name(name) || name.starts_with('.') {
        return Err(ToolError::new(
            "skill names use letters, digits, `_`, `-` and `.` (1 to 64 characters)",
        ));
    }
    Ok(dir.join(format!("{name}.md")))
}

fn load_all(dir: &Path) -> Vec<(Skill, String)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("md") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if let Ok((meta, body)) = parse_skill(&text) {
            let file = path
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            out.push((
                Skill {
                    name: meta.name,
                    description: meta.description,
                    tags: meta.tags,
                    file,
                },
                body.to_owned(),
            ));
        }
    }
    out.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    out
}

/// List installed skills with their descriptions.
#[tool(deferred, asks = ["what skills can you use?"], keywords = ["skills", "plugins", "capabilities", "installed", "available"], read_only)]
fn skill_list(ctx: &ToolContext) -> Result<Vec<Skill>, ToolError> {
    Ok(load_all(&app(ctx)?.skills_dir)
        .into_iter()
        .map(|(s, _)| s)
        .collect())
}

/// Search installed skills by keywords over names, descriptions, tags and text.
#[tool(deferred, asks = ["is there a skill that can format my resume?"], keywords = ["skills", "find", "search", "capabilities", "lookup"], read_only)]
fn skill_search(
    ctx: &ToolContext,
    /// Keywords.
    query: String,
    /// How many skills at most.
    #[arg(default = 5)]
    limit: usize,
) -> Result<Vec<Value>, ToolError> {
    let mut q = Vec::new();
    optimclaw::search::analyze(&query, &mut q);
    if q.is_empty() {
        return Err(ToolError::new("the query has no searchable words"));
    }
    let mut scored: Vec<(f64, Skill)> = load_all(&app(ctx)?.skills_dir)
        .into_iter()
        .filter_map(|(skill, body)| {
            let field = |text: &str, weight: f64| {
                let mut terms = Vec::new();
                optimclaw::search::analyze(text, &mut terms);
                weight * q.iter().filter(|t| terms.contains(t)).count() as f64
            };
            let score = field(&skill.name, 3.0)
                + field(&skill.tags.join(" "), 2.0)
                + field(&skill.description, 2.0)
                + field(&body, 0.5);
            (score > 0.0).then_some((score, skill))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
    Ok(scored
        .into_iter()
        .take(limit.clamp(1, 50))
        .map(|(score, s)| json!({"name": s.name, "description": s.description, "tags": s.tags, "score": score}))
        .collect())
}

/// Install a skill from Markdown text with front matter
/// (`---\nname: …\ndescription: …\ntags: [...]\n---\n…`), or from a file in the workspace.
#[tool(deferred, keywords = ["skills", "add", "plugin", "install"], destructive)]
fn skill_install(
    ctx: &ToolContext,
    /// The skill's name (must match the front matter).
    name: String,
    /// The skill's Markdown, with front matter.
    content: Option<String>,
    /// Or: a Markdown file in the workspace.
    from_path: Option<String>,
) -> Result<Skill, ToolError> {
    let app = app(ctx)?;
    let text = match (content, from_path) {
        (Some(c), None) => c,
        (None, Some(p)) => std::fs::read_to_string(app.workspace.existing_file(&p)?)
            .map_err(|e| ToolError::new(format!("cannot read {p:?}: {e}")))?,
        _ => {
            return Err(ToolError::new(
                "give exactly one of `content` or `from_path`",
            ));
        }
    };
    let (meta, _) =
        parse_skill(&text).map_err(|e| ToolError::new(format!("not a valid skill: {e}")))?;
    if meta.name != name {
        return Err(ToolError::new(format!(
            "the front matter names {:?}, not {name:?}",
            meta.name
        )));
    }
    let path = skill_path(&app.skills_dir, &name)?;
    std::fs::write(&path, &text)
        .map_err(|e| ToolError::new(format!("cannot write the skill: {e}")))?;
    Ok(Skill {
        name,
        description: meta.description,
        tags: meta.tags,
        file: format!("{}.md", meta.name),
    })
}

/// Remove an installed skill.
#[tool(deferred, keywords = ["skills", "delete", "uninstall", "plugin"], destructive, idempotent)]
fn skill_remove(
    ctx: &ToolContext,
    /// The skill's name.
    name: String,
) -> Result<Value, ToolError> {
    let path = skill_path(&app(ctx)?.skills_dir, &name)?;
    std::fs::remove_file(&path).map_err(|_| {
        ToolError::new(format!("no skill is named {name:?}; skill_list shows them"))
    })?;
    Ok(json!({"removed": name}))
}

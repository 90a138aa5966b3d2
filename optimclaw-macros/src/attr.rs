//! Parsing of `#[tool(...)]` and `#[arg(...)]`.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::{Expr, ExprLit, Lit, LitStr, Token};

use crate::ctxt::Ctxt;
use crate::example::{Json, parse_examples};

const TOOL_KEYS: &str = "`core`, `deferred`, `name`, `description`, `keywords`, `asks`, `examples`, `title`, `read_only`, `destructive`, `idempotent`, `open_world`, `crate`";
const ARG_KEYS: &str = "`default`, `rename`, `description`";

/// Whether a tool is always sent to the model or listed by name only.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Core,
    Deferred,
}

/// The arguments of `#[tool(...)]`.
#[derive(Default)]
pub struct ToolAttr {
    pub kind: Option<Kind>,
    pub name: Option<LitStr>,
    pub description: Option<LitStr>,
    pub keywords: Vec<LitStr>,
    /// Example user requests the tool answers (`asks = ["…"]`).
    pub asks: Vec<LitStr>,
    /// Example calls; `None` when the key is absent.
    pub examples: Option<Vec<Json>>,
    /// A human-readable title (MCP `title`).
    pub title: Option<LitStr>,
    /// Behaviour hints (MCP tool annotations), each with the token that set it.
    pub read_only: Option<syn::Path>,
    pub destructive: Option<syn::Path>,
    pub idempotent: Option<syn::Path>,
    pub open_world: Option<syn::Path>,
    pub krate: Option<syn::Path>,
}

/// The arguments of `#[arg(...)]` on one parameter.
#[derive(Default)]
pub struct ArgAttr {
    /// `default` alone (`None` inside) or `default = EXPR`.
    pub default: Option<Option<Expr>>,
    /// Where `default` is written (errors about the type's `Default` go there).
    pub default_span: Option<proc_macro2::Span>,
    pub rename: Option<LitStr>,
    pub description: Option<LitStr>,
}

fn key_name(meta: &ParseNestedMeta<'_>) -> String {
    meta.path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// Consumes whatever value follows an unknown or misused key so that parsing
/// can go on and report later mistakes too.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<proc_macro2::Group>()?;
    }
    Ok(())
}

/// Parses `= "literal"`, reporting a non-string value on its token.
fn string_value(cx: &Ctxt, meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Option<LitStr>> {
    let expr: Expr = meta.value()?.parse()?;
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok(Some(s)),
        other => {
            cx.error_spanned_by(
                &other,
                format!("`{key}` takes a string literal, e.g. {key} = \"…\""),
            );
            Ok(None)
        }
    }
}

fn repeated(cx: &Ctxt, meta: &ParseNestedMeta<'_>, key: &str, attr: &str) {
    cx.error_spanned_by(
        &meta.path,
        format!("repeated `{key}` in #[{attr}(...)]; give each key once"),
    );
}

fn no_value(cx: &Ctxt, meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<()> {
    if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
        cx.error_at(
            meta.input.span(),
            format!("`{key}` takes no value; write `{key}` alone"),
        );
        skip_value(meta)?;
    }
    Ok(())
}

/// Parses the tokens inside `#[tool(...)]`.
pub fn parse_tool_attr(cx: &Ctxt, args: TokenStream) -> ToolAttr {
    let mut attr = ToolAttr::default();
    let mut seen_keywords = false;
    let mut seen_asks = false;
    let parser = syn::meta::parser(|meta| {
        let key = key_name(&meta);
        match key.as_str() {
            "core" | "deferred" => {
                let kind = if key == "core" {
                    Kind::Core
                } else {
                    Kind::Deferred
                };
                match attr.kind {
                    Some(prev) if prev == kind => repeated(cx, &meta, &key, "tool"),
                    Some(_) => cx.error_spanned_by(
                        &meta.path,
                        "`core` and `deferred` cannot be used together; a tool is either always sent (`core`) or loaded on demand (`deferred`)",
                    ),
                    None => attr.kind = Some(kind),
                }
                no_value(cx, &meta, &key)?;
            }
            "name" | "description" => {
                let slot_taken = if key == "name" {
                    attr.name.is_some()
                } else {
                    attr.description.is_some()
                };
                if slot_taken {
                    repeated(cx, &meta, &key, "tool");
                    skip_value(&meta)?;
                } else if let Some(value) = string_value(cx, &meta, &key)? {
                    if key == "name" {
                        attr.name = Some(value);
                    } else {
                        attr.description = Some(value);
                    }
                }
            }
            "keywords" => {
                if seen_keywords {
                    repeated(cx, &meta, &key, "tool");
                    skip_value(&meta)?;
                } else {
                    seen_keywords = true;
                    let expr: Expr = meta.value()?.parse()?;
                    attr.keywords = parse_keywords(cx, &expr);
                }
            }
            "asks" => {
                if seen_asks {
                    repeated(cx, &meta, &key, "tool");
                    skip_value(&meta)?;
                } else {
                    seen_asks = true;
                    let expr: Expr = meta.value()?.parse()?;
                    attr.asks = parse_asks(cx, &expr);
                }
            }
            "title" => {
                if attr.title.is_some() {
                    repeated(cx, &meta, &key, "tool");
                    skip_value(&meta)?;
                } else if let Some(value) = string_value(cx, &meta, &key)? {
                    if value.value().trim().is_empty() {
                        cx.error_spanned_by(&value, "`title` cannot be empty; write a short human-readable name or remove it");
                    } else {
                        attr.title = Some(value);
                    }
                }
            }
            "read_only" | "destructive" | "idempotent" | "open_world" => {
                let slot = match key.as_str() {
                    "read_only" => &mut attr.read_only,
                    "destructive" => &mut attr.destructive,
                    "idempotent" => &mut attr.idempotent,
                    _ => &mut attr.open_world,
                };
                if slot.is_some() {
                    repeated(cx, &meta, &key, "tool");
                } else {
                    *slot = Some(meta.path.clone());
                }
                no_value(cx, &meta, &key)?;
            }
            "examples" => {
                if attr.examples.is_some() {
                    repeated(cx, &meta, &key, "tool");
                    skip_value(&meta)?;
                } else {
                    let examples = parse_examples(meta.value()?)?;
                    if examples.is_empty() {
                        cx.error_spanned_by(
                            &meta.path,
                            "`examples` is empty; give at least one example call or remove the key",
                        );
                    }
                    attr.examples = Some(examples);
                }
            }
            "crate" => {
                if attr.krate.is_some() {
                    repeated(cx, &meta, &key, "tool");
                    skip_value(&meta)?;
                } else {
                    attr.krate = Some(meta.value()?.parse()?);
                }
            }
            _ => {
                cx.error_spanned_by(
                    &meta.path,
                    format!("unknown key `{key}` in #[tool(...)]; accepted keys: {TOOL_KEYS}"),
                );
                skip_value(&meta)?;
            }
        }
        Ok(())
    });
    if let Err(err) = parser.parse2(args) {
        cx.syn_error(err);
    }
    if let (Some(_), Some(destructive)) = (&attr.read_only, &attr.destructive) {
        cx.error_spanned_by(
            destructive,
            "`read_only` and `destructive` contradict each other: a read-only tool changes nothing; keep the one that is true",
        );
    }
    attr
}

/// `asks = ["remind me to call mom tomorrow", …]`: requests a user would
/// write, each two words or more, none repeated.
fn parse_asks(cx: &Ctxt, expr: &Expr) -> Vec<LitStr> {
    const SHAPE: &str = "`asks` takes a list of example user requests, e.g. asks = [\"remind me to call mom tomorrow\"]";
    if let Expr::Array(array) = expr
        && array.elems.is_empty()
    {
        cx.error_spanned_by(
            array,
            "`asks` is empty; write a request a user would send, or remove the key",
        );
    }
    string_list(
        cx,
        expr,
        (SHAPE, SHAPE),
        |value| {
            if value.split_whitespace().count() < 2 {
                Some("an ask is a request a user would write (two words or more); put single words in `keywords`".to_owned())
            } else if value.chars().count() > 300 {
                Some("an ask is one request of at most 300 characters".to_owned())
            } else {
                None
            }
        },
        |value| format!("repeated ask \"{value}\"; list each request once"),
    )
}

fn parse_keywords(cx: &Ctxt, expr: &Expr) -> Vec<LitStr> {
    string_list(
        cx,
        expr,
        (
            "`keywords` takes a list of string literals, e.g. keywords = [\"schedule\", \"task\"]",
            "keywords must be string literals, e.g. keywords = [\"schedule\", \"task\"]",
        ),
        |value| {
            value
                .trim()
                .is_empty()
                .then(|| "keywords cannot be empty; remove it or write a word".to_owned())
        },
        |value| format!("repeated keyword \"{value}\"; list each keyword once"),
    )
}

/// A list of string literals: `shapes` are the errors for something else
/// than a list and for an item that is no string literal; `check` says
/// what is wrong with a value, `repeated` the error for one given twice
/// (ignoring case). Bad items are reported and left out.
fn string_list(
    cx: &Ctxt,
    expr: &Expr,
    shapes: (&str, &str),
    check: impl Fn(&str) -> Option<String>,
    repeated: impl Fn(&str) -> String,
) -> Vec<LitStr> {
    let Expr::Array(array) = expr else {
        cx.error_spanned_by(expr, shapes.0);
        return Vec::new();
    };
    let mut out: Vec<LitStr> = Vec::new();
    for elem in &array.elems {
        match elem {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => {
                let value = s.value();
                if let Some(problem) = check(&value) {
                    cx.error_spanned_by(s, problem);
                } else if out
                    .iter()
                    .any(|k| k.value().trim().eq_ignore_ascii_case(value.trim()))
                {
                    cx.error_spanned_by(s, repeated(&value));
                } else {
                    out.push(s.clone());
                }
            }
            other => cx.error_spanned_by(other, shapes.1),
        }
    }
    out
}

/// Parses every `#[arg(...)]` attribute of one parameter into one value.
pub fn parse_arg_attrs<'a>(
    cx: &Ctxt,
    attrs: impl IntoIterator<Item = &'a syn::Attribute>,
) -> ArgAttr {
    let mut out = ArgAttr::default();
    for attr in attrs {
        let list = match &attr.meta {
            syn::Meta::List(list) => list,
            other => {
                cx.error_spanned_by(
                    other,
                    format!("expected #[arg(...)] with one of {ARG_KEYS}"),
                );
                continue;
            }
        };
        let result = list.parse_nested_meta(|meta| {
            let key = key_name(&meta);
            match key.as_str() {
                "default" => {
                    if out.default.is_some() {
                        repeated(cx, &meta, &key, "arg");
                        skip_value(&meta)?;
                    } else if meta.input.peek(Token![=]) {
                        out.default = Some(Some(meta.value()?.parse()?));
                    } else {
                        out.default = Some(None);
                        out.default_span = Some(syn::spanned::Spanned::span(&meta.path));
                    }
                }
                "rename" | "description" => {
                    let taken = if key == "rename" {
                        out.rename.is_some()
                    } else {
                        out.description.is_some()
                    };
                    if taken {
                        repeated(cx, &meta, &key, "arg");
                        skip_value(&meta)?;
                    } else if let Some(v) = string_value(cx, &meta, &key)? {
                        if key == "rename" {
                            out.rename = Some(v);
                        } else {
                            out.description = Some(v);
                        }
                    }
                }
                _ => {
                    cx.error_spanned_by(
                        &meta.path,
                        format!("unknown key `{key}` in #[arg(...)]; accepted keys: {ARG_KEYS}"),
                    );
                    skip_value(&meta)?;
                }
            }
            Ok(())
        });
        if let Err(err) = result {
            cx.syn_error(err);
        }
    }
    out
}

/// The text of `#[doc = "..."]` attributes, one entry per line, with the
/// single leading space rustdoc adds removed. Non-literal doc attributes
/// (`#[doc = include_str!(..)]`) are returned as expressions.
pub enum DocPart {
    Text(String),
    Expr(Expr),
}

pub fn doc_parts(attrs: &[syn::Attribute]) -> Vec<DocPart> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => Some(match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => {
                    let v = s.value();
                    DocPart::Text(v.strip_prefix(' ').map(str::to_owned).unwrap_or(v))
                }
                other => DocPart::Expr(other.clone()),
            }),
            _ => None,
        })
        .collect()
}

/// Joins doc lines into a description the way rustdoc reads them: the
/// lines of one paragraph join with a space (no hard wraps reach a model),
/// a blank line separates paragraphs, and lines that start a block of their
/// own (list items, headings, quotes, table rows, fenced code) keep their
/// line breaks.
pub fn join_docs(parts: &[DocPart]) -> Option<String> {
    let lines = parts.iter().filter_map(|p| match p {
        DocPart::Text(t) => Some(t.as_str()),
        DocPart::Expr(_) => None,
    });
    let text = unwrap_paragraphs(lines);
    (!text.is_empty()).then_some(text)
}

/// See [`join_docs`]; one entry per doc line.
pub fn unwrap_paragraphs<'a>(lines: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    let mut in_fence = false;
    let mut blank = false;
    // The previous line must stay alone on its line (heading, table row,
    // fence, a line ending in a Markdown hard break).
    let mut alone = false;
    for raw in lines {
        // Doc literals may hold several lines (`#[doc = "a\nb"]`).
        for line in raw.split('\n') {
            let line = line.trim_end();
            let start = line.trim_start();
            let fence = start.starts_with("```") || start.starts_with("~~~");
            if in_fence && !fence {
                out.push('\n');
                out.push_str(line);
                continue;
            }
            if start.is_empty() {
                blank = !out.is_empty();
                continue;
            }
            if !out.is_empty() {
                if blank {
                    out.push_str("\n\n");
                } else if fence || alone || starts_block(start) {
                    out.push('\n');
                } else {
                    out.push(' ');
                }
            }
            let keep_indent = fence || starts_block(start);
            out.push_str(if keep_indent && !out.is_empty() {
                line
            } else {
                start
            });
            blank = false;
            alone = fence
                || start.starts_with('#')
                || start.starts_with('|')
                || raw.ends_with("  ")
                || start.ends_with('\\');
            if fence {
                in_fence = !in_fence;
            }
        }
    }
    out.trim().to_owned()
}

/// Whether a Markdown line opens a block of its own.
fn starts_block(line: &str) -> bool {
    let bullet = ["- ", "* ", "+ "].iter().any(|b| line.starts_with(b));
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    let numbered =
        digits > 0 && (line[digits..].starts_with(". ") || line[digits..].starts_with(") "));
    bullet || numbered || line.starts_with('#') || line.starts_with('>') || line.starts_with('|')
}

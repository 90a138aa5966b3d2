//! Checks across the parts of a tool, each reported on the token at fault.

use std::collections::HashMap;

use syn::{FnArg, Pat, ReturnType, Type};

use crate::ast::{ParamKind, Tool};
use crate::ctxt::Ctxt;
use crate::example::{Json, JsonValue};

/// The provider rule for tool names (OpenAI and Anthropic agree on it).
pub fn valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

pub fn check(cx: &Ctxt, tool: &Tool<'_>) {
    check_name(cx, tool);
    check_description(cx, tool);
    check_signature(cx, tool);
    check_examples(cx, tool);
    check_params(cx, tool);
}

fn check_name(cx: &Ctxt, tool: &Tool<'_>) {
    if valid_tool_name(&tool.name) {
        return;
    }
    let why = if tool.name.is_empty() {
        "is empty".to_owned()
    } else if tool.name.len() > 64 {
        format!("is {} characters long; the limit is 64", tool.name.len())
    } else {
        let bad: String = tool
            .name
            .chars()
            .filter(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
            .take(1)
            .collect();
        format!("contains {bad:?}")
    };
    let fix = if tool.attr.name.is_some() {
        "use only ASCII letters, digits, `_` and `-` (1 to 64 characters)"
    } else {
        "rename the function or set #[tool(name = \"…\")] with only ASCII letters, digits, `_` and `-` (1 to 64 characters)"
    };
    cx.error_at(
        tool.name_span,
        format!("invalid tool name \"{}\": it {why}; {fix}", tool.name),
    );
}

fn check_description(cx: &Ctxt, tool: &Tool<'_>) {
    if tool.description.is_some() || !tool.description_exprs.is_empty() {
        return;
    }
    match &tool.attr.description {
        Some(lit) => cx.error_spanned_by(lit, "`description` cannot be empty; say what the tool does"),
        None => cx.error_spanned_by(
            &tool.func.sig.ident,
            format!(
                "tool `{}` has no description; add a doc comment (`/// …`) saying what it does, or #[tool(description = \"…\")]",
                tool.name
            ),
        ),
    }
}

fn check_signature(cx: &Ctxt, tool: &Tool<'_>) {
    let sig = &tool.func.sig;
    if let Some(c) = &sig.constness {
        cx.error_spanned_by(c, "tool functions cannot be `const`; remove `const`");
    }
    if let syn::Safety::Unsafe(u) = &sig.safety {
        cx.error_spanned_by(
            u,
            "tool functions cannot be `unsafe`: a model calls them with arbitrary arguments; make the function safe",
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(
            abi,
            "tool functions cannot have an `extern` ABI; remove it and write a plain Rust function",
        );
    }
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            "tool functions cannot be generic; take concrete types (the schema is made from them)",
        );
    } else if let Some(w) = &sig.generics.where_clause {
        cx.error_spanned_by(
            w,
            "tool functions cannot have a `where` clause; take concrete types",
        );
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned_by(
            v,
            "tool functions cannot be variadic; take a `Vec<T>` parameter instead",
        );
    }
    if let ReturnType::Type(_, ty) = &sig.output
        && let Some(it) = find_impl_trait(ty)
    {
        cx.error_spanned_by(
            it,
            "tool functions cannot return `impl Trait`; name the concrete return type",
        );
    }
}

fn check_params(cx: &Ctxt, tool: &Tool<'_>) {
    for input in &tool.func.sig.inputs {
        if let FnArg::Receiver(r) = input {
            cx.error_spanned_by(
                r,
                "tool functions cannot take `self`; write a free function and take shared state as a `&T` parameter (given to the registry with `.state(…)`)",
            );
        }
    }
    let mut context_seen = false;
    let mut names: HashMap<&str, ()> = HashMap::new();
    for param in &tool.params {
        if param.ident.is_none() {
            let message = if matches!(&*param.arg.pat, Pat::Wild(_)) {
                "tool parameters need a name, which becomes the JSON field; replace `_` with a name"
            } else {
                "tool parameters cannot be patterns; bind a plain name (e.g. `point: (u8, u8)`) and destructure inside the function"
            };
            cx.error_spanned_by(&param.arg.pat, message);
        }
        match param.kind {
            ParamKind::State => {
                if let Some(a) = param.arg.attrs.iter().find(|a| a.path().is_ident("arg")) {
                    cx.error_spanned_by(
                        a,
                        "a `&T` parameter is shared state given to the registry, not an argument, and takes no #[arg(...)]; remove the attribute (or take an owned `T` to make it an argument)",
                    );
                }
            }
            ParamKind::Context => {
                if context_seen {
                    cx.error_spanned_by(
                        param.arg,
                        "a tool takes at most one `&ToolContext` parameter; remove this one",
                    );
                }
                context_seen = true;
                if let Some(a) = param.arg.attrs.iter().find(|a| a.path().is_ident("arg")) {
                    cx.error_spanned_by(
                        a,
                        "`&ToolContext` is injected by the runtime and takes no #[arg(...)]; remove the attribute",
                    );
                }
            }
            ParamKind::Arg => {
                if names_tool_context(param.ty) {
                    cx.error_spanned_by(
                        param.ty,
                        "the context is borrowed, not taken: write `ctx: &ToolContext`",
                    );
                } else if let Some(it) = find_impl_trait(param.ty) {
                    cx.error_spanned_by(
                        it,
                        "tool parameters cannot be `impl Trait`; use a concrete type that implements `Deserialize` and `JsonSchema`",
                    );
                } else if let Type::Reference(r) = param.ty {
                    cx.error_spanned_by(
                        r,
                        "tool parameters must be owned types (the arguments are deserialised per call); use `String` for `&str`, `Vec<T>` for `&[T]`; shared state is a `&T` of a named type, given to the registry with `.state(…)`",
                    );
                }
                if param.ident.is_some() {
                    if param.json_name.is_empty() {
                        cx.error_at(
                            param.json_name_span,
                            "`rename` cannot be empty; give the JSON name",
                        );
                    } else if names.insert(&param.json_name, ()).is_some() {
                        cx.error_at(
                            param.json_name_span,
                            format!(
                                "two parameters are named \"{}\" in the JSON arguments; give one of them another #[arg(rename = \"…\")]",
                                param.json_name
                            ),
                        );
                    }
                }
            }
        }
    }
}

/// The first `impl Trait` inside a type, for errors that point at it.
fn find_impl_trait(ty: &Type) -> Option<&Type> {
    match ty {
        Type::ImplTrait(_) => Some(ty),
        Type::Reference(r) => find_impl_trait(&r.elem),
        Type::Paren(p) => find_impl_trait(&p.elem),
        Type::Group(g) => find_impl_trait(&g.elem),
        Type::Slice(s) => find_impl_trait(&s.elem),
        Type::Array(a) => find_impl_trait(&a.elem),
        Type::Ptr(p) => find_impl_trait(&p.elem),
        Type::Tuple(t) => t.elems.iter().find_map(find_impl_trait),
        Type::Path(p) => p.path.segments.iter().find_map(|s| match &s.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                syn::GenericArgument::Type(t) => find_impl_trait(t),
                _ => None,
            }),
            _ => None,
        }),
        _ => None,
    }
}

/// Checks each example call against the parameters where the macro can
/// tell: it must be an object, name only parameters, give every required
/// one (neither `Option` nor `#[arg(default)]`), and give values of the
/// right JSON kind for plain types. What the macro cannot tell (nested
/// types, enums, serde attributes) is checked when the registry is built,
/// by decoding each example into the arguments.
fn check_examples(cx: &Ctxt, tool: &Tool<'_>) {
    let Some(examples) = &tool.attr.examples else {
        return;
    };
    // `#[serde(...)]` on a parameter may rename or flatten it: the names
    // the macro knows would be wrong, so those tools are checked at run time.
    let serde_attrs = tool
        .args()
        .any(|p| p.field_attrs.iter().any(|a| a.path().is_ident("serde")));
    let names: Vec<&str> = tool.args().map(|p| p.json_name.as_str()).collect();
    for (i, example) in examples.iter().enumerate() {
        let n = i + 1;
        let JsonValue::Object(fields) = &example.value else {
            cx.error_at(
                example.span,
                format!(
                    "example {n} is {}; an example is an object of named arguments, e.g. {{\"{}\": …}}",
                    example.kind(),
                    names.first().copied().unwrap_or("name")
                ),
            );
            continue;
        };
        if serde_attrs {
            continue;
        }
        for (key, key_span, value) in fields {
            let Some(param) = tool.args().find(|p| p.json_name == *key) else {
                let known = if names.is_empty() {
                    "the tool takes no arguments".to_owned()
                } else {
                    format!("its arguments are {}", names.join(", "))
                };
                cx.error_at(
                    *key_span,
                    format!(
                        "example {n} names `{key}`, which is not an argument of this tool; {known}"
                    ),
                );
                continue;
            };
            let mut ty = param.ty;
            let mut optional = false;
            if let Some(inner) = generic_of(ty, "Option") {
                ty = inner;
                optional = true;
            }
            if optional && matches!(value.value, JsonValue::Null) {
                continue;
            }
            if let Some(expected) = json_kind(ty)
                && !expected.accepts(value)
            {
                cx.error_at(
                    value.span,
                    format!(
                        "example {n}: `{key}` takes {} ({}), the example gives {}",
                        expected.describe(),
                        quote::ToTokens::to_token_stream(ty)
                            .to_string()
                            .replace(' ', ""),
                        value.kind()
                    ),
                );
            }
        }
        for param in tool.args() {
            let required = param.attr.default.is_none() && generic_of(param.ty, "Option").is_none();
            if required && !fields.iter().any(|(k, _, _)| *k == param.json_name) {
                cx.error_at(
                    example.span,
                    format!(
                        "example {n} misses the required argument `{}`; add it, or give the parameter #[arg(default)]",
                        param.json_name
                    ),
                );
            }
        }
    }
}

/// The JSON kind a plain Rust type deserialises from.
#[derive(Clone, Copy)]
enum JsonKind {
    String,
    Integer,
    Number,
    Bool,
    Array,
}

impl JsonKind {
    fn accepts(self, value: &Json) -> bool {
        matches!(
            (self, &value.value),
            (JsonKind::String, JsonValue::Str(_))
                | (JsonKind::Integer, JsonValue::Int(_))
                | (JsonKind::Number, JsonValue::Int(_) | JsonValue::Float(_))
                | (JsonKind::Bool, JsonValue::Bool(_))
                | (JsonKind::Array, JsonValue::Array(_))
        )
    }

    fn describe(self) -> &'static str {
        match self {
            JsonKind::String => "a string",
            JsonKind::Integer => "an integer",
            JsonKind::Number => "a number",
            JsonKind::Bool => "a boolean",
            JsonKind::Array => "an array",
        }
    }
}

/// The kind of a type the macro recognises by its last path segment; `None`
/// for anything else (structs, enums, aliases), left to the run-time check.
fn json_kind(ty: &Type) -> Option<JsonKind> {
    let Type::Path(path) = ty else {
        return None;
    };
    let ident = path.path.segments.last()?.ident.to_string();
    Some(match ident.as_str() {
        "String" | "PathBuf" | "char" => JsonKind::String,
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128"
        | "usize" => JsonKind::Integer,
        "f32" | "f64" => JsonKind::Number,
        "bool" => JsonKind::Bool,
        "Vec" | "VecDeque" | "HashSet" | "BTreeSet" => JsonKind::Array,
        _ => return None,
    })
}

/// `T` of `Wrapper<T>` when `ty` is written `Wrapper<T>` (any path ending so).
fn generic_of<'t>(ty: &'t Type, wrapper: &str) -> Option<&'t Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != wrapper {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

/// Whether `ty` is a path ending in `ToolContext` (taken by value).
fn names_tool_context(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "ToolContext"),
        Type::Paren(p) => names_tool_context(&p.elem),
        _ => false,
    }
}

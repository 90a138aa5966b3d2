//! Checks across the parts of a tool, each reported on the token at fault.

use std::collections::HashMap;

use syn::{FnArg, Pat, ReturnType, Type};

use crate::ast::{ParamKind, Tool};
use crate::ctxt::Ctxt;

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
                "tool functions cannot take `self`; write a free function and pass shared state through `&ToolContext`",
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
                if let Some(it) = find_impl_trait(param.ty) {
                    cx.error_spanned_by(
                        it,
                        "tool parameters cannot be `impl Trait`; use a concrete type that implements `Deserialize` and `JsonSchema`",
                    );
                } else if let Type::Reference(r) = param.ty {
                    cx.error_spanned_by(
                        r,
                        "tool parameters must be owned types (the arguments are deserialised per call); use `String` for `&str`, `Vec<T>` for `&[T]`",
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

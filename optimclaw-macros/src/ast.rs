//! A typed model of the annotated function, borrowing the input.

use proc_macro2::Span;
use syn::{FnArg, Ident, ItemFn, Pat, Type};

use crate::attr::{self, ArgAttr, DocPart, Kind, ToolAttr};
use crate::ctxt::Ctxt;

/// The annotated function, as the expansion sees it.
pub struct Tool<'a> {
    pub func: &'a ItemFn,
    pub attr: ToolAttr,
    pub kind: Kind,
    /// The tool name and the token it came from (for errors).
    pub name: String,
    pub name_span: Span,
    /// The description text, if any literal text was found.
    pub description: Option<String>,
    /// Doc attributes that are not literals (`#[doc = include_str!(..)]`).
    pub description_exprs: Vec<syn::Expr>,
    pub params: Vec<Param<'a>>,
}

/// How a parameter gets its value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// `&ToolContext`: injected by the runtime, not part of the schema.
    Context,
    /// Deserialised from the JSON arguments.
    Arg,
    /// `&T` (not `&str`, a slice or `&ToolContext`): the registry's shared
    /// state of type `T`, injected; not part of the schema.
    State,
}

/// One parameter of the function.
pub struct Param<'a> {
    pub arg: &'a syn::PatType,
    /// The binding name; `None` for patterns, which validation rejects.
    pub ident: Option<&'a Ident>,
    pub ty: &'a Type,
    pub kind: ParamKind,
    /// `#[doc]`, `#[serde]` and `#[schemars]` attributes, moved onto the
    /// generated argument field.
    pub field_attrs: Vec<&'a syn::Attribute>,
    pub attr: ArgAttr,
    /// The name in the JSON arguments and the schema.
    pub json_name: String,
    /// The token the JSON name comes from (the ident or the `rename` literal).
    pub json_name_span: Span,
}

/// Attributes the macro consumes from parameters: rustc rejects doc
/// comments on parameters and does not know `arg`, `serde` or `schemars`.
pub fn is_param_attr(attr: &syn::Attribute) -> bool {
    ["doc", "arg", "serde", "schemars"]
        .iter()
        .any(|n| attr.path().is_ident(n))
}

/// Whether `ty` is written `&ToolContext` (any path ending in `ToolContext`).
/// The generated call passes `&ToolContext`, so an unrelated type of that name
/// is a type error at the user's parameter, not a silent mistake.
fn is_context(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Path(p) => p
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "ToolContext"),
            _ => false,
        },
        Type::Paren(p) => is_context(&p.elem),
        _ => false,
    }
}

/// `T` of a shared `&T` parameter that is state: not `&mut`, not `&str`, a
/// slice, `dyn`/`impl` or `&ToolContext` (those stay argument mistakes,
/// reported with their own fix).
pub fn state_type(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Reference(r) if r.mutability.is_none() => match &*r.elem {
            Type::Path(p) if p.qself.is_none() => {
                let last = p.path.segments.last()?;
                let plain = |s: &str| last.ident == s && p.path.segments.len() == 1;
                (!plain("str") && last.ident != "ToolContext").then_some(&*r.elem)
            }
            _ => None,
        },
        Type::Paren(p) => state_type(&p.elem),
        _ => None,
    }
}

impl<'a> Tool<'a> {
    pub fn from_fn(cx: &Ctxt, attr: ToolAttr, func: &'a ItemFn) -> Self {
        let (name, name_span) = match &attr.name {
            Some(lit) => (lit.value(), lit.span()),
            None => {
                let ident = func.sig.ident.to_string();
                let ident = ident.strip_prefix("r#").unwrap_or(&ident).to_owned();
                (ident, func.sig.ident.span())
            }
        };
        let docs = attr::doc_parts(&func.attrs);
        let description = match &attr.description {
            Some(lit) => Some(lit.value().trim().to_owned()).filter(|s| !s.is_empty()),
            None => attr::join_docs(&docs),
        };
        let description_exprs = if attr.description.is_some() {
            Vec::new()
        } else {
            docs.into_iter()
                .filter_map(|d| match d {
                    DocPart::Expr(e) => Some(e),
                    DocPart::Text(_) => None,
                })
                .collect()
        };
        let params = func
            .sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                FnArg::Typed(pat_type) => Some(Param::new(cx, pat_type)),
                FnArg::Receiver(_) => None,
            })
            .collect();
        Tool {
            func,
            kind: attr.kind.unwrap_or(Kind::Deferred),
            attr,
            name,
            name_span,
            description,
            description_exprs,
            params,
        }
    }

    /// Parameters that come from the JSON arguments.
    pub fn args(&self) -> impl Iterator<Item = &Param<'a>> {
        self.params.iter().filter(|p| p.kind == ParamKind::Arg)
    }

    /// The shared-state parameters.
    pub fn states(&self) -> impl Iterator<Item = &Param<'a>> {
        self.params.iter().filter(|p| p.kind == ParamKind::State)
    }
}

impl<'a> Param<'a> {
    fn new(cx: &Ctxt, arg: &'a syn::PatType) -> Self {
        let ident = match &*arg.pat {
            Pat::Ident(p) if p.subpat.is_none() => Some(&p.ident),
            _ => None,
        };
        let kind = if is_context(&arg.ty) {
            ParamKind::Context
        } else if state_type(&arg.ty).is_some() {
            ParamKind::State
        } else {
            ParamKind::Arg
        };
        let attr = attr::parse_arg_attrs(cx, arg.attrs.iter().filter(|a| a.path().is_ident("arg")));
        let field_attrs = arg
            .attrs
            .iter()
            .filter(|a| is_param_attr(a) && !a.path().is_ident("arg"))
            .collect();
        let (json_name, json_name_span) = match (&attr.rename, ident) {
            (Some(lit), _) => (lit.value(), lit.span()),
            (None, Some(ident)) => {
                let s = ident.to_string();
                (s.strip_prefix("r#").unwrap_or(&s).to_owned(), ident.span())
            }
            (None, None) => (String::new(), Span::call_site()),
        };
        Param {
            arg,
            ident,
            ty: &arg.ty,
            kind,
            field_attrs,
            attr,
            json_name,
            json_name_span,
        }
    }
}

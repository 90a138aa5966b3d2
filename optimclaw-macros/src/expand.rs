//! Code generation: one argument struct, one descriptor, one call shim.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Item, ItemFn, ReturnType};

use crate::ast::{self, ParamKind, Tool};
use crate::attr::{self, Kind};
use crate::ctxt::Ctxt;
use crate::valid;

/// Entry point of `#[tool]`.
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    tool_with(args, input, cfg!(feature = "warn-undocumented"))
}

/// [`tool`], warning about undocumented parameters when asked.
fn tool_with(args: TokenStream, input: TokenStream, warn_undocumented: bool) -> TokenStream {
    let cx = Ctxt::default();
    let attr = attr::parse_tool_attr(&cx, args);
    let item: Item = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(err) => {
            // Not even an item: give the tokens back untouched with the error.
            let err = err.to_compile_error();
            return quote!(#input #err);
        }
    };
    let Item::Fn(func) = &item else {
        cx.error_at(
            item_head(&item),
            "#[tool] can only be applied to a function (`fn` or `async fn`)",
        );
        let errors = cx.into_compile_errors();
        return quote!(#item #errors);
    };
    let tool = Tool::from_fn(&cx, attr, func);
    valid::check(&cx, &tool);
    let emitted = strip_param_attrs(func);
    if cx.has_errors() {
        // The function is still emitted so the IDE keeps working and no
        // "cannot find function" error buries the real one.
        let errors = cx.into_compile_errors();
        return quote!(#emitted #errors);
    }
    let generated = generate(&tool);
    let warnings = if warn_undocumented {
        undocumented_warnings(&tool)
    } else {
        TokenStream::new()
    };
    quote!(#emitted #generated #warnings)
}

/// The token that names an item, for "not a function" errors.
fn item_head(item: &Item) -> Span {
    match item {
        Item::Struct(i) => i.ident.span(),
        Item::Enum(i) => i.ident.span(),
        Item::Union(i) => i.ident.span(),
        Item::Const(i) => i.ident.span(),
        Item::Static(i) => i.ident.span(),
        Item::Mod(i) => i.ident.span(),
        Item::Trait(i) => i.ident.span(),
        Item::Type(i) => i.ident.span(),
        Item::Impl(i) => i.impl_token.span,
        Item::Use(i) => i.use_token.span,
        other => other.span(),
    }
}

/// The function as the user wrote it, minus the parameter attributes rustc
/// would reject (`///` docs) or not know (`#[arg]`, `#[serde]`, `#[schemars]`).
fn strip_param_attrs(func: &ItemFn) -> ItemFn {
    let mut func = func.clone();
    for input in &mut func.sig.inputs {
        if let FnArg::Typed(pat_type) = input {
            pat_type.attrs.retain(|a| !ast::is_param_attr(a));
        }
    }
    func
}

/// `::optimclaw` written as a string for `#[serde(crate = "...")]`.
fn path_string(tokens: &TokenStream) -> String {
    tokens.to_string().replace(' ', "")
}

fn generate(tool: &Tool<'_>) -> TokenStream {
    let krate = match &tool.attr.krate {
        Some(path) => quote!(#path),
        None => quote!(::optimclaw),
    };
    let private = quote!(#krate::__private);
    let serde_crate = path_string(&quote!(#private::serde));
    let schemars_crate = path_string(&quote!(#private::schemars));
    let sig = &tool.func.sig;
    let fn_ident = &sig.ident;

    let mut defaults = Vec::new();
    let fields: Vec<TokenStream> = tool
        .args()
        .enumerate()
        .map(|(i, p)| {
            let ident = p.ident.expect("validated: parameters are plain names");
            let ty = p.ty;
            let attrs = field_attrs(&p.field_attrs);
            let rename = p
                .attr
                .rename
                .as_ref()
                .map(|r| quote!(#[serde(rename = #r)]));
            let description = p
                .attr
                .description
                .as_ref()
                .map(|d| quote!(#[schemars(description = #d)]));
            let default = match &p.attr.default {
                None => None,
                Some(None) => {
                    // Through a fn on the `default` token, so a type without
                    // `Default` is reported there, saying what to do.
                    let fn_name = format_ident!("__optimclaw_default_{}", i);
                    let fn_str = fn_name.to_string();
                    let span = p.attr.default_span.unwrap_or_else(|| ty.span());
                    let on_default = respan(quote!(#ty), span);
                    defaults.push(quote_spanned! {span=>
                        fn #fn_name() -> #ty { <#on_default as #private::ArgDefault>::arg_default() }
                    });
                    Some(quote!(#[serde(default = #fn_str)]))
                }
                Some(Some(expr)) => {
                    let fn_name = format_ident!("__optimclaw_default_{}", i);
                    let fn_str = fn_name.to_string();
                    // The expression keeps its own spans: a wrong type is
                    // reported on the user's expression.
                    defaults.push(quote_spanned! {expr.span()=>
                        fn #fn_name() -> #ty { #expr }
                    });
                    Some(quote!(#[serde(default = #fn_str)]))
                }
            };
            quote! { #(#attrs)* #rename #description #default #ident: #ty }
        })
        .collect();
    // Each parameter's type checked on its own token, saying what it lacks
    // (the derives on the argument struct would name generated code).
    let parameter_checks = tool.args().map(|p| {
        let ty = p.ty;
        quote_spanned! {ty.span()=>
            let _ = #private::assert_parameter::<#ty>;
        }
    });

    let tool_name = &tool.name;
    let call_args = tool.params.iter().map(|p| match p.kind {
        // `__ctx` is owned in the async shim and borrowed in the sync one.
        ParamKind::Context if sig.asyncness.is_some() => quote!(&__ctx),
        ParamKind::Context => quote!(__ctx),
        ParamKind::Arg => {
            let ident = p.ident.expect("validated: parameters are plain names");
            quote!(__args.#ident)
        }
        ParamKind::State => {
            let ty = ast::state_type(p.ty).expect("a state parameter is `&T`");
            let ctx = if sig.asyncness.is_some() {
                quote!(&__ctx)
            } else {
                quote!(__ctx)
            };
            quote!(#private::state::<#ty>(#ctx, #tool_name)?)
        }
    });
    // What the registry must hold: checked when it is built.
    let state_needs = tool.states().map(|p| {
        let ty = ast::state_type(p.ty).expect("a state parameter is `&T`");
        let param = p.ident.map(ToString::to_string).unwrap_or_default();
        quote_spanned! {ty.span()=>
            #krate::StateNeed {
                type_id: || ::core::any::TypeId::of::<#ty>(),
                type_name: ::core::any::type_name::<#ty>,
                param: #param,
            }
        }
    });
    let await_ = sig.asyncness.map(|_| quote!(.await));

    let (ret_ty, ret_span) = match &sig.output {
        ReturnType::Default => (quote!(()), fn_ident.span()),
        ReturnType::Type(_, ty) => (quote!(#ty), ty.span()),
    };
    // A `ToolOutput` goes to the caller's output slot and leaves its JSON
    // value; any other value is encoded (and must be `Serialize`, which
    // is reported on the return type).
    let finish = quote_spanned! {ret_span=>
        #private::finish((&&#private::Rich::new(__result, &__ctx)).__optimclaw_rich())
    };
    let output_schema = match &sig.output {
        ReturnType::Default => quote!(::core::option::Option::None),
        ReturnType::Type(..) => quote! {{
            use #private::{OutputNone as _, OutputPlain as _, OutputResult as _};
            (&&&#private::OutputProbe::<#ret_ty>::new()).__optimclaw_output_schema()
        }},
    };

    // On the error type's token: a type that cannot be a tool's error is
    // reported there.
    let err_span = error_type_span(&sig.output);
    let convert_error = quote_spanned! {err_span=>
        (&&&&#private::ErrorWrap::new(__err)).__optimclaw_error()
    };
    let body = quote! {
        use #private::{ErrorViaDisplay as _, ErrorViaError as _, ErrorViaInto as _, ErrorViaNothing as _, RichOutput as _, RichPlain as _, SplitPlain as _, SplitResult as _};
        let __args: __OptimclawArgs = #private::decode_args(__json)?;
        let __out = #fn_ident(#(#call_args),*) #await_;
        let __result = match (&&#private::Split::new(__out)).__optimclaw_split() {
            ::core::result::Result::Ok(__value) => ::core::result::Result::Ok(__value),
            ::core::result::Result::Err(__err) => ::core::result::Result::Err(
                #convert_error,
            ),
        };
        #finish
    };
    // A sync tool runs to completion in a plain function and is returned as
    // a ready future: no async state machine to compile per tool.
    let call_fn = if sig.asyncness.is_some() {
        quote! {
            fn __optimclaw_call(
                __ctx: #krate::ToolContext,
                __json: #private::serde_json::Value,
            ) -> #krate::ToolFuture {
                ::std::boxed::Box::pin(async move { #body })
            }
        }
    } else {
        quote! {
            fn __optimclaw_run(
                __ctx: &#krate::ToolContext,
                __json: #private::serde_json::Value,
            ) -> ::core::result::Result<#private::serde_json::Value, #krate::ToolError> {
                #body
            }

            fn __optimclaw_call(
                __ctx: #krate::ToolContext,
                __json: #private::serde_json::Value,
            ) -> #krate::ToolFuture {
                ::std::boxed::Box::pin(::core::future::ready(__optimclaw_run(&__ctx, __json)))
            }
        }
    };

    let name = &tool.name;
    let description = {
        let text = tool.description.clone().unwrap_or_default();
        let exprs = &tool.description_exprs;
        if exprs.is_empty() {
            quote!(#text)
        } else {
            quote!(::core::concat!(#text #(, "\n", #exprs)*))
        }
    };
    let kind = match tool.kind {
        Kind::Core => quote!(#krate::ToolKind::Core),
        Kind::Deferred => quote!(#krate::ToolKind::Deferred),
    };
    let keywords = tool
        .attr
        .keywords
        .iter()
        .map(|k| k.value().trim().to_owned());
    let asks = tool.attr.asks.iter().map(|a| a.value().trim().to_owned());
    let examples: Vec<String> = tool
        .attr
        .examples
        .iter()
        .flatten()
        .map(crate::example::Json::to_json)
        .collect();
    let title = match &tool.attr.title {
        Some(t) => {
            let text = t.value().trim().to_owned();
            quote!(::core::option::Option::Some(#text))
        }
        None => quote!(::core::option::Option::None),
    };
    let hint = |flag: &Option<syn::Path>| {
        if flag.is_some() {
            quote!(::core::option::Option::Some(true))
        } else {
            quote!(::core::option::Option::None)
        }
    };
    let (read_only, destructive, idempotent, open_world) = (
        hint(&tool.attr.read_only),
        hint(&tool.attr.destructive),
        hint(&tool.attr.idempotent),
        hint(&tool.attr.open_world),
    );
    let loc = sig.ident.span();
    let location = quote_spanned! {loc=>
        #krate::SourceLocation {
            file: ::core::file!(),
            line: ::core::line!(),
            column: ::core::column!(),
            module_path: ::core::module_path!(),
        }
    };
    debug_assert!(valid::valid_tool_name(name));

    quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, non_camel_case_types, clippy::all, clippy::pedantic)]
        const _: () = {
            const _: () = {
                #(#parameter_checks)*
            };

            #[derive(#private::serde::Deserialize, #private::schemars::JsonSchema)]
            #[serde(crate = #serde_crate, deny_unknown_fields)]
            #[schemars(crate = #schemars_crate)]
            struct __OptimclawArgs {
                #(#fields,)*
            }

            #(#defaults)*

            fn __optimclaw_input_schema() -> #private::serde_json::Value {
                #private::schema_for::<__OptimclawArgs>()
            }

            fn __optimclaw_output_schema() -> ::core::option::Option<#private::serde_json::Value> {
                #output_schema
            }

            #call_fn

            fn __optimclaw_check_arguments(
                __json: #private::serde_json::Value,
            ) -> ::core::result::Result<(), #krate::ToolError> {
                #private::decode_args::<__OptimclawArgs>(__json).map(|_| ())
            }

            #private::register_tool! {
                #krate::ToolDescriptor {
                    name: #name,
                    description: #description,
                    kind: #kind,
                    keywords: &[#(#keywords),*],
                    asks: &[#(#asks),*],
                    input_schema: __optimclaw_input_schema,
                    output_schema: __optimclaw_output_schema,
                    call: __optimclaw_call,
                    examples: &[#(#examples),*],
                    title: #title,
                    hints: #krate::ToolHints {
                        read_only: #read_only,
                        destructive: #destructive,
                        idempotent: #idempotent,
                        open_world: #open_world,
                    },
                    check_arguments: __optimclaw_check_arguments,
                    state: &[#(#state_needs),*],
                    location: #location,
                }
            }
        };
    }
}

/// A parameter's attributes for its generated field, with its doc lines
/// joined into one paragraph-aware description (schemars keeps every line
/// break of a doc comment otherwise). Docs that are not all literals
/// (`#[doc = include_str!(..)]`) are passed on as written.
fn field_attrs(attrs: &[&syn::Attribute]) -> Vec<TokenStream> {
    let (docs, others): (Vec<&syn::Attribute>, Vec<&syn::Attribute>) =
        attrs.iter().partition(|a| a.path().is_ident("doc"));
    let owned: Vec<syn::Attribute> = docs.iter().map(|a| (*a).clone()).collect();
    let parts = attr::doc_parts(&owned);
    let all_text = parts.iter().all(|p| matches!(p, attr::DocPart::Text(_)));
    let mut out: Vec<TokenStream> = others.iter().map(|a| quote!(#a)).collect();
    if all_text {
        if let Some(text) = attr::join_docs(&parts) {
            out.push(quote!(#[doc = #text]));
        }
    } else {
        out.extend(docs.iter().map(|a| quote!(#a)));
    }
    out
}

/// The span of `E` in a return type written `Result<T, E>` (any path ending
/// in `Result` with two type arguments), else of the whole return type.
fn error_type_span(output: &ReturnType) -> proc_macro2::Span {
    let ReturnType::Type(_, ty) = output else {
        return proc_macro2::Span::call_site();
    };
    if let syn::Type::Path(path) = &**ty
        && let Some(last) = path.path.segments.last()
        && last.ident == "Result"
        && let syn::PathArguments::AngleBracketed(args) = &last.arguments
    {
        let types: Vec<&syn::Type> = args
            .args
            .iter()
            .filter_map(|a| match a {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect();
        if let [_, err] = types.as_slice() {
            return err.span();
        }
    }
    ty.span()
}

/// `tokens` with every span set to `span` (so an error about them is
/// reported on another token of the user's, e.g. `default`).
fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = proc_macro2::TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

/// A warning on each parameter without a description (no doc comment, no
/// `#[arg(description)]`): the model would see its name only. Stable Rust
/// has no warnings from macros, so each is the use of a deprecated item
/// whose note says what to do, on the parameter's name.
fn undocumented_warnings(tool: &Tool<'_>) -> TokenStream {
    let uses = tool.args().enumerate().filter_map(|(i, p)| {
        let documented = p.attr.description.is_some()
            || p.field_attrs.iter().any(|a| a.path().is_ident("doc"));
        if documented {
            return None;
        }
        let ident = p.ident?;
        // On the parameter's name: the warning points there.
        let marker = format_ident!("__optimclaw_undocumented_{}", i, span = ident.span());
        let note = format!(
            "parameter `{}` of tool `{}` has no description: the model sees its name only; add a `/// …` doc comment above it (or #[arg(description = \"…\")])",
            p.json_name, tool.name
        );
        Some(quote_spanned! {ident.span()=>
            #[deprecated(note = #note)]
            struct #marker;
            let _ = #marker;
        })
    });
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        const _: () = {
            #(#uses)*
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undocumented_parameters_are_warned_about_only_when_asked() {
        let input = quote! {
            /// Add a note.
            fn note_add(
                /// The note.
                text: String,
                tag: String,
                #[arg(description = "The day.")]
                day: u32,
            ) -> usize { 0 }
        };
        let warned = tool_with(TokenStream::new(), input.clone(), true).to_string();
        assert!(
            warned.contains("parameter `tag` of tool `note_add` has no description"),
            "{warned}"
        );
        assert!(!warned.contains("parameter `text`"), "{warned}");
        assert!(!warned.contains("parameter `day`"), "{warned}");
        assert!(warned.contains("deprecated"), "{warned}");
        let quiet = tool_with(TokenStream::new(), input, false).to_string();
        assert!(!quiet.contains("has no description"), "{quiet}");
    }
}

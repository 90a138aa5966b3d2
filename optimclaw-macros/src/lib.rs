//! The `#[tool]` attribute of [optimclaw](https://docs.rs/optimclaw).
//!
//! This crate is an implementation detail: depend on `optimclaw` and write
//! `use optimclaw::tool;`. The attribute is documented there.

mod ast;
mod attr;
mod ctxt;
mod example;
mod expand;
mod valid;

use proc_macro::TokenStream;

/// The `#[tool]` attribute; its whole reference is on `optimclaw::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
}

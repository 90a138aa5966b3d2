//! Error accumulation: every mistake found in one pass is reported together.

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// Collects errors while the attribute and the function are parsed and
/// checked, so a user with three mistakes sees three errors in one build.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    /// Records an error pointing at `tokens`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error pointing at `span`.
    pub fn error_at<M: Display>(&self, span: proc_macro2::Span, message: M) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new(span, message));
    }

    /// Records an error produced by syn.
    pub fn syn_error(&self, err: syn::Error) {
        self.errors.borrow_mut().push(err);
    }

    /// Whether any error was recorded.
    pub fn has_errors(&self) -> bool {
        !self.errors.borrow().is_empty()
    }

    /// All recorded errors as `compile_error!` invocations.
    pub fn into_compile_errors(self) -> TokenStream {
        self.errors
            .into_inner()
            .into_iter()
            .map(|e| e.to_compile_error())
            .collect()
    }
}

//! `#[tool(examples = [...])]`: example calls written as JSON directly in
//! the attribute's tokens (`{"prompt": "…", "priority": 3}`; bare keys such
//! as `{prompt: "…"}` are accepted too).
//!
//! Written as tokens rather than as a JSON string so that every key and
//! value keeps its own span: a wrong field or value is reported on the
//! user's token, and no JSON parser has to run inside the macro.

use std::fmt::Write as _;

use proc_macro2::Span;
use syn::ext::IdentExt as _;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, Lit, Token, braced, bracketed, token};

/// One JSON value with the span it was written at.
pub struct Json {
    pub value: JsonValue,
    pub span: Span,
}

pub enum JsonValue {
    Null,
    Bool(bool),
    /// Digits as written (base 10), with the sign.
    Int(String),
    Float(String),
    Str(String),
    Array(Vec<Json>),
    /// Keys with their spans, in the order written.
    Object(Vec<(String, Span, Json)>),
}

impl Json {
    /// What kind of JSON value this is, for error messages.
    pub fn kind(&self) -> &'static str {
        match self.value {
            JsonValue::Null => "null",
            JsonValue::Bool(_) => "a boolean",
            JsonValue::Int(_) => "an integer",
            JsonValue::Float(_) => "a number",
            JsonValue::Str(_) => "a string",
            JsonValue::Array(_) => "an array",
            JsonValue::Object(_) => "an object",
        }
    }

    /// The value as compact JSON text.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match &self.value {
            JsonValue::Null => out.push_str("null"),
            JsonValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            JsonValue::Int(n) | JsonValue::Float(n) => out.push_str(n),
            JsonValue::Str(s) => write_string(out, s),
            JsonValue::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            JsonValue::Object(fields) => {
                out.push('{');
                for (i, (key, _, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(out, key);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// A JSON string literal. Written by hand: the macro crate depends on syn,
/// quote and proc-macro2 only, and this is the whole of JSON's escaping.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl Parse for Json {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let span = input.span();
        if input.peek(token::Brace) {
            let content;
            let brace = braced!(content in input);
            let mut fields: Vec<(String, Span, Json)> = Vec::new();
            while !content.is_empty() {
                let (key, key_span) = if content.peek(syn::LitStr) {
                    let lit: syn::LitStr = content.parse()?;
                    (lit.value(), lit.span())
                } else if content.peek(Ident::peek_any) {
                    let ident = Ident::parse_any(&content)?;
                    let text = ident.to_string();
                    (
                        text.strip_prefix("r#").unwrap_or(&text).to_owned(),
                        ident.span(),
                    )
                } else {
                    return Err(content.error("expected a field name (\"name\" or name)"));
                };
                if fields.iter().any(|(k, _, _)| *k == key) {
                    return Err(syn::Error::new(
                        key_span,
                        format!("repeated field `{key}` in an example; give each field once"),
                    ));
                }
                content.parse::<Token![:]>()?;
                let value: Json = content.parse()?;
                fields.push((key, key_span, value));
                if !content.is_empty() {
                    content.parse::<Token![,]>()?;
                }
            }
            return Ok(Json {
                value: JsonValue::Object(fields),
                span: brace.span.join(),
            });
        }
        if input.peek(token::Bracket) {
            let content;
            let bracket = bracketed!(content in input);
            let mut items = Vec::new();
            while !content.is_empty() {
                items.push(content.parse()?);
                if !content.is_empty() {
                    content.parse::<Token![,]>()?;
                }
            }
            return Ok(Json {
                value: JsonValue::Array(items),
                span: bracket.span.join(),
            });
        }
        if input.peek(Token![-]) {
            let minus: Token![-] = input.parse()?;
            let lit: Lit = input.parse()?;
            let value = match &lit {
                Lit::Int(i) => JsonValue::Int(format!("-{}", i.base10_digits())),
                Lit::Float(f) => JsonValue::Float(format!("-{}", f.base10_digits())),
                other => return Err(syn::Error::new(other.span(), "expected a number after `-`")),
            };
            let span = minus.span.join(lit.span()).unwrap_or(span);
            return Ok(Json { value, span });
        }
        if input.peek(Ident::peek_any) && !input.peek(syn::LitBool) {
            let ident = Ident::parse_any(input)?;
            if ident == "null" {
                return Ok(Json {
                    value: JsonValue::Null,
                    span: ident.span(),
                });
            }
            return Err(syn::Error::new(
                ident.span(),
                format!(
                    "`{ident}` is not a JSON value; examples are JSON: strings, numbers, true, false, null, [..] and {{..}}"
                ),
            ));
        }
        let lit: Lit = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected a JSON value: a string, a number, true, false, null, [..] or {..}",
            )
        })?;
        let value = match &lit {
            Lit::Str(s) => JsonValue::Str(s.value()),
            Lit::Int(i) if i.suffix().is_empty() => JsonValue::Int(i.base10_digits().to_owned()),
            Lit::Float(f) if f.suffix().is_empty() => {
                JsonValue::Float(f.base10_digits().to_owned())
            }
            Lit::Bool(b) => JsonValue::Bool(b.value),
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    "not a JSON value: write strings in double quotes and numbers without a type suffix",
                ));
            }
        };
        Ok(Json {
            value,
            span: lit.span(),
        })
    }
}

/// Parses `[ {...}, {...} ]` after `examples =`.
pub fn parse_examples(input: ParseStream<'_>) -> syn::Result<Vec<Json>> {
    if !input.peek(token::Bracket) {
        return Err(input.error(
            "`examples` takes a list of example calls, e.g. examples = [{\"prompt\": \"…\", \"priority\": 3}]",
        ));
    }
    let content;
    bracketed!(content in input);
    let mut out = Vec::new();
    while !content.is_empty() {
        out.push(content.parse()?);
        if !content.is_empty() {
            content.parse::<Token![,]>()?;
        }
    }
    Ok(out)
}

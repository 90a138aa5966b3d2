//! Rerankers for `tool_info`'s second stage
//! ([`optimclaw::rerank::Reranker`]): [`HttpReranker`] for the `/rerank`
//! shape (Cohere, Jina, Voyage, text-embeddings-inference) and
//! [`ChatReranker`] for an OpenAI-compatible chat model that picks the
//! candidates that fit, or none.

mod chat;
mod http;

pub use chat::ChatReranker;
pub use http::HttpReranker;

//! Embedding and rerank backends for optimclaw's `tool_info`: the traits
//! ([`optimclaw::embed::Embedder`], [`optimclaw::rerank::Reranker`]) and the
//! fusion live in the core; this crate holds the implementations that talk
//! to a model.
//!
//! - [`HttpEmbedder`]: an OpenAI-compatible `/v1/embeddings` endpoint.
//! - [`MiniLm`] (feature `minilm`): all-MiniLM-L6-v2 run in-process by
//!   candle from a local folder. Heavy: builds candle and tokenizers.
//! - [`rerank::HttpReranker`] and [`rerank::ChatReranker`]: a `/rerank`
//!   endpoint or a chat model as the second stage.

#![warn(missing_docs)]
// `MiniLm` exists only with its feature; the docs are built (docs.rs, CI)
// with every feature, where the link resolves.
#![cfg_attr(not(feature = "minilm"), allow(rustdoc::broken_intra_doc_links))]

/// The README's example, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod client;
mod http;
#[cfg(feature = "minilm")]
mod minilm;
pub mod rerank;

pub use http::HttpEmbedder;
#[cfg(feature = "minilm")]
pub use minilm::MiniLm;

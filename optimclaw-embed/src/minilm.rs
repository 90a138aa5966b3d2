//! all-MiniLM-L6-v2 (a 6-layer BERT sentence encoder, 384 dimensions) run
//! in-process on the CPU by candle, from a local folder holding the
//! model's `config.json`, `tokenizer.json` and `model.safetensors` — the
//! layout the model is published in. Nothing is downloaded at run time.

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use sha2::{Digest, Sha256};
use tokenizers::{Tokenizer, TruncationParams};

use optimclaw::embed::{EmbedError, Embedder, normalize};

/// Longest input in tokens (the model's `max_seq_length`).
const MAX_TOKENS: usize = 256;
/// Texts per forward pass when embedding a catalog.
const BATCH: usize = 32;

/// all-MiniLM-L6-v2 on the CPU: mean pooling over the tokens, unit length,
/// as sentence-transformers computes it. Use it for vector search without
/// any server (about 17 ms a query on two cores); the weights are read from
/// a folder at run time (`tests/embed/fetch_minilm.sh` fetches them).
///
/// ```no_run
/// use std::sync::Arc;
/// use optimclaw_embed::MiniLm;
/// use optimclaw::Registry;
///
/// let model = MiniLm::from_dir("models/all-MiniLM-L6-v2")?;
/// let registry = Registry::builder().embedder(Arc::new(model)).build()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct MiniLm {
    model: BertModel,
    tokenizer: Tokenizer,
    id: String,
}

impl MiniLm {
    /// Loads the model from `dir` (`config.json`, `tokenizer.json`,
    /// `model.safetensors`).
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<Self, EmbedError> {
        let dir = dir.as_ref();
        let read = |name: &str| {
            std::fs::read(dir.join(name)).map_err(|e| {
                EmbedError::new(format!(
                    "cannot read {}: {e}; the folder must hold the model's config.json, tokenizer.json and model.safetensors",
                    dir.join(name).display()
                ))
            })
        };
        let config_bytes = read("config.json")?;
        let tokenizer_bytes = read("tokenizer.json")?;
        let weights = read("model.safetensors")?;
        let config: Config = serde_json::from_slice(&config_bytes).map_err(|e| {
            EmbedError::new(format!("config.json is not a BERT configuration: {e}"))
        })?;
        let mut tokenizer = Tokenizer::from_bytes(&tokenizer_bytes)
            .map_err(|e| EmbedError::new(format!("tokenizer.json does not load: {e}")))?;
        // The published tokenizer pads every input to 128 tokens; batches
        // are padded to their longest input instead, and masked.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..TruncationParams::default()
            }))
            .map_err(|e| EmbedError::new(format!("tokenizer truncation: {e}")))?;
        let mut hasher = Sha256::new();
        hasher.update(&config_bytes);
        hasher.update(&tokenizer_bytes);
        hasher.update(&weights);
        let digest: String = hasher.finalize()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
            .map_err(|e| EmbedError::new(format!("model.safetensors does not load: {e}")))?;
        let model = BertModel::load(vb, &config)
            .map_err(|e| EmbedError::new(format!("the weights do not fit a BERT model: {e}")))?;
        Ok(MiniLm {
            model,
            tokenizer,
            id: format!("minilm-mean-{digest}"),
        })
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let fail = |e: &dyn std::fmt::Display| EmbedError::new(format!("embedding failed: {e}"));
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| fail(&e))?;
        let len = encodings.iter().map(|e| e.len()).max().unwrap_or(0).max(1);
        let mut ids = Vec::with_capacity(texts.len() * len);
        let mut mask = Vec::with_capacity(texts.len() * len);
        for e in &encodings {
            ids.extend(e.get_ids().iter().copied());
            mask.extend(e.get_attention_mask().iter().copied());
            ids.extend(std::iter::repeat_n(0u32, len - e.len()));
            mask.extend(std::iter::repeat_n(0u32, len - e.len()));
        }
        let shape = (texts.len(), len);
        let ids = Tensor::from_vec(ids, shape, &Device::Cpu).map_err(|e| fail(&e))?;
        let mask = Tensor::from_vec(mask, shape, &Device::Cpu).map_err(|e| fail(&e))?;
        let types = ids.zeros_like().map_err(|e| fail(&e))?;
        let hidden = self
            .model
            .forward(&ids, &types, Some(&mask))
            .map_err(|e| fail(&e))?;
        // Mean over the real tokens only.
        let weights = mask
            .to_dtype(DType::F32)
            .and_then(|m| m.unsqueeze(2))
            .map_err(|e| fail(&e))?;
        let summed = hidden
            .broadcast_mul(&weights)
            .and_then(|h| h.sum(1))
            .map_err(|e| fail(&e))?;
        let counts = weights
            .sum(1)
            .and_then(|c| c.clamp(1.0, f64::MAX))
            .map_err(|e| fail(&e))?;
        let mean = summed.broadcast_div(&counts).map_err(|e| fail(&e))?;
        let mut rows: Vec<Vec<f32>> = mean.to_vec2().map_err(|e| fail(&e))?;
        rows.iter_mut().for_each(|v| normalize(v));
        Ok(rows)
    }
}

impl Embedder for MiniLm {
    fn id(&self) -> &str {
        &self.id
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        // Similar lengths batch together: less padding to compute.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            for (&i, v) in chunk.iter().zip(self.embed_batch(&batch)?) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

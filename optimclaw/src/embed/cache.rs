//! Tool vectors on disk, keyed by the SHA-256 of the text embedded, one
//! file per embedder id: a catalog is embedded once, and only the tools
//! whose text changed are embedded again.
//!
//! The format is ours (a header `OCEV`, the dimension, then records of a
//! 32-byte hash and the vector as little-endian `f32`s): a database or a
//! serialisation crate would add a dependency for a flat array read whole.
//! A file that does not parse is ignored and rewritten; the cache can never
//! make embedding fail.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{EmbedError, Embedder};

const MAGIC: &[u8; 4] = b"OCEV";

/// A folder of cached vectors, keyed by embedder id and text hash: keep
/// one so that a program's start-up does not embed the whole catalog
/// again (only new or changed tools are embedded). Files that do not read
/// back are ignored and rewritten.
#[derive(Clone, Debug)]
pub struct EmbeddingCache {
    dir: PathBuf,
}

impl EmbeddingCache {
    /// Caches vectors in `dir` (created when first written).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        EmbeddingCache { dir: dir.into() }
    }

    /// `$XDG_CACHE_HOME/optimclaw/embeddings`, else
    /// `~/.cache/optimclaw/embeddings`; `None` without a home folder.
    pub fn default_dir() -> Option<PathBuf> {
        let base = std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|v| !v.is_empty())
                    .map(|home| PathBuf::from(home).join(".cache"))
            })?;
        Some(base.join("optimclaw").join("embeddings"))
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of one embedder.
    fn file(&self, embedder_id: &str) -> PathBuf {
        let digest = Sha256::digest(embedder_id.as_bytes());
        let name: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{name}.vectors"))
    }

    /// A vector per text: from the cache where it has one, the others from
    /// `embedder` in one call (and then stored). Returns how many were
    /// embedded beside the vectors.
    pub fn embed_all(
        &self,
        embedder: &dyn Embedder,
        texts: &[&str],
    ) -> Result<(Vec<Vec<f32>>, usize), EmbedError> {
        let file = self.file(embedder.id());
        let mut stored = read(&file).unwrap_or_default();
        let keys: Vec<[u8; 32]> = texts
            .iter()
            .map(|t| Sha256::digest(t.as_bytes()).into())
            .collect();
        let missing: Vec<usize> = (0..texts.len())
            .filter(|&i| !stored.contains_key(&keys[i]))
            .collect();
        if !missing.is_empty() {
            let batch: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
            let vectors = embedder.embed(&batch)?;
            check_shape(&vectors, batch.len(), stored.values().next().map(Vec::len))?;
            for (&i, v) in missing.iter().zip(vectors) {
                stored.insert(keys[i], v);
            }
            if let Err(e) = write(&file, &stored) {
                tracing::warn!(file = %file.display(), error = %e, "embedding cache not written");
            }
        }
        let vectors = keys
            .iter()
            .map(|k| stored.get(k).cloned().unwrap_or_default())
            .collect();
        Ok((vectors, missing.len()))
    }
}

/// Checks an embedder's answer: one vector per text, every vector of the
/// same non-zero length (`dim`, when known). For [`Embedder`](super::Embedder)
/// implementations.
pub fn check_shape(
    vectors: &[Vec<f32>],
    expected: usize,
    dim: Option<usize>,
) -> Result<(), EmbedError> {
    if vectors.len() != expected {
        return Err(EmbedError::new(format!(
            "the embedder returned {} vectors for {expected} texts; it must return one per text",
            vectors.len()
        )));
    }
    let dim = dim.or_else(|| vectors.first().map(Vec::len)).unwrap_or(0);
    if dim == 0 || vectors.iter().any(|v| v.len() != dim) {
        return Err(EmbedError::new(
            "the embedder returned vectors of different (or zero) lengths; every vector must have the same length",
        ));
    }
    Ok(())
}

fn read(file: &Path) -> Option<HashMap<[u8; 32], Vec<f32>>> {
    let bytes = std::fs::read(file).ok()?;
    let (head, rest) = bytes.split_at_checked(8)?;
    if &head[..4] != MAGIC {
        return None;
    }
    let dim = u32::from_le_bytes(head[4..8].try_into().ok()?) as usize;
    let record = 32 + dim * 4;
    if dim == 0 || rest.len() % record != 0 {
        return None;
    }
    let mut map = HashMap::with_capacity(rest.len() / record);
    for chunk in rest.chunks_exact(record) {
        let key: [u8; 32] = chunk[..32].try_into().ok()?;
        let v = chunk[32..]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        map.insert(key, v);
    }
    Some(map)
}

/// Writes the whole file anew through a temporary file and a rename, so a
/// reader never sees half a file.
fn write(file: &Path, stored: &HashMap<[u8; 32], Vec<f32>>) -> std::io::Result<()> {
    let Some(dim) = stored.values().next().map(Vec::len) else {
        return Ok(());
    };
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut out = Vec::with_capacity(8 + stored.len() * (32 + dim * 4));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&u32::try_from(dim).unwrap_or(0).to_le_bytes());
    let mut keys: Vec<&[u8; 32]> = stored.keys().collect();
    keys.sort_unstable();
    for key in keys {
        out.extend_from_slice(key);
        for x in &stored[key] {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(&out)?;
    f.sync_all()?;
    std::fs::rename(&tmp, file)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    struct Counting(AtomicUsize);

    impl Embedder for Counting {
        fn id(&self) -> &str {
            "counting-v1"
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.0.fetch_add(texts.len(), Ordering::SeqCst);
            Ok(texts.iter().map(|t| vec![t.len() as f32, 1.0]).collect())
        }
    }

    #[test]
    fn only_new_texts_are_embedded_and_a_bad_file_is_ignored() {
        let dir =
            std::env::temp_dir().join(format!("optimclaw-embed-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = EmbeddingCache::new(&dir);
        let e = Counting(AtomicUsize::new(0));
        let (v, n) = cache.embed_all(&e, &["a", "bb"]).unwrap();
        assert_eq!((v, n), (vec![vec![1.0, 1.0], vec![2.0, 1.0]], 2));
        let (v, n) = cache.embed_all(&e, &["bb", "ccc", "a"]).unwrap();
        assert_eq!(n, 1, "only ccc is new");
        assert_eq!(v[1], vec![3.0, 1.0]);
        assert_eq!(e.0.load(Ordering::SeqCst), 3);
        // A truncated file is ignored, then rewritten whole.
        let file = cache.file("counting-v1");
        let len = std::fs::metadata(&file).unwrap().len();
        std::fs::write(&file, &std::fs::read(&file).unwrap()[..len as usize - 3]).unwrap();
        let (_, n) = cache.embed_all(&e, &["a"]).unwrap();
        assert_eq!(n, 1);
        assert!(read(&file).is_some());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn wrong_shapes_are_refused() {
        assert!(
            check_shape(&[vec![1.0]], 2, None)
                .unwrap_err()
                .to_string()
                .contains("1 vectors for 2 texts")
        );
        assert!(check_shape(&[vec![1.0], vec![1.0, 2.0]], 2, None).is_err());
        assert!(check_shape(&[vec![1.0]], 1, Some(2)).is_err());
    }
}

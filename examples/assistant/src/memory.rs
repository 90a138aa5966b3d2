//! Persistent memory in SQLite: full-text search with FTS5 plus a vector
//! side, fused by reciprocal rank. The default embedder hashes character
//! n-grams, so it needs no model download; any [`Embedder`] can replace it.

use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

/// Turns text into a vector for similarity search.
pub trait Embedder: Send + Sync {
    /// A name stored beside each vector; vectors of other embedders are
    /// recomputed when searched.
    fn name(&self) -> &str;
    /// The vector of `text` (any length; compared by cosine).
    fn embed(&self, text: &str) -> Vec<f32>;
}

/// Hashed character trigrams: robust to typos and word forms, no model.
#[derive(Clone, Debug)]
pub struct NgramEmbedder {
    dim: usize,
}

impl Default for NgramEmbedder {
    fn default() -> Self {
        NgramEmbedder { dim: 384 }
    }
}

/// FNV-1a. Written out (four lines) because the hash must never change
/// across Rust releases: vectors are stored on disk.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Embedder for NgramEmbedder {
    fn name(&self) -> &str {
        "ngram3-384"
    }

    fn embed(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0f32; self.dim];
        for word in text
            .to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            let padded: Vec<char> = format!(" {word} ").chars().collect();
            for gram in padded.windows(3) {
                let s: String = gram.iter().collect();
                let h = fnv1a(s.as_bytes());
                let i = usize::try_from(h % self.dim as u64).unwrap_or(0);
                v[i] += if h & (1 << 63) == 0 { 1.0 } else { -1.0 };
            }
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_blob(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A memory found by a search.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema, PartialEq)]
pub struct MemoryHit {
    /// The memory's id.
    pub id: i64,
    /// What was remembered.
    pub text: String,
    /// Its tags.
    pub tags: Vec<String>,
    /// When it was written (RFC 3339).
    pub created: String,
    /// Fused relevance (higher is better).
    pub score: f64,
}

/// The memory store.
#[derive(Clone)]
pub struct MemoryStore {
    db: Arc<Mutex<Connection>>,
    embedder: Arc<dyn Embedder>,
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore")
            .field("embedder", &self.embedder.name())
            .finish_non_exhaustive()
    }
}

impl MemoryStore {
    /// Creates the tables if needed.
    pub fn open(db: Arc<Mutex<Connection>>, embedder: Arc<dyn Embedder>) -> rusqlite::Result<Self> {
        db.lock().unwrap_or_else(PoisonError::into_inner).execute_batch(
            "CREATE TABLE IF NOT EXISTS memories (
                 id INTEGER PRIMARY KEY, text TEXT NOT NULL, tags TEXT NOT NULL,
                 created TEXT NOT NULL, embedder TEXT NOT NULL, vector BLOB NOT NULL);
             CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(text, tags, content='memories', content_rowid='id');
             CREATE TRIGGER IF NOT EXISTS memories_ai AFTER INSERT ON memories BEGIN
                 INSERT INTO memories_fts(rowid, text, tags) VALUES (new.id, new.text, new.tags); END;
             CREATE TRIGGER IF NOT EXISTS memories_ad AFTER DELETE ON memories BEGIN
                 INSERT INTO memories_fts(memories_fts, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags); END;",
        )?;
        Ok(MemoryStore { db, embedder })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.db.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stores a memory; returns its id.
    pub fn write(&self, text: &str, tags: &[String]) -> rusqlite::Result<i64> {
        let vector = to_blob(&self.embedder.embed(text));
        let created = jiff::Timestamp::now().to_string();
        let conn = self.conn();
        conn.execute(
            "INSERT INTO memories (text, tags, created, embedder, vector) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![text, tags.join(" "), created, self.embedder.name(), vector],
        )?;
        Ok(conn.last_insert_rowid())
    }

    /// Deletes a memory; whether it existed.
    pub fn delete(&self, id: i64) -> rusqlite::Result<bool> {
        Ok(self
            .conn()
            .execute("DELETE FROM memories WHERE id = ?1", [id])?
            > 0)
    }

    /// The newest memories.
    pub fn recent(&self, limit: usize) -> rusqlite::Result<Vec<MemoryHit>> {
        let conn = self.conn();
        let mut stmt =
            conn.prepare("SELECT id, text, tags, created FROM memories ORDER BY id DESC LIMIT ?1")?;
        let rows = stmt.query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
            Ok(MemoryHit {
                id: r.get(0)?,
                text: r.get(1)?,
                tags: split_tags(&r.get::<_, String>(2)?),
                created: r.get(3)?,
                score: 0.0,
            })
        })?;
        rows.collect()
    }

    /// Hybrid search: FTS5 (BM25) and vector similarity, fused by
    /// reciprocal rank (`1/(60 + rank)` from each side).
    pub fn search(&self, query: &str, limit: usize) -> rusqlite::Result<Vec<MemoryHit>> {
        const K: f64 = 60.0;
        let q = self.embedder.embed(query);
        let conn = self.conn();
        let mut fused: std::collections::HashMap<i64, f64> = std::collections::HashMap::new();
        let terms: Vec<String> = query
            .split(|c: char| !c.is_alphanumeric())
            .filter(|t| !t.is_empty())
            .map(|t| format!("\"{t}\""))
            .collect();
        if !terms.is_empty() {
            let mut stmt = conn.prepare(
                "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?1 ORDER BY bm25(memories_fts) LIMIT 100",
            )?;
            let ids = stmt.query_map([terms.join(" OR ")], |r| r.get::<_, i64>(0))?;
            for (rank, id) in ids.enumerate() {
                *fused.entry(id?).or_default() += 1.0 / (K + rank as f64 + 1.0);
            }
        }
        let mut stmt = conn.prepare("SELECT id, embedder, vector, text FROM memories")?;
        let mut sims: Vec<(i64, f32)> = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Vec<u8>>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })?
            .filter_map(Result::ok)
            .map(|(id, embedder, blob, text)| {
                let v = if embedder == self.embedder.name() {
                    from_blob(&blob)
                } else {
                    self.embedder.embed(&text)
                };
                (id, cosine(&q, &v))
            })
            .filter(|(_, s)| *s > 0.1)
            .collect();
        sims.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        for (rank, (id, _)) in sims.iter().take(100).enumerate() {
            *fused.entry(*id).or_default() += 1.0 / (K + rank as f64 + 1.0);
        }
        let mut ranked: Vec<(i64, f64)> = fused.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
        let mut out = Vec::new();
        for (id, score) in ranked.into_iter().take(limit) {
            let hit = conn
                .query_row(
                    "SELECT text, tags, created FROM memories WHERE id = ?1",
                    [id],
                    |r| {
                        Ok(MemoryHit {
                            id,
                            text: r.get(0)?,
                            tags: split_tags(&r.get::<_, String>(1)?),
                            created: r.get(2)?,
                            score: (score * 1e4).round() / 1e4,
                        })
                    },
                )
                .optional()?;
            out.extend(hit);
        }
        Ok(out)
    }
}

fn split_tags(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> MemoryStore {
        let conn = Connection::open_in_memory().unwrap();
        MemoryStore::open(
            Arc::new(Mutex::new(conn)),
            Arc::new(NgramEmbedder::default()),
        )
        .unwrap()
    }

    #[test]
    fn finds_by_words_and_by_similar_spelling() {
        let m = store();
        m.write(
            "The deploy key for staging lives in the vault",
            &["ops".into()],
        )
        .unwrap();
        m.write("Alice prefers tea over coffee", &[]).unwrap();
        m.write("Standup is at 9:30 every weekday", &["team".into()])
            .unwrap();
        let hits = m.search("coffee", 3).unwrap();
        assert_eq!(hits[0].text, "Alice prefers tea over coffee");
        // No shared word, similar spelling: only the vector side finds it.
        let hits = m.search("deployment", 3).unwrap();
        assert!(hits[0].text.contains("deploy key"), "{hits:?}");
        assert!(m.delete(hits[0].id).unwrap());
        assert!(
            m.search("deployment vault", 3)
                .unwrap()
                .iter()
                .all(|h| !h.text.contains("deploy key"))
        );
    }

    #[test]
    fn the_embedding_is_stable_and_normalised() {
        let e = NgramEmbedder::default();
        assert_eq!(e.embed("hello world"), e.embed("hello world"));
        let n: f32 = e.embed("hello").iter().map(|x| x * x).sum();
        assert!((n - 1.0).abs() < 1e-4);
        assert!(cosine(&e.embed("summarize"), &e.embed("summarise")) > 0.5);
    }
}

//! An on-disk cache of embeddings, keyed by model id and a SHA-256 of the text.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use oro_mem_core::{Error, ErrorKind, Result};
use oro_mem_rank_vector::Embedder;
use rusqlite::{params, Connection, OptionalExtension};
use sha2::{Digest, Sha256};

/// Embeddings stored in one SQLite file: `(model, sha256(text)) → f32 vector`.
///
/// The text itself is not kept, only its hash, so the cache holds nothing of a private corpus
/// but numbers.
#[derive(Debug)]
pub struct EmbeddingCache {
    conn: Connection,
}

fn storage(what: &str, e: rusqlite::Error) -> Error {
    Error::new(ErrorKind::Storage, format!("embedding cache: {what}: {e}")).with_source(e)
}

impl EmbeddingCache {
    /// Opens (creating if needed) the cache at `path`; its directory must exist.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when the file cannot be opened or is not a cache.
    pub fn open(path: impl AsRef<Path>) -> Result<EmbeddingCache> {
        let path = path.as_ref();
        let conn = Connection::open(path)
            .map_err(|e| storage(&format!("cannot open {}", path.display()), e))?;
        EmbeddingCache::init(conn)
    }

    /// Where `oro-mem eval` keeps its cache: `$XDG_CACHE_HOME/oro-mem/eval-embeddings.sqlite`,
    /// else `~/.cache/oro-mem/eval-embeddings.sqlite`; `None` with neither variable set.
    pub fn default_path() -> Option<PathBuf> {
        let base = std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
        Some(base.join("oro-mem").join("eval-embeddings.sqlite"))
    }

    /// Opens the cache at `path`, creating its directory first if needed.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when the directory or file cannot be created or opened.
    pub fn create(path: impl AsRef<Path>) -> Result<EmbeddingCache> {
        let path = path.as_ref();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| {
                Error::new(
                    ErrorKind::Storage,
                    format!("embedding cache: cannot create {}: {e}", dir.display()),
                )
                .with_source(e)
            })?;
        }
        EmbeddingCache::open(path)
    }

    /// A cache that lives in memory only.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] if SQLite fails.
    pub fn in_memory() -> Result<EmbeddingCache> {
        let conn = Connection::open_in_memory().map_err(|e| storage("cannot open", e))?;
        EmbeddingCache::init(conn)
    }

    fn init(conn: Connection) -> Result<EmbeddingCache> {
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(|e| storage("cannot set busy timeout", e))?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS embeddings (
                model  TEXT NOT NULL,
                hash   BLOB NOT NULL,
                vector BLOB NOT NULL,
                PRIMARY KEY (model, hash)
            ) WITHOUT ROWID;",
        )
        .map_err(|e| storage("cannot create table", e))?;
        Ok(EmbeddingCache { conn })
    }

    fn key(text: &str) -> [u8; 32] {
        Sha256::digest(text.as_bytes()).into()
    }

    /// The cached vector of `text` under `model`, if any.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when SQLite fails.
    pub fn get(&self, model: &str, text: &str) -> Result<Option<Vec<f32>>> {
        let blob: Option<Vec<u8>> = self
            .conn
            .prepare_cached("SELECT vector FROM embeddings WHERE model = ?1 AND hash = ?2")
            .and_then(|mut s| {
                s.query_row(params![model, &EmbeddingCache::key(text)[..]], |r| r.get(0))
                    .optional()
            })
            .map_err(|e| storage("cannot read", e))?;
        Ok(blob.map(|b| {
            b.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        }))
    }

    /// Stores vectors of `texts` under `model`, in one transaction.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when SQLite fails; nothing is stored then.
    pub fn put(&mut self, model: &str, texts: &[&str], vectors: &[Vec<f32>]) -> Result<()> {
        let tx = self
            .conn
            .transaction()
            .map_err(|e| storage("cannot write", e))?;
        {
            let mut stmt = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO embeddings (model, hash, vector) VALUES (?1, ?2, ?3)",
                )
                .map_err(|e| storage("cannot write", e))?;
            for (text, v) in texts.iter().zip(vectors) {
                let blob: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                stmt.execute(params![model, &EmbeddingCache::key(text)[..], blob])
                    .map_err(|e| storage("cannot write", e))?;
            }
        }
        tx.commit().map_err(|e| storage("cannot commit", e))
    }
}

/// How a [`CachedEmbedder`] answered so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Texts found in the cache.
    pub hits: u64,
    /// Texts the model embedded.
    pub misses: u64,
}

/// An [`Embedder`] that asks the cache first and the model only for what it lacks, storing
/// what the model makes. It has the inner model's id and dimension, so vectors it returns are
/// interchangeable with the model's own.
pub struct CachedEmbedder {
    inner: Arc<dyn Embedder>,
    cache: Mutex<EmbeddingCache>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl std::fmt::Debug for CachedEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachedEmbedder")
            .field("model", &self.inner.model_id())
            .field("stats", &self.stats())
            .finish()
    }
}

impl CachedEmbedder {
    /// Wraps `inner` with `cache`.
    pub fn new(inner: Arc<dyn Embedder>, cache: EmbeddingCache) -> CachedEmbedder {
        CachedEmbedder {
            inner,
            cache: Mutex::new(cache),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// Hits and misses so far.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }
}

impl Embedder for CachedEmbedder {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn dimension(&self) -> usize {
        self.inner.dimension()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let model = self.inner.model_id();
        let dim = self.inner.dimension();
        let mut cache = self
            .cache
            .lock()
            .map_err(|_| Error::new(ErrorKind::Storage, "embedding cache lock poisoned"))?;
        let mut out: Vec<Option<Vec<f32>>> = Vec::with_capacity(texts.len());
        for text in texts {
            // A vector of another length (a cache written by a different build of the model)
            // is a miss, not an error.
            out.push(cache.get(model, text)?.filter(|v| v.len() == dim));
        }
        let missing: Vec<usize> = (0..texts.len()).filter(|&i| out[i].is_none()).collect();
        self.hits
            .fetch_add((texts.len() - missing.len()) as u64, Ordering::Relaxed);
        if !missing.is_empty() {
            let todo: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
            let made = self.inner.embed(&todo)?;
            if made.len() != todo.len() {
                return Err(Error::new(
                    ErrorKind::Embedding,
                    format!(
                        "{model} returned {} vectors for {} texts",
                        made.len(),
                        todo.len()
                    ),
                ));
            }
            cache.put(model, &todo, &made)?;
            self.misses.fetch_add(todo.len() as u64, Ordering::Relaxed);
            for (i, v) in missing.into_iter().zip(made) {
                out[i] = Some(v);
            }
        }
        Ok(out.into_iter().map(Option::unwrap_or_default).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts calls; vector = [len, first byte, 0...] normalized enough for the test.
    struct Counting {
        calls: AtomicU64,
    }
    impl Embedder for Counting {
        fn model_id(&self) -> &str {
            "test/counting"
        }
        fn dimension(&self) -> usize {
            3
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
            self.calls.fetch_add(texts.len() as u64, Ordering::Relaxed);
            Ok(texts
                .iter()
                .map(|t| vec![t.len() as f32, f32::from(t.as_bytes()[0]), 0.5])
                .collect())
        }
    }

    #[test]
    fn second_run_reads_the_disk_and_keeps_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache.sqlite");
        let inner = Arc::new(Counting {
            calls: AtomicU64::new(0),
        });
        let first = CachedEmbedder::new(inner.clone(), EmbeddingCache::open(&path).unwrap());
        let a = first.embed(&["alpha", "beta"]).unwrap();
        assert_eq!(first.stats(), CacheStats { hits: 0, misses: 2 });
        drop(first);

        let second = CachedEmbedder::new(inner.clone(), EmbeddingCache::open(&path).unwrap());
        let b = second.embed(&["gamma", "beta", "alpha"]).unwrap();
        assert_eq!(second.stats(), CacheStats { hits: 2, misses: 1 });
        assert_eq!(inner.calls.load(Ordering::Relaxed), 3);
        assert_eq!(b[1], a[1]);
        assert_eq!(b[2], a[0]);
        assert_eq!(b[0], vec![5.0, f32::from(b'g'), 0.5]);
    }

    #[test]
    fn a_vector_of_the_wrong_length_is_a_miss() {
        let mut cache = EmbeddingCache::in_memory().unwrap();
        cache.put("test/counting", &["x"], &[vec![1.0]]).unwrap();
        let e = CachedEmbedder::new(
            Arc::new(Counting {
                calls: AtomicU64::new(0),
            }),
            cache,
        );
        assert_eq!(e.embed(&["x"]).unwrap()[0].len(), 3);
        assert_eq!(e.stats().misses, 1);
    }

    #[test]
    fn models_do_not_share_entries() {
        let mut cache = EmbeddingCache::in_memory().unwrap();
        cache
            .put("other/model", &["x"], &[vec![9.0, 9.0, 9.0]])
            .unwrap();
        assert!(cache.get("test/counting", "x").unwrap().is_none());
        assert_eq!(cache.get("other/model", "x").unwrap().unwrap(), [9.0; 3]);
    }
}

//! Synthetic memory corpora for oro-mem's benchmarks.
//!
//! Memories are sentences of 8 to 30 words: about 40% English function words, the rest drawn
//! from a Zipf-distributed vocabulary of 300 technical terms and 5,000 generated ones, so that
//! a few terms are very common and most are rare, as in real notes. Generation is
//! deterministic (a fixed-seed SplitMix64; no `rand` dependency for one tiny generator).

#![deny(missing_docs)]

use std::collections::HashMap;
use std::sync::Arc;

use oro_mem_core::config::DedupConfig;
use oro_mem_core::memory::DEFAULT_NAMESPACE;
use oro_mem_core::store::{CandidateSearch, MemoryWrite};
use oro_mem_core::{Config, Filter, MemoryType, Mode, NewMemory, Timestamp};
use oro_mem_engine::Engine;
use oro_mem_rank_vector::{normalize, Embedder};
use oro_mem_store_sqlite::Store;

const FUNCTION_WORDS: &[&str] = &[
    "the", "a", "to", "of", "and", "in", "is", "it", "for", "on", "with", "when", "that", "this",
    "be", "not", "or", "so", "if", "we", "you", "do", "at", "by", "before", "after", "from",
];

const TERMS: &[&str] = &[
    "sqlite",
    "database",
    "lock",
    "writer",
    "reader",
    "wal",
    "mode",
    "timeout",
    "busy",
    "transaction",
    "commit",
    "rollback",
    "index",
    "query",
    "plan",
    "cache",
    "invalidation",
    "version",
    "key",
    "redis",
    "postgres",
    "connection",
    "pool",
    "pgbouncer",
    "migration",
    "schema",
    "column",
    "table",
    "join",
    "vacuum",
    "checkpoint",
    "fsync",
    "disk",
    "memory",
    "leak",
    "allocator",
    "thread",
    "async",
    "tokio",
    "runtime",
    "future",
    "await",
    "deadlock",
    "mutex",
    "channel",
    "queue",
    "retry",
    "backoff",
    "jitter",
    "rate",
    "limit",
    "http",
    "api",
    "request",
    "response",
    "header",
    "auth",
    "token",
    "session",
    "cookie",
    "cors",
    "tls",
    "certificate",
    "dns",
    "proxy",
    "load",
    "balancer",
    "kubernetes",
    "pod",
    "node",
    "deploy",
    "rollout",
    "container",
    "docker",
    "image",
    "layer",
    "build",
    "cargo",
    "crate",
    "feature",
    "clippy",
    "rustfmt",
    "lint",
    "test",
    "fixture",
    "mock",
    "flaky",
    "ci",
    "pipeline",
    "cache",
    "artifact",
    "release",
    "tag",
    "branch",
    "merge",
    "rebase",
    "conflict",
    "review",
    "python",
    "ruff",
    "pyright",
    "mypy",
    "typing",
    "pytest",
    "venv",
    "pip",
    "wheel",
    "numpy",
    "pandas",
    "dataframe",
    "csv",
    "json",
    "parse",
    "serde",
    "schema",
    "validation",
    "error",
    "panic",
    "unwrap",
    "result",
    "option",
    "trait",
    "generic",
    "lifetime",
    "borrow",
    "clone",
    "arc",
    "logging",
    "tracing",
    "span",
    "metric",
    "alert",
    "dashboard",
    "latency",
    "throughput",
    "p99",
    "benchmark",
    "criterion",
    "profile",
    "flamegraph",
    "perf",
    "simd",
    "vector",
    "embedding",
    "model",
    "onnx",
    "tokenizer",
    "batch",
    "gpu",
    "cpu",
    "core",
    "config",
    "toml",
    "yaml",
    "env",
    "secret",
    "vault",
    "permission",
    "user",
    "group",
    "file",
    "path",
    "symlink",
    "watcher",
    "inotify",
    "signal",
    "sigterm",
    "shutdown",
    "graceful",
    "socket",
    "port",
    "bind",
    "listen",
    "grpc",
    "protobuf",
    "websocket",
    "stream",
    "buffer",
    "utf8",
    "encoding",
    "timezone",
    "utc",
    "date",
    "cron",
    "scheduler",
    "job",
    "worker",
    "frontend",
    "react",
    "vite",
    "bundle",
    "css",
    "layout",
    "render",
    "hydration",
    "state",
    "store",
    "reducer",
    "hook",
    "effect",
    "dependency",
    "upgrade",
    "semver",
    "breaking",
    "changelog",
];

/// A deterministic pseudo-random generator (SplitMix64).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator with a fixed seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniform integer in `[0, n)`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// The synthetic vocabulary, most frequent first: generated words, with the technical terms
/// spread over ranks 20 to ~4,700 (every 20th) so that query terms are neither ubiquitous nor absent
/// (the rank-20 term appears in about 6% of memories, the rank-500 one in about 0.3%).
pub fn vocabulary() -> Vec<String> {
    let syll = [
        "ka", "lo", "mi", "ren", "tas", "vu", "zor", "pe", "qui", "dan", "fel", "gro",
    ];
    let mut rng = Rng::new(7);
    let mut generated = std::iter::from_fn(move || {
        let n = 2 + rng.below(2);
        Some(
            (0..n)
                .map(|_| syll[rng.below(syll.len())])
                .collect::<String>(),
        )
    });
    let mut v = Vec::with_capacity(5_300);
    let mut terms = TERMS.iter();
    while v.len() < 5_300 {
        let rank = v.len();
        let term = (rank >= 20 && (rank - 20) % 20 == 0)
            .then(|| terms.next())
            .flatten();
        v.push(match term {
            Some(t) => t.to_string(),
            None => generated.next().unwrap_or_default(),
        });
    }
    v
}

/// Memory texts, `n` of them.
pub fn memories(n: usize) -> Vec<String> {
    let vocab = vocabulary();
    // Zipf(1.0) over the vocabulary by inverse CDF on the harmonic numbers.
    let cdf: Vec<f64> = {
        let mut acc = 0.0;
        let mut v: Vec<f64> = (1..=vocab.len())
            .map(|r| {
                acc += 1.0 / r as f64;
                acc
            })
            .collect();
        let total = acc;
        v.iter_mut().for_each(|x| *x /= total);
        v
    };
    let mut rng = Rng::new(42);
    (0..n)
        .map(|_| {
            let len = 8 + rng.below(23);
            (0..len)
                .map(|_| {
                    if rng.unit() < 0.4 {
                        FUNCTION_WORDS[rng.below(FUNCTION_WORDS.len())].to_string()
                    } else {
                        let u = rng.unit();
                        let i = cdf.partition_point(|&c| c < u).min(vocab.len() - 1);
                        vocab[i].clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// A store at `path` holding `n` synthetic memories spread over the last year.
///
/// # Panics
///
/// If the store cannot be written (benchmarks only).
pub fn build_store(path: &std::path::Path, n: usize) -> Store {
    build_store_with(path, n, None)
}

fn build_store_with(
    path: &std::path::Path,
    n: usize,
    embedder: Option<Arc<dyn Embedder>>,
) -> Store {
    let mut store = Store::open(path).expect("open bench store");
    fill(&mut store, n, embedder);
    store
}

/// Writes the `n` synthetic memories of [`build_store`] (with [`SyntheticEmbedder`]'s
/// embeddings when `embedded`) into any store, as [`build_store`] and
/// [`build_embedded_store`] do into a SQLite file.
///
/// # Panics
///
/// If the store cannot be written (benchmarks only).
pub fn fill_store<S: CandidateSearch + MemoryWrite + ?Sized>(
    store: &mut S,
    n: usize,
    embedded: bool,
) {
    let embedder: Option<Arc<dyn Embedder>> = if embedded {
        Some(Arc::new(SyntheticEmbedder))
    } else {
        None
    };
    fill(store, n, embedder);
}

/// The filter of one namespace: [`PROJECT`], or the default one, which holds the `n`
/// memories of a built store.
pub fn in_namespace(namespace: &str) -> Filter {
    Filter {
        namespace: Some(namespace.into()),
        ..Filter::default()
    }
}

/// The namespace [`add_namespace`] is given by the benchmarks: 1% of a store beside the
/// default one's memories.
pub const PROJECT: &str = "project";

/// Adds `n` more synthetic memories (embedded by [`SyntheticEmbedder`] when `embedded`) in
/// `namespace`: a project's share of a store that holds others, for searches filtered by it.
///
/// # Panics
///
/// If the store cannot be written (benchmarks only).
pub fn add_namespace(store: &mut Store, namespace: &str, n: usize, embedded: bool) {
    let embedder: Option<Arc<dyn Embedder>> = if embedded {
        Some(Arc::new(SyntheticEmbedder))
    } else {
        None
    };
    fill_in(store, n, embedder, namespace);
}

fn fill<S: CandidateSearch + MemoryWrite + ?Sized>(
    store: &mut S,
    n: usize,
    embedder: Option<Arc<dyn Embedder>>,
) {
    fill_in(store, n, embedder, DEFAULT_NAMESPACE);
}

fn fill_in<S: CandidateSearch + MemoryWrite + ?Sized>(
    store: &mut S,
    n: usize,
    embedder: Option<Arc<dyn Embedder>>,
    namespace: &str,
) {
    let mut engine = match embedder {
        Some(e) => {
            let config = Config {
                mode: Mode::Hybrid,
                ..Config::default()
            };
            Engine::from_config(config)
                .expect("default configuration")
                .with_embedder(e)
        }
        None => fts_engine(),
    };
    let off = DedupConfig {
        enabled: false,
        ..DedupConfig::default()
    };
    let now = Timestamp::now().as_second();
    let types = MemoryType::ALL;
    let texts = memories(n);
    let mut rng = Rng::new(1);
    for chunk in texts.chunks(10_000) {
        let batch = chunk
            .iter()
            .map(|t| {
                let mut m = NewMemory::new(t.clone(), types[rng.below(types.len())])
                    .namespace(namespace)
                    .created_at(Timestamp(now - rng.below(365 * 86_400) as i64));
                m.access_count = rng.below(4) as u64;
                (m, None)
            })
            .collect();
        engine
            .remember(store, batch, &off)
            .expect("insert bench memories");
    }
}

/// A fast stand-in for a sentence model, for building large stores: each word maps to a fixed
/// pseudo-random direction and a text to the normalized sum of its words' directions, so texts
/// that share words are near each other, like real embeddings of short notes. 384 dimensions,
/// as all-MiniLM-L6-v2.
#[derive(Debug, Default)]
pub struct SyntheticEmbedder;

/// Model id of [`SyntheticEmbedder`].
pub const SYNTHETIC_MODEL: &str = "bench/synthetic-384";

impl Embedder for SyntheticEmbedder {
    fn model_id(&self) -> &str {
        SYNTHETIC_MODEL
    }

    fn dimension(&self) -> usize {
        384
    }

    fn embed(&self, texts: &[&str]) -> oro_mem_core::Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0.0f32; 384];
                for word in t.split_whitespace() {
                    let seed = word.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
                    });
                    let mut rng = Rng::new(seed);
                    for x in &mut v {
                        *x += rng.unit() as f32 - 0.5;
                    }
                }
                normalize(&mut v);
                v
            })
            .collect())
    }
}

/// [`build_store`] with every memory embedded by [`SyntheticEmbedder`] (and so in the vector
/// index).
pub fn build_embedded_store(path: &std::path::Path, n: usize) -> Store {
    build_store_with(path, n, Some(Arc::new(SyntheticEmbedder)))
}

/// The default FTS-mode engine: weighted score fusion of bm25 1.0, coord 0.5 and access 0.4.
pub fn fts_engine() -> Engine {
    Engine::from_config(Config::default()).expect("default configuration")
}

/// The default hybrid engine (weighted score fusion of bm25 1.0, vector 1.0, coord 0.5 and
/// access 0.4, the pinned bonus, the hybrid threshold) answering every query with a vector
/// made before timing, so that query embedding is not measured.
pub fn hybrid_engine(queries: &[&str]) -> Engine {
    let config = Config {
        mode: Mode::Hybrid,
        fallback_to_fts: false,
        ..Config::default()
    };
    Engine::from_config(config)
        .expect("default configuration")
        .with_embedder(Arc::new(Precomputed::new(&SyntheticEmbedder, queries)))
}

/// An embedder that only knows the texts it was made with, whose vectors it looked up
/// beforehand from another embedder: a query costs a hash lookup, not a model run.
#[derive(Debug)]
pub struct Precomputed {
    model: String,
    dimension: usize,
    vectors: HashMap<String, Vec<f32>>,
}

impl Precomputed {
    /// The vectors `embedder` gives `texts`.
    ///
    /// # Panics
    ///
    /// If `embedder` fails (benchmarks only).
    pub fn new(embedder: &dyn Embedder, texts: &[&str]) -> Precomputed {
        let vectors = embedder.embed(texts).expect("embed queries");
        Precomputed {
            model: embedder.model_id().to_string(),
            dimension: embedder.dimension(),
            vectors: texts.iter().map(|t| t.to_string()).zip(vectors).collect(),
        }
    }
}

impl Embedder for Precomputed {
    fn model_id(&self) -> &str {
        &self.model
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&self, texts: &[&str]) -> oro_mem_core::Result<Vec<Vec<f32>>> {
        texts
            .iter()
            .map(|t| {
                self.vectors.get(*t).cloned().ok_or_else(|| {
                    oro_mem_core::Error::new(
                        oro_mem_core::ErrorKind::Embedding,
                        format!("no precomputed vector for {t:?}"),
                    )
                })
            })
            .collect()
    }
}

/// Queries of content words only.
pub const CONTENT_QUERIES: &[&str] = &[
    "sqlite writer lock timeout",
    "pgbouncer connection pool",
    "flaky pytest fixture",
    "tokio deadlock mutex",
];

/// Natural-language questions full of stopwords.
pub const QUESTION_QUERIES: &[&str] = &[
    "how do I stop the database from locking when two writers try to commit at the same time?",
    "what should we do before we upgrade a dependency with a breaking change in it?",
    "why is it that the cache is not invalidated after the version key changes?",
];

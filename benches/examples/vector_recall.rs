//! Recall@10 of the vector index against the exact scan, on real embeddings: the SciFact
//! corpus and its train and test queries embedded by all-MiniLM-L6-v2 (needs
//! `scripts/fetch-model`).
//!
//! `cargo run --release -p oro-mem-benches --example vector_recall -- ../shared/eval/scifact`
//!
//! With a PostgreSQL URL as second argument, the PostgreSQL store's HNSW search is measured
//! too, against the same exact scan (its corpus lives in a scratch schema, dropped after).
//!
//! The texts are those `oro-mem eval` embeds, through its embedding cache: after an eval run
//! this takes seconds; otherwise embedding the 5,183 abstracts takes a few minutes.

use std::sync::Arc;

use oro_mem_core::config::DedupConfig;
use oro_mem_core::{Config, Filter, MemoryType, Mode, NewMemory};
use oro_mem_engine::Engine;
use oro_mem_eval::{CachedEmbedder, Dataset, EmbeddingCache};
use oro_mem_rank_vector::{Embedder, MiniLm, MINILM_MODEL_ID};
use oro_mem_store_sqlite::Store;

fn main() {
    let dir = std::path::PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "../shared/eval/scifact".into()),
    );
    let minilm = Arc::new(MiniLm::load_default().expect("model (run scripts/fetch-model)"));
    // The texts `oro-mem eval` embeds, through its cache: warm after an eval run.
    let cache = EmbeddingCache::default_path()
        .map(EmbeddingCache::open)
        .transpose()
        .expect("embedding cache")
        .unwrap_or_else(|| EmbeddingCache::in_memory().expect("in-memory cache"));
    let model: Arc<dyn Embedder> = Arc::new(CachedEmbedder::new(minilm, cache));
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open(tmp.path().join("scifact.db")).expect("store");
    let server = std::env::args()
        .nth(2)
        .map(|url| oro_mem_store_postgres::Location::parse(&url).expect("a PostgreSQL URL"));
    let schema = format!("oro_vector_recall_{}", std::process::id());
    let mut pg = server.as_ref().map(|s| {
        oro_mem_store_postgres::Store::open(&s.in_schema(&schema)).expect("PostgreSQL store")
    });
    let config = Config {
        mode: Mode::Hybrid,
        ..Config::default()
    };
    let mut engine = Engine::from_config(config)
        .expect("default configuration")
        .with_embedder(model.clone());
    let off = DedupConfig {
        enabled: false,
        ..DedupConfig::default()
    };
    let dataset = Dataset::load(&dir, "test").expect("dataset");
    let started = std::time::Instant::now();
    for chunk in dataset.docs.chunks(256) {
        let batch: Vec<_> = chunk
            .iter()
            .map(|d| (NewMemory::new(d.content(), MemoryType::Lesson), None))
            .collect();
        if let Some(pg) = pg.as_mut() {
            // The same memories, embedded alike (through the cache), under the same ids.
            engine.remember(pg, batch.clone(), &off).expect("insert");
        }
        engine.remember(&mut store, batch, &off).expect("insert");
    }
    let docs = &dataset.docs;
    eprintln!(
        "embedded {} documents in {:.0} s",
        docs.len(),
        started.elapsed().as_secs_f64()
    );
    let all = Filter::default();
    let exact_filter = Filter {
        namespace: Some("default".into()),
        ..Filter::default()
    };
    let (mut hits, mut total) = (0usize, 0usize);
    let mut worst = 1.0f64;
    let (mut pg_hits, mut pg_worst) = (0usize, 1.0f64);
    // Every query of the corpus, whatever its split.
    let queries = Dataset::load(&dir, "train")
        .expect("dataset")
        .queries
        .into_iter()
        .chain(dataset.queries);
    let mut count = 0;
    for q in queries {
        count += 1;
        let v = model.embed(&[q.text.as_str()]).expect("embed").remove(0);
        let fast = store
            .vector_candidates(MINILM_MODEL_ID, &v, &all, 10)
            .expect("index");
        let exact = store
            .vector_candidates(MINILM_MODEL_ID, &v, &exact_filter, 10)
            .expect("exact");
        let found = fast
            .iter()
            .filter(|(id, _)| exact.iter().any(|(e, _)| e == id))
            .count();
        worst = worst.min(found as f64 / exact.len().max(1) as f64);
        hits += found;
        total += exact.len();
        if let Some(pg) = &pg {
            let hnsw = pg
                .vector_candidates(MINILM_MODEL_ID, &v, &all, 10)
                .expect("HNSW");
            let found = hnsw
                .iter()
                .filter(|(id, _)| exact.iter().any(|(e, _)| e == id))
                .count();
            pg_worst = pg_worst.min(found as f64 / exact.len().max(1) as f64);
            pg_hits += found;
        }
    }
    println!(
        "SciFact, {} queries over {} documents: recall@10 of the index against the exact scan = {:.4} (worst query {:.2})",
        count,
        docs.len(),
        hits as f64 / total.max(1) as f64,
        worst
    );
    if pg.is_some() {
        println!(
            "PostgreSQL HNSW (halfvec, ef_search 100), the same queries: recall@10 = {:.4} (worst query {:.2})",
            pg_hits as f64 / total.max(1) as f64,
            pg_worst
        );
    }
    drop(pg);
    if let Some(server) = server {
        server
            .drop_schema(&schema)
            .expect("drop the scratch schema");
    }
}

//! Recall@10 of the quantized vector index against the exact scan, on real embeddings: the
//! SciFact corpus and queries embedded by all-MiniLM-L6-v2 (needs `scripts/fetch-model`).
//!
//! `cargo run --release -p oro-mem-benches --example vector_recall -- ../shared/eval/scifact`
//!
//! Embedding the 5,183 abstracts takes a few minutes on two cores.

use std::io::BufRead;
use std::sync::Arc;

use oro_mem_core::config::DedupConfig;
use oro_mem_core::{Config, Filter, MemoryType, Mode, NewMemory};
use oro_mem_engine::Engine;
use oro_mem_rank_vector::{Embedder, MiniLm, MINILM_MODEL_ID};
use oro_mem_store_sqlite::Store;

fn lines(path: &std::path::Path) -> Vec<serde_json::Value> {
    let f = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    std::io::BufReader::new(f)
        .lines()
        .map(|l| serde_json::from_str(&l.expect("read")).expect("json line"))
        .collect()
}

fn main() {
    let dir = std::path::PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "../shared/eval/scifact".into()),
    );
    let model = Arc::new(MiniLm::load_default().expect("model (run scripts/fetch-model)"));
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open(tmp.path().join("scifact.db")).expect("store");
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
    let docs = lines(&dir.join("corpus.jsonl"));
    let started = std::time::Instant::now();
    for chunk in docs.chunks(256) {
        let batch = chunk
            .iter()
            .map(|d| {
                let text = format!(
                    "{} {}",
                    d["title"].as_str().unwrap_or(""),
                    d["text"].as_str().unwrap_or("")
                );
                (NewMemory::new(text.trim(), MemoryType::Lesson), None)
            })
            .collect();
        engine.remember(&mut store, batch, &off).expect("insert");
    }
    eprintln!(
        "embedded {} documents in {:.0} s",
        docs.len(),
        started.elapsed().as_secs_f64()
    );
    let queries = lines(&dir.join("queries.jsonl"));
    let all = Filter::default();
    let exact_filter = Filter {
        namespace: Some("default".into()),
        ..Filter::default()
    };
    let (mut hits, mut total) = (0usize, 0usize);
    let mut worst = 1.0f64;
    for q in &queries {
        let text = q["text"].as_str().expect("query text");
        let v = model.embed(&[text]).expect("embed").remove(0);
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
    }
    println!(
        "SciFact, {} queries over {} documents: recall@10 of the index against the exact scan = {:.4} (worst query {:.2})",
        queries.len(),
        docs.len(),
        hits as f64 / total.max(1) as f64,
        worst
    );
}

//! A warm store's lexical search (the mirror of the full-text index that `oro-mem serve`
//! keeps) against FTS5's own, on a real corpus and its queries: the top 10 of each query, ids
//! and scores, must be the same, in the same order. A query with a namespace (LoCoMo's
//! conversations) searches in it, as `oro-mem eval` asks.
//!
//! `cargo run --release -p oro-mem-benches --example warm_same -- ../shared/eval/scifact
//! [SPLIT]` (and `../shared/eval/locomo-dev`); prints the number of queries compared, those
//! whose top 10 differ (0 expected), and the median time of each path.

use oro_mem_core::config::DedupConfig;
use oro_mem_core::{Filter, MemoryType, NewMemory};
use oro_mem_engine::remember_batch;
use oro_mem_eval::Dataset;
use oro_mem_store_sqlite::Store;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(
        args.next()
            .unwrap_or_else(|| "../shared/eval/scifact".into()),
    );
    let split = args.next().unwrap_or_else(|| "test".into());
    let dataset = Dataset::load(&dir, &split).expect("dataset");
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("corpus.db");
    let mut cold = Store::open(&path).expect("store");
    let off = DedupConfig {
        enabled: false,
        ..DedupConfig::default()
    };
    for chunk in dataset.docs.chunks(1000) {
        let batch = chunk
            .iter()
            .map(|d| {
                let mut m = NewMemory::new(d.body(), MemoryType::Lesson)
                    .namespace(d.namespace.clone().unwrap_or_else(|| "default".into()));
                m.summary = d.summary().map(str::to_string);
                m
            })
            .collect();
        remember_batch(&mut cold, batch, &off).expect("write");
    }
    let mut warm = Store::open(&path).expect("store");
    warm.set_warm(true);
    let (mut differ, mut cold_ms, mut warm_ms) = (0, Vec::new(), Vec::new());
    for q in &dataset.queries {
        let filter = Filter {
            namespace: q.namespace.clone(),
            ..Filter::default()
        };
        let top = |s: &Store, times: &mut Vec<f64>| {
            let started = std::time::Instant::now();
            let found = s.lexical_candidates(&q.text, &filter, 10).expect("search");
            times.push(started.elapsed().as_secs_f64() * 1e3);
            found
                .into_iter()
                .map(|(m, score)| (m.id, score.to_bits()))
                .collect::<Vec<_>>()
        };
        let (a, b) = (top(&cold, &mut cold_ms), top(&warm, &mut warm_ms));
        if a != b {
            differ += 1;
            eprintln!("differs: {:?}", q.text);
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    println!(
        "{}: {} queries, {differ} differ; p50 FTS5 {:.3} ms, warm {:.3} ms",
        dir.display(),
        dataset.queries.len(),
        median(cold_ms),
        median(warm_ms)
    );
}

//! Ingest throughput: one `Engine::remember` of 100 new memories (dedup on, as `import` runs it)
//! into a store that already holds 10k, each iteration on a fresh copy of that store.
//!
//! - `ingest/fts`: no embeddings (FTS mode).
//! - `ingest/fts_no_dedup`: the same with dedup off, the baseline that shows what the
//!   duplicate check costs.
//! - `ingest/synthetic_vectors`: embeddings from the synthetic stand-in, so the time is the
//!   store's own vector work (cosine dedup against the index, the index append) without a
//!   model.
//! - `ingest/minilm`: embeddings from all-MiniLM-L6-v2 (needs `scripts/fetch-model`; skipped
//!   with a note when the model is missing). The model dominates: this is the hybrid-mode
//!   write cost a user sees.
//! - `ingest/minilm_session`: the same, the 100 memories turns of one session, so each but
//!   the first is embedded with the one before it too (`embedding.session_context`).
//!
//! Run: `cargo bench -p oro-mem-benches --bench ingest`.

use std::path::Path;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use oro_mem_benches::{build_embedded_store, build_store, memories, SyntheticEmbedder};
use oro_mem_core::config::DedupConfig;
use oro_mem_core::{Config, MemoryType, Mode, NewMemory};
use oro_mem_engine::Engine;
use oro_mem_rank_vector::{Embedder, MiniLm};
use oro_mem_store_sqlite::Store;

const EXISTING: usize = 10_000;

/// A case: its name, the template store it copies, the embedder it writes with, whether
/// dedup is on, and the session its memories are written in, if any.
type Case<'a> = (
    &'static str,
    &'a Path,
    Option<Arc<dyn Embedder>>,
    DedupConfig,
    Option<&'static str>,
);
const BATCH: usize = 100;

fn ingest(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let plain = dir.path().join("plain.db");
    let embedded = dir.path().join("embedded.db");
    drop(build_store(&plain, EXISTING));
    drop(build_embedded_store(&embedded, EXISTING));
    // The next 100 texts of the same generator: new memories, some close to existing ones.
    let texts: Vec<String> = memories(EXISTING + BATCH).split_off(EXISTING);
    let minilm: Option<Arc<dyn Embedder>> = match MiniLm::load_default() {
        Ok(m) => Some(Arc::new(m)),
        Err(e) => {
            eprintln!("ingest: skipping ingest/minilm: {e}");
            None
        }
    };
    let on = DedupConfig::default();
    let mut cases: Vec<Case<'_>> = vec![
        ("fts", &plain, None, on.clone(), None),
        // The duplicate check without looking for the memories a new one updates.
        (
            "fts_no_updates",
            &plain,
            None,
            DedupConfig {
                updates: false,
                ..on.clone()
            },
            None,
        ),
        (
            "fts_no_dedup",
            &plain,
            None,
            DedupConfig {
                enabled: false,
                ..on.clone()
            },
            None,
        ),
        (
            "synthetic_vectors",
            &embedded,
            Some(Arc::new(SyntheticEmbedder)),
            on.clone(),
            None,
        ),
    ];
    if let Some(m) = minilm {
        cases.push(("minilm", &plain, Some(m.clone()), on.clone(), None));
        cases.push(("minilm_session", &plain, Some(m), on, Some("bench")));
    }

    let mut group = c.benchmark_group("ingest");
    group.throughput(Throughput::Elements(BATCH as u64));
    group.sample_size(10);
    let copy = dir.path().join("copy.db");
    for (name, template, embedder, dedup, session) in cases {
        group.bench_function(name, |b| {
            b.iter_batched(
                || {
                    std::fs::copy(template, &copy).expect("copy template store");
                    let store = Store::open(&copy).expect("open copy");
                    let engine = match &embedder {
                        Some(e) => Engine::from_config(Config {
                            mode: Mode::Hybrid,
                            ..Config::default()
                        })
                        .expect("default configuration")
                        .with_embedder(e.clone()),
                        None => Engine::from_config(Config::default()).expect("default"),
                    };
                    let batch: Vec<_> = texts
                        .iter()
                        .map(|t| {
                            let mut m = NewMemory::new(t.clone(), MemoryType::Lesson);
                            m.session = session.map(str::to_string);
                            (m, None)
                        })
                        .collect();
                    (engine, store, batch)
                },
                |(mut engine, mut store, batch)| {
                    engine.remember(&mut store, batch, &dedup).expect("ingest")
                },
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, ingest);
criterion_main!(benches);

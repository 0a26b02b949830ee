//! Ingest throughput: one `Engine::remember` of 100 new memories (dedup on, as `import` runs it)
//! into a store that already holds 10k, each iteration on a fresh copy of that store.
//!
//! - `ingest/fts`: no embeddings (FTS mode).
//! - `ingest/fts_no_dedup`: the same with dedup off, the baseline that shows what the
//!   duplicate check costs.
//! - `ingest/fts_named` and `ingest/fts_named_no_updates`: each memory ends in a name and a
//!   path, so the update check also looks for older states by the plain words alone (a
//!   second lexical query: its cost for a write that updates nothing).
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
/// dedup is on, the session its memories are written in, if any, and the memories.
type Case<'a> = (
    &'static str,
    &'a Path,
    Option<Arc<dyn Embedder>>,
    DedupConfig,
    Option<&'static str>,
    &'a [String],
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
    // The same, each naming a tool and a file, as agents' rules do.
    let named: Vec<String> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{t} with Tool{i} in `src/module{i}.rs`"))
        .collect();
    let minilm: Option<Arc<dyn Embedder>> = match MiniLm::load_default() {
        Ok(m) => Some(Arc::new(m)),
        Err(e) => {
            eprintln!("ingest: skipping ingest/minilm: {e}");
            None
        }
    };
    let on = DedupConfig::default();
    let no_updates = DedupConfig {
        updates: false,
        ..on.clone()
    };
    let mut cases: Vec<Case<'_>> = vec![
        ("fts", &plain, None, on.clone(), None, &texts),
        // The duplicate check without looking for the memories a new one updates.
        (
            "fts_no_updates",
            &plain,
            None,
            no_updates.clone(),
            None,
            &texts,
        ),
        ("fts_named", &plain, None, on.clone(), None, &named),
        (
            "fts_named_no_updates",
            &plain,
            None,
            no_updates,
            None,
            &named,
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
            &texts,
        ),
        (
            "synthetic_vectors",
            &embedded,
            Some(Arc::new(SyntheticEmbedder)),
            on.clone(),
            None,
            &texts,
        ),
    ];
    if let Some(m) = minilm {
        cases.push(("minilm", &plain, Some(m.clone()), on.clone(), None, &texts));
        cases.push(("minilm_session", &plain, Some(m), on, Some("bench"), &texts));
    }

    let mut group = c.benchmark_group("ingest");
    group.throughput(Throughput::Elements(BATCH as u64));
    group.sample_size(10);
    let copy = dir.path().join("copy.db");
    for (name, template, embedder, dedup, session, texts) in cases {
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

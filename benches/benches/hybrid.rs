//! Hybrid-mode latency at 1k, 10k and 100k synthetic memories with 384-dimensional embeddings:
//!
//! - `vector_stage/index`: the nearest 50 by the sign-bit index, rescored exactly (what hybrid
//!   recall runs); `vector_stage/exact_scan`: every `f32` embedding scored in SQL row order
//!   (the path taken under a selective filter), as the baseline in the same run;
//!   `vector_stage/one_namespace`: the same scan filtered by a namespace that holds 1% of the
//!   store (another `n / 100` memories, written beside the `n`), as recall in a project's
//!   namespace runs it.
//! - `hybrid_recall`: the default hybrid engine's whole recall (lexical candidates, vector stage,
//!   join, the default fusion), excluding the query embedding (the query vectors are made
//!   before timing), from a cold store (FTS5, as a one-off command reads it);
//!   `hybrid_recall/bm25_found_only`: the same with `recall.score_all_lexically` off (the
//!   candidates only the vector stage found get no BM25 score), as the baseline in the same
//!   run.
//!
//! Run: `cargo bench -p oro-mem-benches --bench hybrid`. Building the 100k store takes about a
//! minute.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use oro_mem_benches::{
    add_namespace, build_embedded_store, hybrid_engine, in_namespace, SyntheticEmbedder,
    CONTENT_QUERIES, PROJECT, QUESTION_QUERIES, SYNTHETIC_MODEL,
};
use oro_mem_core::memory::DEFAULT_NAMESPACE;
use oro_mem_core::{Filter, Query, Timestamp};
use oro_mem_rank_vector::Embedder;

fn hybrid(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let all = Filter::default();
    // A namespace condition forces the exact scan (every memory is in "default").
    let scan = in_namespace(DEFAULT_NAMESPACE);
    let project = in_namespace(PROJECT);
    let now = Timestamp::now();
    let texts: Vec<&str> = CONTENT_QUERIES
        .iter()
        .chain(QUESTION_QUERIES)
        .copied()
        .collect();
    let vectors = SyntheticEmbedder.embed(&texts).expect("embed queries");
    let mut engine = hybrid_engine(&texts);
    let mut found_only = {
        let mut config = engine.config().clone();
        config.recall.score_all_lexically = false;
        engine.reconfigured(config).expect("configuration")
    };

    for n in [1_000usize, 10_000, 100_000] {
        let mut store = build_embedded_store(&dir.path().join(format!("{n}.db")), n);
        add_namespace(&mut store, PROJECT, n / 100, true);
        let mut group = c.benchmark_group("vector_stage");
        group.sample_size(30);
        for (name, filter) in [
            ("index", &all),
            ("exact_scan", &scan),
            ("one_namespace", &project),
        ] {
            group.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
                let mut i = 0;
                b.iter(|| {
                    let q = &vectors[i % vectors.len()];
                    i += 1;
                    store
                        .vector_candidates(SYNTHETIC_MODEL, q, filter, 50)
                        .expect("vector search")
                });
            });
        }
        group.finish();

        let mut group = c.benchmark_group("hybrid_recall");
        group.sample_size(30);
        for (name, engine) in [
            ("all_queries", &mut engine),
            ("bm25_found_only", &mut found_only),
        ] {
            group.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
                let mut i = 0;
                b.iter(|| {
                    let k = i % texts.len();
                    i += 1;
                    engine
                        .recall(&mut store, &Query::new(texts[k], &all).now(now), false)
                        .expect("recall")
                });
            });
        }
        group.finish();
    }
}

criterion_group!(benches, hybrid);
criterion_main!(benches);

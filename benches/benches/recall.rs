//! FTS-mode recall latency at 1k / 10k / 100k synthetic memories, for content-word queries
//! and stopword-heavy questions, against raw FTS5 on the unfiltered question as a baseline;
//! `content_one_namespace`: the content queries filtered by a namespace that holds 1% of the
//! store (another `n / 100` memories, written beside the `n`); `warm/...`: the content
//! queries, unfiltered, in that namespace and in the one of the other 99%, with the store warm
//! (as `serve` and `mcp` hold it, and `eval`).
//!
//! Run: `cargo bench -p oro-mem-benches --bench recall`. Building the 100k store takes about
//! half a minute.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use oro_mem_benches::{
    add_namespace, build_store, fts_engine, in_namespace, CONTENT_QUERIES, PROJECT,
    QUESTION_QUERIES,
};
use oro_mem_core::memory::DEFAULT_NAMESPACE;
use oro_mem_core::{Filter, Query, Timestamp};

fn recall(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut engine = fts_engine();
    let filter = Filter::default();
    let project = in_namespace(PROJECT);
    let most = in_namespace(DEFAULT_NAMESPACE);
    let now = Timestamp::now();
    let mut group = c.benchmark_group("fts_recall");
    group.sample_size(30);
    for n in [1_000usize, 10_000, 100_000] {
        let mut store = build_store(&dir.path().join(format!("{n}.db")), n);
        add_namespace(&mut store, PROJECT, n / 100, false);
        for (kind, queries, filter, warm) in [
            ("content", CONTENT_QUERIES, &filter, false),
            ("question", QUESTION_QUERIES, &filter, false),
            ("content_one_namespace", CONTENT_QUERIES, &project, false),
            ("warm/content", CONTENT_QUERIES, &filter, true),
            (
                "warm/content_one_namespace",
                CONTENT_QUERIES,
                &project,
                true,
            ),
            ("warm/content_main_namespace", CONTENT_QUERIES, &most, true),
        ] {
            store.set_warm(warm);
            group.bench_with_input(BenchmarkId::new(kind, n), &queries, |b, queries| {
                let mut i = 0;
                b.iter(|| {
                    let q = queries[i % queries.len()];
                    i += 1;
                    engine
                        .recall(&mut store, &Query::new(q, filter).now(now), false)
                        .expect("recall")
                });
            });
        }
        store.set_warm(false);
        // Baseline: FTS5 on every word of the question, OR-joined, stopwords included.
        group.bench_with_input(BenchmarkId::new("raw_fts5_question", n), &n, |b, _| {
            let mut i = 0;
            b.iter(|| {
                let q = QUESTION_QUERIES[i % QUESTION_QUERIES.len()];
                i += 1;
                let expr = q
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .map(|w| format!("\"{w}\""))
                    .collect::<Vec<_>>()
                    .join(" OR ");
                let mut s = store
                    .connection()
                    .prepare_cached(
                        "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?1 \
                         ORDER BY rank LIMIT 50",
                    )
                    .expect("prepare");
                let rows: Vec<i64> = s
                    .query_map([expr], |r| r.get(0))
                    .expect("query")
                    .map(|r| r.expect("row"))
                    .collect();
                rows
            });
        });
    }
    group.finish();
}

criterion_group!(benches, recall);
criterion_main!(benches);

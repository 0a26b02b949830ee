//! The PostgreSQL store beside the SQLite store, in one run, on the same synthetic corpus
//! (`build_embedded_store`'s 384-dimensional memories): FTS-mode and hybrid-mode recall with
//! the default engines, excluding the query embedding (query vectors are made before timing).
//!
//! Needs a server: `ORO_MEM_BENCH_PG_URL` (for instance `$(scripts/postgres start)`); without
//! one it says so and measures nothing. The PostgreSQL corpus is kept in schema
//! `oro_bench_<n>` and reused when it is complete (building 100k memories takes minutes);
//! the SQLite one is built in a temporary directory.
//!
//! Run: `ORO_MEM_BENCH_PG_URL=... cargo bench -p oro-mem-benches --bench postgres`;
//! `ORO_MEM_BENCH_PG_SIZES=10000` for other sizes (comma-separated; default 100000).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use oro_mem_benches::{
    build_embedded_store, fill_store, fts_engine, hybrid_engine, CONTENT_QUERIES, QUESTION_QUERIES,
};
use oro_mem_core::store::{CandidateSearch, MemoryWrite};
use oro_mem_core::{Filter, Query, Timestamp};
use oro_mem_engine::Engine;
use oro_mem_store_postgres::{Location, Store};

fn postgres_store(url: &str, n: usize) -> Store {
    let schema = format!("oro_bench_{n}");
    let server = Location::parse(url).expect("ORO_MEM_BENCH_PG_URL");
    let location = server.in_schema(&schema);
    let store = Store::open(&location).expect("open the PostgreSQL bench store");
    if store.count(&Filter::default()).expect("count") as usize == n {
        return store;
    }
    drop(store);
    server
        .drop_schema(&schema)
        .expect("drop an incomplete corpus");
    let mut store = Store::open(&location).expect("open the PostgreSQL bench store");
    let started = std::time::Instant::now();
    fill_store(&mut store, n, true);
    eprintln!(
        "postgres: {n} memories written in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    store
}

fn recall_all<S: CandidateSearch + MemoryWrite>(
    c: &mut Criterion,
    group: &str,
    engine: &mut Engine,
    stores: &mut [(&str, &mut S)],
    n: usize,
) {
    let texts: Vec<&str> = CONTENT_QUERIES
        .iter()
        .chain(QUESTION_QUERIES)
        .copied()
        .collect();
    let all = Filter::default();
    let now = Timestamp::now();
    let mut g = c.benchmark_group(group);
    g.sample_size(30);
    for (name, store) in stores.iter_mut() {
        g.bench_with_input(BenchmarkId::new(*name, n), &n, |b, _| {
            let mut i = 0;
            b.iter(|| {
                let k = i % texts.len();
                i += 1;
                engine
                    .recall(&mut **store, &Query::new(texts[k], &all).now(now), false)
                    .expect("recall")
            });
        });
    }
    g.finish();
}

fn side_by_side(c: &mut Criterion) {
    let Ok(url) = std::env::var("ORO_MEM_BENCH_PG_URL") else {
        eprintln!("no ORO_MEM_BENCH_PG_URL: nothing measured (see scripts/postgres)");
        return;
    };
    let sizes: Vec<usize> = std::env::var("ORO_MEM_BENCH_PG_SIZES")
        .unwrap_or_else(|_| "100000".into())
        .split(',')
        .map(|s| s.trim().parse().expect("ORO_MEM_BENCH_PG_SIZES: numbers"))
        .collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let texts: Vec<&str> = CONTENT_QUERIES
        .iter()
        .chain(QUESTION_QUERIES)
        .copied()
        .collect();
    for n in sizes {
        let mut pg: Box<dyn oro_mem_core::store::MemoryStore> = Box::new(postgres_store(&url, n));
        let mut sqlite: Box<dyn oro_mem_core::store::MemoryStore> =
            Box::new(build_embedded_store(&dir.path().join(format!("{n}.db")), n));
        let mut stores = [("sqlite", &mut sqlite), ("postgres", &mut pg)];
        recall_all(c, "fts_recall", &mut fts_engine(), &mut stores, n);
        recall_all(
            c,
            "hybrid_recall",
            &mut hybrid_engine(&texts),
            &mut stores,
            n,
        );
    }
}

criterion_group!(benches, side_by_side);
criterion_main!(benches);

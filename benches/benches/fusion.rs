//! Time per fuse on rankings from real SciFact queries (BEIR test split, the first 50
//! judged queries): BM25 and vector (all-MiniLM-L6-v2) candidates at depth 100, as
//! `oro-mem eval` makes them, plus recency and access lists over the same candidates (the
//! documents get creation times spread over a year and small access counts, so those lists are
//! not all ties).
//!
//! - `fuse_rrf_k/{20,60,100}`: weighted RRF over the four lists.
//! - `fuse_lists/{2,4}`: bm25 + vector against all four, RRF k = 60.
//! - `fuse_method/{rrf,weighted_score}`: weighted RRF against weighted min-max score fusion,
//!   four lists.
//!
//! Needs the model (`scripts/fetch-model`) and the dataset (`../shared/eval/scifact`, or
//! `ORO_MEM_SCIFACT`). Corpus embeddings come from `oro-mem eval`'s cache; with an empty cache
//! the first run embeds the corpus (about three minutes on two cores) and fills it.
//!
//! Run: `cargo bench -p oro-mem-benches --bench fusion`.

use std::path::PathBuf;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use oro_mem_benches::Rng;
use oro_mem_core::config::DedupConfig;
use oro_mem_core::{
    Config, Filter, Fuser, MemoryType, Mode, NewMemory, Query, Ranking, Timestamp, Weighted,
};
use oro_mem_engine::{remember_batch, Engine};
use oro_mem_eval::{CachedEmbedder, Dataset, EmbeddingCache};
use oro_mem_fusion::{Rrf, WeightedScore};
use oro_mem_rank_vector::{Embedder, MiniLm};
use oro_mem_store_sqlite::Store;

const QUERIES: usize = 50;
const DEPTH: usize = 100;

/// A query's lists: name, weight, ranking.
type Lists = [(&'static str, f64, Ranking); 4];

/// The four lists of each query, weighted as the default configuration does (recency, 0 by
/// default, at its former 0.6 so that four lists are fused); `None` with a note when the
/// dataset or the model is missing.
fn scifact_rankings() -> Option<Vec<Lists>> {
    let dir = std::env::var_os("ORO_MEM_SCIFACT").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/eval/scifact"),
        PathBuf::from,
    );
    let data = match Dataset::load(&dir, "test") {
        Ok(d) => d,
        Err(e) => {
            eprintln!("fusion: skipped, no SciFact ({e}); set ORO_MEM_SCIFACT to its folder");
            return None;
        }
    };
    let model: Arc<dyn Embedder> = match MiniLm::load_default() {
        Ok(m) => Arc::new(m),
        Err(e) => {
            eprintln!("fusion: skipped, no model ({e})");
            return None;
        }
    };
    let cache = match EmbeddingCache::default_path() {
        Some(p) => EmbeddingCache::create(p).expect("embedding cache"),
        None => EmbeddingCache::in_memory().expect("embedding cache"),
    };
    let mut store = Store::open_in_memory().expect("store");
    let mut rng = Rng::new(7);
    let now = Timestamp::now().as_second();
    let batch = data
        .docs
        .iter()
        .map(|d| {
            let mut m = NewMemory::new(d.content(), MemoryType::Lesson)
                .created_at(Timestamp(now - rng.below(365 * 86_400) as i64));
            m.access_count = rng.below(4) as u64;
            m
        })
        .collect();
    let off = DedupConfig {
        enabled: false,
        ..DedupConfig::default()
    };
    remember_batch(&mut store, batch, &off).expect("import SciFact");

    // The default hybrid engine at depth 100, with recency weighted so that four lists fuse.
    let mut config = Config {
        mode: Mode::Hybrid,
        fallback_to_fts: false,
        ..Config::default()
    };
    config.recall.depth = DEPTH;
    config.recall.vector_depth = DEPTH;
    config.recall.weights.set("recency", 0.6);
    // The corpus embedded through the cache that `oro-mem eval` fills; queries by the model.
    Engine::from_config(config.clone())
        .expect("configuration")
        .with_embedder(Arc::new(CachedEmbedder::new(model.clone(), cache)))
        .embed_missing(&mut store, 64, |_| {})
        .expect("embed SciFact");
    let mut engine = Engine::from_config(config)
        .expect("configuration")
        .with_embedder(model);
    let all = Filter::default();
    let rankings = data
        .queries
        .iter()
        .take(QUERIES)
        .map(|q| {
            let query = Query::new(&q.text, &all);
            let gathered = engine.candidates(&store, &query).expect("candidates");
            assert_eq!(gathered.mode, Mode::Hybrid);
            let mut warnings = Vec::new();
            let lists =
                engine
                    .pipeline(Mode::Hybrid)
                    .rank(&query, &gathered.candidates, &mut warnings);
            assert!(warnings.is_empty(), "{warnings:?}");
            let lists: Vec<(&'static str, f64, Ranking)> = lists
                .into_iter()
                .map(|(name, w, r)| {
                    let name = ["bm25", "vector", "recency", "access"]
                        .into_iter()
                        .find(|n| *n == name)
                        .expect("a built-in ranker");
                    (name, w, r)
                })
                .collect();
            lists.try_into().expect("four lists")
        })
        .collect();
    Some(rankings)
}

fn inputs<'a>(lists: &'a [(&'static str, f64, Ranking)]) -> Vec<Weighted<'a>> {
    lists
        .iter()
        .map(|(name, w, r)| Weighted::new(name, *w, r).expect("weight"))
        .collect()
}

fn fusion(c: &mut Criterion) {
    let Some(rankings) = scifact_rankings() else {
        return;
    };
    let sizes: Vec<usize> = rankings.iter().map(|r| r[2].2.len()).collect();
    eprintln!(
        "fusion: {} queries, {:.0} candidates per query on average",
        rankings.len(),
        sizes.iter().sum::<usize>() as f64 / sizes.len() as f64
    );
    let mut run = |group: &str, id: BenchmarkId, fuser: &dyn Fuser, lists: usize| {
        let mut g = c.benchmark_group(group);
        g.bench_function(id, |b| {
            let mut i = 0;
            b.iter(|| {
                let r = &rankings[i % rankings.len()];
                i += 1;
                let inputs = inputs(&r[..lists]);
                fuser.fuse(&inputs, DEPTH)
            });
        });
        g.finish();
    };
    for k in [20.0, 60.0, 100.0] {
        let rrf = Rrf::new(k).expect("k");
        run("fuse_rrf_k", BenchmarkId::from_parameter(k), &rrf, 4);
    }
    for lists in [2, 4] {
        run(
            "fuse_lists",
            BenchmarkId::from_parameter(lists),
            &Rrf::default(),
            lists,
        );
    }
    run(
        "fuse_method",
        BenchmarkId::from_parameter("rrf"),
        &Rrf::default(),
        4,
    );
    run(
        "fuse_method",
        BenchmarkId::from_parameter("weighted_score"),
        &WeightedScore,
        4,
    );
}

criterion_group!(benches, fusion);
criterion_main!(benches);

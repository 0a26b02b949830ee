//! Calibrates `recall.min_similarity`, the cosine a memory without a lexical match needs to be
//! recalled: how similar judged-relevant documents are to their queries, against how similar
//! the nearest document of an unrelated corpus is.
//!
//! `cargo run --release -p oro-mem-benches --example cosine_gate -- DATASET SPLIT UNRELATED`,
//! e.g. `../shared/eval/scifact train ../shared/eval/locomo-dev`. Embeddings come from (and
//! go to) the cache of `oro-mem eval`.

use std::collections::HashMap;
use std::sync::Arc;

use oro_mem_eval::{CachedEmbedder, Dataset, EmbeddingCache};
use oro_mem_rank_vector::{Embedder, MiniLm};
use oro_mem_store_sqlite::quant::dot_f32;

const THRESHOLDS: [f32; 7] = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, split, unrelated] = &args[..] else {
        panic!("usage: cosine_gate DATASET SPLIT UNRELATED_DATASET");
    };
    let data = Dataset::load(dir, split).expect("dataset");
    let other = Dataset::load(unrelated, "test")
        .or_else(|_| Dataset::load(unrelated, "dev"))
        .expect("unrelated dataset");
    let cache =
        EmbeddingCache::open(EmbeddingCache::default_path().expect("cache path")).expect("cache");
    let model = CachedEmbedder::new(Arc::new(MiniLm::load_default().expect("model")), cache);
    let embed = |texts: Vec<String>| -> Vec<Vec<f32>> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        model.embed(&refs).expect("embed")
    };
    let docs = embed(data.docs.iter().map(|d| d.content()).collect());
    let doc_index: HashMap<&str, usize> = data
        .docs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.id.as_str(), i))
        .collect();
    let others = embed(other.docs.iter().map(|d| d.content()).collect());
    let queries = embed(data.queries.iter().map(|q| q.text.clone()).collect());

    let mut relevant: Vec<f32> = Vec::new();
    let mut nearest_unrelated: Vec<f32> = Vec::new();
    for (q, v) in data.queries.iter().zip(&queries) {
        for (doc, &grade) in data.qrels.get(&q.id).into_iter().flatten() {
            if grade > 0 {
                if let Some(&i) = doc_index.get(doc.as_str()) {
                    relevant.push(dot_f32(v, &docs[i]));
                }
            }
        }
        let best = others
            .iter()
            .map(|o| dot_f32(v, o))
            .fold(f32::NEG_INFINITY, f32::max);
        nearest_unrelated.push(best);
    }
    let below = |xs: &[f32], t: f32| xs.iter().filter(|&&x| x < t).count() as f64 / xs.len() as f64;
    println!(
        "{} {}: {} queries, {} judged-relevant pairs; unrelated corpus {} ({} documents)",
        data.name(),
        data.split,
        data.queries.len(),
        relevant.len(),
        other.name(),
        other.docs.len()
    );
    println!("min_similarity  relevant below  unrelated queries still recalling something");
    for t in THRESHOLDS {
        println!(
            "{t:>14.2}  {:>14.3}  {:>10.3}",
            below(&relevant, t),
            1.0 - below(&nearest_unrelated, t)
        );
    }
}

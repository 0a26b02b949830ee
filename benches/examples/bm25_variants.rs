//! What moves lexical quality on a BEIR dataset: stemming and the BM25 parameters, with the
//! in-memory [`Bm25Index`] (which scores exactly like FTS5's `bm25()` at k1 1.2, b 0.75).
//!
//! `cargo run --release -p oro-mem-benches --example bm25_variants -- ../shared/eval/scifact train`

use oro_mem_eval::metrics::{ndcg_at, recall_at};
use oro_mem_eval::Dataset;
use oro_mem_rank_bm25::{Analyzer, Bm25Index};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, split] = &args[..] else {
        panic!("usage: bm25_variants DATASET SPLIT");
    };
    let data = Dataset::load(dir, split).expect("dataset");
    println!(
        "{} {}: {} queries, {} documents",
        data.name(),
        data.split,
        data.queries.len(),
        data.docs.len()
    );
    println!("analyzer  k1    b     nDCG@10  R@100");
    for analyzer in [Analyzer::English, Analyzer::Plain] {
        for (k1, b) in [
            (1.2, 0.75),
            (0.9, 0.4),
            (1.2, 0.4),
            (0.9, 0.75),
            (1.5, 0.75),
        ] {
            let mut ix = Bm25Index::with_analyzer(analyzer)
                .with_parameters(k1, b)
                .expect("parameters");
            for (i, d) in data.docs.iter().enumerate() {
                ix.insert(i as i64, &d.content());
            }
            let (mut ndcg, mut recall) = (0.0, 0.0);
            for q in &data.queries {
                let ranked: Vec<&str> = ix
                    .search(&q.text, 100)
                    .hits()
                    .iter()
                    .map(|h| data.docs[h.id as usize].id.as_str())
                    .collect();
                let judged = &data.qrels[&q.id];
                ndcg += ndcg_at(&ranked, judged, 10);
                recall += recall_at(&ranked, judged, 100);
            }
            let n = data.queries.len() as f64;
            println!(
                "{:<9} {k1:<5} {b:<5} {:.4}   {:.4}",
                format!("{analyzer:?}"),
                ndcg / n,
                recall / n
            );
        }
    }
}

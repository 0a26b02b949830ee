//! The cosine between the two statements of each pair of an update set, by the model hybrid
//! mode embeds with: what `dedup.min_cosine` was read off (the lowest cosine of a true
//! duplicate, against those of statements taken for duplicates that are not).
//!
//! `cargo run --release -p oro-mem-benches --example pair_cosines -- FILE...`, each FILE JSON
//! lines with `old` and `new` (and `id`, `label` when it has them, as
//! `../shared/eval/updates-dev/pairs.jsonl` and `fixtures/updates-*.jsonl` do). Prints `id`,
//! `label` and the cosine, tab-separated, lowest first.

use std::io::BufRead;

use oro_mem_rank_vector::{Embedder, MiniLm};
use oro_mem_store_sqlite::quant::dot_f32;

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    assert!(!files.is_empty(), "usage: pair_cosines FILE...");
    let model = MiniLm::load_default().expect("the model (run scripts/fetch-model)");
    let mut rows = Vec::new();
    for file in &files {
        let reader = std::io::BufReader::new(std::fs::File::open(file).expect(file));
        for line in reader.lines() {
            let line = line.expect(file);
            if line.trim().is_empty() {
                continue;
            }
            let pair: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
            let text = |key: &str| pair[key].as_str().expect("`old` and `new`").to_string();
            let (old, new) = (text("old"), text("new"));
            let v = model.embed(&[&old, &new]).expect("embedding");
            let name = |key: &str| pair[key].as_str().unwrap_or("").to_string();
            rows.push((dot_f32(&v[0], &v[1]), name("id"), name("label")));
        }
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (cosine, id, label) in rows {
        println!("{id}\t{label}\t{cosine:.3}");
    }
}

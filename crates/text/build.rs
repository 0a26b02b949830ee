//! Turns `data/background.tsv` (written by `scripts/background-words`) into a sorted static
//! table, so that looking a word stem up costs a binary search and nothing at start-up.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let path = "data/background.tsv";
    println!("cargo::rerun-if-changed={path}");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut lines = text.lines();
    let documents: u32 = lines
        .next()
        .and_then(|l| l.strip_prefix("#documents\t"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{path}: the first line is not #documents<TAB>N"));
    let mut stems: Vec<(&str, u32)> = lines
        .enumerate()
        .map(|(i, line)| {
            let parsed = line.split_once('\t').and_then(|(stem, n)| {
                let lowercase = stem
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
                Some((stem, n.parse().ok()?)).filter(|_| lowercase && !stem.is_empty())
            });
            parsed.unwrap_or_else(|| {
                panic!(
                    "{path}:{}: expected stem<TAB>documents, got {line:?}",
                    i + 2
                )
            })
        })
        .collect();
    stems.sort_unstable();
    if let Some(w) = stems.windows(2).find(|w| w[0].0 == w[1].0) {
        panic!("{path}: {:?} is listed twice", w[0].0);
    }
    let mut out = String::new();
    writeln!(out, "/// How many documents the background holds.").unwrap();
    writeln!(out, "const DOCUMENTS: u32 = {documents};").unwrap();
    writeln!(out, "/// `(stem, documents that hold it)`, sorted by stem.").unwrap();
    writeln!(out, "static STEMS: [(&str, u32); {}] = [", stems.len()).unwrap();
    for (stem, n) in &stems {
        writeln!(out, "    ({stem:?}, {n}),").unwrap();
    }
    writeln!(out, "];").unwrap();
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("background.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}

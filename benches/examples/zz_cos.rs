use oro_mem_rank_vector::{Embedder, MiniLm};
use std::io::BufRead;
fn main() {
    let m = MiniLm::load_default().unwrap();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let (a, b) = line.split_once('\t').unwrap();
        let v = m.embed(&[a, b]).unwrap();
        let dot: f32 = v[0].iter().zip(&v[1]).map(|(x, y)| x * y).sum();
        println!("{dot:.3}");
    }
}

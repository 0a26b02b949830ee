//! Writes a synthetic store for experiments: `cargo run --release -p oro-mem-benches
//! --example build_store -- PATH [N]`.

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: build_store PATH [N]");
    let n = args
        .next()
        .map_or(100_000, |s| s.parse().expect("N must be a number"));
    oro_mem_benches::build_store(std::path::Path::new(&path), n);
}

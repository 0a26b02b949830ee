//! Times FTS5 query shapes on a store built by `build_store` (exploration aid):
//! `cargo run --release -p oro-mem-benches --example fts_variants -- PATH`.

use std::time::Instant;

fn median_ms(conn: &rusqlite::Connection, sql: &str, q: &str) -> (f64, usize) {
    let mut times = Vec::new();
    let mut n = 0;
    for _ in 0..31 {
        let t = Instant::now();
        let mut s = conn.prepare_cached(sql).expect("prepare");
        n = s
            .query_map([q], |r| r.get::<_, i64>(0))
            .expect("query")
            .count();
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], n)
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: fts_variants PATH");
    let conn = rusqlite::Connection::open(path).expect("open");
    for q in [
        r#""sqlite" OR "writer" OR "lock" OR "timeout""#,
        r#""stop" OR "database" OR "locking" OR "two" OR "writers" OR "try" OR "commit" OR "time""#,
    ] {
        println!("{q}");
        for (name, sql) in [
            ("rowid only", "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?1"),
            ("fts rank limit", "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?1 ORDER BY rank LIMIT 50"),
            ("join full rows", "SELECT m.id, m.content, m.tags, m.metadata FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid WHERE memories_fts MATCH ?1 AND m.status = 'active' ORDER BY bm25(memories_fts) LIMIT 50"),
            ("fast path", "SELECT m.id, m.content, m.tags, m.metadata, -t.score, t.n FROM (SELECT rowid AS id, rank AS score, count(*) OVER () AS n FROM memories_fts WHERE memories_fts MATCH ?1 ORDER BY rank LIMIT 100) t JOIN memories m ON m.id = t.id WHERE m.status = 'active' ORDER BY t.score LIMIT 50"),
            ("fast path no count", "SELECT m.id, m.content, m.tags, m.metadata, -t.score FROM (SELECT rowid AS id, rank AS score FROM memories_fts WHERE memories_fts MATCH ?1 ORDER BY rank LIMIT 100) t JOIN memories m ON m.id = t.id WHERE m.status = 'active' ORDER BY t.score LIMIT 50"),
            ("join ids then rows", "SELECT m.id, m.content, m.tags, m.metadata FROM (SELECT memories_fts.rowid AS id, bm25(memories_fts) AS s FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid WHERE memories_fts MATCH ?1 AND m.status = 'active' ORDER BY s LIMIT 50) t JOIN memories m ON m.id = t.id ORDER BY t.s"),
        ] {
            let (ms, n) = median_ms(&conn, sql, q);
            println!("  {name:<20} {ms:>7.3} ms  ({n} rows)");
        }
    }
}

//! rank-bm25 against real SQLite FTS5: the in-memory index scores exactly like `bm25()` on the
//! query the SQLite store would run.

use oro_mem_rank_bm25::{Analyzer, Bm25Index};
use oro_mem_store_sqlite::fts5_query;
use rusqlite::Connection;

fn fts_table(tokenize: &str, docs: &[&str]) -> Connection {
    let conn = Connection::open_in_memory().unwrap();
    conn.execute_batch(&format!(
        "CREATE VIRTUAL TABLE t USING fts5(body, tokenize = '{tokenize}')"
    ))
    .unwrap();
    for (i, d) in docs.iter().enumerate() {
        conn.execute(
            "INSERT INTO t (rowid, body) VALUES (?1, ?2)",
            rusqlite::params![i as i64 + 1, d],
        )
        .unwrap();
    }
    conn
}

fn fts_scores(conn: &Connection, query: &str) -> Vec<(i64, f64)> {
    let Some(q) = fts5_query(query) else {
        return Vec::new();
    };
    let mut s = conn
        .prepare("SELECT rowid, -bm25(t) FROM t WHERE t MATCH ?1 ORDER BY rowid")
        .unwrap();
    s.query_map([q], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

const CORPUS: &[&str] = &[
    "sqlite wal mode allows one writer at a time",
    "the writer holds the lock until commit",
    "postgres uses mvcc so readers never block writers",
    "set busy timeout so a second writer waits for the lock",
    "cache keys need a version",
    "one two three four five six seven eight nine ten eleven twelve",
    "lock lock lock lock",
    "",
];

#[test]
fn in_memory_bm25_agrees_with_fts5_on_the_same_tokens() {
    let conn = fts_table("unicode61", CORPUS);
    let mut index = Bm25Index::with_analyzer(Analyzer::Plain);
    for (i, d) in CORPUS.iter().enumerate() {
        index.insert(i as i64 + 1, d);
    }
    for q in [
        "writer lock",
        "sqlite",
        "lock",
        "the writer waits for a lock timeout",
        "mvcc readers block",
        "nothing matches this",
        "version cache",
    ] {
        let expected = fts_scores(&conn, q);
        let mut got: Vec<(i64, f64)> = index.scores(q).into_iter().collect();
        got.sort_by_key(|&(id, _)| id);
        assert_eq!(
            expected.iter().map(|e| e.0).collect::<Vec<_>>(),
            got.iter().map(|g| g.0).collect::<Vec<_>>(),
            "matching documents for {q:?}"
        );
        for ((_, e), (id, g)) in expected.iter().zip(&got) {
            assert!(
                (e - g).abs() < 1e-9,
                "{q:?} doc {id}: fts5 {e} vs index {g}"
            );
        }
    }
}

#[test]
fn english_analyzer_agrees_with_porter_where_stems_coincide() {
    let docs = [
        "connections timed out",
        "connection pooling",
        "timeouts happen",
    ];
    let conn = fts_table("porter unicode61", &docs);
    let mut index = Bm25Index::new();
    for (i, d) in docs.iter().enumerate() {
        index.insert(i as i64 + 1, d);
    }
    let expected = fts_scores(&conn, "connection");
    let mut got: Vec<(i64, f64)> = index.scores("connection").into_iter().collect();
    got.sort_by_key(|&(id, _)| id);
    assert_eq!(expected.len(), 2);
    for ((ea, e), (ga, g)) in expected.iter().zip(&got) {
        assert_eq!(ea, ga);
        assert!((e - g).abs() < 1e-9);
    }
}

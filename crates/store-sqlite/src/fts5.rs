//! Query terms ([`query_terms`]) as a safe FTS5 `MATCH` expression.

use oro_mem_text::{query_terms, Term};

/// Builds a safe FTS5 `MATCH` expression from arbitrary text: its [`query_terms`], each a
/// quoted phrase, OR-joined.
///
/// Returns `None` when nothing is left to search for (only stopwords, punctuation or
/// operators); callers should treat that as "no hits", not as an error. No input makes the
/// result an FTS5 syntax error (a property test checks this against SQLite).
///
/// ```
/// use oro_mem_store_sqlite::fts5_query;
/// assert_eq!(
///     fts5_query(r#"NEAR("wal" AND -lock*) OR"#).as_deref(),
///     Some(r#""wal" OR "lock""#)
/// );
/// assert_eq!(fts5_query("what is it?"), None);
/// ```
pub fn fts5_query(text: &str) -> Option<String> {
    let phrases = fts5_phrases(text);
    (!phrases.is_empty()).then(|| phrases.join(" OR "))
}

/// `text`'s query terms, each as an FTS5 phrase ([`fts5_phrase`]).
pub(crate) fn fts5_phrases(text: &str) -> Vec<String> {
    query_terms(text).iter().map(fts5_phrase).collect()
}

/// A term as an FTS5 string: a quoted phrase; CJK characters separated so they match the
/// adjacent single-character tokens of the index (built with
/// [`spaced_cjk`](oro_mem_text::spaced_cjk)).
fn fts5_phrase(term: &Term) -> String {
    match term {
        // Words hold only letters and digits, so they never contain a quote.
        Term::Word(w) => format!("\"{w}\""),
        Term::Cjk(c) => {
            let spaced: Vec<String> = c.chars().map(String::from).collect();
            format!("\"{}\"", spaced.join(" "))
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use rusqlite::Connection;

    use super::*;

    #[test]
    fn drops_stopwords_single_letters_and_operators() {
        assert_eq!(
            fts5_query("How do I use a WAL-mode DB? (x AND y*)").as_deref(),
            Some(r#""use" OR "wal" OR "mode" OR "db""#)
        );
    }

    #[test]
    fn nothing_left_is_none() {
        for q in [
            "",
            "   ",
            "the and or not",
            "a b c",
            "\"\"\"",
            "((*))",
            "\0\0",
        ] {
            assert_eq!(fts5_query(q), None, "{q:?}");
        }
    }

    #[test]
    fn cjk_runs_become_bigram_phrases() {
        assert_eq!(
            fts5_query("数据库").as_deref(),
            Some(r#""数 据" OR "据 库""#)
        );
        assert_eq!(fts5_query("锁").as_deref(), Some(r#""锁""#));
    }

    fn hostile_text() -> impl Strategy<Value = String> {
        let pieces = prop_oneof![
            Just("\"".to_string()),
            Just("AND".to_string()),
            Just("OR".to_string()),
            Just("NOT".to_string()),
            Just("NEAR(".to_string()),
            Just(")".to_string()),
            Just("*".to_string()),
            Just("^".to_string()),
            Just(":".to_string()),
            Just("{".to_string()),
            Just("}".to_string()),
            Just("+".to_string()),
            Just("-".to_string()),
            Just("\0".to_string()),
            Just("数据库".to_string()),
            Just("😀".to_string()),
            Just(" ".to_string()),
            "[a-z]{1,6}",
            any::<String>(),
        ];
        prop::collection::vec(pieces, 0..20).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

        #[test]
        fn any_text_makes_a_valid_fts5_query(text in hostile_text()) {
            thread_local! {
                static CONN: Connection = {
                    let c = Connection::open_in_memory().unwrap();
                    c.execute_batch(
                        "CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'porter unicode61');
                         INSERT INTO t (rowid, body) VALUES (1, 'sqlite wal mode allows one writer');
                         INSERT INTO t (rowid, body) VALUES (100, '数 据 库 and 😀');",
                    )
                    .unwrap();
                    c
                };
            }
            if let Some(q) = fts5_query(&text) {
                CONN.with(|c| -> Result<(), TestCaseError> {
                    let r = c
                        .prepare("SELECT rowid, bm25(t) FROM t WHERE t MATCH ?1")
                        .and_then(|mut s| {
                            s.query_map([&q], |r| r.get::<_, i64>(0))?
                                .collect::<rusqlite::Result<Vec<_>>>()
                        });
                    prop_assert!(r.is_ok(), "query {:?} from {:?} failed: {:?}", q, text, r.err());
                    Ok(())
                })?;
            }
        }
    }
}

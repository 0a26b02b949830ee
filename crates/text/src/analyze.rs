//! Text → BM25 terms, by this store's own tokenizer.
//!
//! The store ranks with FTS5's `bm25()` over its `porter unicode61` tokenizer (Unicode word
//! splitting, case and diacritic folding, Porter stemming). Whatever scores outside FTS5 must
//! cut text into exactly the same terms: the PostgreSQL store, so that both stores rank alike,
//! and this store's in-memory copy of the index for duplicate checks. The [`Analyzer`] runs
//! that very tokenizer: an in-memory SQLite database holds an FTS5 table of the same definition, a text
//! is inserted into it, its tokens are read back through `fts5vocab`, and the insert is rolled
//! back. Nothing is written anywhere; it costs tens of microseconds a text. A port of
//! unicode61 and FTS5's Porter stemmer would be another 500 lines to keep in step by hand.
//!
//! A memory's content is indexed as the store indexes it ([`index_text`]): an identifier's
//! parts beside it, and CJK text one character per token ([`spaced_cjk`]); a
//! query's CJK bigram is an FTS5 phrase of two tokens there, so here each pair of adjacent
//! CJK characters of the body is also a term of its own: the two, a space between them.

use std::collections::HashMap;

use rusqlite::Connection;

use crate::error::{Error, ErrorKind, Result};
use crate::{field_weight, index_text, is_cjk, spaced_cjk, Term};

/// A memory's text fields, in the order and with the weights of
/// [`LEXICAL_FIELDS`](crate::LEXICAL_FIELDS): tags, files and entities as the
/// store indexes them, their compact JSON text ([`Fields::json`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Fields<'a> {
    /// The memory's content, as written (CJK is spaced as the index spaces it).
    pub content: &'a str,
    /// Its tags, as a compact JSON array.
    pub tags: &'a str,
    /// Its summary, empty for none.
    pub summary: &'a str,
    /// Its files, as a compact JSON array.
    pub files: &'a str,
    /// Its entities, as a compact JSON array.
    pub entities: &'a str,
}

impl Fields<'_> {
    /// A list as the store writes it, compact JSON.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`] when serialization fails.
    pub fn json(list: &[String]) -> Result<String> {
        serde_json::to_string(list)
            .map_err(|e| Error::new(ErrorKind::InvalidInput, e.to_string(), e))
    }
}

/// A memory's text as BM25 sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// Tokens in every field: the document length of BM25 (bigrams not counted).
    pub len: i32,
    /// Each term with its frequency, bigrams included, each occurrence counted with its
    /// field's weight; sorted by term.
    pub terms: Vec<(String, i32)>,
}

impl Document {
    /// How often `term` occurs, weighed by field (`terms`'), if it does.
    pub fn frequency(&self, term: &str) -> Option<i32> {
        self.terms
            .binary_search_by(|(t, _)| t.as_str().cmp(term))
            .ok()
            .map(|i| self.terms[i].1)
    }
}

/// The tokenizer of the store, run in memory.
pub struct Analyzer {
    conn: Connection,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzer").finish_non_exhaustive()
    }
}

fn analyzer_error(e: rusqlite::Error) -> Error {
    Error::new(
        ErrorKind::Tokenizer,
        format!("cannot tokenize text: {e}"),
        e,
    )
}

/// The term of an FTS5 phrase of two CJK characters.
fn bigram(a: &str, b: &str) -> String {
    format!("{a} {b}")
}

fn is_cjk_token(token: &str) -> bool {
    let mut chars = token.chars();
    matches!((chars.next(), chars.next()), (Some(c), None) if is_cjk(c))
}

/// A memory's [`Document`] from its tokens `(row, column, token)`, in order of column and
/// position.
fn document_of(tokens: &[(i64, String, String)]) -> Document {
    let mut counts: HashMap<String, i32> = HashMap::new();
    let mut previous: Option<&str> = None;
    for (_, column, token) in tokens {
        let weight = i32::try_from(field_weight(column)).unwrap_or(i32::MAX);
        *counts.entry(token.clone()).or_default() += weight;
        // The instance table lists every position, so consecutive rows are adjacent; a CJK
        // bigram is a phrase of the text's own.
        if let Some(p) = previous.filter(|p| column == "body" && is_cjk_token(p)) {
            if is_cjk_token(token) {
                *counts.entry(bigram(p, token)).or_default() += 1;
            }
        }
        previous = (column == "body").then_some(token.as_str());
    }
    let mut terms: Vec<(String, i32)> = counts.into_iter().collect();
    terms.sort_unstable();
    Document {
        len: i32::try_from(tokens.len()).unwrap_or(i32::MAX),
        terms,
    }
}

impl Analyzer {
    /// An analyzer, with its in-memory database.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Tokenizer`] when SQLite cannot open it.
    pub fn new() -> Result<Analyzer> {
        let conn = Connection::open_in_memory().map_err(analyzer_error)?;
        // The columns and tokenizer of the SQLite store's `memories_fts`.
        conn.execute_batch(
            "CREATE VIRTUAL TABLE doc USING fts5(body, tags, summary, files, entities, \
                                                 tokenize = 'porter unicode61');
             CREATE VIRTUAL TABLE doc_terms USING fts5vocab(doc, 'instance');",
        )
        .map_err(analyzer_error)?;
        Ok(Analyzer { conn })
    }

    /// Inserts `rows` (rowids from 1), calls `read` with the tokens of each
    /// `(row, column, token)` in order of row, column and position, and rolls the insert back.
    fn tokens<T>(
        &self,
        rows: &[Fields<'_>],
        read: impl FnOnce(Vec<(i64, String, String)>) -> T,
    ) -> Result<T> {
        let tx = self.conn.unchecked_transaction().map_err(analyzer_error)?;
        {
            let mut insert = tx
                .prepare_cached(
                    "INSERT INTO doc (rowid, body, tags, summary, files, entities) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .map_err(analyzer_error)?;
            for (i, f) in rows.iter().enumerate() {
                insert
                    .execute(rusqlite::params![
                        i as i64 + 1,
                        f.content,
                        f.tags,
                        f.summary,
                        f.files,
                        f.entities
                    ])
                    .map_err(analyzer_error)?;
            }
        }
        let tokens = tx
            .prepare_cached("SELECT doc, col, term FROM doc_terms ORDER BY doc, col, offset")
            .and_then(|mut s| {
                s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(analyzer_error)?;
        tx.rollback().map_err(analyzer_error)?;
        Ok(read(tokens))
    }

    /// The terms of a memory with `fields`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Tokenizer`] when SQLite fails.
    pub fn document(&self, fields: &Fields<'_>) -> Result<Document> {
        let mut docs = self.documents(std::slice::from_ref(fields))?;
        Ok(docs.pop().expect("one document per memory"))
    }

    /// The terms of each memory of `memories`, in order: [`Analyzer::document`] of each, in
    /// one pass.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Tokenizer`] when SQLite fails.
    pub fn documents(&self, memories: &[Fields<'_>]) -> Result<Vec<Document>> {
        let indexed: Vec<Option<String>> = memories.iter().map(|f| index_text(f.content)).collect();
        let bodies: Vec<Fields<'_>> = memories
            .iter()
            .zip(&indexed)
            .map(|(f, s)| Fields {
                content: s.as_deref().unwrap_or(f.content),
                ..*f
            })
            .collect();
        self.tokens(&bodies, |tokens| {
            let mut docs = Vec::with_capacity(memories.len());
            let mut rest = tokens.as_slice();
            for row in 1..=memories.len() as i64 {
                let n = rest.iter().take_while(|(r, _, _)| *r == row).count();
                let (own, after) = rest.split_at(n);
                docs.push(document_of(own));
                rest = after;
            }
            docs
        })
    }

    /// The term each of `query`'s phrases matches, in order, as FTS5 would tokenize the phrase:
    /// a word's stem, a CJK character, or a CJK bigram (the two, a space between them). A
    /// phrase that tokenizes to nothing matches nothing and is left out.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Tokenizer`] when SQLite fails.
    pub fn query(&self, query: &[Term]) -> Result<Vec<String>> {
        if query.is_empty() {
            return Ok(Vec::new());
        }
        let phrases: Vec<String> = query
            .iter()
            .map(|t| match t {
                Term::Word(w) => w.clone(),
                Term::Cjk(c) => spaced_cjk(c).unwrap_or_else(|| c.clone()),
            })
            .collect();
        let rows: Vec<Fields<'_>> = phrases
            .iter()
            .map(|p| Fields {
                content: p,
                ..Fields::default()
            })
            .collect();
        self.tokens(&rows, |tokens| {
            let mut out: Vec<Vec<String>> = vec![Vec::new(); phrases.len()];
            for (row, _, token) in tokens {
                let slot = usize::try_from(row - 1).expect("rowids start at 1");
                out[slot].push(token);
            }
            out.into_iter()
                .filter(|t| !t.is_empty())
                .map(|t| t.join(" "))
                .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::bm25::{idf, Bm25};
    use crate::{query_terms, LEXICAL_FIELDS};

    #[test]
    fn stems_folds_and_counts_like_fts5() {
        let a = Analyzer::new().unwrap();
        let d = a
            .document(&Fields {
                content: "Running runners ran; CAFÉ café",
                tags: r#"["db","ops"]"#,
                summary: "ops runbook",
                files: r#"["src/db.rs"]"#,
                entities: r#"["Db::open"]"#,
            })
            .unwrap();
        assert_eq!(d.len, 14);
        // The summary counts three times, files and entities twice.
        assert_eq!(
            d.terms,
            [
                ("cafe".to_string(), 2),
                ("db".to_string(), 5),
                ("op".to_string(), 4),
                ("open".to_string(), 2),
                ("ran".to_string(), 1),
                ("rs".to_string(), 2),
                ("run".to_string(), 1),
                ("runbook".to_string(), 3),
                ("runner".to_string(), 1),
                ("src".to_string(), 2),
            ]
        );
        assert_eq!(
            a.query(&query_terms("running the database cafés")).unwrap(),
            ["run", "databas", "cafe"]
        );
    }

    #[test]
    fn cjk_is_indexed_per_character_and_bigram() {
        let a = Analyzer::new().unwrap();
        let d = a
            .document(&Fields {
                content: "数据库 lock",
                tags: "[]",
                ..Fields::default()
            })
            .unwrap();
        assert_eq!(d.len, 4);
        let terms: Vec<&str> = d.terms.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(terms, ["lock", "库", "据", "据 库", "数", "数 据"]);
        assert_eq!(
            a.query(&query_terms("数据库 locks")).unwrap(),
            ["数 据", "据 库", "lock"]
        );
    }

    #[test]
    fn identifiers_are_indexed_whole_and_by_their_parts() {
        let a = Analyzer::new().unwrap();
        let d = a
            .document(&Fields {
                content: "cfg.DefaultHost() and IDs",
                tags: "[]",
                ..Fields::default()
            })
            .unwrap();
        assert_eq!(d.len, 6);
        let terms: Vec<&str> = d.terms.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(
            terms,
            ["and", "cfg", "default", "defaulthost", "host", "id"]
        );
        assert_eq!(
            a.query(&query_terms("the default host of DefaultHost"))
                .unwrap(),
            ["default", "host", "defaulthost"]
        );
    }

    proptest! {
        /// The index holds exactly the words [`index_words`](crate::index_words) names, as
        /// many and each as the index stems it alone: what the coverage features and the
        /// query-term rankers read of a memory is what BM25 scores.
        #[test]
        fn the_index_holds_the_index_words(
            words in prop::collection::vec(
                "[a-z]{1,6}|[A-Z][a-z]{1,5}|[a-z]{1,5}[A-Z][a-z]{0,5}|[A-Z]{1,4}[a-z]{0,4}[0-9]?",
                0..10,
            ),
            separators in prop::collection::vec("[ .,()/_-]", 10),
        ) {
            let text: String = words
                .iter()
                .zip(&separators)
                .flat_map(|(w, s)| [w.as_str(), s.as_str()])
                .collect();
            let a = Analyzer::new().unwrap();
            let d = a.document(&Fields { content: &text, tags: "[]", ..Fields::default() }).unwrap();
            let mut expected: Vec<String> = crate::index_words(&text)
                .flat_map(|w| a.query(&[Term::Word(w.to_lowercase())]).unwrap())
                .collect();
            prop_assert_eq!(d.len as usize, expected.len());
            expected.sort();
            expected.dedup();
            let held: Vec<String> = d.terms.into_iter().map(|(t, _)| t).collect();
            prop_assert_eq!(held, expected);
        }
    }

    proptest! {
        /// Memories analyzed together are analyzed as each alone, one without a token among
        /// them included.
        #[test]
        fn documents_are_each_document(
            texts in prop::collection::vec("[a-zA-Zé数据库 .,-]{1,40}", 0..6),
            summaries in prop::collection::vec("[a-z ]{0,12}", 6),
        ) {
            let a = Analyzer::new().unwrap();
            let fields: Vec<Fields<'_>> = texts
                .iter()
                .zip(&summaries)
                .map(|(t, s)| Fields { content: t, tags: "[]", summary: s, ..Fields::default() })
                .collect();
            let alone: Vec<Document> = fields.iter().map(|f| a.document(f).unwrap()).collect();
            prop_assert_eq!(a.documents(&fields).unwrap(), alone);
        }
    }

    proptest! {
        /// Every phrase of a query scores, by [`Bm25`] over these terms and lengths, what
        /// FTS5's own `bm25()`, with the fields' weights, gives on an index of the same two
        /// documents: the same tokens, lengths, weighted frequencies and document counts, and
        /// the same formula. Every scorer of the project computes BM25 with `Bm25::part` and
        /// `idf` (the PostgreSQL store with their SQL rendering), so this holds them all to
        /// FTS5.
        #[test]
        fn terms_give_fts5s_scores(
            doc in "[a-zA-Zé数据库 .,-]{1,60}",
            summary in "[a-zA-Z ]{0,20}",
            files in "[a-zA-Z/._ ]{0,20}",
            entities in "[a-zA-Z:_ ]{0,20}",
            query in "[a-zA-Zé数据库 .,:/-]{1,30}",
        ) {
            let a = Analyzer::new().unwrap();
            let terms = query_terms(&query);
            let keys = a.query(&terms).unwrap();
            let other = "Running 数据 café filler words about a database";
            let first = Fields {
                content: &doc, tags: "[]", summary: &summary, files: &files, entities: &entities,
            };
            let second = Fields { content: other, tags: "[]", ..Fields::default() };
            let docs = [a.document(&first).unwrap(), a.document(&second).unwrap()];
            let conn = Connection::open_in_memory().unwrap();
            conn.execute_batch(
                "CREATE VIRTUAL TABLE t USING fts5(body, tags, summary, files, entities, \
                                                    tokenize = 'porter unicode61');",
            ).unwrap();
            for (rowid, f) in [(1, first), (2, second)] {
                let body = index_text(f.content).unwrap_or(f.content.to_string());
                conn.execute(
                    "INSERT INTO t (rowid, body, tags, summary, files, entities) \
                     VALUES (?1, ?2, '[]', ?3, ?4, ?5)",
                    rusqlite::params![rowid, body, f.summary, f.files, f.entities],
                ).unwrap();
            }
            let weights: Vec<String> =
                LEXICAL_FIELDS.iter().map(|(_, w)| w.to_string()).collect();
            let bm25 = format!("bm25(t, {})", weights.join(", "));
            let tf = |d: &Document, key: &str| {
                d.terms.iter().find(|(t, _)| t == key).map_or(0.0, |(_, n)| f64::from(*n))
            };
            let avgdl = f64::from(docs[0].len + docs[1].len) / 2.0;
            // One phrase at a time, so that each is compared alone.
            for (term, key) in terms.iter().zip(&keys) {
                let phrase = match term {
                    Term::Word(w) => format!("\"{w}\""),
                    Term::Cjk(c) => format!("\"{}\"", spaced_cjk(c).unwrap_or(c.clone())),
                };
                let fts5: Option<f64> = conn
                    .query_row(
                        &format!("SELECT -{bm25} FROM t WHERE t MATCH ?1 AND rowid = 1"),
                        [&phrase],
                        |r| r.get(0),
                    )
                    .ok();
                let df = docs.iter().filter(|d| tf(d, key) > 0.0).count() as i64;
                let f = tf(&docs[0], key);
                let len = f64::from(docs[0].len);
                let ours = (f > 0.0).then(|| Bm25::FTS5.part(idf(2, df), f, len, avgdl));
                match (fts5, ours) {
                    (Some(x), Some(y)) => {
                        prop_assert!((x - y).abs() < 1e-9 * x.abs().max(1.0), "{key}: {x} vs {y}")
                    }
                    (x, y) => prop_assert_eq!(x.is_some(), y.is_some(), "{} matches", key),
                }
            }
        }
    }
}

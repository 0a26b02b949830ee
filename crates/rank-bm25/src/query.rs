//! Turning free text into query terms, and query terms into a safe FTS5 expression.

use oro_mem_core::text::{segments, Segment};

use crate::stopwords::is_stopword;

/// At most this many distinct terms are kept from one query (the first ones). A task
/// description rarely has more; a pasted log file would otherwise become a query with
/// thousands of OR branches.
pub const MAX_QUERY_TERMS: usize = 64;

/// One term of a lexical query.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// A lowercase word of a space-separated script.
    Word(String),
    /// One or two adjacent CJK characters: a bigram of a longer run, or a run of one.
    Cjk(String),
}

impl Term {
    /// The term as an FTS5 string: a quoted phrase; CJK characters separated so they match
    /// adjacent single-character tokens of an index built with
    /// [`spaced_cjk`](oro_mem_core::text::spaced_cjk).
    pub fn to_fts5(&self) -> String {
        match self {
            // Words hold only letters and digits, so they never contain a quote.
            Term::Word(w) => format!("\"{w}\""),
            Term::Cjk(c) => {
                let spaced: Vec<String> = c.chars().map(String::from).collect();
                format!("\"{}\"", spaced.join(" "))
            }
        }
    }
}

/// The distinct query terms of `text`, in order of first appearance.
///
/// Words are lowercased; stopwords and one-character words are dropped (one CJK character is
/// a word, so it is kept); CJK runs become overlapping bigrams. Everything that is not a letter
/// or digit, FTS5 operators' punctuation included, separates terms. At most
/// [`MAX_QUERY_TERMS`] are returned.
///
/// ```
/// use oro_mem_rank_bm25::{query_terms, Term};
/// let t = query_terms("Why does the 数据库 lock?");
/// assert_eq!(t, [
///     Term::Cjk("数据".into()), Term::Cjk("据库".into()), Term::Word("lock".into()),
/// ]);
/// ```
pub fn query_terms(text: &str) -> Vec<Term> {
    let mut out: Vec<Term> = Vec::new();
    let push = |t: Term, out: &mut Vec<Term>| {
        if !out.contains(&t) {
            out.push(t);
        }
    };
    for seg in segments(text) {
        if out.len() >= MAX_QUERY_TERMS {
            break;
        }
        match seg {
            Segment::Word(w) => {
                if w.chars().nth(1).is_none() {
                    continue;
                }
                let lower = w.to_lowercase();
                if !is_stopword(&lower) {
                    push(Term::Word(lower), &mut out);
                }
            }
            Segment::Cjk(run) => {
                let chars: Vec<char> = run.chars().collect();
                if chars.len() == 1 {
                    push(Term::Cjk(run.to_string()), &mut out);
                }
                for pair in chars.windows(2) {
                    push(Term::Cjk(pair.iter().collect()), &mut out);
                }
            }
        }
    }
    out.truncate(MAX_QUERY_TERMS);
    out
}

/// Builds a safe FTS5 `MATCH` expression from arbitrary text: every term quoted, OR-joined.
///
/// Returns `None` when nothing is left to search for (only stopwords, punctuation or
/// operators); callers should treat that as "no hits", not as an error. No input makes the
/// result an FTS5 syntax error.
///
/// ```
/// use oro_mem_rank_bm25::fts5_query;
/// assert_eq!(fts5_query(r#"NEAR("wal" AND -lock*) OR"#).as_deref(), Some(r#""near" OR "wal" OR "lock""#));
/// assert_eq!(fts5_query("what is it?"), None);
/// ```
pub fn fts5_query(text: &str) -> Option<String> {
    let terms = query_terms(text);
    if terms.is_empty() {
        return None;
    }
    Some(
        terms
            .iter()
            .map(Term::to_fts5)
            .collect::<Vec<_>>()
            .join(" OR "),
    )
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn terms_are_deduplicated_and_capped() {
        assert_eq!(query_terms("wal WAL Wal").len(), 1);
        let long: String = (0..1000).map(|i| format!("word{i} ")).collect();
        assert_eq!(query_terms(&long).len(), MAX_QUERY_TERMS);
    }
}

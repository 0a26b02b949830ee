//! English word stems by the Snowball (Porter 2) algorithm.
//!
//! **Not the index's stemmer**: FTS5's `porter` tokenizer runs Martin Porter's original
//! algorithm, which stems some words differently. What must match the index term for term
//! goes through [`Analyzer`](crate::Analyzer); this stemmer serves what works on words
//! without SQLite and was measured with it: the relevance models' query coverage,
//! pseudo-relevance feedback's word groups, and the in-memory [`Bm25Index`]'s English
//! analyzer.
//!
//! [`Bm25Index`]: https://docs.rs/oro-mem-rank-bm25

use std::borrow::Cow;

/// An English Snowball stemmer.
pub struct Stemmer(rust_stemmers::Stemmer);

impl std::fmt::Debug for Stemmer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stemmer(English)")
    }
}

impl Default for Stemmer {
    fn default() -> Stemmer {
        Stemmer::english()
    }
}

impl Stemmer {
    /// The English stemmer.
    pub fn english() -> Stemmer {
        Stemmer(rust_stemmers::Stemmer::create(
            rust_stemmers::Algorithm::English,
        ))
    }

    /// The stem of `word`, which should be lowercase.
    ///
    /// ```
    /// let stemmer = oro_mem_text::Stemmer::english();
    /// assert_eq!(stemmer.stem("migrations"), "migrat");
    /// ```
    pub fn stem<'a>(&self, word: &'a str) -> Cow<'a, str> {
        self.0.stem(word)
    }
}

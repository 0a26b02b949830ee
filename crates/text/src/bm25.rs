//! BM25 as SQLite FTS5's `bm25()` computes it, written once for every scorer of the project.
//!
//! A document's score for a query is the sum, over the query's terms, of
//! `idf × f·(k1+1) / (f + k1·(1 − b + b·len/avglen))`, where `f` is the term's frequency in
//! the document (each occurrence counted with its field's weight,
//! [`LEXICAL_FIELDS`](crate::LEXICAL_FIELDS)), `len` the document's length in tokens and
//! `avglen` the average over the index; `idf = ln((N − n + 0.5) / (n + 0.5))`, at least
//! `1e-6`, for `N` documents of which `n` hold the term. FTS5 fixes `k1 = 1.2`, `b = 0.75`
//! ([`Bm25::FTS5`]). Larger is better here; FTS5's `bm25()` returns the negation.
//!
//! Each piece is computed with the same operations in the same order as FTS5's
//! `fts5Bm25Function`, so a sum taken in the query's order is FTS5's score to the bit. The
//! PostgreSQL store computes the same formula in SQL ([`Bm25::sql_part`], [`sql_idf`]).
//!
//! # Example
//!
//! ```
//! use oro_mem_text::bm25::{idf, Bm25};
//!
//! // A term in 2 of 10 documents, twice in a document of average length.
//! let part = Bm25::FTS5.part(idf(10, 2), 2.0, 8.0, 8.0);
//! assert!((part - 1.6827).abs() < 1e-4);
//! // No frequency or length gives a term more than its bound.
//! assert!(part < Bm25::FTS5.bound(idf(10, 2)));
//! ```

/// BM25's parameters: `k1`, how fast a term's frequency saturates, and `b`, how much a
/// document's length discounts it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bm25 {
    k1: f64,
    b: f64,
}

impl Bm25 {
    /// FTS5's parameters, `k1 = 1.2`, `b = 0.75`: every store and the full-text index rank
    /// with these.
    pub const FTS5: Bm25 = Bm25 { k1: 1.2, b: 0.75 };

    /// Parameters `k1` and `b`, or `None` unless `k1` is finite and at least 0 and `b` is in
    /// `[0, 1]`.
    pub fn new(k1: f64, b: f64) -> Option<Bm25> {
        (k1.is_finite() && k1 >= 0.0 && (0.0..=1.0).contains(&b)).then_some(Bm25 { k1, b })
    }

    /// `k1`.
    pub fn k1(&self) -> f64 {
        self.k1
    }

    /// `b`.
    pub fn b(&self) -> f64 {
        self.b
    }

    /// One term's part of a document's score: the term's IDF `idf` ([`idf`]), its weighted
    /// frequency `f` in the document, the document's length `len` and the average length
    /// `avglen`.
    #[inline]
    pub fn part(&self, idf: f64, f: f64, len: f64, avglen: f64) -> f64 {
        let (k1, b) = (self.k1, self.b);
        idf * ((f * (k1 + 1.0)) / (f + k1 * (1.0 - b + b * len / avglen)))
    }

    /// The most a term of IDF `idf` can add to any document's score, whatever its frequency
    /// and the document's length: `idf × (k1 + 1)`. MaxScore pruning skips the documents whose
    /// terms' bounds cannot reach a threshold.
    #[inline]
    pub fn bound(&self, idf: f64) -> f64 {
        idf * (self.k1 + 1.0)
    }

    /// [`Bm25::part`] as an SQL expression (PostgreSQL, `float8`) over the SQL expressions
    /// `idf`, `f`, `len` and `avglen`: the same operations in the same order.
    ///
    /// ```
    /// use oro_mem_text::bm25::Bm25;
    ///
    /// assert_eq!(
    ///     Bm25::FTS5.sql_part("q.idf", "p.tf", "p.len", "a"),
    ///     "(q.idf * ((p.tf * 2.2::float8) / (p.tf + 1.2::float8 \
    ///      * (0.25::float8 + 0.75::float8 * p.len / a))))",
    /// );
    /// ```
    pub fn sql_part(&self, idf: &str, f: &str, len: &str, avglen: &str) -> String {
        let (k1, b) = (self.k1, self.b);
        format!(
            "({idf} * (({f} * {k1_1}::float8) / ({f} + {k1}::float8 \
             * ({one_b}::float8 + {b}::float8 * {len} / {avglen}))))",
            k1_1 = k1 + 1.0,
            one_b = 1.0 - b,
        )
    }
}

/// The IDF of a term found in `hits` of `rows` documents, as `fts5Bm25GetData` computes it:
/// `ln((rows − hits + 0.5) / (hits + 0.5))`, or `1e-6` where that is not above 0 (a term in
/// more than half the documents).
#[inline]
pub fn idf(rows: i64, hits: i64) -> f64 {
    let idf = ((rows - hits) as f64 + 0.5) / (hits as f64 + 0.5);
    let idf = idf.ln();
    if idf <= 0.0 {
        1e-6
    } else {
        idf
    }
}

/// Relative slack on comparisons with a bound: a sum of parts taken in another order, or with
/// C's `ln` rather than Rust's, may differ in its last bits.
pub const BOUND_SLACK: f64 = 1e-9;

/// True when a score that is at most `bound` may reach `threshold`, up to [`BOUND_SLACK`].
#[inline]
pub fn may_reach(bound: f64, threshold: f64) -> bool {
    bound * (1.0 + BOUND_SLACK) >= threshold
}

/// MaxScore's split (Turtle and Flood, 1995) of terms whose bounds ([`Bm25::bound`], or
/// tighter) are `ascending`: how many of the first terms add up to less than `threshold`, and
/// their sum. Those terms cannot lift a document over the threshold alone, so only documents
/// holding one of the other (essential) terms can reach it.
///
/// ```
/// use oro_mem_text::bm25::optional_terms;
///
/// // 1 + 2 stays under 4; adding 3 would not.
/// assert_eq!(optional_terms([1.0, 2.0, 3.0], 4.0), (2, 3.0));
/// assert_eq!(optional_terms([5.0], 4.0), (0, 0.0));
/// ```
pub fn optional_terms(ascending: impl IntoIterator<Item = f64>, threshold: f64) -> (usize, f64) {
    let mut optional = 0;
    let mut sum = 0.0;
    for bound in ascending {
        if may_reach(sum + bound, threshold) {
            break;
        }
        sum += bound;
        optional += 1;
    }
    (optional, sum)
}

/// [`idf`] as an SQL expression (PostgreSQL, `float8`) over the SQL expressions `rows` and
/// `hits`, each an integer expression that binds tighter than `-` (a column, a call, or in
/// parentheses).
///
/// ```
/// assert_eq!(
///     oro_mem_text::bm25::sql_idf("n", "h"),
///     "coalesce(nullif(greatest(ln((n::float8 - h + 0.5::float8) \
///      / (h + 0.5::float8)), 0::float8), 0::float8), 1e-6::float8)",
/// );
/// ```
pub fn sql_idf(rows: &str, hits: &str) -> String {
    // greatest(x, 0) is 0 exactly where FTS5 floors x; nullif and coalesce put 1e-6 there.
    format!(
        "coalesce(nullif(greatest(ln(({rows}::float8 - {hits} + 0.5::float8) \
         / ({hits} + 0.5::float8)), 0::float8), 0::float8), 1e-6::float8)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_out_of_range_are_refused() {
        for (k1, b) in [
            (-1.0, 0.5),
            (f64::NAN, 0.5),
            (f64::INFINITY, 0.5),
            (1.2, 1.5),
            (1.2, -0.1),
        ] {
            assert_eq!(Bm25::new(k1, b), None, "k1 {k1}, b {b}");
        }
        assert_eq!(Bm25::new(1.2, 0.75), Some(Bm25::FTS5));
    }

    #[test]
    fn idf_is_floored_for_common_terms() {
        assert_eq!(idf(10, 5), 1e-6);
        assert_eq!(idf(10, 9), 1e-6);
        assert!((idf(10, 1) - (9.5f64 / 1.5).ln()).abs() < 1e-15);
    }

    #[test]
    fn the_bound_holds_at_any_frequency_and_length() {
        let bm25 = Bm25::FTS5;
        for f in [1.0, 3.0, 100.0, 1e9] {
            for len in [1.0, 10.0, 1e6] {
                assert!(bm25.part(2.0, f, len, 10.0) < bm25.bound(2.0));
            }
        }
    }
}

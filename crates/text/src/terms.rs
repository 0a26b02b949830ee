//! The query's terms as the full-text index matches them, and what a text holds of them:
//! the coverage features of the relevance models and the query-term rankers (`coord`,
//! `proximity`).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;

use crate::{index_words, is_cjk, is_stopword, query_terms, words, Stemmer, Term};

/// The query's terms as the full-text index matches them: stemmed words, and CJK terms as
/// they are. Built once per query, then [`QueryTerms::coverage`] per candidate.
pub struct QueryTerms {
    stems: Vec<String>,
    cjk: Vec<String>,
    /// Each term's [`specificity`](crate::specificity), in the order of `held`.
    weights: Vec<f64>,
    stemmer: Stemmer,
    /// The word term each lower-cased word stems to, for the words looked up so far: the
    /// memories of one query share most of their words, so each is stemmed once. Hashed with
    /// foldhash: a recall looks up every word of its candidates that begins as a query term
    /// does, and SipHash took half of that time.
    known: RefCell<foldhash::HashMap<String, Option<usize>>>,
}

impl std::fmt::Debug for QueryTerms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryTerms")
            .field("stems", &self.stems)
            .field("cjk", &self.cjk)
            .finish_non_exhaustive()
    }
}

impl QueryTerms {
    /// The terms of `text` ([`query_terms`]).
    pub fn new(text: &str) -> QueryTerms {
        let stemmer = Stemmer::english();
        let mut stems = Vec::new();
        let mut cjk = Vec::new();
        for t in query_terms(text) {
            match t {
                Term::Word(w) => {
                    let s = stemmer.stem(&w).into_owned();
                    if !stems.contains(&s) {
                        stems.push(s);
                    }
                }
                Term::Cjk(c) => cjk.push(c),
            }
        }
        let weights = stems
            .iter()
            .map(|s| crate::specificity(s))
            .chain(cjk.iter().map(|_| crate::specific::unlisted()))
            .collect();
        QueryTerms {
            stems,
            cjk,
            weights,
            stemmer,
            known: RefCell::default(),
        }
    }

    /// The word term (an index below [`QueryTerms::word_terms`]) that `word` stems to, if
    /// any.
    fn term_of(&self, word: &str) -> Option<usize> {
        let lower = if word.chars().any(char::is_uppercase) {
            Cow::Owned(word.to_lowercase())
        } else {
            Cow::Borrowed(word)
        };
        if let Some(&term) = self.known.borrow().get(lower.as_ref()) {
            return term;
        }
        let term = {
            let stem = self.stemmer.stem(&lower);
            self.stems.iter().position(|s| *s == stem)
        };
        self.known.borrow_mut().insert(lower.into_owned(), term);
        term
    }

    /// How many terms there are.
    pub fn len(&self) -> usize {
        self.stems.len() + self.cjk.len()
    }

    /// True when the query has no terms.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How much of the query `content` covers (the relevance models' `coverage` feature):
    /// the larger of the share of the query's terms that `content` contains and the share of
    /// `content`'s own distinct terms (words but stopwords and single letters, as
    /// [`query_terms`] takes them, but all of them) that the query contains; 0 for a query
    /// without terms.
    pub fn coverage(&self, content: &str) -> f64 {
        self.read(content).coverage
    }

    /// The share of the query's terms `held` holds (in the order [`Held::held`] has them),
    /// each term weighed by how specific it is ([`specificity`](crate::specificity)): a
    /// memory that shares "migration" with a task covers more of it than one that shares
    /// "use". 0 for a query without terms.
    pub fn weighted(&self, held: &[bool]) -> f64 {
        let total: f64 = self.weights.iter().sum();
        if total <= 0.0 {
            return 0.0;
        }
        let of_held: f64 = self
            .weights
            .iter()
            .zip(held)
            .filter(|(_, &h)| h)
            .map(|(w, _)| w)
            .sum();
        of_held / total
    }

    /// How many of the query's terms are words (the rest are CJK terms).
    pub fn word_terms(&self) -> usize {
        self.stems.len()
    }

    /// What `content` holds of the query, read in one pass over its words ([`Held`]): which
    /// terms, where its word terms occur, and its [`QueryTerms::coverage`]. The coverage
    /// features and the query-term rankers read the same memories, so a recall reads each
    /// once for all of them.
    ///
    /// Only the words that begin as some query term does are stemmed, each distinct one
    /// once for the query: the English stemmer keeps a word's first letter (not always its
    /// second: "dying" stems to "die"), so no other word can stem to a query term. And when
    /// `content`'s own terms begin with as many different letters as the query has terms, it
    /// has at least that many terms, so the share of them the query holds is at most the
    /// share of the query's terms it holds: the coverage is the latter, and a long memory (an
    /// abstract) costs one pass over its words instead of a stem for each distinct one.
    pub fn read(&self, content: &str) -> Held {
        let mut held = vec![false; self.len()];
        let mut positions = Vec::new();
        if self.is_empty() {
            return Held {
                held,
                positions,
                coverage: 0.0,
                weighted_coverage: 0.0,
            };
        }
        let firsts: Vec<char> = self.stems.iter().filter_map(|s| s.chars().next()).collect();
        // The initials of the content's own terms (no stopwords, no single letters), until
        // there are as many as the query has terms.
        let mut initials: Vec<char> = Vec::with_capacity(self.len());
        let mut enough = false;
        for (p, w) in index_words(content).enumerate() {
            let mut chars = w.chars();
            let Some(first) = chars.next() else { continue };
            let lower = first.to_lowercase().next();
            if !enough && chars.next().is_some() && !is_cjk(first) {
                if let Some(l) = lower.filter(|l| !initials.contains(l)) {
                    if !is_stopword(&w.to_lowercase()) {
                        initials.push(l);
                        enough = initials.len() >= self.len();
                    }
                }
            }
            if !lower.is_some_and(|c| firsts.contains(&c)) {
                continue;
            }
            if let Some(t) = self.term_of(w) {
                held[t] = true;
                positions.push((p, t));
            }
        }
        if !self.cjk.is_empty() {
            let spaced: String = words(content).collect();
            for (i, c) in self.cjk.iter().enumerate() {
                held[self.stems.len() + i] = spaced.contains(c.as_str());
            }
        }
        let coverage = if enough {
            share(&held)
        } else {
            share(&held).max(self.analyse(content).1)
        };
        let weighted_coverage = self.weighted(&held);
        Held {
            held,
            positions,
            coverage,
            weighted_coverage,
        }
    }

    /// Which query terms `content` holds, and the share of its own terms the query holds.
    fn analyse(&self, content: &str) -> (Vec<bool>, f64) {
        let mut held = Vec::with_capacity(self.len());
        let mut of_content = 0.0;
        if !self.stems.is_empty() {
            // Each distinct word is stemmed once: the content's stems, and those of its own
            // terms (no stopwords, no single letters, as in `query_terms`).
            let distinct: HashSet<String> = index_words(content)
                .filter(|w| !w.chars().all(is_cjk))
                .map(str::to_lowercase)
                .collect();
            let mut stems = HashSet::with_capacity(distinct.len());
            let mut own = HashSet::new();
            for w in &distinct {
                let stem = self.stemmer.stem(w).into_owned();
                if w.chars().nth(1).is_some() && !is_stopword(w) {
                    own.insert(stem.clone());
                }
                stems.insert(stem);
            }
            held.extend(self.stems.iter().map(|s| stems.contains(s)));
            // Its runs of CJK text are its own terms too, which no word of the query holds: a
            // CJK memory is not covered by the query's words through an English tag alone.
            let cjk_own = words(content)
                .filter(|w| w.chars().all(is_cjk))
                .collect::<HashSet<_>>()
                .len();
            if !own.is_empty() {
                let count = own.iter().filter(|s| self.stems.contains(*s)).count();
                of_content = count as f64 / (own.len() + cjk_own) as f64;
            }
        }
        if !self.cjk.is_empty() {
            let spaced: String = words(content).collect();
            held.extend(self.cjk.iter().map(|c| spaced.contains(c.as_str())));
        }
        (held, of_content)
    }
}

/// What one text holds of a query's terms ([`QueryTerms::read`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Held {
    /// Which of the query's terms it holds, in the query's order (words, then CJK terms),
    /// matched stemmed as the index matches them.
    pub held: Vec<bool>,
    /// Where the query's word terms occur: `(position, term)` for every word that stems to
    /// word term `term` (an index below [`QueryTerms::word_terms`], in the query's order), by
    /// increasing position; positions count every word, stopwords and identifiers' parts too
    /// ([`index_words`]). CJK terms are not placed.
    pub positions: Vec<(usize, usize)>,
    /// Its [`QueryTerms::coverage`].
    pub coverage: f64,
    /// The share of the query's terms it holds, each weighed by how specific it is
    /// ([`QueryTerms::weighted`]).
    pub weighted_coverage: f64,
}

/// The share of `held` that is true (0 for none).
fn share(held: &[bool]) -> f64 {
    if held.is_empty() {
        return 0.0;
    }
    held.iter().filter(|&&h| h).count() as f64 / held.len() as f64
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn weighted_coverage_is_a_share_that_grows_with_what_is_held(
            query in "[a-zA-Z ]{0,40}",
            content in "[a-zA-Z .,]{0,120}",
            more in "[a-zA-Z ]{0,20}",
        ) {
            let q = QueryTerms::new(&query);
            let held = q.read(&content);
            prop_assert!((0.0..=1.0 + 1e-12).contains(&held.weighted_coverage));
            prop_assert_eq!(held.weighted_coverage, q.weighted(&held.held));
            // None held is 0, all held is 1, and holding more never lowers it.
            prop_assert_eq!(q.weighted(&vec![false; q.len()]), 0.0);
            if !q.is_empty() {
                prop_assert!((q.weighted(&vec![true; q.len()]) - 1.0).abs() < 1e-12);
            }
            let wider = q.read(&format!("{content} {more}"));
            prop_assert!(wider.weighted_coverage >= held.weighted_coverage - 1e-12);
            // What the query's side of coverage holds, it holds too.
            prop_assert_eq!(held.weighted_coverage > 0.0, held.held.iter().any(|&h| h));
        }

        #[test]
        fn held_stems_only_what_can_match_and_agrees_with_coverage(
            query in "[a-zA-Z' ]{0,40}",
            content in "[a-zA-Z' .,]{0,120}",
        ) {
            let q = QueryTerms::new(&query);
            prop_assert_eq!(q.read(&content).held, q.analyse(&content).0);
        }

        #[test]
        fn positions_place_exactly_the_held_word_terms(
            query in "[a-zA-Z' ]{0,40}",
            content in "[a-zA-Z' .,]{0,120}",
        ) {
            let q = QueryTerms::new(&query);
            let read = q.read(&content);
            let at = &read.positions;
            prop_assert!(at.windows(2).all(|w| w[0].0 < w[1].0), "positions increase");
            let mut placed = vec![false; q.word_terms()];
            for &(p, t) in at {
                prop_assert!(p < index_words(&content).count());
                placed[t] = true;
            }
            prop_assert_eq!(placed, read.held[..q.word_terms()].to_vec());
        }

        #[test]
        fn coverage_by_the_querys_side_alone_is_the_coverage(
            query in "[a-zA-Z ]{0,30}",
            content in "[a-zA-Z ,.]{0,200}",
        ) {
            let q = QueryTerms::new(&query);
            prop_assert_eq!(q.coverage(&content), worked_out(&q, &content));
        }

        #[test]
        fn coverage_by_the_querys_side_alone_is_the_coverage_for_real_words(
            query in proptest::collection::vec(proptest::sample::select(WORDS), 0..8),
            content in proptest::collection::vec(proptest::sample::select(WORDS), 0..40),
        ) {
            let q = QueryTerms::new(&query.join(" "));
            let content = content.join(" ");
            prop_assert_eq!(q.coverage(&content), worked_out(&q, &content));
        }

        #[test]
        fn held_agrees_with_the_stems_of_every_word_for_real_words(
            query in proptest::collection::vec(proptest::sample::select(WORDS), 0..6),
            content in proptest::collection::vec(proptest::sample::select(WORDS), 0..30),
        ) {
            let q = QueryTerms::new(&query.join(" "));
            let content = content.join(" ");
            prop_assert_eq!(q.read(&content).held, q.analyse(&content).0);
        }

        #[test]
        fn coverage_is_a_share(query in "[a-z ]{0,40}", content in "[a-z ]{0,80}") {
            let c = QueryTerms::new(&query).coverage(&content);
            prop_assert!((0.0..=1.0).contains(&c));
        }
    }

    /// [`QueryTerms::coverage`] with both shares worked out, without its shortcut for
    /// memories with many terms.
    fn worked_out(q: &QueryTerms, content: &str) -> f64 {
        if q.is_empty() {
            return 0.0;
        }
        let (held, of_content) = q.analyse(content);
        share(&held).max(of_content)
    }

    /// Words with stopwords, stemmer special cases, shared stems and shared initials.
    const WORDS: &[&str] = &[
        "the",
        "of",
        "and",
        "a",
        "I",
        "is",
        "run",
        "running",
        "runs",
        "Ran",
        "skies",
        "sky",
        "dying",
        "die",
        "news",
        "early",
        "studies",
        "studied",
        "sunrise",
        "Sunrises",
        "DefaultHost",
        "default",
        "hosts",
        "RunTests",
        "HTTPServer",
        "IDs",
        "paint",
        "painted",
        "pyright",
        "venv",
        "lint",
        "deploy",
        "script",
        "waits",
        "job",
        "x",
        "y",
        "Yes",
        "yelling",
        "gently",
        "bias",
        "atlas",
        "数据库",
        "连接",
        "42",
        "b12",
    ];

    #[test]
    fn a_specific_word_held_covers_more_of_a_task_than_a_common_one() {
        let task = QueryTerms::new("write a schema migration for the users table");
        let migration = task.read("Always run migrations inside a transaction");
        let users = task.read("Users sign in with a password the auth service checks");
        // One term of five each, but "migration" is the task's subject, "users" a word
        // most projects' documents use.
        assert_eq!((migration.coverage, users.coverage), (0.2, 0.2));
        assert!(migration.weighted_coverage > 0.2);
        assert!(users.weighted_coverage < 0.2);
        assert!(migration.weighted_coverage > 2.0 * users.weighted_coverage);
        let none = QueryTerms::new("");
        assert_eq!(none.read("anything at all").weighted_coverage, 0.0);
    }

    #[test]
    fn coverage_matches_stems_like_the_index() {
        let q = QueryTerms::new("Which studies researched painting sunrises?");
        assert_eq!(q.len(), 4);
        assert_eq!(
            q.coverage("She studied and researches: painted a sunrise."),
            1.0
        );
        assert_eq!(
            q.coverage("a sunrise over the bay at dawn, quiet and cold"),
            0.25
        );
        // A memory wholly about part of the query.
        assert_eq!(q.coverage("a sunrise"), 1.0);
        assert_eq!(q.coverage("painted sunrise, blue bay"), 0.5);
        // The query's side alone.
        assert_eq!(q.read("a sunrise").held, [false, false, false, true]);
        assert_eq!(
            q.read("She studied and researches: painted a sunrise.")
                .held,
            [true; 4]
        );
        assert_eq!(q.coverage(""), 0.0);
        assert_eq!(QueryTerms::new("the of and").coverage("anything"), 0.0);
        let cjk = QueryTerms::new("数据库");
        assert_eq!(cjk.coverage("用数据库"), 1.0);
        assert_eq!(cjk.coverage("数据"), 0.5);
    }

    #[test]
    fn a_memorys_cjk_text_counts_among_its_own_terms() {
        let q = QueryTerms::new("database timeout");
        // The query holds "database" of the memory's two terms, and one of its own two.
        assert_eq!(q.coverage("数据库连接超时通常是连接池太小 database"), 0.5);
        assert_eq!(q.coverage("database"), 1.0);
        assert_eq!(q.coverage("数据库连接超时"), 0.0);
    }

    #[test]
    fn held_agrees_with_coverage_on_the_stemmer_special_cases() {
        let text = "skies dying lying tying idly gently ugly early only singly news howe \
                    atlas cosmos bias andes yelling Yes 'tis generously studies ran running";
        for query in [
            text,
            "sky die lie tie idl gentl ugli earli onli news yell studi run",
        ] {
            let q = QueryTerms::new(query);
            assert_eq!(q.read(text).held, q.analyse(text).0, "{query}");
        }
        let q = QueryTerms::new("studies of sunrises");
        assert_eq!(q.read("a study of the sunrise").held, vec![true, true]);
    }
}

//! Calibrated relevance: the estimated probability that a candidate is relevant to the query,
//! so that recall can return only what is likely relevant, and nothing when nothing is.
//!
//! Fused scores order candidates within one query but mean little across queries: the best
//! candidate of every list scores 1 however poor it is. The calibration reads evidence that
//! keeps its meaning from one query to the next ([`Features`]: how strong each source's score
//! is on its own scale, how much of the query a memory covers, ...) and turns it into a
//! probability with a logistic model, `p = 1 / (1 + e^-(intercept + Σ coefficient × feature))`,
//! whose coefficients are part of the configuration ([`Calibration`]), one set per mode.
//! `oro-mem eval --fit-calibration` fits them on judged queries and scores them on others.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};

use oro_mem_text::Stemmer;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use oro_mem_text::{is_stopword, query_terms, words, Term};

/// The name of a [`Calibration`]'s constant term.
pub const INTERCEPT: &str = "intercept";

/// How much of one text the other holds, in `[0, 1]`: the larger of the share of the
/// query's terms found in the memory and the share of the memory's terms found in the query
/// (stemmed, as the full-text index matches them; the memory's text is all the index searches:
/// content, tags, summary, files and entities). The second keeps a short memory that is
/// wholly about part of a long task ("ruff --fix must run before pyright" for "Set up ruff
/// and pyright linting for the Python service") from looking like a chance match.
pub const COVERAGE: &str = "coverage";

/// The fused score divided by the total weight of the lists that ranked anything, so that it
/// stays in `[0, 1]` for fusers that scale each list to at most 1 (0 for a candidate the
/// fusion left out).
pub const FUSED: &str = "fused";

/// `ln(1 + n)` of the number of terms in the query.
pub const QUERY_TERMS: &str = "query_terms";

/// The suffix of a signal's relative feature: `<signal>_share`, the candidate's score in the
/// signal divided by the best score any candidate has in it (0 without a score).
pub const SHARE_SUFFIX: &str = "_share";

/// The suffix of a signal's query feature: `<signal>_best`, `ln(1 + score)` of the best
/// score any candidate has in the signal (see [`COVERAGE_BEST`]).
pub const BEST_SUFFIX: &str = "_best";

/// The largest [`COVERAGE`] of any candidate of the query. Like `<signal>_best`, it is a
/// feature of the query, the same for each of its candidates: how well the store's best
/// match answers it at all. The [answerable](crate::config::RecallConfig::answerable) model
/// reads these, to tell a query the store knows something about from one it does not.
pub const COVERAGE_BEST: &str = "coverage_best";

/// 1 when each of the query's terms is held by at least one of its candidates (as
/// [`COVERAGE`] matches them), else 0 (and 0 for a query without terms). A feature of the
/// query: a question with a word that none of the store's best matches holds (a person's
/// name, asked of a store of paper abstracts) is likelier about something the store does not
/// know than one whose every word the matches hold between them, however well one of them
/// covers the rest. The [answerable](crate::config::RecallConfig::answerable) model of FTS
/// mode reads it.
pub const TERMS_FOUND: &str = "terms_found";

/// `ln(1 + n)` of the number of memories the query searched: the active memories its filter
/// admits (whatever their confidence), counted up to [`MEMORIES_COUNTED`]. A feature of the
/// query. The more memories a query searches, the likelier the best of them holds some of its
/// words by chance: a store of five thousand abstracts holds "main", "focus" and "politics"
/// for almost any question, a store of ten memories rarely does. So the best match of a query says more about whether
/// the store knows anything about it in a small store than in a large one, and an
/// [answerable](crate::config::RecallConfig::answerable) model reads this beside
/// [`COVERAGE_BEST`].
pub const MEMORIES: &str = "memories";

/// How far [`MEMORIES`] counts: a store or namespace larger than this counts as this large.
/// Counting costs a read of that many index entries at most (well under a millisecond), and
/// the models are fitted on stores of up to about five thousand memories, so a larger count
/// would only extrapolate.
pub const MEMORIES_COUNTED: u64 = 10_000;

/// The features that do not depend on which candidate sources run; each source's signal adds
/// three more, `<signal>` (`ln(1 + score)`, scores below 0 counted as 0), `<signal>_share`
/// and `<signal>_best`.
pub const FIXED_FEATURES: [&str; 6] = [
    COVERAGE,
    COVERAGE_BEST,
    FUSED,
    MEMORIES,
    QUERY_TERMS,
    TERMS_FOUND,
];

/// True when feature `name` is a feature of the query rather than of one candidate:
/// [`QUERY_TERMS`], [`COVERAGE_BEST`], [`TERMS_FOUND`], [`MEMORIES`] and every
/// `<signal>_best`.
pub fn is_query_feature(name: &str) -> bool {
    [QUERY_TERMS, COVERAGE_BEST, TERMS_FOUND, MEMORIES].contains(&name)
        || name.ends_with(BEST_SUFFIX)
}

/// One candidate's features, by name (see [`FIXED_FEATURES`] and [`SHARE_SUFFIX`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Features(BTreeMap<String, f64>);

impl Features {
    /// The value of feature `name`, if computed.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.get(name).copied()
    }

    /// True when no feature was computed.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sets feature `name`.
    pub fn set(&mut self, name: impl Into<String>, value: f64) {
        self.0.insert(name.into(), value);
    }

    /// Every feature, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> {
        self.0.iter().map(|(n, v)| (n.as_str(), *v))
    }
}

/// The coefficients of a logistic model of relevance, by feature name, plus [`INTERCEPT`].
/// A feature the model names but the candidate lacks counts as 0. An empty calibration
/// estimates nothing: recall then returns no probabilities and never abstains for relevance.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Calibration(BTreeMap<String, f64>);

impl Calibration {
    /// A calibration from `(name, coefficient)` pairs.
    pub fn new<S: Into<String>>(coefficients: impl IntoIterator<Item = (S, f64)>) -> Calibration {
        Calibration(
            coefficients
                .into_iter()
                .map(|(n, c)| (n.into(), c))
                .collect(),
        )
    }

    /// True when it has no coefficients at all.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sets the coefficient of `name` ([`INTERCEPT`] or a feature).
    pub fn set(&mut self, name: impl Into<String>, coefficient: f64) {
        self.0.insert(name.into(), coefficient);
    }

    /// The coefficient of `name`: 0 when not set.
    pub fn get(&self, name: &str) -> f64 {
        self.0.get(name).copied().unwrap_or(0.0)
    }

    /// True when the model has a coefficient for `name` (even 0): what a recall must compute.
    pub fn reads(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// Every coefficient, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> {
        self.0.iter().map(|(n, c)| (n.as_str(), *c))
    }

    /// The estimated probability of relevance of a candidate with `features`, in `[0, 1]`;
    /// `None` for an empty calibration.
    pub fn probability(&self, features: &Features) -> Option<f64> {
        if self.is_empty() {
            return None;
        }
        let z: f64 = self
            .iter()
            .map(|(name, c)| {
                if name == INTERCEPT {
                    c
                } else {
                    c * features.get(name).unwrap_or(0.0)
                }
            })
            .sum();
        Some(sigmoid(z))
    }

    /// Checks every coefficient: finite, and named [`INTERCEPT`], a fixed feature, or a
    /// feature of one of `signals` (`<signal>` or `<signal>_share`). `what` names the
    /// calibration in the error (`recall.calibration.fts`).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](crate::ErrorKind::Config) naming the coefficient and what it
    /// takes.
    pub fn check(&self, what: &str, signals: &[&str]) -> Result<()> {
        for (name, c) in self.iter() {
            if !c.is_finite() {
                return Err(Error::config(format!(
                    "{what}.{name} must be a finite number, got {c}"
                )));
            }
            let known = name == INTERCEPT
                || FIXED_FEATURES.contains(&name)
                || signals.iter().any(|s| {
                    name == *s
                        || [SHARE_SUFFIX, BEST_SUFFIX]
                            .iter()
                            .any(|suffix| name.strip_suffix(suffix).is_some_and(|n| n == *s))
                });
            if !known {
                let mut names = vec![INTERCEPT.to_string()];
                names.extend(FIXED_FEATURES.iter().map(|f| f.to_string()));
                for s in signals {
                    names.push(s.to_string());
                    names.push(format!("{s}{SHARE_SUFFIX}"));
                    names.push(format!("{s}{BEST_SUFFIX}"));
                }
                return Err(Error::config(format!(
                    "{what}.{name}: unknown feature; expected one of {}",
                    names.join(", ")
                )));
            }
        }
        Ok(())
    }
}

/// The logistic function, `1 / (1 + e^-z)`, in `[0, 1]` for every `z` (NaN counts as 0.5's
/// opposite: 0).
pub fn sigmoid(z: f64) -> f64 {
    if z.is_nan() {
        return 0.0;
    }
    1.0 / (1.0 + (-z).exp())
}

/// The query's terms as the full-text index matches them: stemmed words, and CJK terms as
/// they are. Built once per query, then [`QueryTerms::coverage`] per candidate.
pub struct QueryTerms {
    stems: Vec<String>,
    cjk: Vec<String>,
    stemmer: Stemmer,
    /// The word term each lower-cased word stems to, for the words looked up so far: the
    /// memories of one query share most of their words, so each is stemmed once.
    known: RefCell<HashMap<String, Option<usize>>>,
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
        QueryTerms {
            stems,
            cjk,
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

    /// [`COVERAGE`] of `content`: the larger of the share of the query's terms that
    /// `content` contains and the share of `content`'s own distinct terms (words but
    /// stopwords and single letters, as [`query_terms`] takes them, but all of them) that the
    /// query contains; 0 for a query without terms.
    pub fn coverage(&self, content: &str) -> f64 {
        self.coverage_held(content).0
    }

    /// [`QueryTerms::coverage`] of `content`, and which of the query's terms it holds (as
    /// [`QueryTerms::held`]).
    pub fn coverage_held(&self, content: &str) -> (f64, Vec<bool>) {
        if self.is_empty() {
            return (0.0, Vec::new());
        }
        // The English stemmer keeps a word's first letter, so a memory whose own terms begin
        // with as many different letters as the query has terms has at least that many
        // terms, and the share of them the query holds is at most the share of the query's
        // terms the memory holds: the coverage is the latter, and only the words that begin
        // as a query term does are stemmed ([`QueryTerms::held`]). A long memory (an
        // abstract) costs a pass over its words instead of a stem for each distinct one.
        if self.own_initials_at_least(content, self.len()) {
            let held = self.held(content);
            return (share(&held), held);
        }
        let (held, of_content) = self.analyse(content);
        (share(&held).max(of_content), held)
    }

    /// True when `content`'s own terms (words but stopwords and single letters, as
    /// [`QueryTerms::coverage`] counts them) begin with at least `n` different letters.
    fn own_initials_at_least(&self, content: &str, n: usize) -> bool {
        let mut initials: Vec<char> = Vec::with_capacity(n);
        for w in words(content) {
            let mut chars = w.chars();
            let (Some(first), Some(_)) = (chars.next(), chars.next()) else {
                continue;
            };
            if oro_mem_text::is_cjk(first) {
                continue;
            }
            let Some(first) = first.to_lowercase().next() else {
                continue;
            };
            if initials.contains(&first) || is_stopword(&w.to_lowercase()) {
                continue;
            }
            initials.push(first);
            if initials.len() >= n {
                return true;
            }
        }
        false
    }

    /// Which of the query's terms `content` contains, in the query's order (words, then CJK
    /// terms). As [`QueryTerms::coverage`]'s side of the query, but it stems only the words
    /// that begin as some query term does: the English stemmer keeps a word's first letter
    /// (not always its second: "dying" stems to "die"), so no other word can stem to a query
    /// term.
    pub fn held(&self, content: &str) -> Vec<bool> {
        let mut held = vec![false; self.len()];
        if !self.stems.is_empty() {
            // Stems are lower case and never CJK, so this also passes over CJK words.
            let firsts: Vec<char> = self.stems.iter().filter_map(|s| s.chars().next()).collect();
            for w in words(content) {
                let first = w.chars().next().and_then(|c| c.to_lowercase().next());
                if !first.is_some_and(|c| firsts.contains(&c)) {
                    continue;
                }
                if let Some(i) = self.term_of(w) {
                    held[i] = true;
                }
            }
        }
        if !self.cjk.is_empty() {
            let spaced: String = words(content).collect();
            for (i, c) in self.cjk.iter().enumerate() {
                held[self.stems.len() + i] = spaced.contains(c.as_str());
            }
        }
        held
    }

    /// Where the query's word terms occur in `content`: `(position, term)` for every word of
    /// `content` that stems to word term `term` (an index below [`QueryTerms::word_terms`],
    /// in the query's order), by increasing position; positions count every word, stopwords
    /// too. CJK terms are not placed. As [`QueryTerms::held`], it stems only the words that
    /// begin as some query term does, each distinct word once for the query.
    pub fn positions(&self, content: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        if self.stems.is_empty() {
            return out;
        }
        let firsts: Vec<char> = self.stems.iter().filter_map(|s| s.chars().next()).collect();
        for (p, w) in words(content).enumerate() {
            let first = w.chars().next().and_then(|c| c.to_lowercase().next());
            if !first.is_some_and(|c| firsts.contains(&c)) {
                continue;
            }
            if let Some(t) = self.term_of(w) {
                out.push((p, t));
            }
        }
        out
    }

    /// How many of the query's terms are words (the rest are CJK terms).
    pub fn word_terms(&self) -> usize {
        self.stems.len()
    }

    /// Which query terms `content` holds, and the share of its own terms the query holds.
    fn analyse(&self, content: &str) -> (Vec<bool>, f64) {
        let mut held = Vec::with_capacity(self.len());
        let mut of_content = 0.0;
        if !self.stems.is_empty() {
            // Each distinct word is stemmed once: the content's stems, and those of its own
            // terms (no stopwords, no single letters, as in `query_terms`).
            let distinct: HashSet<String> = words(content)
                .filter(|w| !w.chars().all(oro_mem_text::is_cjk))
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
                .filter(|w| w.chars().all(oro_mem_text::is_cjk))
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

    fn calibration() -> Calibration {
        Calibration::new([
            (INTERCEPT, -3.0),
            ("lexical", 1.2),
            (COVERAGE, 2.5),
            (FUSED, 1.0),
        ])
    }

    fn features(lexical: f64, coverage: f64, fused: f64) -> Features {
        let mut f = Features::default();
        f.set("lexical", lexical);
        f.set(COVERAGE, coverage);
        f.set(FUSED, fused);
        f
    }

    proptest! {
        #[test]
        fn probabilities_are_in_the_unit_interval_and_monotone(
            lexical in 0.0f64..50.0,
            coverage in 0.0f64..=1.0,
            fused in 0.0f64..=1.0,
            more in 0.0f64..10.0,
        ) {
            let c = calibration();
            let p = c.probability(&features(lexical, coverage, fused)).unwrap();
            prop_assert!((0.0..=1.0).contains(&p));
            // Every coefficient is positive: more evidence never lowers the estimate.
            for f in [
                features(lexical + more, coverage, fused),
                features(lexical, (coverage + more).min(1.0), fused),
                features(lexical, coverage, fused + more),
            ] {
                prop_assert!(c.probability(&f).unwrap() >= p);
            }
        }

        #[test]
        fn held_stems_only_what_can_match_and_agrees_with_coverage(
            query in "[a-zA-Z' ]{0,40}",
            content in "[a-zA-Z' .,]{0,120}",
        ) {
            let q = QueryTerms::new(&query);
            prop_assert_eq!(q.held(&content), q.analyse(&content).0);
        }

        #[test]
        fn positions_place_exactly_the_held_word_terms(
            query in "[a-zA-Z' ]{0,40}",
            content in "[a-zA-Z' .,]{0,120}",
        ) {
            let q = QueryTerms::new(&query);
            let at = q.positions(&content);
            prop_assert!(at.windows(2).all(|w| w[0].0 < w[1].0), "positions increase");
            let mut placed = vec![false; q.word_terms()];
            for &(p, t) in &at {
                prop_assert!(p < words(&content).count());
                placed[t] = true;
            }
            prop_assert_eq!(placed, q.held(&content)[..q.word_terms()].to_vec());
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
        fn coverage_held_holds_what_held_does(
            query in proptest::collection::vec(proptest::sample::select(WORDS), 0..6),
            content in proptest::collection::vec(proptest::sample::select(WORDS), 0..30),
        ) {
            let q = QueryTerms::new(&query.join(" "));
            let content = content.join(" ");
            let (coverage, held) = q.coverage_held(&content);
            prop_assert_eq!(coverage, q.coverage(&content));
            prop_assert_eq!(held, q.held(&content));
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
    fn extreme_evidence_stays_a_probability() {
        let c = calibration();
        assert_eq!(c.probability(&features(1e300, 1.0, 1.0)), Some(1.0));
        let p = c.probability(&features(0.0, 0.0, 0.0)).unwrap();
        assert!(p > 0.0 && p < 0.1, "{p}");
        assert_eq!(
            Calibration::default().probability(&features(1.0, 1.0, 1.0)),
            None
        );
        assert_eq!(sigmoid(f64::NAN), 0.0);
        assert_eq!(sigmoid(-1e308), 0.0);
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
        assert_eq!(q.held("a sunrise"), [false, false, false, true]);
        assert_eq!(
            q.held("She studied and researches: painted a sunrise."),
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
            assert_eq!(q.held(text), q.analyse(text).0, "{query}");
        }
        let q = QueryTerms::new("studies of sunrises");
        assert_eq!(q.held("a study of the sunrise"), vec![true, true]);
    }

    #[test]
    fn check_names_the_bad_coefficient() {
        let signals = ["lexical", "vector"];
        let mut c = calibration();
        c.set("vector_share", 0.5);
        c.check("recall.calibration.hybrid", &signals).unwrap();
        c.set("lexcial", 1.0);
        let err = c.check("recall.calibration.hybrid", &signals).unwrap_err();
        assert!(
            err.to_string()
                .contains("recall.calibration.hybrid.lexcial")
                && err.to_string().contains("vector_share"),
            "{err}"
        );
        let bad = Calibration::new([(INTERCEPT, f64::NAN)]);
        assert!(bad.check("x", &signals).is_err());
    }
}

//! Pseudo-relevance feedback for the full-text list (RM3: Lavrenko and Croft's relevance
//! model, as Abdul-Jaleel et al. expand a query with it): the words the query's best
//! full-text matches share beyond the query's own, searched for as a second query.
//!
//! "why does sqlite lock" finds "sqlite lock: a second writer waits on the busy timeout, then
//! retries", but not "raise the busy timeout so a waiting writer retries", which holds none
//! of its words. The best few full-text matches are taken as relevant, their words weighed by
//! how much of each match they make up and how well the match scored, and the heaviest words
//! the query does not hold ("busy", "timeout", "writer", "retries") become the feedback query,
//! which finds the second memory.
//! Its BM25 scores are the [`Feedback::SIGNAL`] signal, a list of its own that
//! `recall.weights.feedback` fuses with the others (0, the default, runs nothing).

use std::collections::HashMap;

use oro_mem_core::{Candidates, Memory, Query, Ranker, Ranking, Result};
use oro_mem_text::{field_weight, is_stopword, query_terms, segments, Segment, Stemmer};

use crate::source::{CandidateSource, Search, SourceContext};

/// The feedback source: the `terms` heaviest new words of the query's best `docs` full-text
/// matches ([`expansion`]), searched for (BM25) to the `depth` best memories.
#[derive(Clone, Copy, Debug)]
pub struct Feedback {
    /// Candidates fetched by the feedback query.
    pub depth: usize,
    /// How many of the best full-text matches are taken as relevant.
    pub docs: usize,
    /// How many words the feedback query holds; 0 turns the source off.
    pub terms: usize,
}

impl Feedback {
    /// The signal it gives: the feedback query's BM25 scores.
    pub const SIGNAL: &'static str = "feedback";
}

impl CandidateSource for Feedback {
    fn name(&self) -> &str {
        Feedback::SIGNAL
    }

    fn runs(&self) -> bool {
        self.terms > 0 && self.docs > 0 && self.depth > 0
    }

    fn search(&self, cx: &SourceContext<'_>) -> Result<Search> {
        if !self.runs() {
            return Ok(Search::default());
        }
        let matches = cx
            .store
            .lexical_candidates(cx.query.text, cx.query.filter, self.docs)?;
        let words = expansion(cx.query.text, &matches, self.terms);
        if words.is_empty() {
            return Ok(Search::default());
        }
        let hits = cx
            .store
            .lexical_candidates(&words.join(" "), cx.query.filter, self.depth)?;
        Ok(hits.into())
    }
}

/// Ranks candidates by the [`Feedback::SIGNAL`] signal: their BM25 scores for the feedback
/// query. Candidates it did not find are left out.
#[derive(Clone, Copy, Debug, Default)]
pub struct FeedbackRanker;

impl Ranker for FeedbackRanker {
    fn name(&self) -> &str {
        "feedback"
    }

    fn signal(&self) -> Option<&str> {
        Some(Feedback::SIGNAL)
    }

    fn rank(&self, _query: &Query<'_>, candidates: &Candidates) -> Result<Ranking> {
        Ok(Ranking::from_scores(candidates.scores(Feedback::SIGNAL)))
    }
}

/// The feedback query for `query`: the `terms` words that weigh most in the relevance model
/// of `matches` (its full-text matches with their scores), leaving out the query's own words
/// (by stem) and stopwords, heaviest first.
///
/// A match's share of the model is its score over the sum of the matches' scores (those
/// above 0); a word's weight in a match is its count over the match's length, the words of a
/// summary, tags, files and entities counted as the index weighs their field
/// ([`LEXICAL_FIELDS`](oro_mem_text::LEXICAL_FIELDS)). Words of one stem
/// are one term, said by its most frequent form. Equal weights keep the order words were
/// first seen in.
pub fn expansion(query: &str, matches: &[(Memory, f64)], terms: usize) -> Vec<String> {
    let total: f64 = matches.iter().map(|(_, s)| s.max(0.0)).sum();
    if total <= 0.0 || terms == 0 {
        return Vec::new();
    }
    let stemmer = Stemmer::english();
    let own: Vec<String> = query_terms(query)
        .iter()
        .filter_map(|t| match t {
            oro_mem_text::Term::Word(w) => Some(stemmer.stem(w).into_owned()),
            oro_mem_text::Term::Cjk(_) => None,
        })
        .collect();
    let mut model: HashMap<String, FeedbackTerm> = HashMap::new();
    for (memory, score) in matches {
        let counts = weighted_words(memory);
        let length: u32 = counts.iter().map(|(_, n)| n).sum();
        if length == 0 || *score <= 0.0 {
            continue;
        }
        let share = score / total;
        for (word, n) in counts {
            let stem = stemmer.stem(&word).into_owned();
            if own.contains(&stem) {
                continue;
            }
            let seen = model.len();
            let term = model.entry(stem).or_insert_with(|| FeedbackTerm {
                weight: 0.0,
                seen,
                forms: Vec::new(),
            });
            term.weight += share * f64::from(n) / f64::from(length);
            match term.forms.iter_mut().find(|(f, _)| *f == word) {
                Some((_, count)) => *count += n,
                None => term.forms.push((word, n)),
            }
        }
    }
    let mut terms_by_weight: Vec<FeedbackTerm> = model.into_values().collect();
    terms_by_weight.sort_by(|a, b| b.weight.total_cmp(&a.weight).then(a.seen.cmp(&b.seen)));
    terms_by_weight
        .into_iter()
        .take(terms)
        .filter_map(FeedbackTerm::said)
        .collect()
}

/// A term of the relevance model: the words of one stem.
struct FeedbackTerm {
    /// Its probability in the model.
    weight: f64,
    /// When it was first seen (for ties).
    seen: usize,
    /// Its forms with their counts, in the order first seen.
    forms: Vec<(String, u32)>,
}

impl FeedbackTerm {
    /// The form it is searched for by: the most frequent; of equal ones, the first seen.
    fn said(self) -> Option<String> {
        let mut best: Option<(String, u32)> = None;
        for (form, n) in self.forms {
            if best.as_ref().is_none_or(|(_, m)| n > *m) {
                best = Some((form, n));
            }
        }
        best.map(|(form, _)| form)
    }
}

/// The words of `memory` a full-text query could use (lower-cased, at least two characters,
/// not stopwords, not bare numbers), each with its count, as the index weighs its field, in
/// the order first seen. CJK text is left out: its terms are character pairs, not words.
fn weighted_words(memory: &Memory) -> Vec<(String, u32)> {
    let mut counts: Vec<(String, u32)> = Vec::new();
    let mut place: HashMap<String, usize> = HashMap::new();
    let mut add = |text: &str, w: u32| {
        for segment in segments(text) {
            let Segment::Word(word) = segment else {
                continue;
            };
            if word.chars().nth(1).is_none() {
                continue;
            }
            let lower = word.to_lowercase();
            if is_stopword(&lower) || lower.chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            match place.get(&lower) {
                Some(&i) => counts[i].1 += w,
                None => {
                    place.insert(lower.clone(), counts.len());
                    counts.push((lower, w));
                }
            }
        }
    };
    add(&memory.content, field_weight("body"));
    if let Some(summary) = &memory.summary {
        add(summary, field_weight("summary"));
    }
    for (field, values) in [
        ("tags", &memory.tags),
        ("files", &memory.files),
        ("entities", &memory.entities),
    ] {
        for value in values {
            add(value, field_weight(field));
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use oro_mem_core::testing::MemoryBuilder;

    use super::*;

    fn memory(id: i64, content: &str, summary: Option<&str>) -> Memory {
        let mut m = MemoryBuilder::new(id, content).build();
        m.summary = summary.map(str::to_string);
        m
    }

    #[test]
    fn the_heaviest_new_words_of_the_matches_leaving_out_the_querys_own() {
        let matches = [
            (
                memory(
                    1,
                    "Writers wait: the busy timeout retries a locked write",
                    None,
                ),
                4.0,
            ),
            (memory(2, "A busy database retries; 42 x", None), 1.0),
        ];
        // "locked" and "write" are the query's "locking" and "writes" by stem; "the", "a",
        // "42" and "x" are no words to search for. "busy" and "retries" are in both matches,
        // the rest in one.
        let got = expansion("why is sqlite locking writes?", &matches, 3);
        assert_eq!(got, ["busy", "retries", "writers"]);
        assert!(expansion("why is sqlite locking writes?", &matches, 0).is_empty());
    }

    #[test]
    fn a_better_match_and_a_shorter_one_weigh_more() {
        let one = memory(1, "alpha beta", None);
        let two = memory(2, "gamma delta", None);
        let better_first = [(one.clone(), 2.0), (two.clone(), 1.0)];
        assert_eq!(expansion("query", &better_first, 1), ["alpha"]);
        let better_second = [(one, 1.0), (two, 2.0)];
        assert_eq!(expansion("query", &better_second, 1), ["gamma"]);
        // Of two equal scores, the word that is half of its match outweighs a word that is a
        // quarter of its own.
        let short = memory(3, "epsilon zeta", None);
        let long = memory(4, "eta theta iota kappa", None);
        assert_eq!(
            expansion("query", &[(long, 1.0), (short, 1.0)], 1),
            ["epsilon"]
        );
    }

    #[test]
    fn forms_of_a_stem_are_one_term_said_by_the_most_frequent() {
        let matches = [(memory(1, "cell cells cells stem", None), 1.0)];
        assert_eq!(expansion("query", &matches, 5), ["cells", "stem"]);
    }

    #[test]
    fn a_fields_words_count_as_the_index_weighs_them() {
        // Once in the summary (weight 3) outweighs twice in the text.
        let matches = [(memory(1, "protein protein binding", Some("kinase")), 1.0)];
        assert_eq!(expansion("query", &matches, 1), ["kinase"]);
        // A file's words (weight 2) outweigh once in the text, and tie with twice, where the
        // text, read first, goes first.
        let mut m = memory(2, "chunk chunk read", None);
        m.files = vec!["src/vectors.rs".into()];
        assert_eq!(
            expansion("query", &[(m, 1.0)], 4),
            ["chunk", "src", "vectors", "rs"]
        );
    }

    #[test]
    fn matches_without_a_score_above_zero_give_nothing() {
        let matches = [(memory(1, "alpha beta", None), 0.0)];
        assert!(expansion("query", &matches, 5).is_empty());
        assert!(expansion("query", &[], 5).is_empty());
    }
}

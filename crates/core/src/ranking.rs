//! Candidates going into rankers and the rankings coming out.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use oro_mem_text::{Held, QueryTerms};

use crate::memory::{Memory, MemoryId};

/// A memory under consideration for one query.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The memory itself.
    pub memory: Memory,
}

impl Candidate {
    /// A candidate for `memory`.
    pub fn new(memory: Memory) -> Candidate {
        Candidate { memory }
    }

    /// The memory's id.
    pub fn id(&self) -> MemoryId {
        self.memory.id
    }
}

/// A per-query score that a candidate source gave some candidates (a BM25 score, a cosine,
/// a distance, ...), by the source's name. Larger is better.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Signal {
    floor: Option<f64>,
    scores: HashMap<MemoryId, f64>,
    /// Candidates whose score was taken away as meaningless ([`Candidates::unscore`]).
    unjudged: HashSet<MemoryId>,
}

impl Signal {
    /// A signal from `(id, score)` pairs; of a repeated id the last score is kept.
    pub fn new(scores: impl IntoIterator<Item = (MemoryId, f64)>) -> Signal {
        Signal {
            floor: None,
            scores: scores.into_iter().collect(),
            unjudged: HashSet::new(),
        }
    }

    /// A candidate that only this signal knows is kept only with a score of at least
    /// `floor` (see [`Candidates::gate`]).
    pub fn floor(mut self, floor: f64) -> Signal {
        self.floor = Some(floor);
        self
    }

    /// The score of `id`, if the signal has one.
    pub fn get(&self, id: MemoryId) -> Option<f64> {
        self.scores.get(&id).copied()
    }

    /// Every score the signal holds, in no particular order: of candidates since dropped
    /// ([`Candidates::gate`]) too.
    pub fn iter(&self) -> impl Iterator<Item = (MemoryId, f64)> + '_ {
        self.scores.iter().map(|(&id, &score)| (id, score))
    }

    /// The score a candidate only this signal knows needs to be kept ([`Signal::floor`]).
    pub fn min_kept(&self) -> Option<f64> {
        self.floor
    }

    /// True when the signal could not judge `id` ([`Signal::set_unjudged`],
    /// [`Candidates::unscore`]): its missing score says nothing, unlike a candidate the
    /// signal ranked too low to score.
    pub fn unjudged(&self, id: MemoryId) -> bool {
        self.unjudged.contains(&id)
    }

    /// Records that the signal could not judge `ids` (a memory without an embedding, say),
    /// taking away any score it gave them.
    pub fn set_unjudged(&mut self, ids: impl IntoIterator<Item = MemoryId>) {
        for id in ids {
            self.scores.remove(&id);
            self.unjudged.insert(id);
        }
    }

    /// Scores more candidates; an id already scored keeps its first score.
    pub fn extend(&mut self, scores: impl IntoIterator<Item = (MemoryId, f64)>) {
        for (id, score) in scores {
            self.scores.entry(id).or_insert(score);
        }
    }

    /// True when `score` clears the floor (or there is none).
    fn admits(&self, score: f64) -> bool {
        self.floor.is_none_or(|f| score >= f)
    }
}

/// The set of candidates for one query (ids unique), the signals their sources gave them,
/// and, when the store was asked, their neighbours in their sessions and how many memories
/// the query searched.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Candidates {
    items: Vec<Candidate>,
    signals: Vec<(String, Signal)>,
    neighbours: HashMap<MemoryId, Vec<(MemoryId, u32)>>,
    searched: Option<u64>,
    terms: TermsRead,
}

/// What each candidate holds of a query's terms ([`Candidates::terms`]): each memory's text
/// read once for the query, for every ranker and feature that reads it.
#[derive(Debug)]
pub struct CandidateTerms {
    query: String,
    terms: usize,
    word_terms: usize,
    held: HashMap<MemoryId, Held>,
}

impl CandidateTerms {
    /// How many terms the query has ([`QueryTerms::len`]).
    pub fn len(&self) -> usize {
        self.terms
    }

    /// True when the query has no terms.
    pub fn is_empty(&self) -> bool {
        self.terms == 0
    }

    /// How many of the query's terms are words ([`QueryTerms::word_terms`]).
    pub fn word_terms(&self) -> usize {
        self.word_terms
    }

    /// What candidate `id` holds of the query's terms (none for an id that is not a
    /// candidate).
    pub fn of(&self, id: MemoryId) -> Option<&Held> {
        self.held.get(&id)
    }
}

/// The last [`CandidateTerms`] read, kept while the candidates do not change. A cache: it
/// takes no part in comparing candidates.
#[derive(Clone, Debug, Default)]
struct TermsRead(OnceLock<Arc<CandidateTerms>>);

impl PartialEq for TermsRead {
    fn eq(&self, _: &TermsRead) -> bool {
        true
    }
}

impl Candidates {
    /// Collects candidates, keeping the first of any repeated id.
    pub fn new(items: impl IntoIterator<Item = Candidate>) -> Candidates {
        let mut seen = std::collections::HashSet::new();
        Candidates {
            items: items.into_iter().filter(|c| seen.insert(c.id())).collect(),
            signals: Vec::new(),
            neighbours: HashMap::new(),
            searched: None,
            terms: TermsRead::default(),
        }
    }

    /// What each candidate holds of the terms of `query` (the searched text of its memory:
    /// [`Memory::searched_text`]), each memory read once: the first call for a query reads
    /// them, later ones share what it read until the candidates change.
    pub fn terms(&self, query: &str) -> Arc<CandidateTerms> {
        if let Some(read) = self.terms.0.get().filter(|t| t.query == query) {
            return Arc::clone(read);
        }
        let terms = QueryTerms::new(query);
        let read = Arc::new(CandidateTerms {
            query: query.to_string(),
            terms: terms.len(),
            word_terms: terms.word_terms(),
            held: self
                .items
                .iter()
                .map(|c| (c.id(), terms.read(&c.memory.searched_text())))
                .collect(),
        });
        // Another query's terms stay: a caller asking of two queries in turn reads each
        // time, which is no worse than without the cache.
        let _ = self.terms.0.set(Arc::clone(&read));
        read
    }

    /// Records how many memories the query searched (the active memories its filter admits,
    /// counted up to [`MEMORIES_COUNTED`](crate::calibration::MEMORIES_COUNTED)), which the
    /// [`MEMORIES`](crate::calibration::MEMORIES) feature reads.
    pub fn set_searched(&mut self, memories: u64) {
        self.searched = Some(memories);
    }

    /// How many memories the query searched, when it was recorded.
    pub fn searched(&self) -> Option<u64> {
        self.searched
    }

    /// Records the candidates' session neighbours
    /// ([`CandidateSearch::session_neighbours`](crate::CandidateSearch::session_neighbours)),
    /// replacing any recorded before.
    pub fn set_neighbours(&mut self, neighbours: impl IntoIterator<Item = Neighbour>) {
        self.neighbours.clear();
        for n in neighbours {
            self.neighbours
                .entry(n.of)
                .or_default()
                .push((n.id, n.distance));
        }
    }

    /// True when some candidate has a neighbour recorded.
    pub fn has_neighbours(&self) -> bool {
        !self.neighbours.is_empty()
    }

    /// The candidates near `id` in its session as `(id, distance)`, when they were recorded.
    pub fn neighbours(&self, id: MemoryId) -> &[(MemoryId, u32)] {
        self.neighbours.get(&id).map_or(&[], Vec::as_slice)
    }

    /// Adds `signal` under `name`, replacing one of the same name.
    pub fn set_signal(&mut self, name: impl Into<String>, signal: Signal) {
        let name = name.into();
        match self.signals.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = signal,
            None => self.signals.push((name, signal)),
        }
    }

    /// The names of the signals, in the order they were added.
    pub fn signal_names(&self) -> impl Iterator<Item = &str> {
        self.signals.iter().map(|(n, _)| n.as_str())
    }

    /// The signal `name`, if a source gave one.
    pub fn signal(&self, name: &str) -> Option<&Signal> {
        self.signals.iter().find(|(n, _)| n == name).map(|(_, s)| s)
    }

    /// The candidates' scores in signal `name`, in candidate order; candidates the signal does
    /// not know are left out (nothing when there is no such signal).
    pub fn scores<'a>(&'a self, name: &str) -> impl Iterator<Item = (MemoryId, f64)> + 'a {
        let signal = self.signal(name);
        self.items
            .iter()
            .filter_map(move |c| Some((c.id(), signal?.get(c.id())?)))
    }

    /// Takes away signal `name`'s score of each candidate for which `unscored` is true (a
    /// pair the signal cannot judge; [`Signal::unjudged`] remembers it), and drops the
    /// candidates left with no score at all: nothing vouches for them. Returns how many scores
    /// were taken away.
    pub fn unscore(&mut self, name: &str, mut unscored: impl FnMut(&Candidate) -> bool) -> usize {
        let Some(index) = self.signals.iter().position(|(n, _)| n == name) else {
            return 0;
        };
        let mut taken = 0;
        let signals = &mut self.signals;
        self.items.retain(|c| {
            let signal = &mut signals[index].1;
            if !unscored(c) || signal.get(c.id()).is_none() {
                return true;
            }
            signal.set_unjudged([c.id()]);
            taken += 1;
            signals.iter().any(|(_, s)| s.get(c.id()).is_some())
        });
        taken
    }

    /// Drops the candidates that no signal vouches for: a candidate is kept when one of its
    /// scores clears its signal's floor, or when no signal scores it at all. Returns how many
    /// were dropped.
    ///
    /// A memory matching no query word but found by its embedding, say, stays only if its
    /// cosine reaches the vector signal's floor.
    pub fn gate(&mut self) -> usize {
        let before = self.items.len();
        let signals = &self.signals;
        self.items.retain(|c| {
            let mut scored = signals
                .iter()
                .filter_map(|(_, s)| Some((s, s.get(c.id())?)))
                .peekable();
            scored.peek().is_none() || scored.any(|(s, v)| s.admits(v))
        });
        before - self.items.len()
    }

    /// The candidates, in the order they were collected.
    pub fn as_slice(&self) -> &[Candidate] {
        &self.items
    }

    /// Keeps only the candidates for which `keep` is true, in their order.
    pub fn retain(&mut self, keep: impl FnMut(&Candidate) -> bool) {
        self.items.retain(keep);
    }

    /// Mutable access to the candidates. Do not change ids. Forgets what was read of their
    /// terms ([`Candidates::terms`]), since their texts may change.
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Candidate> {
        self.terms = TermsRead::default();
        self.items.iter_mut()
    }

    /// Iterates over the candidates.
    pub fn iter(&self) -> std::slice::Iter<'_, Candidate> {
        self.items.iter()
    }

    /// How many candidates there are.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Consumes the set.
    pub fn into_vec(self) -> Vec<Candidate> {
        self.items
    }
}

impl<'a> IntoIterator for &'a Candidates {
    type Item = &'a Candidate;
    type IntoIter = std::slice::Iter<'a, Candidate>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

/// A memory near another in their session ([`Memory::session`]): `distance` places before
/// or after it, in time order (1 is next to it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Neighbour {
    /// The memory whose neighbour this is.
    pub of: MemoryId,
    /// The neighbour.
    pub id: MemoryId,
    /// How many places apart they are, from 1.
    pub distance: u32,
}

impl Neighbour {
    /// The pairs of a session's memories `ids` (in its time order) at most `window` places
    /// apart, each both ways, given `steps[i]`: how many places lie from `ids[i]` to
    /// `ids[i + 1]` (1 when nothing of the session lies between them). What a store's
    /// [`session_neighbours`](crate::store::CandidateSearch::session_neighbours) returns once
    /// it has counted the steps.
    pub fn pairs(ids: &[MemoryId], steps: &[u32], window: u32, out: &mut Vec<Neighbour>) {
        for i in 0..ids.len() {
            let mut distance: u32 = 0;
            for (j, step) in steps.iter().enumerate().skip(i) {
                distance = distance.saturating_add(*step);
                if distance > window {
                    break;
                }
                let (a, b) = (ids[i], ids[j + 1]);
                out.push(Neighbour {
                    of: a,
                    id: b,
                    distance,
                });
                out.push(Neighbour {
                    of: b,
                    id: a,
                    distance,
                });
            }
        }
    }
}

/// One ranked document.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// The memory.
    pub id: MemoryId,
    /// Larger is better; comparable only within one ranking.
    pub score: f64,
}

/// An ordered list of hits: descending score, ties by ascending id, ids unique, scores finite.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ranking {
    hits: Vec<Hit>,
}

impl Ranking {
    /// Builds a ranking from `(id, score)` pairs in any order.
    ///
    /// Non-finite scores are dropped; of a repeated id the best score is kept.
    pub fn from_scores(scores: impl IntoIterator<Item = (MemoryId, f64)>) -> Ranking {
        let mut best: HashMap<MemoryId, f64> = HashMap::new();
        for (id, score) in scores {
            if !score.is_finite() {
                continue;
            }
            best.entry(id)
                .and_modify(|s| *s = s.max(score))
                .or_insert(score);
        }
        let mut hits: Vec<Hit> = best
            .into_iter()
            .map(|(id, score)| Hit { id, score })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
        Ranking { hits }
    }

    /// The hits, best first.
    pub fn hits(&self) -> &[Hit] {
        &self.hits
    }

    /// Number of hits.
    pub fn len(&self) -> usize {
        self.hits.len()
    }

    /// True when there are no hits.
    pub fn is_empty(&self) -> bool {
        self.hits.is_empty()
    }

    /// Keeps the best `n` hits.
    pub fn truncate(&mut self, n: usize) {
        self.hits.truncate(n);
    }

    /// Ranks from 1 with ties sharing the best rank of their group ("1224" ranking), so that
    /// equal scores never favor one document over another.
    pub fn ranks(&self) -> impl Iterator<Item = (MemoryId, usize)> + '_ {
        let mut rank = 0;
        let mut prev: Option<f64> = None;
        self.hits.iter().enumerate().map(move |(i, h)| {
            if prev != Some(h.score) {
                rank = i + 1;
                prev = Some(h.score);
            }
            (h.id, rank)
        })
    }

    /// True when the ranking tells `candidates` candidates nothing apart: it holds every one of
    /// them and gives all the same score (any ranking of fewer than two candidates does).
    pub fn is_flat_over(&self, candidates: usize) -> bool {
        candidates < 2
            || (self.hits.len() == candidates
                && self.hits.first().map(|h| h.score) == self.hits.last().map(|h| h.score))
    }

    /// The tie-aware rank of `id`, if present.
    pub fn rank_of(&self, id: MemoryId) -> Option<usize> {
        self.ranks().find(|&(i, _)| i == id).map(|(_, r)| r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_scores_sorts_dedups_and_breaks_ties_by_id() {
        let r = Ranking::from_scores([(3, 1.0), (1, 2.0), (2, 1.0), (1, 0.5), (9, f64::NAN)]);
        let ids: Vec<_> = r.hits().iter().map(|h| h.id).collect();
        assert_eq!(ids, [1, 2, 3]);
        assert_eq!(r.hits()[0].score, 2.0);
    }

    #[test]
    fn unscoring_takes_a_signals_scores_and_drops_who_has_none_left() {
        let mut c = Candidates::new((1..=3).map(|id| Candidate::new(memory(id))));
        c.set_signal("lexical", Signal::new([(1, 1.0)]));
        c.set_signal("vector", Signal::new([(1, 0.5), (2, 0.4), (3, 0.3)]));
        assert_eq!(c.unscore("vector", |c| c.id() <= 2), 2);
        let ids: Vec<_> = c.iter().map(Candidate::id).collect();
        assert_eq!(ids, [1, 3], "2 had only the vector score");
        let vector = c.signal("vector").unwrap();
        assert_eq!(vector.get(1), None);
        // 1 was not judged; 3 was, and a candidate the signal never scored was not unjudged.
        assert!(vector.unjudged(1) && !vector.unjudged(3) && !vector.unjudged(9));
        assert_eq!(c.signal("lexical").unwrap().get(1), Some(1.0));
        assert!(!c.signal("lexical").unwrap().unjudged(1));
        assert_eq!(c.unscore("nonexistent", |_| true), 0);
    }

    #[test]
    fn each_candidate_is_read_once_per_query_until_its_text_changes() {
        let mut c = Candidates::new([
            Candidate::new(crate::test_support::memory(1, "the writer holds the lock")),
            Candidate::new(crate::test_support::memory(2, "pnpm installs packages")),
        ]);
        let read = c.terms("writer holding a lock");
        assert_eq!((read.len(), read.word_terms()), (3, 3));
        assert_eq!(read.of(1).unwrap().held, [true, true, true]);
        assert_eq!(read.of(2).unwrap().coverage, 0.0);
        assert!(read.of(3).is_none());
        assert!(Arc::ptr_eq(&read, &c.terms("writer holding a lock")));
        // Another query is read for itself.
        assert_eq!(c.terms("pnpm").of(2).unwrap().held, [true]);
        assert!(Arc::ptr_eq(&read, &c.terms("writer holding a lock")));
        // Reading again after the texts may have changed.
        for m in c.iter_mut() {
            m.memory.content = "pnpm".into();
        }
        let again = c.terms("writer holding a lock");
        assert_eq!(again.of(1).unwrap().held, [false, false, false]);
    }

    fn memory(id: MemoryId) -> Memory {
        crate::test_support::memory(id, "x")
    }

    #[test]
    fn gate_keeps_what_some_signal_vouches_for() {
        let mut c = Candidates::new((1..=4).map(|id| Candidate::new(memory(id))));
        c.set_signal("lexical", Signal::new([(1, 2.0)]));
        c.set_signal(
            "vector",
            Signal::new([(1, 0.1), (2, 0.5), (3, 0.2)]).floor(0.3),
        );
        // 1: lexical hit; 2: cosine above the floor; 3: below it, nothing else; 4: unscored.
        assert_eq!(c.gate(), 1);
        let ids: Vec<_> = c.iter().map(Candidate::id).collect();
        assert_eq!(ids, [1, 2, 4]);
        assert_eq!(c.scores("vector").collect::<Vec<_>>(), [(1, 0.1), (2, 0.5)]);
        // The signal still holds what it scored of a candidate dropped.
        let vector = c.signal("vector").unwrap();
        let mut held: Vec<_> = vector.iter().collect();
        held.sort_by_key(|&(id, _)| id);
        assert_eq!(held, [(1, 0.1), (2, 0.5), (3, 0.2)]);
        assert_eq!(vector.min_kept(), Some(0.3));
        assert_eq!(c.scores("spatial").count(), 0);
    }

    #[test]
    fn tied_scores_share_a_rank() {
        let r = Ranking::from_scores([(1, 5.0), (2, 3.0), (3, 3.0), (4, 1.0)]);
        let ranks: Vec<_> = r.ranks().map(|(_, r)| r).collect();
        assert_eq!(ranks, [1, 2, 2, 4]);
        assert_eq!(r.rank_of(3), Some(2));
        assert_eq!(r.rank_of(7), None);
    }
}

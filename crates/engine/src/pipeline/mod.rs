//! The recall pipeline, from a candidate set to the few memories that fit the budget:
//!
//! rankers → fuser → × confidence × decay → minimum score → estimated relevance (see
//! [`oro_mem_core::calibration`]) → near-duplicate skip → token budget.
//!
//! Fetching candidates is the store's job; the pipeline only orders and trims them, so it runs
//! the same over SQLite, an in-memory index or a test fixture.

use std::collections::HashMap;

use oro_mem_core::calibration::{Calibration, Features};
use oro_mem_core::config::{
    keep_similar_cosine, Boost, DecayConfig, Order, RecallConfig, KEEP_APART_COSINE,
};
use oro_mem_core::{
    Candidates, Fuser, Memory, MemoryId, Query, Ranker, Ranking, Result, Status, Timestamp,
    Weighted,
};
use oro_mem_rank_vector::VectorRanker;
use oro_mem_text::{identifiers, jaccard, names, word_set};

mod abstention;
mod estimate;
mod results;

pub use self::abstention::{Abstention, Estimate};
use self::estimate::{order_by_relevance, Below, Estimator, Lists};
pub use self::results::{BoostExplain, ListExplain, Recall, Recalled};

/// Estimated tokens of `text`: bytes / 4, rounded up.
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// The time-decay factor of `memory` at `now`: `0.5^(age_days / half_life)`, 1 when pinned or
/// when decay is off. The half-life is the memory type's own if configured.
pub fn decay_factor(config: &DecayConfig, memory: &Memory, now: Timestamp) -> f64 {
    if !config.enabled || memory.pinned {
        return 1.0;
    }
    let half_life = config
        .half_life_by_type
        .get(&memory.memory_type)
        .copied()
        .unwrap_or(config.half_life_days);
    0.5f64.powf(memory.created_at.days_until(now) / half_life)
}

/// Orders and trims candidates. Build one with [`Pipeline::new`] and [`Pipeline::ranker`].
pub struct Pipeline {
    rankers: Vec<(Box<dyn Ranker>, f64)>,
    fuser: Box<dyn Fuser>,
    recall: RecallConfig,
    decay: DecayConfig,
    calibration: Calibration,
    unjudged_calibration: Calibration,
    answerable: Calibration,
    unjudged_answerable: Calibration,
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field(
                "rankers",
                &self
                    .rankers
                    .iter()
                    .map(|(r, w)| (r.name().to_string(), *w))
                    .collect::<Vec<_>>(),
            )
            .field("fuser", &self.fuser.name())
            .field("recall", &self.recall)
            .field("decay", &self.decay)
            .field("calibration", &self.calibration)
            .field("unjudged_calibration", &self.unjudged_calibration)
            .field("answerable", &self.answerable)
            .field("unjudged_answerable", &self.unjudged_answerable)
            .finish()
    }
}

impl Pipeline {
    /// A pipeline with no rankers yet and no calibration. Pinned memories get the fuser's
    /// [`pinned_bonus`](Fuser::pinned_bonus).
    pub fn new(fuser: Box<dyn Fuser>, recall: RecallConfig, decay: DecayConfig) -> Pipeline {
        Pipeline {
            rankers: Vec::new(),
            fuser,
            recall,
            decay,
            calibration: Calibration::default(),
            unjudged_calibration: Calibration::default(),
            answerable: Calibration::default(),
            unjudged_answerable: Calibration::default(),
        }
    }

    /// Estimates each result's probability of relevance with `calibration`, and drops those
    /// below the configuration's `min_relevance`.
    pub fn calibration(mut self, calibration: Calibration) -> Pipeline {
        self.calibration = calibration;
        self
    }

    /// Estimates a candidate that a signal could not judge
    /// ([`Signal::unjudged`](oro_mem_core::Signal::unjudged): a memory without an embedding,
    /// say) with `calibration` instead of the pipeline's model, from its features without that
    /// signal and its fused score over the weight of the other lists, as a mode without the
    /// signal would. Its missing score is no evidence against it, which the pipeline's own
    /// model would take it for. Without one (the default), such a candidate is estimated like
    /// any other.
    pub fn unjudged_calibration(mut self, calibration: Calibration) -> Pipeline {
        self.unjudged_calibration = calibration;
        self
    }

    /// Multiplies every estimate by `calibration`'s probability that the store holds
    /// anything relevant to the query, from the query's features (the best candidate's
    /// coverage and each signal's best score: see
    /// [`RecallConfig::answerable`](oro_mem_core::config::RecallConfig::answerable)). Without one
    /// (the default), or without a relevance model, there is no such factor.
    pub fn answerable(mut self, calibration: Calibration) -> Pipeline {
        self.answerable = calibration;
        self
    }

    /// The answerable model for a candidate estimated by [`Pipeline::unjudged_calibration`],
    /// as a mode without the signal that could not judge it would have it. Without one (the
    /// default), such a candidate's estimate has no answerable factor.
    pub fn unjudged_answerable(mut self, calibration: Calibration) -> Pipeline {
        self.unjudged_answerable = calibration;
        self
    }

    /// Adds a ranker with its fusion weight; a weight of 0 leaves it out entirely.
    pub fn ranker(mut self, ranker: impl Ranker + 'static, weight: f64) -> Pipeline {
        if weight != 0.0 {
            self.rankers.push((Box::new(ranker), weight));
        }
        self
    }

    /// The recall settings in use.
    pub fn config(&self) -> &RecallConfig {
        &self.recall
    }

    /// True when the pipeline estimates relevance (it has a relevance model): what
    /// `recall.min_relevance`, `recall.keep_named` and `recall.keep_similar` work on.
    pub fn estimates(&self) -> bool {
        !self.calibration.is_empty()
    }

    /// True when an estimate reads feature `name` (one of the pipeline's models has a
    /// coefficient for it, and there is a relevance model to estimate with): what the
    /// candidates must carry, such as [`Candidates::searched`] for
    /// [`MEMORIES`](oro_mem_core::calibration::MEMORIES).
    pub fn reads(&self, name: &str) -> bool {
        self.estimates()
            && [
                &self.calibration,
                &self.unjudged_calibration,
                &self.answerable,
                &self.unjudged_answerable,
            ]
            .iter()
            .any(|m| m.reads(name))
    }

    /// The rank stage: every ranker's list over `candidates`, as `(name, weight, ranking)`
    /// in the order the rankers were added. A ranker that fails gives an empty list and a line
    /// in `warnings`.
    ///
    /// A list with no information contributes nothing: a prior (a ranker that reads no
    /// query signal, such as recency or access) that gives every candidate the same score
    /// (all never accessed, all of one age, or a single candidate) is emptied, so it lifts no
    /// candidate and fused scores stay comparable to a threshold.
    pub fn rank<'p>(
        &'p self,
        query: &Query<'_>,
        candidates: &Candidates,
        warnings: &mut Vec<String>,
    ) -> Vec<(&'p str, f64, Ranking)> {
        self.rankers
            .iter()
            .filter(|(ranker, _)| ranker.applies_to(query))
            .map(|(ranker, weight)| {
                let mut ranking = ranker.rank(query, candidates).unwrap_or_else(|e| {
                    warnings.push(format!("ranker {} failed, ignored: {e}", ranker.name()));
                    Ranking::default()
                });
                if ranker.signal().is_none() && ranking.is_flat_over(candidates.len()) {
                    ranking = Ranking::default();
                }
                (ranker.name(), *weight, ranking)
            })
            .collect()
    }

    /// The signal each list of `inputs` reads (`None` for a prior), in their order.
    fn list_signals<'p>(&'p self, inputs: &[Weighted<'_>]) -> Vec<Option<&'p str>> {
        inputs
            .iter()
            .map(|i| {
                let ranker = self.rankers.iter().find(|(r, _)| r.name() == i.name());
                ranker.and_then(|(r, _)| r.signal())
            })
            .collect()
    }

    /// Runs the pipeline over `candidates`: gate ([`Candidates::gate`]) → rank
    /// ([`Pipeline::rank`]) → fuse → session context (from [`Candidates::neighbours`]) →
    /// score → select (estimating relevance as it goes). When
    /// nothing is returned, [`Recall::abstained`] says why.
    ///
    /// # Errors
    ///
    /// Only for an invalid weight. A ranker that fails is reported in [`Recall::warnings`] and
    /// counts as an empty list.
    pub fn recall(&self, query: &Query<'_>, mut candidates: Candidates) -> Result<Recall> {
        let mut out = Recall {
            candidates: candidates.len(),
            ..Recall::default()
        };
        Pipeline::gate(query, &mut candidates, &mut out);
        let rankings = self.rank(query, &candidates, &mut out.warnings);
        out.ranked_by = rankings
            .iter()
            .filter(|(_, _, r)| !r.is_empty())
            .map(|(name, _, _)| name.to_string())
            .collect();
        let inputs = rankings
            .iter()
            .map(|(name, w, r)| Weighted::new(name, *w, r))
            .collect::<Result<Vec<_>>>()?;
        let by_id: HashMap<MemoryId, &Memory> =
            candidates.iter().map(|c| (c.id(), &c.memory)).collect();
        let mut parts = self.fuse(&inputs, &by_id);
        self.session_context(&mut parts, &candidates);
        let boosted = self.boost(&mut parts, &by_id);
        let mut scored = self.score(parts, &by_id, query.now);
        out.above_threshold = scored.len();
        let estimator = self.estimator(query, &candidates, &inputs);
        if let (Order::Relevance, Some(e)) = (self.recall.order, &estimator) {
            order_by_relevance(&mut scored, e);
        }
        // Asked for with memories recall leaves out (`include_superseded`, a status filter),
        // the active ones come first: an older state of a fact after the current one, whatever
        // their scores, and never in its place when only a few are returned.
        scored.sort_by_key(|s| by_id.get(&s.id).is_some_and(|m| m.status != Status::Active));
        out.answerable = estimator.as_ref().and_then(|e| e.answerable);
        let mut below = Below::default();
        let named = match &estimator {
            Some(_) if self.recall.keep_named => self.named(query, &candidates),
            _ => HashMap::new(),
        };
        let similar = match &estimator {
            Some(_) if self.recall.keep_similar => Pipeline::similar(&candidates),
            _ => None,
        };
        out.results = self
            .select(
                scored,
                &by_id,
                estimator.as_ref(),
                &mut below,
                &named,
                similar,
            )
            .into_iter()
            .map(|s| self.explained(s, &inputs, &boosted))
            .collect();
        out.below_relevance = below.count;
        if estimator.is_some() {
            self.abstain_when_unsure(&mut out, below.best);
        }
        let best = out.results.iter().map(|r| r.raw_score).reduce(f64::max);
        if let Some(best) = best {
            for r in &mut out.results {
                r.score = r.raw_score / best;
            }
        }
        if out.results.is_empty() && out.abstained.is_none() {
            out.abstained = Some(self.why_nothing(&out, below.best));
        }
        Ok(out)
    }

    /// The gate stage: drops the candidates no signal vouches for
    /// ([`Candidates::gate`]) and, for a point with a maximum distance, those farther from
    /// it; counts both in `out`.
    fn gate(query: &Query<'_>, candidates: &mut Candidates, out: &mut Recall) {
        out.dissimilar = candidates.gate();
        if let Some(near) = query.near.filter(|n| n.max_distance.is_some()) {
            let before = candidates.len();
            candidates.retain(|c| near.admits(&c.memory.metadata));
            out.too_far = before - candidates.len();
        }
    }

    /// The estimator of the candidates' relevance, when the pipeline has a relevance model.
    fn estimator<'a>(
        &'a self,
        query: &Query<'_>,
        candidates: &'a Candidates,
        inputs: &'a [Weighted<'a>],
    ) -> Option<Estimator<'a>> {
        (!self.calibration.is_empty()).then(|| {
            Estimator::new(
                [
                    &self.calibration,
                    &self.unjudged_calibration,
                    &self.answerable,
                    &self.unjudged_answerable,
                ],
                query,
                candidates,
                Lists::new(inputs, self.list_signals(inputs), self.fuser.as_ref()),
            )
        })
    }

    /// With `recall.abstain_below` above 0: when no estimate, of the results or of the
    /// candidates passed over below `min_relevance` (the best of them `passed_over`), reaches
    /// it, returns nothing ([`Abstention::Unsure`]).
    fn abstain_when_unsure(&self, out: &mut Recall, passed_over: f64) {
        let gate = self.recall.abstain_below;
        if gate <= 0.0 || out.results.is_empty() {
            return;
        }
        let best = out
            .results
            .iter()
            .filter_map(|r| r.probability)
            .fold(passed_over, f64::max);
        if best < gate {
            out.unsure = out.results.len();
            out.results.clear();
            out.abstained = Some(Abstention::Unsure {
                best,
                abstain_below: gate,
            });
        }
    }

    /// Why a recall that returns nothing does: no candidates, estimates below
    /// `min_relevance` (the best of them `passed_over`), or everything filtered out.
    fn why_nothing(&self, out: &Recall, passed_over: f64) -> Abstention {
        if out.candidates == 0 {
            Abstention::NoCandidates
        } else if out.below_relevance > 0 {
            Abstention::BelowRelevance {
                best: passed_over,
                min_relevance: self.recall.min_relevance,
            }
        } else {
            Abstention::FilteredOut {
                candidates: out.candidates,
            }
        }
    }

    /// The fuse stage: the fuser's score of every ranked candidate, and the fuser's pinned
    /// bonus for pinned memories.
    fn fuse(
        &self,
        inputs: &[Weighted<'_>],
        by_id: &HashMap<MemoryId, &Memory>,
    ) -> Vec<(MemoryId, Parts)> {
        let bonus = self.fuser.pinned_bonus();
        self.fuser
            .fuse(inputs, by_id.len())
            .hits()
            .iter()
            .map(|h| {
                let pinned = by_id.get(&h.id).is_some_and(|m| m.pinned);
                (
                    h.id,
                    Parts::fused(h.score, if pinned { bonus } else { 0.0 }),
                )
            })
            .collect()
    }

    /// The session-context stage: with `session_context` above 0, each candidate gains that
    /// much of the fused score of each of its session neighbours among the candidates,
    /// divided by their distance (a turn of a conversation is read with the turns around it).
    /// Gains come from the fused scores (pinned bonus included) before any gain, so the
    /// order does not matter.
    fn session_context(&self, parts: &mut [(MemoryId, Parts)], candidates: &Candidates) {
        let weight = self.recall.session_context;
        if weight == 0.0 || !candidates.has_neighbours() {
            return;
        }
        let fused: HashMap<MemoryId, f64> = parts
            .iter()
            .map(|(id, p)| (*id, p.fused + p.pinned))
            .collect();
        for (id, p) in parts {
            let near: f64 = candidates
                .neighbours(*id)
                .iter()
                .filter_map(|&(n, d)| Some(fused.get(&n)? / f64::from(d.max(1))))
                .sum();
            p.context = weight * near;
        }
    }

    /// The boost stage: each candidate's relevance times the factor of every rule of
    /// `recall.boost` it meets. Returns, for each boosted candidate, the rules' places.
    fn boost(
        &self,
        parts: &mut [(MemoryId, Parts)],
        by_id: &HashMap<MemoryId, &Memory>,
    ) -> RulesMet {
        let mut boosted = HashMap::new();
        if self.recall.boost.is_empty() {
            return boosted;
        }
        for (id, p) in parts {
            let Some(m) = by_id.get(id) else {
                continue;
            };
            let rules: Vec<usize> = (0..self.recall.boost.len())
                .filter(|&i| self.recall.boost[i].applies(m))
                .collect();
            p.boost = factor(&self.recall.boost, &rules);
            if !rules.is_empty() {
                boosted.insert(*id, rules);
            }
        }
        boosted
    }

    /// The score stage: relevance × confidence × decay, kept when at least the minimum score
    /// (and above 0), best first, ties by ascending id.
    fn score(
        &self,
        parts: Vec<(MemoryId, Parts)>,
        by_id: &HashMap<MemoryId, &Memory>,
        now: Timestamp,
    ) -> Vec<Scored> {
        let mut scored: Vec<Scored> = parts
            .into_iter()
            .filter_map(|(id, parts)| {
                let m = by_id.get(&id)?;
                let decay = decay_factor(&self.decay, m, now);
                let relevance = parts.relevance();
                let raw = relevance * m.confidence * decay;
                (raw >= self.recall.min_score && raw > 0.0).then_some(Scored {
                    id,
                    parts,
                    relevance,
                    confidence: m.confidence,
                    decay,
                    raw,
                    probability: None,
                    features: Features::default(),
                })
            })
            .collect();
        scored.sort_by(|a, b| b.raw.total_cmp(&a.raw).then(a.id.cmp(&b.id)));
        scored
    }

    /// The candidates that name an identifier of the query ([`identifiers`]) which at least
    /// one and at most `max_results` candidates name, each with the first such identifier it
    /// names: what singles a few memories out (`recall.keep_named`).
    fn named(&self, query: &Query<'_>, candidates: &Candidates) -> HashMap<MemoryId, String> {
        let mut named = HashMap::new();
        let identifiers = identifiers(query.text);
        if identifiers.is_empty() {
            return named;
        }
        let texts: Vec<(MemoryId, _)> = candidates
            .iter()
            .map(|c| (c.id(), c.memory.searched_text()))
            .collect();
        let most = self.recall.max_results;
        for n in identifiers {
            let naming: Vec<MemoryId> = texts
                .iter()
                .filter(|(_, t)| names(t, &n))
                .map(|(id, _)| *id)
                .take(most + 1)
                .collect();
            if naming.len() <= most {
                for id in naming {
                    named.entry(id).or_insert_with(|| n.clone());
                }
            }
        }
        named
    }

    /// The candidate nearest the query by meaning, when it stands out (`recall.keep_similar`):
    /// its cosine reaches [`keep_similar_cosine`] for the number of memories searched, or it
    /// is [`KEEP_APART_COSINE`] nearer than every other memory the vector list scored (those
    /// its gate dropped too) and than the cosine that gate asks.
    fn similar(candidates: &Candidates) -> Option<Nearest> {
        let searched = candidates.searched().unwrap_or(candidates.len() as u64);
        let (id, cosine) = candidates
            .scores(VectorRanker::SIGNAL)
            .max_by(|a, b| a.1.total_cmp(&b.1))?;
        if cosine >= keep_similar_cosine(searched) {
            return Some(Nearest {
                id,
                cosine,
                next: None,
            });
        }
        let signal = candidates.signal(VectorRanker::SIGNAL)?;
        // No other memory scored (one memory, or the others without an embedding): nothing
        // to stand apart from.
        let next = signal
            .iter()
            .filter(|&(other, _)| other != id)
            .map(|(_, c)| c)
            .max_by(f64::total_cmp)?
            .max(signal.min_kept().unwrap_or(0.0));
        (cosine - next >= KEEP_APART_COSINE).then_some(Nearest {
            id,
            cosine,
            next: Some(next),
        })
    }

    /// The select stage: in score order, skips near-duplicates of a result already taken and
    /// what does not fit the token budget, up to `max_results`; the best result alone over
    /// the budget is cut to fit rather than dropped. A result estimated below
    /// `min_relevance` is passed over unless `named` holds it (the identifier it names); when
    /// that leaves nothing, the `similar` candidate (the nearest by meaning, and its cosine)
    /// is returned if it was passed over.
    fn select(
        &self,
        scored: Vec<Scored>,
        by_id: &HashMap<MemoryId, &Memory>,
        estimator: Option<&Estimator<'_>>,
        below: &mut Below,
        named: &HashMap<MemoryId, String>,
        similar: Option<Nearest>,
    ) -> Vec<Selected> {
        let mut selected: Vec<Selected> = Vec::new();
        let mut kept_words = Vec::new();
        let mut used_tokens = 0;
        let mut nearest = None;
        for mut s in scored {
            if selected.len() >= self.recall.max_results {
                break;
            }
            let Some(&m) = by_id.get(&s.id) else { continue };
            let tokens = estimate_tokens(&m.content);
            let over_budget = used_tokens + tokens > self.recall.budget_tokens;
            if over_budget && !selected.is_empty() {
                continue;
            }
            // A Jaccard overlap is at most 1: above that, skip the word sets altogether (they
            // cost O(results²), which shows when an evaluation asks for 100 results).
            let words = if self.recall.near_duplicate <= 1.0 {
                let words = word_set(&m.content);
                if kept_words
                    .iter()
                    .any(|k| jaccard(k, &words) >= self.recall.near_duplicate)
                {
                    continue;
                }
                Some(words)
            } else {
                None
            };
            // Estimated last, so a recall estimates only what it would otherwise return.
            let mut kept_for = None;
            if let Some(e) = estimator {
                if s.probability.is_none() {
                    e.estimate(&mut s);
                }
                let p = s.probability.unwrap_or(0.0);
                if p < self.recall.min_relevance {
                    kept_for = named.get(&s.id).cloned();
                    if kept_for.is_none() {
                        below.count += 1;
                        below.best = below.best.max(p);
                        if let Some(n) = similar.filter(|n| n.id == s.id) {
                            nearest = Some((s, m, n));
                        }
                        continue;
                    }
                }
            }
            let chosen = self.selected(s, m, kept_for, None);
            used_tokens += chosen.tokens;
            kept_words.extend(words);
            selected.push(chosen);
        }
        if let Some((s, m, n)) = nearest.filter(|_| selected.is_empty()) {
            below.count -= 1;
            selected.push(self.selected(s, m, None, Some(n)));
        }
        selected
    }

    /// `s` as selected, its memory cut to the token budget when over it (the best result
    /// alone: its beginning rather than nothing at all), and what kept it below the relevance
    /// bar, if anything did.
    fn selected(
        &self,
        s: Scored,
        m: &Memory,
        named: Option<String>,
        similar: Option<Nearest>,
    ) -> Selected {
        let mut memory = m.clone();
        let mut tokens = estimate_tokens(&memory.content);
        let truncated = tokens > self.recall.budget_tokens;
        if truncated {
            truncate_to_tokens(&mut memory.content, self.recall.budget_tokens);
            tokens = estimate_tokens(&memory.content);
        }
        Selected {
            scored: s,
            memory,
            tokens,
            truncated,
            named,
            similar,
        }
    }

    /// A selected memory with what each list (and pinning) gave it.
    fn explained(&self, s: Selected, inputs: &[Weighted<'_>], boosted: &RulesMet) -> Recalled {
        let id = s.scored.id;
        let mut lists: Vec<ListExplain> = inputs
            .iter()
            .zip(self.fuser.contributions(inputs, id))
            .map(|(input, contribution)| ListExplain {
                name: input.name().to_string(),
                weight: input.weight(),
                rank: input.ranking().rank_of(id),
                score: input
                    .ranking()
                    .hits()
                    .iter()
                    .find(|h| h.id == id)
                    .map(|h| h.score),
                contribution,
            })
            .collect();
        let parts = s.scored.parts;
        if parts.pinned != 0.0 {
            lists.push(ListExplain {
                name: "pinned".to_string(),
                weight: 1.0,
                rank: None,
                score: None,
                contribution: parts.pinned,
            });
        }
        if parts.context > 0.0 {
            lists.push(ListExplain {
                name: "session".to_string(),
                weight: self.recall.session_context,
                rank: None,
                score: None,
                contribution: parts.context,
            });
        }
        let boosts = boosted
            .get(&id)
            .into_iter()
            .flatten()
            .map(|&i| BoostExplain {
                rule: i + 1,
                condition: self.recall.boost[i].describe(),
                factor: self.recall.boost[i].factor(),
            })
            .collect();
        Recalled {
            confidence: s.memory.confidence,
            memory: s.memory,
            score: 0.0,
            raw_score: s.scored.raw,
            fused: s.scored.relevance,
            decay: s.scored.decay,
            tokens: s.tokens,
            truncated: s.truncated,
            lists,
            boosts,
            probability: s.scored.probability,
            features: s.scored.features,
            named: s.named,
            similar: s.similar.map(|n| n.cosine),
            similar_next: s.similar.and_then(|n| n.next),
        }
    }
}

/// A candidate's relevance, part by part, as the stages before the score stage made it: each
/// stage sets its own part, and a later stage reads the parts it needs rather than taking
/// another's back out.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Parts {
    /// The fuser's score: every list's contribution, the priors' included.
    fused: f64,
    /// The fuser's pinned bonus, for a pinned memory (else 0).
    pinned: f64,
    /// What its session neighbours lend it (`recall.session_context`; else 0).
    context: f64,
    /// The product of the factors of the boost rules it meets (1 for none).
    boost: f64,
}

impl Parts {
    /// A candidate's parts after the fuse stage.
    fn fused(fused: f64, pinned: f64) -> Parts {
        Parts {
            fused,
            pinned,
            context: 0.0,
            boost: 1.0,
        }
    }

    /// The relevance the score stage weighs: `(fused + pinned + context) × boost`.
    fn relevance(&self) -> f64 {
        (self.fused + self.pinned + self.context) * self.boost
    }

    /// The evidence the relevance models read: the fused score and the session context,
    /// without the priors' contributions `priors` (part of the fused score), the pinned bonus
    /// and the boosts (preferences, not evidence).
    fn evidence(&self, priors: f64) -> f64 {
        (self.fused + self.context) - priors
    }
}

/// A candidate past the score stage.
#[derive(Clone, Debug, PartialEq)]
struct Scored {
    id: MemoryId,
    parts: Parts,
    /// [`Parts::relevance`].
    relevance: f64,
    confidence: f64,
    decay: f64,
    raw: f64,
    probability: Option<f64>,
    features: Features,
}

/// The boost rules each boosted candidate meets, by their places in `recall.boost`.
type RulesMet = HashMap<MemoryId, Vec<usize>>;

/// The product of the factors of `rules` (places in `boost`).
fn factor(boost: &[Boost], rules: &[usize]) -> f64 {
    rules.iter().map(|&i| boost[i].factor()).product()
}

/// A memory past the select stage, as it will be returned.
#[derive(Clone, Debug)]
struct Selected {
    scored: Scored,
    memory: Memory,
    tokens: usize,
    truncated: bool,
    /// The query's identifier it names, when that kept it below the relevance bar.
    named: Option<String>,
    /// What `recall.keep_similar` read of it, when that kept it.
    similar: Option<Nearest>,
}

/// The memory nearest the query by meaning, as `recall.keep_similar` found it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Nearest {
    id: MemoryId,
    cosine: f64,
    /// The next nearest memory's cosine (or the gate's, when higher), when the nearest is
    /// kept for standing that far apart rather than for its cosine alone.
    next: Option<f64>,
}

/// Cuts `text` to at most `tokens` estimated tokens, at a character boundary, marking the cut.
fn truncate_to_tokens(text: &mut String, tokens: usize) {
    const MARK: &str = "…";
    let max_bytes = (tokens * 4).saturating_sub(MARK.len());
    let mut end = max_bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(MARK);
}

#[cfg(test)]
mod tests {
    use oro_mem_core::calibration::{
        COVERAGE, COVERAGE_BEST, COVERAGE_GAP, FUSED, QUERY_TERMS, TERMS_FOUND,
    };
    use oro_mem_core::config::Config;
    use oro_mem_core::{Candidate, Filter, Hit, MemoryId, Neighbour, Signal, Source, Weighted};

    use super::*;
    use crate::rankers::{AccessFrequency, Recency};
    use crate::test_support::memory;

    #[test]
    fn an_abstention_shows_a_small_estimate_to_two_significant_digits() {
        let shown = |best: f64| {
            Abstention::BelowRelevance {
                best,
                min_relevance: 0.02,
            }
            .to_string()
        };
        for (best, want) in [
            (0.5, "0.50"),
            (0.0123, "0.01"),
            (0.01, "0.01"),
            (0.0083, "0.0083"),
            (0.000082468, "0.000082"),
            (0.0, "0.00"),
        ] {
            let said = shown(best);
            assert!(
                said.contains(&format!("the best estimated relevance is {want}, below")),
                "{best}: {said}"
            );
        }
        // Rounded to the bar, it would read as the bar: more decimals.
        assert!(shown(0.0196).contains("is 0.0196, below recall.min_relevance = 0.02"));
        assert!(shown(0.019999).contains("is 0.019999, below"));
        let unsure = Abstention::Unsure {
            best: 0.004,
            abstain_below: 0.1,
        };
        assert!(unsure
            .to_string()
            .contains("is 0.0040, below recall.abstain_below"));
    }

    /// A fuser that sums weighted scores, with a pinned bonus; enough to test the pipeline
    /// without the fusion crate.
    #[derive(Default)]
    struct Sum {
        bonus: f64,
    }
    impl Fuser for Sum {
        fn pinned_bonus(&self) -> f64 {
            self.bonus
        }
        fn name(&self) -> &str {
            "sum"
        }
        fn fuse(&self, inputs: &[Weighted<'_>], limit: usize) -> Ranking {
            let mut r = Ranking::from_scores(inputs.iter().flat_map(|i| {
                i.ranking()
                    .hits()
                    .iter()
                    .map(|h| (h.id, self.contributions(inputs, h.id).iter().sum()))
            }));
            r.truncate(limit);
            r
        }
        fn contributions(&self, inputs: &[Weighted<'_>], id: MemoryId) -> Vec<f64> {
            inputs
                .iter()
                .map(|i| {
                    i.ranking()
                        .hits()
                        .iter()
                        .find(|h: &&Hit| h.id == id)
                        .map_or(0.0, |h| h.score * i.weight())
                })
                .collect()
        }
    }

    struct Bm25Field;
    impl Ranker for Bm25Field {
        fn name(&self) -> &str {
            "bm25"
        }
        fn signal(&self) -> Option<&str> {
            Some("lexical")
        }
        fn rank(&self, _: &Query<'_>, c: &Candidates) -> Result<Ranking> {
            Ok(Ranking::from_scores(c.scores("lexical")))
        }
    }

    /// A candidate with its signals: the memory, its lexical score and its cosine.
    type Scored = (Candidate, Option<f64>, Option<f64>);

    fn candidate(id: MemoryId, content: &str, bm25: f64) -> Scored {
        (Candidate::new(memory(id, content)), Some(bm25), None)
    }

    fn pipeline(config: RecallConfig) -> Pipeline {
        pipeline_with(Sum::default(), config)
    }

    fn pipeline_with(fuser: Sum, config: RecallConfig) -> Pipeline {
        let decay = DecayConfig {
            enabled: false,
            ..DecayConfig::default()
        };
        Pipeline::new(Box::new(fuser), config, decay).ranker(Bm25Field, 1.0)
    }

    fn run(p: &Pipeline, cands: Vec<Scored>) -> Recall {
        let f = Filter::default();
        let lexical = Signal::new(cands.iter().filter_map(|(c, l, _)| Some((c.id(), (*l)?))));
        let vector = Signal::new(cands.iter().filter_map(|(c, _, v)| Some((c.id(), (*v)?))))
            .floor(p.config().min_similarity);
        let mut candidates = Candidates::new(cands.into_iter().map(|(c, _, _)| c));
        candidates.set_signal("lexical", lexical);
        candidates.set_signal("vector", vector);
        p.recall(&Query::new("q", &f).now(Timestamp(0)), candidates)
            .unwrap()
    }

    #[test]
    fn best_result_shows_score_one_and_raw_scores_keep_confidence() {
        let r = run(
            &pipeline(RecallConfig::default()),
            vec![candidate(1, "alpha", 2.0), candidate(2, "beta", 1.0)],
        );
        assert_eq!(r.results[0].memory.id, 1);
        assert_eq!(r.results[0].score, 1.0);
        assert!((r.results[0].raw_score - 1.6).abs() < 1e-12);
        assert!((r.results[1].score - 0.5).abs() < 1e-12);
    }

    /// Ranks by cosine, as the vector ranker does.
    struct CosineField;
    impl Ranker for CosineField {
        fn name(&self) -> &str {
            "vector"
        }
        fn signal(&self) -> Option<&str> {
            Some("vector")
        }
        fn rank(&self, _: &Query<'_>, c: &Candidates) -> Result<Ranking> {
            Ok(Ranking::from_scores(c.scores("vector")))
        }
    }

    #[test]
    fn a_dissimilar_candidate_without_a_word_match_is_dropped() {
        let p = pipeline(RecallConfig::default()).ranker(CosineField, 1.0);
        let with_cosine = |mut c: Scored, cosine: f64| {
            c.2 = Some(cosine);
            c
        };
        let unmatched = |id, cosine| (Candidate::new(memory(id, "x")), None, Some(cosine));
        let r = run(
            &p,
            vec![
                // Matches a word, weakly similar: kept.
                with_cosine(candidate(1, "lexical match", 1.0), 0.05),
                // No word match, similar enough: kept.
                unmatched(2, 0.3),
                // No word match, unrelated: dropped before ranking.
                unmatched(3, 0.29),
                // No embedding at all (nothing to judge by): kept.
                (Candidate::new(memory(4, "no embedding")), None, None),
            ],
        );
        let mut ids: Vec<_> = r.results.iter().map(|r| r.memory.id).collect();
        ids.sort_unstable();
        assert_eq!(
            (ids.as_slice(), r.candidates, r.dissimilar),
            (&[1, 2][..], 4, 1)
        );
        // Only unrelated candidates: nothing is recalled.
        let r = run(&p, vec![unmatched(5, 0.1), unmatched(6, -0.2)]);
        assert!(r.results.is_empty(), "{:?}", r.results);
        assert_eq!(r.dissimilar, 2);
    }

    #[test]
    fn near_duplicates_of_a_better_result_are_skipped() {
        let r = run(
            &pipeline(RecallConfig::default()),
            vec![
                candidate(1, "use WAL mode for sqlite", 3.0),
                candidate(2, "Use WAL mode for SQLite!", 2.0),
                candidate(3, "something else entirely", 1.0),
            ],
        );
        let ids: Vec<_> = r.results.iter().map(|r| r.memory.id).collect();
        assert_eq!(ids, [1, 3]);
    }

    #[test]
    fn budget_and_max_results_are_respected() {
        let config = RecallConfig {
            budget_tokens: 10,
            max_results: 2,
            ..RecallConfig::default()
        };
        let long = "x".repeat(36); // 9 tokens
        let r = run(
            &pipeline(config),
            vec![
                candidate(1, &long, 4.0),
                candidate(2, "tiny words here", 3.0), // 4 tokens: over budget, skipped
                candidate(3, "ok", 2.0),              // 1 token
                candidate(4, "also ok fine", 1.0),    // would be third
            ],
        );
        let ids: Vec<_> = r.results.iter().map(|r| r.memory.id).collect();
        assert_eq!(ids, [1, 3]);
        assert!(r.results.iter().map(|r| r.tokens).sum::<usize>() <= 10);
    }

    #[test]
    fn an_oversized_best_result_is_truncated_not_dropped() {
        let config = RecallConfig {
            budget_tokens: 5,
            ..RecallConfig::default()
        };
        let r = run(&pipeline(config), vec![candidate(1, &"é".repeat(100), 1.0)]);
        assert!(r.results[0].truncated);
        assert!(r.results[0].tokens <= 5);
    }

    #[test]
    fn session_neighbours_lend_their_score_by_distance_and_are_explained() {
        let config = RecallConfig {
            session_context: 0.5,
            near_duplicate: f64::INFINITY,
            max_results: 10,
            budget_tokens: 10_000,
            ..RecallConfig::default()
        };
        let p = pipeline(config);
        let recall = |neighbours: &[Neighbour]| {
            let f = Filter::default();
            let mut candidates = Candidates::new(
                [
                    (1, "answer"),
                    (2, "next turn"),
                    (3, "two turns on"),
                    (4, "elsewhere"),
                ]
                .map(|(id, text)| Candidate::new(memory(id, text))),
            );
            candidates.set_signal(
                "lexical",
                Signal::new([(1, 4.0), (2, 1.0), (3, 1.0), (4, 1.5)]),
            );
            candidates.set_neighbours(neighbours.iter().copied());
            p.recall(&Query::new("q", &f).now(Timestamp(0)), candidates)
                .unwrap()
        };
        let by_id = |r: &Recall| -> Vec<(MemoryId, f64)> {
            r.results.iter().map(|x| (x.memory.id, x.fused)).collect()
        };
        let alone = recall(&[]);
        assert_eq!(by_id(&alone), [(1, 4.0), (4, 1.5), (2, 1.0), (3, 1.0)]);
        assert!(alone.results.iter().all(|r| r.lists.len() == 1));
        let pair = |of, id, distance| {
            [
                Neighbour { of, id, distance },
                Neighbour {
                    of: id,
                    id: of,
                    distance,
                },
            ]
        };
        let near: Vec<Neighbour> = [pair(1, 2, 1), pair(1, 3, 2), pair(2, 3, 1)].concat();
        let r = recall(&near);
        // 2 gains 0.5 × (4 / 1 + 1 / 1), 3 gains 0.5 × (4 / 2 + 1 / 1), 1 gains 0.5 × (1 + 1 / 2):
        // from the fused scores before any gain.
        assert_eq!(by_id(&r), [(1, 4.75), (2, 3.5), (3, 2.5), (4, 1.5)]);
        let session = r.results[1]
            .lists
            .iter()
            .find(|l| l.name == "session")
            .unwrap();
        assert_eq!((session.weight, session.contribution), (0.5, 2.5));
        assert!(r.results[3].lists.iter().all(|l| l.name != "session"));
        // Off, neighbours change nothing.
        let off = pipeline(RecallConfig {
            session_context: 0.0,
            ..p.config().clone()
        });
        let f = Filter::default();
        let mut candidates = Candidates::new([
            Candidate::new(memory(1, "a")),
            Candidate::new(memory(2, "b")),
        ]);
        candidates.set_signal("lexical", Signal::new([(1, 2.0), (2, 1.0)]));
        candidates.set_neighbours(pair(1, 2, 1));
        let r = off
            .recall(&Query::new("q", &f).now(Timestamp(0)), candidates)
            .unwrap();
        assert_eq!(by_id(&r), [(1, 2.0), (2, 1.0)]);
    }

    #[test]
    fn pinned_bonus_lifts_and_is_explained() {
        let mut low = candidate(2, "pinned but weaker", 0.2);
        low.0.memory.pinned = true;
        let cands = vec![candidate(1, "stronger match", 0.201), low];
        let plain = run(&pipeline(RecallConfig::default()), cands.clone());
        assert_eq!(plain.results[0].memory.id, 1);
        let bonus = 0.01;
        let lifted = run(
            &pipeline_with(Sum { bonus }, RecallConfig::default()),
            cands,
        );
        assert_eq!(lifted.results[0].memory.id, 2);
        let explained = lifted.results[0].lists.last().unwrap();
        assert_eq!(explained.name, "pinned");
        assert_eq!(explained.contribution, bonus);
        assert!(lifted.results[1].lists.iter().all(|l| l.name != "pinned"));
    }

    #[test]
    fn rank_stage_gives_each_rankers_list_in_order_and_a_failing_one_empty() {
        struct Failing;
        impl Ranker for Failing {
            fn name(&self) -> &str {
                "failing"
            }
            fn rank(&self, _: &Query<'_>, _: &Candidates) -> Result<Ranking> {
                Err(oro_mem_core::Error::invalid_input("no signal today"))
            }
        }
        let p = pipeline(RecallConfig::default()).ranker(Failing, 0.5);
        let mut candidates = Candidates::new([1, 2, 3].map(|id| Candidate::new(memory(id, "x"))));
        candidates.set_signal("lexical", Signal::new([(2, 5.0), (3, 9.0)]));
        let f = Filter::default();
        let mut warnings = Vec::new();
        let lists = p.rank(&Query::new("q", &f), &candidates, &mut warnings);
        let got: Vec<_> = lists
            .iter()
            .map(|(name, w, r)| (*name, *w, r.hits().iter().map(|h| h.id).collect::<Vec<_>>()))
            .collect();
        assert_eq!(got, [("bm25", 1.0, vec![3, 2]), ("failing", 0.5, vec![])]);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("failing") && warnings[0].contains("no signal today"));
    }

    #[test]
    fn fuse_stage_adds_the_pinned_bonus_to_pinned_memories_only() {
        let p = pipeline_with(Sum { bonus: 0.25 }, RecallConfig::default());
        let (a, mut b) = (memory(1, "a"), memory(2, "b"));
        b.pinned = true;
        let by_id: HashMap<MemoryId, &Memory> = [(1, &a), (2, &b)].into();
        let ranking = Ranking::from_scores([(1, 1.0), (2, 0.5)]);
        let inputs = [Weighted::new("bm25", 2.0, &ranking).unwrap()];
        let mut fused = p.fuse(&inputs, &by_id);
        fused.sort_by_key(|&(id, _)| id);
        assert_eq!(
            fused,
            [(1, Parts::fused(2.0, 0.0)), (2, Parts::fused(1.0, 0.25))]
        );
        assert_eq!(fused[1].1.relevance(), 1.25);
    }

    #[test]
    fn score_stage_applies_confidence_and_the_minimum_and_sorts() {
        let config = RecallConfig {
            min_score: 0.5,
            ..RecallConfig::default()
        };
        let p = pipeline(config);
        let (a, mut b, c) = (memory(1, "a"), memory(2, "b"), memory(3, "c"));
        b.confidence = 1.0;
        let by_id: HashMap<MemoryId, &Memory> = [(1, &a), (2, &b), (3, &c)].into();
        // 1: 1.0 × 0.8; 2: 0.8 × 1.0 (a tie, lower id first); 3: 0.6 × 0.8 = 0.48, below 0.5.
        let parts = [(3, 0.6), (2, 0.8), (1, 1.0)].map(|(id, r)| (id, Parts::fused(r, 0.0)));
        let scored = p.score(parts.to_vec(), &by_id, Timestamp(0));
        let got: Vec<_> = scored.iter().map(|s| (s.id, s.raw)).collect();
        assert_eq!(got, [(1, 0.8), (2, 0.8)]);
    }

    #[test]
    fn select_stage_skips_duplicates_and_what_exceeds_the_budget() {
        let config = RecallConfig {
            budget_tokens: 6,
            ..RecallConfig::default()
        };
        let p = pipeline(config);
        let ms = [
            memory(1, "use WAL mode"),         // 3 tokens
            memory(2, "Use WAL mode!"),        // a near-duplicate of 1
            memory(3, "a much longer memory"), // 5 tokens: over what is left
            memory(4, "short"),                // 2 tokens
        ];
        let by_id: HashMap<MemoryId, &Memory> = ms.iter().map(|m| (m.id, m)).collect();
        let scored = (1..=4)
            .map(|id| super::Scored {
                id,
                parts: Parts::fused(1.0, 0.0),
                relevance: 1.0,
                confidence: 1.0,
                decay: 1.0,
                raw: 1.0 / id as f64,
                probability: None,
                features: Features::default(),
            })
            .collect();
        let ids: Vec<_> = p
            .select(
                scored,
                &by_id,
                None,
                &mut Below::default(),
                &HashMap::new(),
                None,
            )
            .iter()
            .map(|s| s.scored.id)
            .collect();
        assert_eq!(ids, [1, 4]);
    }

    #[test]
    fn decay_halves_per_half_life_and_spares_pinned() {
        let config = DecayConfig {
            enabled: true,
            ..Config::default().decay
        };
        let mut m = memory(1, "x");
        m.created_at = Timestamp(0);
        let now = Timestamp(30 * 86_400);
        assert!((decay_factor(&config, &m, now) - 0.5).abs() < 1e-12);
        m.pinned = true;
        assert_eq!(decay_factor(&config, &m, now), 1.0);
        m.pinned = false;
        assert_eq!(
            decay_factor(&Config::default().decay, &m, now),
            1.0,
            "off by default"
        );
    }

    /// `(id, bm25, access count)` as candidates with a lexical signal.
    fn accessed(cands: &[(MemoryId, f64, u64)]) -> Candidates {
        let mut c = Candidates::new(cands.iter().map(|&(id, _, n)| {
            let mut m = memory(id, &format!("memory {id}"));
            m.access_count = n;
            Candidate::new(m)
        }));
        c.set_signal(
            "lexical",
            Signal::new(cands.iter().map(|&(id, s, _)| (id, s))),
        );
        c
    }

    fn recalled(p: &Pipeline, c: Candidates) -> Vec<(MemoryId, f64)> {
        let f = Filter::default();
        p.recall(&Query::new("q", &f).now(Timestamp(0)), c)
            .unwrap()
            .results
            .iter()
            .map(|r| (r.memory.id, r.raw_score))
            .collect()
    }

    #[test]
    fn a_prior_that_ties_every_candidate_contributes_nothing() {
        let config = RecallConfig {
            min_score: 0.0,
            max_results: 10,
            ..RecallConfig::default()
        };
        let plain = pipeline(config.clone());
        let primed = pipeline(config).ranker(AccessFrequency, 0.4);
        // Never accessed: the access list says nothing, so nothing changes.
        let never = [(1, 3.0, 0), (2, 2.0, 0), (3, 1.0, 0)];
        assert_eq!(
            recalled(&primed, accessed(&never)),
            recalled(&plain, accessed(&never))
        );
        // One candidate: nothing to tell apart either.
        let one = [(1, 3.0, 5)];
        assert_eq!(
            recalled(&primed, accessed(&one)),
            recalled(&plain, accessed(&one))
        );
        // Accessed differently: the list lifts the accessed one.
        let some = [(1, 3.0, 0), (2, 3.0, 4)];
        let got = recalled(&primed, accessed(&some));
        assert_eq!(got[0].0, 2);
        assert!(got[0].1 > recalled(&plain, accessed(&some))[0].1);
    }

    #[test]
    fn a_prior_lifts_the_score_not_the_estimate() {
        let config = RecallConfig {
            min_score: 0.0,
            max_results: 10,
            ..RecallConfig::default()
        };
        let model = Calibration::new([(oro_mem_core::calibration::INTERCEPT, -1.0), (FUSED, 2.0)]);
        let plain = pipeline(config.clone()).calibration(model.clone());
        let primed = pipeline(config)
            .ranker(AccessFrequency, 0.4)
            .calibration(model);
        let estimates = |p: &Pipeline| {
            let f = Filter::default();
            let c = accessed(&[(1, 3.0, 0), (2, 2.0, 4)]);
            let r = p.recall(&Query::new("q", &f).now(Timestamp(0)), c).unwrap();
            let mut e: Vec<_> = r
                .results
                .iter()
                .map(|r| (r.memory.id, r.raw_score, r.probability.unwrap()))
                .collect();
            e.sort_by_key(|e| e.0);
            e
        };
        let (before, after) = (estimates(&plain), estimates(&primed));
        // Accessed, 2 scores higher with the access list ...
        assert!(after[1].1 > before[1].1, "{after:?} {before:?}");
        // ... but the evidence that it answers the query is what it was, for both.
        for (a, b) in after.iter().zip(&before) {
            assert!((a.2 - b.2).abs() < 1e-12, "{after:?} {before:?}");
        }
    }

    #[test]
    fn pinning_and_boosts_lift_the_score_not_the_estimate() {
        let config = RecallConfig {
            min_score: 0.0,
            max_results: 10,
            ..RecallConfig::default()
        };
        let boosted = RecallConfig {
            boost: vec![Boost::new(None, vec![Source::Manual], 3.0).unwrap()],
            ..config.clone()
        };
        let model = Calibration::new([(oro_mem_core::calibration::INTERCEPT, -1.0), (FUSED, 2.0)]);
        let estimates = |p: Pipeline, pin: bool| {
            let p = p.calibration(model.clone());
            let f = Filter::default();
            let mut c = Candidates::new((1..=2).map(|id| {
                let mut m = memory(id, &format!("memory {id}"));
                m.pinned = pin && id == 2;
                Candidate::new(m)
            }));
            c.set_signal("lexical", Signal::new([(1, 3.0), (2, 2.0)]));
            let r = p.recall(&Query::new("q", &f).now(Timestamp(0)), c).unwrap();
            let mut e: Vec<_> = r
                .results
                .iter()
                .map(|r| (r.memory.id, r.fused, r.probability.unwrap()))
                .collect();
            e.sort_by_key(|e| e.0);
            e
        };
        let plain = estimates(pipeline_with(Sum { bonus: 0.5 }, config.clone()), false);
        let pinned = estimates(pipeline_with(Sum { bonus: 0.5 }, config), true);
        let both = estimates(pipeline_with(Sum { bonus: 0.5 }, boosted), true);
        // Pinned, 2 gains the bonus; boosted, every memory gains the factor ...
        assert_eq!(pinned[1].1, plain[1].1 + 0.5);
        assert_eq!(both[0].1, plain[0].1 * 3.0);
        assert_eq!(both[1].1, (plain[1].1 + 0.5) * 3.0);
        // ... but the evidence that each answers the query is what it was.
        for e in [&pinned, &both] {
            for (a, b) in e.iter().zip(&plain) {
                assert_eq!(a.2, b.2, "{e:?} {plain:?}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn equal_access_counts_change_no_score(
            scores in proptest::collection::vec(0.0f64..20.0, 1..12),
            count in 0u64..5,
            weight in 0.0f64..2.0,
        ) {
            let config = RecallConfig {
                min_score: 0.0,
                max_results: 20,
                budget_tokens: 10_000,
                near_duplicate: 2.0,
                ..RecallConfig::default()
            };
            let cands: Vec<(MemoryId, f64, u64)> = scores
                .iter()
                .enumerate()
                .map(|(i, &s)| (i as MemoryId + 1, s, count))
                .collect();
            let plain = pipeline(config.clone());
            let with = pipeline(config).ranker(AccessFrequency, weight);
            proptest::prop_assert_eq!(
                recalled(&with, accessed(&cands)),
                recalled(&plain, accessed(&cands))
            );
        }
    }

    #[test]
    fn a_failing_ranker_is_a_warning_not_an_error() {
        struct Broken;
        impl Ranker for Broken {
            fn name(&self) -> &str {
                "broken"
            }
            fn rank(&self, _: &Query<'_>, _: &Candidates) -> Result<Ranking> {
                Err(oro_mem_core::Error::new(
                    oro_mem_core::ErrorKind::Embedding,
                    "no model",
                ))
            }
        }
        let p = pipeline(RecallConfig::default())
            .ranker(Broken, 1.0)
            .ranker(Recency, 0.0);
        let r = run(&p, vec![candidate(1, "a", 1.0)]);
        assert_eq!(r.results.len(), 1);
        assert_eq!(r.results[0].lists.len(), 2, "weight-0 ranker is left out");
        assert!(r.warnings[0].contains("no model"));
    }

    /// A memory with `metadata`, a lexical score and a source.
    fn with_meta(id: MemoryId, bm25: f64, source: Source, metadata: serde_json::Value) -> Scored {
        let mut m = memory(
            id,
            &format!("memory {id}: {}", "grasp cube ".repeat(id as usize)),
        );
        m.source = source;
        m.metadata = metadata.as_object().expect("an object").clone();
        (Candidate::new(m), Some(bm25), None)
    }

    #[test]
    fn boost_rules_multiply_the_relevance_of_what_meets_them_and_say_so() {
        use serde_json::json;
        let config = RecallConfig {
            boost: vec![
                Boost::new(Some(r#"{"env.kind": "real"}"#), Vec::new(), 1.5).unwrap(),
                Boost::new(None, vec![Source::Import], 0.5).unwrap(),
            ],
            max_results: 4,
            ..RecallConfig::default()
        };
        let all = || RecallConfig {
            max_results: 4,
            ..RecallConfig::default()
        };
        let cands = || {
            vec![
                with_meta(1, 1.0, Source::Manual, json!({"env": {"kind": "sim"}})),
                with_meta(2, 0.9, Source::Manual, json!({"env": {"kind": "real"}})),
                with_meta(3, 0.8, Source::Import, json!({"env": {"kind": "real"}})),
                with_meta(4, 0.7, Source::Manual, json!({})),
            ]
        };
        let plain = run(&pipeline(all()), cands());
        let boosted = run(&pipeline(config.clone()), cands());
        let ids = |r: &Recall| r.results.iter().map(|r| r.memory.id).collect::<Vec<_>>();
        assert_eq!(ids(&plain), [1, 2, 3, 4]);
        assert_eq!(ids(&boosted), [2, 1, 4, 3]);
        let of = |r: &Recall, id| {
            r.results
                .iter()
                .find(|r| r.memory.id == id)
                .unwrap()
                .clone()
        };
        for (id, factor, rules) in [(1, 1.0, vec![]), (2, 1.5, vec![1]), (3, 0.75, vec![1, 2])] {
            let (a, b) = (of(&plain, id), of(&boosted, id));
            assert!((b.fused - a.fused * factor).abs() < 1e-12, "{id}");
            let got: Vec<usize> = b.boosts.iter().map(|x| x.rule).collect();
            assert_eq!(got, rules, "{id}");
        }
        assert_eq!(
            of(&boosted, 2).boosts[0].condition,
            r#"where {"env.kind": "real"}"#
        );
        assert_eq!(of(&boosted, 3).boosts[1].condition, "sources import");

        // The relevance estimate reads the evidence, not the preference: a boost changes it
        // not at all.
        let model = Calibration::new([(oro_mem_core::calibration::INTERCEPT, -1.0), (FUSED, 3.0)]);
        let plain = run(&pipeline(all()).calibration(model.clone()), cands());
        let boosted = run(&pipeline(config).calibration(model), cands());
        for id in 1..=4 {
            assert_eq!(
                of(&plain, id).probability,
                of(&boosted, id).probability,
                "{id}"
            );
        }
    }

    #[test]
    fn a_point_with_a_maximum_distance_drops_what_lies_beyond_it() {
        use serde_json::json;
        let p = pipeline(RecallConfig::default()).ranker(crate::rankers::Spatial, 1.0);
        let cands = vec![
            with_meta(1, 1.0, Source::Manual, json!({"pos": [5.0, 0.0]})),
            with_meta(2, 0.5, Source::Manual, json!({"pos": [1.0, 0.0]})),
            with_meta(3, 0.2, Source::Manual, json!({"pos": "unknown"})),
        ];
        let near = oro_mem_core::Near::new("pos", vec![0.0, 0.0], Some(2.0)).unwrap();
        let f = Filter::default();
        let lexical = Signal::new(cands.iter().filter_map(|(c, l, _)| Some((c.id(), (*l)?))));
        let mut candidates = Candidates::new(cands.into_iter().map(|(c, _, _)| c));
        candidates.set_signal("lexical", lexical);
        let query = Query::new("q", &f).now(Timestamp(0)).near(&near);
        let r = p.recall(&query, candidates).unwrap();
        let ids: Vec<_> = r.results.iter().map(|r| r.memory.id).collect();
        assert_eq!(ids, [2, 3], "1 lies beyond; 3 has no coordinates and stays");
        assert_eq!(r.too_far, 1);
        assert!(r.results[0].lists.iter().any(|l| l.name == "spatial"));
    }

    /// A pipeline whose relevance model trusts the query's coverage and the lexical score.
    fn calibrated(min_relevance: f64, order: Order) -> Pipeline {
        let config = RecallConfig {
            min_relevance,
            order,
            ..RecallConfig::default()
        };
        pipeline(config).calibration(Calibration::new([
            (oro_mem_core::calibration::INTERCEPT, -4.0),
            (COVERAGE, 4.0),
            ("lexical", 1.0),
        ]))
    }

    fn run_query(p: &Pipeline, text: &str, cands: Vec<Scored>) -> Recall {
        let f = Filter::default();
        let lexical = Signal::new(cands.iter().filter_map(|(c, l, _)| Some((c.id(), (*l)?))));
        let mut candidates = Candidates::new(cands.into_iter().map(|(c, _, _)| c));
        candidates.set_signal("lexical", lexical);
        p.recall(&Query::new(text, &f).now(Timestamp(0)), candidates)
            .unwrap()
    }

    #[test]
    fn results_carry_their_estimated_relevance_and_the_evidence() {
        let r = run_query(
            &calibrated(0.0, Order::Score),
            "flaky login test",
            vec![
                candidate(1, "the login test is flaky on CI", 3.0),
                candidate(2, "login page colours", 1.0),
            ],
        );
        let p: Vec<f64> = r.results.iter().map(|r| r.probability.unwrap()).collect();
        assert_eq!(p.len(), 2);
        assert!(p.iter().all(|p| (0.0..=1.0).contains(p)));
        assert!(p[0] > p[1], "{p:?}");
        let f = &r.results[0].features;
        assert_eq!(f.get(COVERAGE), Some(1.0));
        assert_eq!(f.get("lexical_share"), Some(1.0));
        assert!((f.get("lexical").unwrap() - 4f64.ln()).abs() < 1e-12);
        assert!((r.results[1].features.get(COVERAGE).unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(r.abstained, None);
        // Without a calibration: no estimate, nothing dropped for it.
        let plain = run_query(
            &pipeline(RecallConfig::default()),
            "flaky login test",
            vec![candidate(2, "login page colours", 1.0)],
        );
        assert_eq!(plain.results[0].probability, None);
        assert!(plain.results[0].features.is_empty());
    }

    #[test]
    fn query_features_are_the_same_for_every_candidate() {
        let cands = || {
            vec![
                candidate(1, "the login test is flaky on CI", 3.0),
                candidate(2, "login page colours", 1.0),
            ]
        };
        // The best coverage and its gap are computed for a model that reads them, even at 0.
        let reads = Calibration::new([
            (oro_mem_core::calibration::INTERCEPT, 50.0),
            (COVERAGE_BEST, 0.0),
            (COVERAGE_GAP, 0.0),
        ]);
        let r = run_query(
            &calibrated(0.0, Order::Score).answerable(reads),
            "flaky login test",
            cands(),
        );
        for res in &r.results {
            let f = &res.features;
            assert_eq!(
                f.get(COVERAGE_BEST),
                Some(1.0),
                "the best candidate's coverage"
            );
            assert!((f.get("lexical_best").unwrap() - 4f64.ln()).abs() < 1e-12);
            assert!((f.get(QUERY_TERMS).unwrap() - 4f64.ln()).abs() < 1e-12);
            // How far the best stands out: ln(1 + 3) less ln(1 + 1), and all three query
            // terms held less one of them.
            assert!((f.get("lexical_gap").unwrap() - 2f64.ln()).abs() < 1e-12);
            assert!((f.get(COVERAGE_GAP).unwrap() - 2.0 / 3.0).abs() < 1e-12);
        }
        assert!(r.answerable.unwrap() > 0.999);
        // Without an answerable model: no factor, and no best coverage computed.
        let plain = run_query(&calibrated(0.0, Order::Score), "flaky login test", cands());
        assert_eq!(plain.answerable, None);
        assert_eq!(plain.results[0].features.get(COVERAGE_BEST), None);
        assert_eq!(plain.results[0].features.get(COVERAGE_GAP), None);
        assert!(plain.results[0].features.get("lexical_best").is_some());
        for (a, b) in r.results.iter().zip(&plain.results) {
            assert_eq!(a.features.get(COVERAGE), b.features.get(COVERAGE));
        }
    }

    #[test]
    fn terms_found_says_whether_the_candidates_hold_every_query_term_between_them() {
        let reads = Calibration::new([
            (oro_mem_core::calibration::INTERCEPT, 0.0),
            (TERMS_FOUND, 0.0),
        ]);
        let found = |query: &str| {
            let r = run_query(
                &calibrated(0.0, Order::Score).answerable(reads.clone()),
                query,
                vec![
                    candidate(1, "the login test is flaky on CI", 3.0),
                    candidate(2, "login page colours", 1.0),
                ],
            );
            let f = &r.results[0].features;
            (f.get(TERMS_FOUND).unwrap(), f.get(COVERAGE_BEST).unwrap())
        };
        // No candidate holds all three, but between them they do.
        assert_eq!(found("flaky login colours"), (1.0, 2.0 / 3.0));
        // A name none of them holds.
        assert_eq!(found("flaky login Caroline"), (0.0, 2.0 / 3.0));
    }

    #[test]
    fn the_answerable_model_scales_every_estimate_and_can_leave_nothing() {
        // The store's best match covers little of the query: the query is likely about
        // something the store does not know.
        let answerable = Calibration::new([
            (oro_mem_core::calibration::INTERCEPT, -3.0),
            (COVERAGE_BEST, 6.0),
        ]);
        let cands = || {
            vec![
                candidate(1, "the login test is flaky on CI", 3.0),
                candidate(2, "login page colours", 1.0),
            ]
        };
        let plain = run_query(&calibrated(0.0, Order::Score), "flaky login test", cands());
        let scaled = run_query(
            &calibrated(0.0, Order::Score).answerable(answerable.clone()),
            "flaky login test",
            cands(),
        );
        let a = scaled.answerable.unwrap();
        assert!(
            (a - oro_mem_core::calibration::sigmoid(3.0)).abs() < 1e-12,
            "{a}"
        );
        for (p, s) in plain.results.iter().zip(&scaled.results) {
            let (p, s) = (p.probability.unwrap(), s.probability.unwrap());
            assert!((s - p * a).abs() < 1e-12, "{p} x {a} != {s}");
        }
        let json = serde_json::to_value(&scaled).unwrap();
        assert_eq!(json["answerable"].as_f64(), Some(a));

        // A query whose best candidate covers a third (one of its three words is the query's):
        // the factor is sigmoid(-1), and with a bar between the two, the same candidate
        // passes one pipeline, not the other.
        let query = "flaky login test timeout";
        let cand = || vec![candidate(2, "login page colours", 1.0)];
        let alone = run_query(&calibrated(0.0, Order::Score), query, cand());
        let p = alone.results[0].probability.unwrap();
        let a = oro_mem_core::calibration::sigmoid(-1.0);
        let bar = p * (1.0 + a) / 2.0;
        let kept = run_query(&calibrated(bar, Order::Score), query, cand());
        assert_eq!(kept.results.len(), 1);
        let dropped = run_query(
            &calibrated(bar, Order::Score).answerable(answerable),
            query,
            cand(),
        );
        assert!(dropped.results.is_empty());
        assert!(matches!(
            dropped.abstained,
            Some(Abstention::BelowRelevance { .. })
        ));
        assert!((dropped.answerable.unwrap() - a).abs() < 1e-12);
    }

    proptest::proptest! {
        #[test]
        fn the_answerable_factor_only_lowers_estimates_and_only_removes_results(
            memories in proptest::collection::vec(
                (proptest::sample::select(vec![
                    "login test flaky", "page colours", "flaky network", "test runner",
                    "deploy script", "login",
                ]), 0.1f64..10.0),
                1..8,
            ),
            bar in 0.0f64..0.5,
            coefficient in 0.0f64..10.0,
        ) {
            let cands = || {
                memories
                    .iter()
                    .enumerate()
                    .map(|(i, (text, bm25))| candidate(i as MemoryId + 1, text, *bm25))
                    .collect::<Vec<_>>()
            };
            let config = RecallConfig {
                min_relevance: bar,
                max_results: 20,
                budget_tokens: 10_000,
                near_duplicate: 2.0,
                ..RecallConfig::default()
            };
            let model = Calibration::new([
                (oro_mem_core::calibration::INTERCEPT, -2.0),
                (COVERAGE, 4.0),
                ("lexical", 1.0),
            ]);
            let plain = pipeline(config.clone()).calibration(model.clone());
            let gated = pipeline(config).calibration(model).answerable(Calibration::new([
                (oro_mem_core::calibration::INTERCEPT, -1.0),
                (COVERAGE_BEST, coefficient),
            ]));
            let query = "flaky login test";
            let without = run_query(&plain, query, cands());
            let with = run_query(&gated, query, cands());
            let a = with.answerable.unwrap();
            proptest::prop_assert!((0.0..=1.0).contains(&a));
            for r in &with.results {
                let p = r.probability.unwrap();
                proptest::prop_assert!((0.0..=1.0).contains(&p) && p >= bar);
                let same = without.results.iter().find(|w| w.memory.id == r.memory.id);
                proptest::prop_assert!(same.is_some(), "a result only the gated pipeline has");
                proptest::prop_assert!(p <= same.unwrap().probability.unwrap() + 1e-12);
            }
        }
    }

    #[test]
    fn a_candidate_the_vector_list_cannot_judge_is_estimated_by_its_words() {
        // Two memories hold the query's words alike; the vector list judged 1 and could not
        // judge 2 (its text in a script the model does not cover, say).
        let model = Calibration::new([
            (oro_mem_core::calibration::INTERCEPT, -2.0),
            ("vector", 3.0),
            (FUSED, 1.0),
        ]);
        let words = Calibration::new([(oro_mem_core::calibration::INTERCEPT, -1.0), (FUSED, 2.0)]);
        let recall = |p: &Pipeline| {
            let f = Filter::default();
            let mut candidates = Candidates::new(
                [(1, "alpha beta gamma"), (2, "alpha beta delta")]
                    .map(|(id, content)| Candidate::new(memory(id, content))),
            );
            candidates.set_signal("lexical", Signal::new([(1, 2.0), (2, 2.0)]));
            candidates.set_signal("vector", Signal::new([(1, 0.6), (2, 0.6)]));
            candidates.unscore("vector", |c| c.id() == 2);
            let r = p
                .recall(&Query::new("alpha beta", &f).now(Timestamp(0)), candidates)
                .unwrap();
            let of = |id| {
                r.results
                    .iter()
                    .find(|r| r.memory.id == id)
                    .unwrap()
                    .clone()
            };
            (of(1), of(2))
        };
        let plain = || {
            pipeline(RecallConfig::default())
                .ranker(CosineField, 1.0)
                .calibration(model.clone())
        };
        let (judged, unjudged) = recall(&plain().unjudged_calibration(words.clone()));
        let (judged_before, unjudged_before) = recall(&plain());

        // The judged one is estimated as before, by the pipeline's model.
        assert_eq!(judged.probability, judged_before.probability);
        assert_eq!(judged.probability, model.probability(&judged.features));
        // The other by the words' model, from features without the vector list's ...
        let f = &unjudged.features;
        assert_eq!(
            (f.get("vector"), f.get("vector_share")),
            (None, None),
            "{f:?}"
        );
        assert_eq!(unjudged.probability, words.probability(f));
        // ... and its fused score over the BM25 list's weight alone (1 of 2).
        let fused = |r: &Recalled| r.features.get(FUSED).unwrap();
        assert!((fused(&unjudged) - 2.0 * fused(&unjudged_before)).abs() < 1e-12);
        // Without a model for it, its missing cosine counts as 0, as before.
        assert_eq!(unjudged_before.features.get("vector"), Some(0.0));
        assert!(unjudged.probability.unwrap() > unjudged_before.probability.unwrap());

        // Answerable models: the judged one gets the pipeline's factor, the unjudged one the
        // words' model's, each from the same features of the query.
        let by_vector = Calibration::new([
            (oro_mem_core::calibration::INTERCEPT, 0.0),
            ("vector_best", 1.0),
        ]);
        let by_words = Calibration::new([
            (oro_mem_core::calibration::INTERCEPT, -1.0),
            (COVERAGE_BEST, 1.0),
        ]);
        let (judged_a, unjudged_a) = recall(
            &plain()
                .unjudged_calibration(words.clone())
                .answerable(by_vector.clone())
                .unjudged_answerable(by_words.clone()),
        );
        let factor = |m: &Calibration, r: &Recalled| m.probability(&r.features).unwrap();
        // The unjudged candidate's features hold the judged one's best cosine.
        assert_eq!(unjudged_a.features.get("vector_best"), Some(0.6f64.ln_1p()));
        assert!(
            (judged_a.probability.unwrap()
                - judged.probability.unwrap() * factor(&by_vector, &judged_a))
            .abs()
                < 1e-12
        );
        assert!(
            (unjudged_a.probability.unwrap()
                - unjudged.probability.unwrap() * factor(&by_words, &unjudged_a))
            .abs()
                < 1e-12
        );
        // Without a words' answerable model, the unjudged one has no factor.
        let (_, unjudged_b) = recall(
            &plain()
                .unjudged_calibration(words.clone())
                .answerable(by_vector),
        );
        assert_eq!(unjudged_b.probability, unjudged.probability);
    }

    #[test]
    fn coverage_reads_everything_the_index_searches() {
        let mut about = memory(1, "open runs the migrations first");
        about.files = vec!["src/store.rs".into()];
        about.entities = vec!["Store::open".into()];
        let r = run_query(
            &calibrated(0.0, Order::Score),
            "src/store.rs",
            vec![(Candidate::new(about), Some(1.0), None)],
        );
        assert_eq!(r.results[0].features.get(COVERAGE), Some(1.0));
    }

    #[test]
    fn a_query_whose_best_result_is_unlikely_is_answered_with_nothing() {
        let gated = |bar: f64| {
            let mut p = calibrated(0.0, Order::Score);
            p.recall.abstain_below = bar;
            p
        };
        let cands = || {
            vec![
                candidate(1, "the login test is flaky on CI", 3.0),
                candidate(2, "login page colours", 1.0),
            ]
        };
        let open = run_query(&gated(0.0), "flaky login test", cands());
        let p: Vec<f64> = open
            .results
            .iter()
            .map(|r| r.probability.unwrap())
            .collect();
        // A bar between the two estimates: the query is answered, the weaker result kept.
        let between = (p[0] + p[1]) / 2.0;
        let answered = run_query(&gated(between), "flaky login test", cands());
        assert_eq!(answered.results.len(), 2);
        assert_eq!((answered.unsure, answered.abstained.as_ref()), (0, None));
        // A bar above the best: nothing, and why.
        let bar = (p[0] + 1.0) / 2.0;
        let r = run_query(&gated(bar), "flaky login test", cands());
        assert!(r.results.is_empty());
        assert_eq!(r.unsure, 2);
        assert_eq!(
            r.abstained,
            Some(Abstention::Unsure {
                best: p[0],
                abstain_below: bar
            })
        );
        let json = serde_json::to_value(r.abstained.as_ref().unwrap()).unwrap();
        assert_eq!(json["reason"], "below_relevance");
        assert!(json["message"].as_str().unwrap().contains("abstain_below"));
        // Without a calibration there is no estimate to abstain on.
        let mut plain = pipeline(RecallConfig::default());
        plain.recall.abstain_below = 0.99;
        assert_eq!(
            run_query(&plain, "flaky login test", cands()).results.len(),
            2
        );
    }

    #[test]
    fn a_result_naming_an_identifier_of_the_query_is_kept_below_the_bar() {
        let query = "bump the version in `pyproject.toml` for the release";
        let cands = || {
            vec![
                candidate(
                    1,
                    "Version numbers live in pyproject.toml and src/pkg/__init__.py",
                    1.0,
                ),
                candidate(2, "pyproject.toml.orig is left by merges; delete it", 1.0),
                candidate(3, "The release checklist lives in the wiki", 1.0),
            ]
        };
        // Estimates of about 0.1 and less, below a bar of 0.5: only the memory that names
        // `pyproject.toml` is kept, and says why.
        let r = run_query(&calibrated(0.5, Order::Score), query, cands());
        let ids: Vec<MemoryId> = r.results.iter().map(|r| r.memory.id).collect();
        assert_eq!(ids, [1]);
        assert!(r.results[0].probability.unwrap() < 0.5);
        assert_eq!(r.results[0].named.as_deref(), Some("pyproject.toml"));
        assert_eq!(r.below_relevance, 2);
        // Off, nothing is kept.
        let off = pipeline(RecallConfig {
            min_relevance: 0.5,
            keep_named: false,
            ..RecallConfig::default()
        })
        .calibration(Calibration::new([
            (oro_mem_core::calibration::INTERCEPT, -4.0),
            (COVERAGE, 4.0),
            ("lexical", 1.0),
        ]));
        assert!(run_query(&off, query, cands()).results.is_empty());
        // Above the bar, nothing is marked as kept for a name.
        let r = run_query(&calibrated(0.0, Order::Score), query, cands());
        assert!(r.results.iter().all(|r| r.named.is_none()));
        // An identifier more candidates name than recall returns singles none of them out.
        let many: Vec<Scored> = (1..=4)
            .map(|i| candidate(i, &format!("pyproject.toml holds setting {i}"), 1.0))
            .collect();
        assert!(run_query(&calibrated(0.5, Order::Score), query, many)
            .results
            .is_empty());
    }

    #[test]
    fn the_memory_nearest_in_meaning_is_kept_when_nothing_reaches_the_bar() {
        // Memories that share no word with the query: estimated (from words) below a bar of
        // 0.5, whatever their cosines.
        let gated = |keep_similar: bool, searched: Option<u64>, cosines: &[f64], gate: f64| {
            let mut p = calibrated(0.5, Order::Score).ranker(CosineField, 1.0);
            p.recall.keep_similar = keep_similar;
            let f = Filter::default();
            let vector = Signal::new(cosines.iter().enumerate().map(|(i, &c)| (i as i64 + 1, c)))
                .floor(gate);
            let mut candidates = Candidates::new(
                (1..=cosines.len()).map(|i| Candidate::new(memory(i as i64, "a memory"))),
            );
            candidates.set_signal("vector", vector);
            if let Some(n) = searched {
                candidates.set_searched(n);
            }
            p.recall(
                &Query::new("why is the database locked", &f).now(Timestamp(0)),
                candidates,
            )
            .unwrap()
        };
        let recall = |keep_similar: bool, searched: Option<u64>, cosines: &[f64]| {
            gated(keep_similar, searched, cosines, 0.0)
        };
        // A store of one memory, at a cosine above the bar for one (0.36): kept, and says why.
        let r = recall(true, None, &[0.42]);
        assert_eq!(r.results.len(), 1);
        assert!(r.results[0].probability.unwrap() < 0.5);
        assert_eq!(r.results[0].similar, Some(0.42));
        assert_eq!((r.below_relevance, r.abstained.as_ref()), (0, None));
        // Of two, only the nearest, the bar a little higher (0.38).
        let r = recall(true, None, &[0.33, 0.42]);
        let ids: Vec<MemoryId> = r.results.iter().map(|r| r.memory.id).collect();
        assert_eq!((ids, r.below_relevance), (vec![2], 1));
        assert!(recall(true, None, &[0.37, 0.37]).results.is_empty());
        // Below the bar, off, or among a thousand memories searched (bar 0.57): nothing.
        for r in [
            recall(true, None, &[0.35]),
            recall(false, None, &[0.42]),
            recall(true, Some(1000), &[0.42]),
        ] {
            assert!(r.results.is_empty());
            assert!(matches!(
                r.abstained,
                Some(Abstention::BelowRelevance { .. })
            ));
        }
        assert_eq!(
            recall(true, Some(1000), &[0.6]).results[0].similar,
            Some(0.6)
        );
        // Below the bar for four memories (0.40) but 0.25 nearer than every other: kept, and
        // says how near the next one comes.
        let r = recall(true, None, &[0.03, 0.37, 0.05, 0.02]);
        let ids: Vec<MemoryId> = r.results.iter().map(|r| r.memory.id).collect();
        assert_eq!(ids, [2]);
        assert_eq!(
            (r.results[0].similar, r.results[0].similar_next),
            (Some(0.37), Some(0.05))
        );
        assert!(recall(true, None, &[0.13, 0.37, 0.05, 0.02])
            .results
            .is_empty());
        assert!(recall(false, None, &[0.03, 0.37, 0.05, 0.02])
            .results
            .is_empty());
        // The others dropped by the gate (a cosine of 0.1) count at the gate's cosine.
        let r = gated(true, Some(3), &[0.33, 0.02, 0.04], 0.1);
        assert!(r.results.is_empty());
        assert_eq!(r.dissimilar, 2);
        let r = gated(true, Some(3), &[0.37, 0.02, 0.04], 0.1);
        assert_eq!(
            (r.results[0].similar, r.results[0].similar_next),
            (Some(0.37), Some(0.1))
        );
        // Kept for its cosine alone, it names no next one.
        assert_eq!(recall(true, None, &[0.42]).results[0].similar_next, None);
        // Nothing is marked as kept when a result reaches the bar.
        let r = run_query(
            &calibrated(0.0, Order::Score).ranker(CosineField, 1.0),
            "flaky login test",
            vec![candidate(1, "the login test is flaky on CI", 3.0)],
        );
        assert!(r.results.iter().all(|r| r.similar.is_none()));
    }

    #[test]
    fn recall_abstains_when_nothing_is_likely_relevant_and_says_why() {
        let p = calibrated(0.5, Order::Score);
        let weak = run_query(
            &p,
            "flaky login test",
            vec![candidate(1, "login page colours", 1.0)],
        );
        assert!(weak.results.is_empty());
        assert_eq!(weak.below_relevance, 1);
        let Some(Abstention::BelowRelevance {
            best,
            min_relevance,
        }) = weak.abstained
        else {
            panic!("{:?}", weak.abstained);
        };
        assert!(best < 0.5 && min_relevance == 0.5);
        let json = serde_json::to_value(weak.abstained.as_ref().unwrap()).unwrap();
        assert_eq!(json["reason"], "below_relevance");
        assert!(json["message"].as_str().unwrap().contains("min_relevance"));

        let empty = run_query(&p, "flaky login test", vec![]);
        assert_eq!(empty.abstained, Some(Abstention::NoCandidates));

        let strong = run_query(
            &p,
            "flaky login test",
            vec![
                candidate(1, "the login test is flaky on CI", 3.0),
                candidate(2, "login page colours", 1.0),
            ],
        );
        let ids: Vec<_> = strong.results.iter().map(|r| r.memory.id).collect();
        assert_eq!((ids.as_slice(), strong.below_relevance), (&[1][..], 1));
    }

    #[test]
    fn a_store_that_knows_only_dissimilar_memories_abstains_as_filtered_out() {
        let p = pipeline(RecallConfig::default()).ranker(CosineField, 1.0);
        let unrelated = (Candidate::new(memory(1, "x")), None, Some(0.1));
        let r = run(&p, vec![unrelated]);
        assert_eq!(r.abstained, Some(Abstention::FilteredOut { candidates: 1 }));
    }

    #[test]
    fn ordering_by_relevance_follows_the_estimate() {
        // 2 has the better BM25 score but covers less of the query.
        let cands = || {
            vec![
                candidate(1, "the login test is flaky", 1.0),
                candidate(2, "login page colours and login fonts", 1.2),
            ]
        };
        let ids = |r: Recall| r.results.iter().map(|r| r.memory.id).collect::<Vec<_>>();
        let by_score = run_query(&calibrated(0.0, Order::Score), "flaky login test", cands());
        assert_eq!(ids(by_score), [2, 1]);
        let by_relevance = run_query(
            &calibrated(0.0, Order::Relevance),
            "flaky login test",
            cands(),
        );
        assert_eq!(ids(by_relevance), [1, 2]);
    }
}

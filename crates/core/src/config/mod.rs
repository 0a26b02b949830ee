//! Every knob of recall and the write path, with serde defaults so a configuration file only
//! needs the keys it changes. Parsing the file (TOML) is the caller's business.
//!
//! Each key is defined once, in [`KEYS`]: its name, the values it takes ([`Domain`]), and
//! how it is read and set. [`Config::validate`] and [`Config::set`] work from that table.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::calibration::Calibration;
use crate::error::{Error, Result};
use crate::memory::{Memory, MemoryType, Source};
use crate::query::MetaCondition;

mod keys;
mod request;

pub use keys::{
    key, Domain, Key, ANSWERABLE_PREFIX, CALIBRATION_PREFIX, HALF_LIFE_BY_TYPE_PREFIX, KEYS,
    WEIGHT_PREFIX,
};
pub use request::RecallRequest;

/// Which retrieval a recall uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Full-text search only; no model needed.
    #[default]
    Fts,
    /// Full-text search plus embeddings.
    Hybrid,
    /// Embeddings only: the nearest memories by cosine, no lexical matching. Mostly for
    /// measuring what the vector side contributes (`oro-mem eval --mode vector`).
    Vector,
}

impl Mode {
    /// Every mode.
    pub const ALL: [Mode; 3] = [Mode::Fts, Mode::Hybrid, Mode::Vector];

    /// The mode's name in configuration and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Fts => "fts",
            Mode::Hybrid => "hybrid",
            Mode::Vector => "vector",
        }
    }

    /// True when the mode needs the embedding model.
    pub fn uses_vectors(self) -> bool {
        matches!(self, Mode::Hybrid | Mode::Vector)
    }
}

impl std::str::FromStr for Mode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Mode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "fts" => Ok(Mode::Fts),
            "hybrid" => Ok(Mode::Hybrid),
            "vector" => Ok(Mode::Vector),
            _ => Err(Error::invalid_input(format!(
                "unknown mode {s:?}: expected fts, hybrid or vector"
            ))),
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How the final score of a memory is computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scoring {
    /// Fuse every ranker's list, then multiply by confidence and decay.
    #[default]
    Fused,
    /// The original formula: `min(1, max(0, -bm25 / 25)) × confidence × decay`.
    Simple,
}

impl Scoring {
    /// Every scoring.
    pub const ALL: [Scoring; 2] = [Scoring::Fused, Scoring::Simple];

    /// The scoring's name in configuration and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Scoring::Fused => "fused",
            Scoring::Simple => "simple",
        }
    }
}

impl std::str::FromStr for Scoring {
    type Err = Error;
    fn from_str(s: &str) -> Result<Scoring> {
        Scoring::ALL
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                Error::invalid_input(format!("unknown scoring {s:?}: expected fused or simple"))
            })
    }
}

impl std::fmt::Display for Scoring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The whole configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// `fts`, `hybrid` or `vector`.
    pub mode: Mode,
    /// When hybrid is asked for but cannot run, answer FTS-only instead of failing.
    pub fallback_to_fts: bool,
    /// Recall settings.
    pub recall: RecallConfig,
    /// Time decay.
    pub decay: DecayConfig,
    /// How memories are embedded.
    pub embedding: EmbeddingConfig,
    /// Write-time duplicate detection.
    pub dedup: DedupConfig,
    /// `consolidate` thresholds.
    pub consolidate: ConsolidateConfig,
    /// `oro-mem serve`.
    pub serve: ServeConfig,
    /// What one memory may hold.
    pub memory: MemoryConfig,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            mode: Mode::Fts,
            fallback_to_fts: true,
            recall: RecallConfig::default(),
            decay: DecayConfig::default(),
            embedding: EmbeddingConfig::default(),
            dedup: DedupConfig::default(),
            consolidate: ConsolidateConfig::default(),
            serve: ServeConfig::default(),
            memory: MemoryConfig::default(),
        }
    }
}

/// Recall settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RecallConfig {
    /// Lexical candidates fetched before ranking.
    pub depth: usize,
    /// At most this many results, at most [`MAX_RESULTS`]. 3 by default: on LoCoMo dev, as
    /// recalled in hybrid mode, 3 results instead of 5 lift the share of relevant ones from
    /// 0.149 to 0.209 for 0.098 of the questions answered usefully (`docs/retrieval-quality.md`,
    /// "As recalled").
    pub max_results: usize,
    /// Token budget for the returned contents (tokens estimated as bytes / 4).
    pub budget_tokens: usize,
    /// `fused` or `simple`.
    pub scoring: Scoring,
    /// The fuser, by its registered name: `weighted_max` (the default: each list divided by
    /// its best score; chosen out of sample, by leave-one-conversation-out on LoCoMo dev and
    /// on SciFact train for test, over `weighted_score` and `rrf`; see
    /// `docs/retrieval-quality.md`), `weighted_score` (min-max per list), `weighted_z` (standard
    /// scores, floored at 0) or `rrf`.
    pub fusion: String,
    /// The RRF constant `k`.
    pub rrf_k: f64,
    /// Results scoring below this (after confidence and decay) are dropped, fused scoring,
    /// FTS-only mode.
    pub min_score: f64,
    /// As `min_score`, in hybrid mode (four lists give larger fused scores).
    pub hybrid_min_score: f64,
    /// Vector candidates fetched in hybrid mode (the nearest by cosine), joined with the
    /// `depth` lexical ones.
    pub vector_depth: usize,
    /// Every candidate gets its BM25 score, also one that only another source found (the
    /// nearest embeddings) below the best `depth` full-text matches, as every candidate gets
    /// its cosine; false: only those `depth` have one, and the others score 0 in the `bm25`
    /// list. True lifted hybrid nDCG@10 on LoCoMo dev (0.5728 → 0.5791) and SciFact train
    /// (0.7421 → 0.7428), so on both sets before it was tried on SciFact test.
    pub score_all_lexically: bool,
    /// Results scoring below this are dropped, simple scoring.
    pub simple_min_score: f64,
    /// A candidate that does not match the query's words is kept only if the cosine between
    /// its embedding and the query's is at least this (hybrid and vector modes). Fusion
    /// normalizes every list so that its best candidate scores 1, so without this gate the
    /// nearest embedding would always be recalled, however unrelated. In vector mode it is
    /// all that keeps an unrelated query from the nearest memories.
    pub min_similarity: f64,
    /// As `min_similarity`, in hybrid mode, where the relevance estimate judges what the gate
    /// lets through: a lower gate keeps a task's best candidates in the vector list when
    /// short memories and issue titles share few words and their cosines run low (chosen
    /// leaving one repository of agentmem-dev out: hybrid nDCG@10 0.604 → 0.619 there, the
    /// same on SciFact and LoCoMo; as recalled, the same answers on all three).
    pub hybrid_min_similarity: f64,
    /// A result whose words overlap a better result's this much (Jaccard) is skipped; above
    /// 1, nothing is.
    pub near_duplicate: f64,
    /// Weight of each ranker; 0 turns it off.
    pub weights: Weights,
    /// Memories less trusted than this are not recalled (unless a query's filter sets its
    /// own minimum): the design notes' 0.3, below which `consolidate` archives stale ones.
    pub min_confidence: f64,
    /// How much a result's neighbours in its session lend it: each candidate of the same
    /// session within `session_window` places adds this × its fused score ÷ its distance
    /// (a conversation's turn is understood with the turns around it). 0 turns it off;
    /// memories without a session get nothing. 0.2 with a window of 2 was chosen by leaving
    /// one LoCoMo conversation out at a time (four of five folds in hybrid mode).
    pub session_context: f64,
    /// How many places before and after a memory in its session count as its neighbours.
    pub session_window: usize,
    /// Pseudo-relevance feedback (the `feedback` source and list, fused by
    /// `weights.feedback`, off at 0): how many of the query's best full-text matches are taken
    /// as relevant.
    pub feedback_docs: usize,
    /// How many words the feedback query holds: those weighing most in the feedback matches
    /// that the query does not hold.
    pub feedback_terms: usize,
    /// Results whose estimated probability of relevance (see `calibration`) is below this are
    /// dropped; when none is left, recall returns nothing and says why. 0 keeps everything.
    ///
    /// 0.02 is the lowest bar that meets the goals for what is injected on LoCoMo dev, each
    /// conversation scored by models fitted without it: hybrid returns 2.75 results per
    /// question (3.00 without it), one of them judged relevant for 60.1% of questions (62.3%),
    /// at pooled precision 0.226 (0.215); SciFact test stays useful for 62.0% of claims. With
    /// the [`answerable`](RecallConfig::answerable) models it answers 97% and 81% of the other
    /// dataset's questions with nothing in FTS mode (5% or less without the bar), and in
    /// stores of ten memories nearly doubles precision. With hybrid mode's models as refitted
    /// on agents' stores too (reading the number of memories searched), out of sample: LoCoMo
    /// dev 2.84 results, useful 0.610, precision 0.221; agentmem-dev 2.34, useful 0.748,
    /// precision 0.516; 99% of either other dataset's questions and 57% of agentmem-dev's
    /// tasks with nothing relevant answered with nothing. It withholds a match by meaning alone
    /// at a low cosine ("database timeout" for "SQLite lock contention: ...", cosine 0.31): 0
    /// has it back. See `docs/retrieval-quality.md` for the tables.
    pub min_relevance: f64,
    /// When the best result's estimated probability of relevance (see `calibration`) is
    /// below this, recall returns nothing and says why: the query is likely about nothing the
    /// store knows. Unlike `min_relevance`, it drops no result of a query it answers; 0 (the
    /// default) answers every query.
    ///
    /// With `min_relevance` at its default, the [`answerable`](RecallConfig::answerable)
    /// models already answer most of the other dataset's questions with nothing (99% in
    /// hybrid mode, 97% and 81% in FTS mode), and a bar would trade useful answers for the
    /// last few. It is off because the models know only stores of thousands of documents: in
    /// an agent's store of a few memories the one that matters often shares a single word
    /// with the task ("pyright errors" and "ruff --fix must run before pyright": 0.05), and 5
    /// of the command line's 59 scenario tests lose their answer at 0.1.
    pub abstain_below: f64,
    /// A result whose estimated relevance is below `min_relevance` is kept when it names,
    /// exactly, an identifier the query names (a path, a command, a code identifier, a
    /// package: [`identifiers`](oro_mem_text::identifiers)) that few of the candidates name,
    /// at most `max_results`: a task that names `MODULE.bazel.lock` gets the memory about
    /// `MODULE.bazel.lock`, whatever its estimate. An identifier most candidates name (a
    /// project's own name) singles out none of them.
    ///
    /// On agentmem-dev, hybrid mode, as recalled: useful 0.521 → 0.546 at precision 0.583 →
    /// 0.579; SciFact train and LoCoMo dev move by 0.006 or less (see
    /// `docs/retrieval-quality.md`).
    pub keep_named: bool,
    /// When no result's estimated relevance reaches `min_relevance`, the candidate nearest
    /// the query by meaning is kept if its cosine reaches what the nearest of as many
    /// unrelated memories reaches once in a hundred: [`KEEP_SIMILAR_COSINE`] in a store of
    /// one memory, [`KEEP_SIMILAR_PER_LN_MEMORIES`] more for each natural log of the number of
    /// memories searched (0.43 in a store of 10, 0.50 of 100, 0.62 of 5,000). A paraphrase
    /// with no word in common gets its memory in a small store, where the relevance model,
    /// fitted mostly on larger ones, estimates too little. The nearest memory is kept too
    /// when it is [`KEEP_APART_COSINE`] nearer than every other (and than the vector list's
    /// gate): a short query about one memory of a few ("database timeout" of a store of four,
    /// cosine 0.37 to its memory, below 0.1 to the others). Only in the modes that rank by a
    /// cosine and estimate relevance (hybrid).
    ///
    /// Measured over the unrelated questions asked of stores of 5, 10 and 100 memories and
    /// the related sets (see `docs/retrieval-quality.md`).
    pub keep_similar: bool,
    /// The relevance model of each mode (see [`crate::calibration`]).
    pub calibration: Calibrations,
    /// The answerable model of each mode: the estimated probability that the store holds
    /// anything relevant to the query at all, from features of the query and its best
    /// candidates ([`is_query_feature`](crate::calibration::is_query_feature): the best cosine,
    /// the most of the query any candidate covers, the query's length). Each result's
    /// estimated relevance is the relevance model's times this, so that a query about
    /// something the store does not know gets nothing past `min_relevance` even though its
    /// best match, next to the other candidates, looks like an answer. Empty: no such factor.
    pub answerable: AnswerableModels,
    /// What orders the results: `score` (the fused score × confidence × decay) or
    /// `relevance` (the estimated probability of relevance × confidence × decay, when the
    /// mode has a calibration).
    pub order: Order,
    /// Boost rules (`[[recall.boost]]`), applied after fusion in this order: a memory that
    /// meets a rule has its relevance multiplied by the rule's factor. None by default.
    pub boost: Vec<Boost>,
}

/// A boost rule: memories that meet its conditions (all of them) have their relevance
/// multiplied by `factor` after fusion. The design notes' source weighting, "real-world data
/// ×1.5 over simulation", is
///
/// ```toml
/// [[recall.boost]]
/// where = '{"context.env.sim_or_real": "real"}'
/// factor = 1.5
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "BoostSpec", into = "BoostSpec")]
pub struct Boost {
    spec: BoostSpec,
    conditions: Vec<MetaCondition>,
}

/// A [`Boost`] as written in the configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BoostSpec {
    /// Metadata conditions in `--where`'s syntax: `'{"lang": "rust", "n": {"$gte": 2}}'`.
    #[serde(rename = "where", default, skip_serializing_if = "Option::is_none")]
    condition: Option<String>,
    /// Any of these sources.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    sources: Vec<Source>,
    /// What the relevance of a memory that meets the rule is multiplied by: above 0 (below 1
    /// lowers it).
    factor: f64,
}

impl TryFrom<BoostSpec> for Boost {
    type Error = Error;
    fn try_from(spec: BoostSpec) -> Result<Boost> {
        let conditions = match &spec.condition {
            Some(json) => MetaCondition::parse_all(json)?,
            None => Vec::new(),
        };
        if conditions.is_empty() && spec.sources.is_empty() {
            return Err(Error::config(
                "a boost rule needs a condition: `where` (metadata, as --where takes it) or \
                 `sources`",
            ));
        }
        if !(spec.factor.is_finite() && spec.factor > 0.0) {
            return Err(Error::config(format!(
                "a boost rule's factor must be a number above 0, got {}",
                spec.factor
            )));
        }
        Ok(Boost { spec, conditions })
    }
}

impl From<Boost> for BoostSpec {
    fn from(b: Boost) -> BoostSpec {
        b.spec
    }
}

impl Boost {
    /// A rule boosting by `factor` the memories that meet every metadata condition of
    /// `where_json` (`--where`'s syntax) and come from one of `sources` (any, when empty).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](crate::ErrorKind::Config) for a rule without any condition or a
    /// factor that is not above 0; [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput)
    /// for a malformed `where_json`.
    pub fn new(where_json: Option<&str>, sources: Vec<Source>, factor: f64) -> Result<Boost> {
        Boost::try_from(BoostSpec {
            condition: where_json.map(str::to_string),
            sources,
            factor,
        })
    }

    /// The factor.
    pub fn factor(&self) -> f64 {
        self.spec.factor
    }

    /// Whether `memory` meets the rule.
    pub fn applies(&self, memory: &Memory) -> bool {
        (self.spec.sources.is_empty() || self.spec.sources.contains(&memory.source))
            && self.conditions.iter().all(|c| c.holds(&memory.metadata))
    }

    /// The rule as written: `where {...}, sources a, b`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(w) = &self.spec.condition {
            parts.push(format!("where {w}"));
        }
        if !self.spec.sources.is_empty() {
            let names: Vec<String> = self.spec.sources.iter().map(|s| s.to_string()).collect();
            parts.push(format!("sources {}", names.join(", ")));
        }
        parts.join(", ")
    }
}

/// The most results one recall returns (`recall.max_results`, `--limit`): a prompt holds a
/// few memories, and a budget of tokens bounds them anyway.
pub const MAX_RESULTS: usize = 100;

/// The cosine at which `recall.keep_similar` keeps the memory nearest the query in a store
/// of one memory: about the 99th percentile of the best cosine (all-MiniLM-L6-v2) of
/// questions asked of stores that know nothing about them.
pub const KEEP_SIMILAR_COSINE: f64 = 0.36;

/// How much `recall.keep_similar`'s cosine rises with each natural log of the number of
/// memories searched: the more memories, the nearer the nearest unrelated one (99th
/// percentile 0.41 in stores of 5, 0.44 of 10, 0.50 of 100).
pub const KEEP_SIMILAR_PER_LN_MEMORIES: f64 = 0.03;

/// How much nearer than every other memory (and than the cosine the vector list's gate asks,
/// `recall.hybrid_min_similarity`) `recall.keep_similar` keeps the nearest memory at, whatever
/// its cosine: a memory that stands that far apart is what a short query is about. Questions
/// asked of stores that know nothing about them find one that far apart less than once in a
/// hundred (all-MiniLM-L6-v2, stores of 2 to 10 memories).
pub const KEEP_APART_COSINE: f64 = 0.25;

/// The cosine `recall.keep_similar` asks of the nearest memory among `memories` searched
/// ([`KEEP_SIMILAR_COSINE`], [`KEEP_SIMILAR_PER_LN_MEMORIES`]).
///
/// ```
/// use oro_mem_core::config::keep_similar_cosine;
///
/// assert_eq!(keep_similar_cosine(1), 0.36);
/// assert!((keep_similar_cosine(100) - 0.498).abs() < 0.001);
/// ```
pub fn keep_similar_cosine(memories: u64) -> f64 {
    KEEP_SIMILAR_COSINE + KEEP_SIMILAR_PER_LN_MEMORIES * (memories.max(1) as f64).ln()
}

/// What orders recall's results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// The fused score × confidence × decay.
    #[default]
    Score,
    /// The estimated probability of relevance × confidence × decay.
    Relevance,
}

impl std::str::FromStr for Order {
    type Err = Error;
    fn from_str(s: &str) -> Result<Order> {
        match s.trim().to_ascii_lowercase().as_str() {
            "score" => Ok(Order::Score),
            "relevance" => Ok(Order::Relevance),
            _ => Err(Error::invalid_input(format!(
                "unknown order {s:?}: expected score or relevance"
            ))),
        }
    }
}

impl Default for RecallConfig {
    fn default() -> RecallConfig {
        RecallConfig {
            depth: 50,
            max_results: 3,
            budget_tokens: 500,
            scoring: Scoring::Fused,
            fusion: "weighted_max".to_string(),
            rrf_k: 20.0,
            min_score: 0.005,
            hybrid_min_score: 0.01,
            vector_depth: 50,
            score_all_lexically: true,
            simple_min_score: 0.05,
            min_similarity: 0.3,
            hybrid_min_similarity: 0.1,
            near_duplicate: 0.8,
            weights: Weights::default(),
            min_confidence: 0.3,
            session_context: 0.2,
            session_window: 2,
            feedback_docs: 10,
            feedback_terms: 10,
            min_relevance: 0.02,
            abstain_below: 0.0,
            keep_named: true,
            keep_similar: true,
            calibration: Calibrations::default(),
            answerable: AnswerableModels::default(),
            order: Order::Score,
            boost: Vec::new(),
        }
    }
}

/// Weight of each ranker in fusion, by the ranker's registered name; a name not set weighs 0
/// (the ranker is off).
///
/// A configuration file changes only the names it sets: `[recall.weights] bm25 = 0.5` keeps
/// the other defaults. The names are checked against the rankers registered with the engine.
///
/// Recency is off by default: on LoCoMo dev (questions about any point of long conversations)
/// every recency weight tried lowered Recall@10. Turn it on where newer memories should win.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Weights(BTreeMap<String, f64>);

impl Default for Weights {
    /// bm25 1.0 (lexical), vector 1.0 (embedding similarity, hybrid only), coord 0.5 (the
    /// share of the query's terms a memory holds, rarer terms weighing more), proximity 0.25
    /// (the share of the query's neighbouring terms it holds close together), recency 0.0
    /// (newest first), access 0.4 (most accessed first), spatial 1.0 (nearest first to the
    /// query's point, when it names one).
    fn default() -> Weights {
        Weights(
            [
                ("bm25", 1.0),
                ("vector", 1.0),
                ("coord", 0.5),
                ("proximity", 0.25),
                ("recency", 0.0),
                ("access", 0.4),
                ("feedback", 0.0),
                ("spatial", 1.0),
            ]
            .into_iter()
            .map(|(n, w)| (n.to_string(), w))
            .collect(),
        )
    }
}

impl<'de> Deserialize<'de> for Weights {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Weights, D::Error> {
        let mut weights = Weights::default();
        weights.0.extend(BTreeMap::<String, f64>::deserialize(d)?);
        Ok(weights)
    }
}

impl Weights {
    /// The weight of ranker `name`: 0 when not set.
    pub fn get(&self, name: &str) -> f64 {
        self.0.get(name).copied().unwrap_or(0.0)
    }

    /// Sets the weight of ranker `name`.
    pub fn set(&mut self, name: impl Into<String>, weight: f64) {
        self.0.insert(name.into(), weight);
    }

    /// Every weight set, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> {
        self.0.iter().map(|(n, w)| (n.as_str(), *w))
    }
}

/// The relevance model of each mode: its features differ (FTS-only has no cosine), so each
/// is fitted on its own. A file's `[recall.calibration.fts]` replaces that mode's model
/// whole: coefficients fitted together are not mixed with others.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Calibrations {
    /// FTS-only mode.
    pub fts: Calibration,
    /// Hybrid mode.
    pub hybrid: Calibration,
    /// Vector-only mode.
    pub vector: Calibration,
}

impl Default for Calibrations {
    /// The models fitted by `oro-mem eval --fit-calibration` (`scripts/fit-calibration`) on
    /// the best 20 candidates of every judged query, plus those of queries the store knows
    /// nothing about, all irrelevant: the other dataset's questions asked of each store (LoCoMo
    /// dev's of SciFact, SciFact train's of LoCoMo), and the questions the stores of ten and a
    /// hundred turns of `scripts/small-stores` are asked about other conversations.
    ///
    /// FTS mode's are fitted on SciFact train, LoCoMo dev and those small stores, and read
    /// [`WEIGHTED_COVERAGE`](crate::calibration::WEIGHTED_COVERAGE): the query's words a
    /// memory holds, each weighed by how few projects' documents use it, where `coverage`
    /// counts them alike (out of sample, agentmem-dev's useful answers 0.622 → 0.664 and its
    /// tasks with nothing relevant answered with nothing 50% → 58%). Hybrid mode's
    /// also on agentmem-dev (agents' own stores; its tasks with nothing relevant among the
    /// unanswerable), and read the number of memories searched
    /// ([`MEMORIES`](crate::calibration::MEMORIES)): a task's few relevant memories are a
    /// larger share of a store of forty than of one of five thousand, and without it the models
    /// withheld what an agent's store holds for a task (useful answers on agentmem-dev, each
    /// repository left out, 0.546 → 0.748). Both are for the default fuser (`weighted_max`),
    /// weights (`coord` and `proximity` included), session context and embeddings with session
    /// context (`embedding.session_context`); see `docs/retrieval-quality.md` for how they
    /// score on queries they were not fitted on. They leave out the raw BM25 score
    /// (`lexical`), which depends on the store's size. Vector-only mode, a measuring mode, has
    /// none.
    fn default() -> Calibrations {
        Calibrations {
            fts: Calibration::new([
                ("intercept", -9.6549),
                ("coverage", 0.4799),
                ("fused", 2.9903),
                ("lexical_share", 1.5262),
                ("query_terms", 0.6607),
                ("weighted_coverage", 4.2624),
            ]),
            hybrid: Calibration::new([
                ("intercept", -9.7978),
                ("coverage", 4.3123),
                ("fused", -0.6887),
                ("lexical_share", 2.9529),
                ("memories", -0.504),
                ("query_terms", 1.4232),
                ("vector", 3.116),
                ("vector_share", 3.7318),
            ]),
            vector: Calibration::default(),
        }
    }
}

/// The answerable model of each mode ([`RecallConfig::answerable`]), fitted on its own as
/// [`Calibrations`] are. A separate type from [`Calibrations`] only for its defaults: a file
/// that sets one mode's table keeps the shipped models of the others.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AnswerableModels {
    /// FTS-only mode.
    pub fts: Calibration,
    /// Hybrid mode.
    pub hybrid: Calibration,
    /// Vector-only mode.
    pub vector: Calibration,
}

impl Default for AnswerableModels {
    /// The models fitted by `oro-mem eval --fit-calibration` with the relevance models (see
    /// [`Calibrations::default`]), on one example per query: the features of the query, and
    /// whether the store it was asked of holds anything relevant to it (judged queries) or
    /// not (unrelated queries, and the questions a small store is asked about other
    /// conversations).
    ///
    /// Hybrid mode's reads the best cosine, the words (as FTS mode's does), the number of
    /// memories searched, and how far the best cosine and the best coverage stand out from the
    /// next five ([`GAP_SUFFIX`](crate::calibration::GAP_SUFFIX)). Out of sample it answers
    /// 99% of the other dataset's questions with nothing, and 57% of agentmem-dev's tasks with
    /// nothing relevant.
    ///
    /// FTS mode's reads words alone (the best coverage, plain and with each word weighed by
    /// how specific it is, whether the candidates hold every term of the query between them,
    /// [`TERMS_FOUND`](crate::calibration::TERMS_FOUND), and the query's length) and the number of memories the query searched
    /// ([`MEMORIES`](crate::calibration::MEMORIES)): without it, a model that silenced most
    /// questions a large store knows nothing about also silenced a store of ten memories on a
    /// task that shares one word with the memory that matters (0.11 of its useful answers),
    /// since the best match of a small store means more. Out of sample it answers 97% and
    /// 81% of the other dataset's questions with nothing. See
    /// `docs/retrieval-quality.md`, "Estimated relevance and abstaining", for its figures.
    /// Vector-only mode, a measuring mode, has none.
    fn default() -> AnswerableModels {
        AnswerableModels {
            fts: Calibration::new([
                ("intercept", -11.3189),
                ("coverage_best", 4.5939),
                ("memories", -0.8447),
                ("query_terms", 4.3449),
                ("terms_found", 0.3011),
                ("weighted_coverage_best", 14.3499),
            ]),
            hybrid: Calibration::new([
                ("intercept", -14.6195),
                ("coverage_best", 13.6341),
                ("coverage_gap", -7.3194),
                ("memories", -0.8062),
                ("query_terms", 3.2598),
                ("terms_found", 1.4762),
                ("vector_best", 22.9927),
                ("vector_gap", 2.3661),
            ]),
            vector: Calibration::default(),
        }
    }
}

/// `get` and `get_mut` by mode for a set of per-mode models.
macro_rules! per_mode {
    ($models:ty) => {
        impl $models {
            /// The model of `mode`.
            pub fn get(&self, mode: Mode) -> &Calibration {
                match mode {
                    Mode::Fts => &self.fts,
                    Mode::Hybrid => &self.hybrid,
                    Mode::Vector => &self.vector,
                }
            }

            /// The model of `mode`, to change.
            pub fn get_mut(&mut self, mode: Mode) -> &mut Calibration {
                match mode {
                    Mode::Fts => &mut self.fts,
                    Mode::Hybrid => &mut self.hybrid,
                    Mode::Vector => &mut self.vector,
                }
            }
        }
    };
}

per_mode!(Calibrations);
per_mode!(AnswerableModels);

/// Time decay: `0.5^(age_days / half_life_days)`; pinned memories never decay.
///
/// Off by default: on LoCoMo dev a 30-day half-life cut Recall@10 from 0.63 to 0.15 (FTS), and
/// even 365 days cost 0.20. Turn it on for stores whose memories go stale.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DecayConfig {
    /// Turns decay off entirely when false.
    pub enabled: bool,
    /// Half-life in days.
    pub half_life_days: f64,
    /// Half-life per memory type, overriding `half_life_days`.
    pub half_life_by_type: BTreeMap<MemoryType, f64>,
}

impl Default for DecayConfig {
    fn default() -> DecayConfig {
        DecayConfig {
            enabled: false,
            half_life_days: 30.0,
            half_life_by_type: BTreeMap::new(),
        }
    }
}

/// How memories are embedded (hybrid and vector mode).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EmbeddingConfig {
    /// How much the memories before it in its session weigh in a memory's embedding: the
    /// vector is `e(text) + session_context × e(previous + text)`, made unit length, where
    /// `previous` is the text of the session's
    /// [`CONTEXT_MEMORIES`](crate::memory::CONTEXT_MEMORIES) memories before it. A
    /// conversation's turn ("yes, twice last summer") is understood with the ones it answers.
    /// 0 embeds each text alone; memories without a session, or first in theirs, are embedded
    /// alone anyway. Applies to embeddings made from then on (`oro-mem embed` does not redo
    /// the others). 3 was chosen by leaving one LoCoMo conversation out at a time (with two
    /// memories before, hybrid mode picks 3 in four folds of five and 6 in the other).
    pub session_context: f64,
}

impl Default for EmbeddingConfig {
    fn default() -> EmbeddingConfig {
        EmbeddingConfig {
            session_context: 3.0,
        }
    }
}

/// Write-time duplicate detection.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DedupConfig {
    /// Off skips the check.
    pub enabled: bool,
    /// Normalized BM25 of the best existing match above which new content is a duplicate.
    pub bm25: f64,
    /// Cosine similarity above which new content is a duplicate (hybrid).
    pub cosine: f64,
    /// A memory its words make a duplicate of another is none when the cosine of the two
    /// (both embedded by one model) is below this: the words are the same, what they say is
    /// not ("The `model` you are using" and "The library enables structured LLM outputs
    /// using Pydantic models …"). Hybrid; 0 turns it off.
    pub min_cosine: f64,
    /// With the check on, a new memory that is an active one of its namespace with values
    /// changed supersedes it (an update).
    pub updates: bool,
}

impl Default for DedupConfig {
    fn default() -> DedupConfig {
        DedupConfig {
            enabled: true,
            bm25: 0.7,
            cosine: 0.85,
            min_cosine: 0.45,
            updates: true,
        }
    }
}

/// `consolidate` thresholds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConsolidateConfig {
    /// Normalized BM25 above which two memories are merged.
    pub merge_bm25: f64,
    /// Two memories embedded by one model whose cosine is below this are not merged, however
    /// alike their words (as `dedup.min_cosine` keeps them apart on write); 0: the words
    /// alone decide.
    pub merge_min_cosine: f64,
    /// Memories below this confidence ...
    pub prune_below_confidence: f64,
    /// ... and not accessed (or created) for this many days are archived. Pinned ones never.
    pub prune_after_days: f64,
}

impl Default for ConsolidateConfig {
    fn default() -> ConsolidateConfig {
        ConsolidateConfig {
            merge_bm25: 0.8,
            merge_min_cosine: 0.45,
            prune_below_confidence: 0.3,
            prune_after_days: 90.0,
        }
    }
}

/// `oro-mem serve` settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServeConfig {
    /// The server stops after this many minutes without a request; 0: never.
    pub idle_minutes: f64,
    /// A hybrid- or vector-mode command that finds no server starts one in the background
    /// (and answers by itself that once).
    pub auto_start: bool,
}

impl Default for ServeConfig {
    fn default() -> ServeConfig {
        ServeConfig {
            idle_minutes: 30.0,
            auto_start: true,
        }
    }
}

/// What one memory may hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MemoryConfig {
    /// The most bytes a memory's content may have: a memory is a statement an agent learned,
    /// injected into a prompt, not a document (one of 5 MB took 467 MB of memory to embed).
    /// A larger one is refused with an error naming this key.
    pub max_bytes: usize,
}

impl Default for MemoryConfig {
    fn default() -> MemoryConfig {
        MemoryConfig {
            max_bytes: DEFAULT_MAX_MEMORY_BYTES,
        }
    }
}

/// `memory.max_bytes`' default: 64 KiB, about 16,000 tokens, far more than a prompt's
/// memories get (`recall.budget_tokens`, 500) and far less than what strains the model.
pub const DEFAULT_MAX_MEMORY_BYTES: usize = 64 * 1024;

impl MemoryConfig {
    /// Checks `content` against `max_bytes`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) naming the size and the
    /// key.
    pub fn check(&self, content: &str) -> Result<()> {
        if content.len() > self.max_bytes {
            return Err(Error::invalid_input(format!(
                "memory content is {} bytes, more than memory.max_bytes = {}",
                content.len(),
                self.max_bytes
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_match_the_spec() {
        let c = Config::default();
        c.validate().unwrap();
        assert_eq!(c.recall.depth, 50);
        assert_eq!(c.recall.rrf_k, 20.0);
        assert_eq!(c.recall.fusion, "weighted_max");
        assert!(!c.decay.enabled);
        assert_eq!(c.recall.budget_tokens, 500);
        assert_eq!(c.decay.half_life_days, 30.0);
    }

    #[test]
    fn weights_from_a_file_change_only_the_names_set() {
        let c: Config = toml::from_str("[recall.weights]\nbm25 = 0.5\nbrevity = 2.0\n").unwrap();
        let w = &c.recall.weights;
        assert_eq!(
            (w.get("bm25"), w.get("vector"), w.get("access")),
            (0.5, 1.0, 0.4)
        );
        assert_eq!((w.get("brevity"), w.get("unset")), (2.0, 0.0));
    }

    #[test]
    fn boost_rules_are_read_in_order_and_a_bad_one_is_named() {
        let c: Config = toml::from_str(
            "[[recall.boost]]\nwhere = '{\"env.kind\": \"real\"}'\nfactor = 1.5\n\
             [[recall.boost]]\nsources = [\"import\"]\nfactor = 0.5\n",
        )
        .unwrap();
        let rules: Vec<(String, f64)> = c
            .recall
            .boost
            .iter()
            .map(|b| (b.describe(), b.factor()))
            .collect();
        assert_eq!(
            rules,
            [
                (r#"where {"env.kind": "real"}"#.to_string(), 1.5),
                ("sources import".to_string(), 0.5)
            ]
        );
        // Written back as read.
        let again: Config = toml::from_str(&toml::to_string(&c).unwrap()).unwrap();
        assert_eq!(again, c);
        for (rule, says) in [
            ("factor = 2", "needs a condition"),
            ("sources = [\"import\"]\nfactor = 0", "above 0"),
            ("sources = [\"import\"]\nfactor = nan", "above 0"),
            (
                "where = '{\"a\": [1]}'\nfactor = 2",
                "string, number or boolean",
            ),
            ("where = 'lang = rust'\nfactor = 2", "not valid JSON"),
            ("where = '{\"a\": 1}'\nfactr = 2", "unknown field `factr`"),
            ("where = '{\"a\": 1}'", "missing field `factor`"),
        ] {
            let err = toml::from_str::<Config>(&format!("[[recall.boost]]\n{rule}\n"))
                .unwrap_err()
                .to_string();
            assert!(err.contains(says), "{rule}: {err}");
        }
    }

    #[test]
    fn validate_names_the_bad_key() {
        let mut c = Config::default();
        c.recall.weights.set("recency", -1.0);
        assert!(c
            .validate()
            .unwrap_err()
            .to_string()
            .contains("recall.weights.recency"));
        let mut c = Config::default();
        c.decay.half_life_by_type.insert(MemoryType::Gotcha, 0.0);
        assert!(c.validate().unwrap_err().to_string().contains("gotcha"));
    }
}

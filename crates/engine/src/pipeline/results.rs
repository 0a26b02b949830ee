//! What a recall returns: the memories selected, each with its scores and why, and what
//! each stage did (`--explain`).

use oro_mem_core::calibration::Features;
use oro_mem_core::Memory;
use serde::Serialize;

use super::Abstention;

/// One input list's part in a result, for `--explain`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ListExplain {
    /// The ranker's name.
    pub name: String,
    /// Its weight.
    pub weight: f64,
    /// The result's tie-aware rank in that list (from 1), if present.
    pub rank: Option<usize>,
    /// The ranker's own score for the result, if present.
    pub score: Option<f64>,
    /// What the fuser gave the result for this list.
    pub contribution: f64,
}

/// A boost rule's part in a result, for `--explain`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoostExplain {
    /// The rule's place in `recall.boost`, from 1.
    pub rule: usize,
    /// The rule as written (`where {...}`).
    pub condition: String,
    /// What it multiplied the relevance by.
    pub factor: f64,
}

/// A recalled memory with everything that went into its score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Recalled {
    /// The memory.
    pub memory: Memory,
    /// Final score divided by the best final score, so the best result shows 1.0.
    pub score: f64,
    /// Final score: fused × confidence × decay, or with `recall.order = "relevance"`,
    /// relevance (the estimate) × confidence × decay.
    pub raw_score: f64,
    /// The score before confidence and decay: the fused score, plus the pinned bonus and
    /// what the memory's session neighbours lend it (`recall.session_context`), times the
    /// factor of each boost rule it meets (`recall.boost`).
    pub fused: f64,
    /// The confidence factor.
    pub confidence: f64,
    /// The decay factor.
    pub decay: f64,
    /// Estimated tokens of the content as returned.
    pub tokens: usize,
    /// True when the content was cut to fit the budget (only ever the first result).
    pub truncated: bool,
    /// Per-list ranks and contributions (fused scoring).
    pub lists: Vec<ListExplain>,
    /// The boost rules the memory meets, in order (none when empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub boosts: Vec<BoostExplain>,
    /// The estimated probability that the memory is relevant to the query, when the pipeline
    /// has a calibration: its relevance, as `recall.min_relevance` and `recall.order =
    /// "relevance"` name it (and JSON, MCP and `--explain` show it).
    #[serde(rename = "relevance", skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
    /// The evidence the estimate was made from (empty without a calibration).
    #[serde(skip_serializing_if = "Features::is_empty")]
    pub features: Features,
    /// The identifier of the query this memory names, when that kept it though its estimated
    /// relevance is below `recall.min_relevance` (`recall.keep_named`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub named: Option<String>,
    /// Its cosine to the query, when nothing reached `recall.min_relevance` and that kept it:
    /// the nearest memory by meaning, as near as few unrelated memories come in a store of
    /// this size, or far nearer than any other (`recall.keep_similar`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similar: Option<f64>,
    /// When `similar` kept it because it stands apart: the cosine of the memory next nearest
    /// the query (or the vector list's gate, when that is higher).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similar_next: Option<f64>,
}

/// The outcome of a recall.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Recall {
    /// The results, best first.
    pub results: Vec<Recalled>,
    /// How many candidates were considered.
    pub candidates: usize,
    /// How many of them were dropped before ranking for matching none of the query's words
    /// and having an embedding less similar than `min_similarity`.
    pub dissimilar: usize,
    /// How many were dropped for lying farther from the query's point than its maximum
    /// distance ([`Query::near`](oro_mem_core::Query::near)).
    pub too_far: usize,
    /// How many passed the minimum score.
    pub above_threshold: usize,
    /// How many of those were passed over for an estimated relevance below `min_relevance`.
    /// Recall estimates only the candidates it looks at, in score order, until it has
    /// `max_results`; with `order = "relevance"` it estimates every one.
    pub below_relevance: usize,
    /// How many results were withheld because the best of them was below
    /// `recall.abstain_below`.
    pub unsure: usize,
    /// Why nothing was returned, when nothing was.
    pub abstained: Option<Abstention>,
    /// The estimated probability that the store holds anything relevant to the query (the
    /// [`Pipeline::answerable`](super::Pipeline::answerable) factor of every estimate), when
    /// there is such a model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answerable: Option<f64>,
    /// The lists (rankers, by name) that ranked at least one candidate, in pipeline order.
    pub ranked_by: Vec<String>,
    /// Problems that did not stop recall (a ranker that failed, ...).
    pub warnings: Vec<String>,
}

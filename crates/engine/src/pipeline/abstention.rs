//! Why a recall returned nothing ([`Abstention`]), and the estimated relevance it reports
//! ([`Estimate`]).

use serde::Serialize;

/// Why a recall returned nothing. Serialized as `{"reason": "below_relevance", "message":
/// "...", ...the variant's fields}`.
#[derive(Clone, Debug, PartialEq)]
pub enum Abstention {
    /// No memory matched the query (under its filter).
    NoCandidates,
    /// The query has no word to search for (every word of it is a stopword or a single
    /// character: "is it the?"), and nothing else found a memory for it.
    NoTerms,
    /// No memory matched the query under its filter, but some would have without its
    /// minimum confidence (`recall.min_confidence`, or the query's own).
    BelowConfidence {
        /// How many memories matched without the minimum (as far as the sources read).
        memories: usize,
        /// The minimum they were below.
        min_confidence: f64,
    },
    /// Memories matched, but none was similar enough to the query (`min_similarity`) or
    /// scored at least the minimum score.
    FilteredOut {
        /// How many candidates there were.
        candidates: usize,
    },
    /// Memories matched, but none was likely enough to be relevant.
    BelowRelevance {
        /// The best estimated probability of relevance among them.
        best: f64,
        /// The bar they had to reach (`recall.min_relevance`).
        min_relevance: f64,
    },
    /// Memories matched, but the best of them was not likely enough to be relevant for the
    /// query to be answered at all.
    Unsure {
        /// The best estimated probability of relevance among them.
        best: f64,
        /// The bar the best had to reach (`recall.abstain_below`).
        abstain_below: f64,
    },
}

impl Abstention {
    /// The reason's name: `no_candidates`, `no_terms`, `below_confidence`, `filtered_out` or
    /// `below_relevance`.
    pub fn reason(&self) -> &'static str {
        match self {
            Abstention::NoCandidates => "no_candidates",
            Abstention::NoTerms => "no_terms",
            Abstention::BelowConfidence { .. } => "below_confidence",
            Abstention::FilteredOut { .. } => "filtered_out",
            Abstention::BelowRelevance { .. } | Abstention::Unsure { .. } => "below_relevance",
        }
    }
}

impl Serialize for Abstention {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("reason", self.reason())?;
        m.serialize_entry("message", &self.to_string())?;
        match self {
            Abstention::NoCandidates | Abstention::NoTerms => {}
            Abstention::BelowConfidence {
                memories,
                min_confidence,
            } => {
                m.serialize_entry("memories", memories)?;
                m.serialize_entry("min_confidence", min_confidence)?;
            }
            Abstention::FilteredOut { candidates } => {
                m.serialize_entry("candidates", candidates)?
            }
            Abstention::BelowRelevance {
                best,
                min_relevance,
            } => {
                m.serialize_entry("best", best)?;
                m.serialize_entry("min_relevance", min_relevance)?;
            }
            Abstention::Unsure {
                best,
                abstain_below,
            } => {
                m.serialize_entry("best", best)?;
                m.serialize_entry("abstain_below", abstain_below)?;
            }
        }
        m.end()
    }
}

impl std::fmt::Display for Abstention {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Abstention::NoCandidates => f.write_str("no memory matches the query"),
            Abstention::NoTerms => f.write_str(
                "the query has no word to search for: every word of it is a common word or a \
                 single character",
            ),
            Abstention::BelowConfidence {
                memories,
                min_confidence,
            } => write!(
                f,
                "no memory matches the query at confidence {min_confidence} or more; \
                 {memories} below it do (recall.min_confidence, or --min-confidence)"
            ),
            Abstention::FilteredOut { candidates } => write!(
                f,
                "{candidates} memories matched, but none was similar enough to the query or \
                 reached the minimum score"
            ),
            Abstention::BelowRelevance {
                best,
                min_relevance,
            } => write!(
                f,
                "no memory is likely relevant: the best estimated relevance is {}, \
                 below recall.min_relevance = {min_relevance}",
                Estimate(*best).below(*min_relevance)
            ),
            Abstention::Unsure {
                best,
                abstain_below,
            } => write!(
                f,
                "no memory is likely enough relevant: the best estimated relevance is {}, \
                 below recall.abstain_below = {abstain_below}",
                Estimate(*best).below(*abstain_below)
            ),
        }
    }
}

/// An estimated probability as a reader compares it with a bar: two decimals, or two
/// significant digits below 0.01 (0.0083, not 0.00, which would read as "no chance at all").
///
/// ```
/// use oro_mem_engine::Estimate;
///
/// assert_eq!(Estimate(0.4031).to_string(), "0.40");
/// assert_eq!(Estimate(0.000082).to_string(), "0.000082");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate(pub f64);

impl Estimate {
    /// The estimate as [`Display`](std::fmt::Display) shows it, with more decimals where that
    /// would round it up to `bar` or past it, so that one below the bar reads below it (0.0196
    /// against a bar of 0.02, not 0.02).
    ///
    /// ```
    /// use oro_mem_engine::Estimate;
    ///
    /// assert_eq!(Estimate(0.0196).below(0.02), "0.0196");
    /// assert_eq!(Estimate(0.013).below(0.02), "0.01");
    /// ```
    pub fn below(self, bar: f64) -> String {
        let shown = self.to_string();
        if self.0 >= bar || shown.parse::<f64>().map_or(true, |s| s < bar) {
            return shown;
        }
        (3..=12)
            .map(|decimals| format!("{:.decimals$}", self.0))
            .find(|s| s.parse::<f64>().is_ok_and(|s| s < bar))
            .unwrap_or(shown)
    }
}

impl std::fmt::Display for Estimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = self.0;
        if p > 0.0 && p < 0.01 && p.is_finite() {
            // Two significant digits: the first nonzero one is at 10^floor(log10 p).
            let decimals = (1.0 - p.log10().floor()) as usize;
            write!(f, "{p:.decimals$}")
        } else {
            write!(f, "{p:.2}")
        }
    }
}

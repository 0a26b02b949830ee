//! The configurations an evaluation runs: settings by short name or full key
//! ([`set`]), grid axes ([`Axis`]) and their every combination ([`expand`]).

use oro_mem_core::config::WEIGHT_PREFIX;
use oro_mem_core::{Config, Error, Result};
use oro_mem_engine::Registry;

/// Most configurations one grid may expand to.
pub const MAX_GRID: usize = 500;

/// Results kept per query when ranking only: enough for Recall@100.
pub const RANKED: usize = 100;

/// Short names a grid and a setting take besides the configuration's own keys, and the keys
/// each sets. A registered ranker's name sets its weight (`bm25=0.5`).
const ALIASES: &[(&str, &[&str])] = &[
    ("k", &["recall.rrf_k"]),
    ("rrf_k", &["recall.rrf_k"]),
    ("fusion", &["recall.fusion"]),
    ("decay", &["decay.enabled"]),
    ("half_life", &["decay.half_life_days"]),
    ("depth", &["recall.depth", "recall.vector_depth"]),
    ("lexical_depth", &["recall.depth"]),
    ("vector_depth", &["recall.vector_depth"]),
    ("min_similarity", &["recall.min_similarity"]),
];

/// The keys [`set`] and [`Axis::parse`] understand, for error messages and `--help`.
pub fn keys() -> String {
    let aliases: Vec<String> = ALIASES
        .iter()
        .map(|(short, keys)| format!("{short} ({})", keys.join(" and ")))
        .collect();
    let registry = Registry::default();
    let rankers: Vec<&str> = registry.ranker_names().collect();
    format!(
        "{}, mode, the weight of any ranker by its name ({}), or any configuration key in \
         full (recall.min_score, dedup.cosine, ...)",
        aliases.join(", "),
        rankers.join(", ")
    )
}

/// Sets `key` (an alias, a ranker's name, or a configuration key) to `value` in `config`,
/// checked against the key's domain ([`oro_mem_core::config::KEYS`]) and, for a fusion, the
/// registered fusers.
///
/// # Errors
///
/// [`ErrorKind::Config`](oro_mem_core::ErrorKind::Config) naming the setting and what it
/// expects.
pub fn set(config: &mut Config, key: &str, value: &str) -> Result<()> {
    let registry = Registry::default();
    let full: Vec<String> = match ALIASES.iter().find(|(short, _)| *short == key) {
        Some((_, keys)) => keys.iter().map(|k| k.to_string()).collect(),
        None if registry.ranker_names().any(|n| n == key) => {
            vec![format!("{WEIGHT_PREFIX}{key}")]
        }
        None => vec![key.to_string()],
    };
    for k in &full {
        config
            .set(k, value)
            .map_err(|e| e.context(format!("{key}={value}")))?;
    }
    if (key == "fusion" || key == "recall.fusion") && !registry.fuser_names().any(|n| n == value) {
        return Err(Error::config(format!(
            "{key}={value}: expected one of {}",
            registry.fuser_names().collect::<Vec<_>>().join(", ")
        )));
    }
    Ok(())
}

/// One grid axis: a configuration key and the values it takes.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    key: String,
    values: Vec<String>,
}

impl Axis {
    /// Parses `KEY=V1,V2,...`, checking every value.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](oro_mem_core::ErrorKind::Config) when the text is not of that
    /// form, has no values, or a value is out of the key's domain; and for an `embedding.`
    /// key, which cannot vary within one evaluation (the corpus is embedded once).
    pub fn parse(text: &str) -> Result<Axis> {
        let context = |e: Error| e.context(format!("--grid {text:?}"));
        let (key, values) = text.split_once('=').ok_or_else(|| {
            Error::config(format!(
                "--grid {text:?}: expected KEY=V1,V2,... (keys: {})",
                keys()
            ))
        })?;
        let key = key.trim().to_string();
        if key.starts_with("embedding.") {
            return Err(Error::config(format!(
                "--grid {text:?}: the corpus is embedded once per eval, so {key} cannot vary \
                 in a grid; run eval once per value with --set {key}=V"
            )));
        }
        let values: Vec<String> = values
            .split(',')
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .collect();
        if values.is_empty() {
            return Err(Error::config(format!(
                "--grid {text:?}: no values for {key}"
            )));
        }
        for v in &values {
            set(&mut Config::default(), &key, v).map_err(context)?;
        }
        Ok(Axis { key, values })
    }
}

/// One configuration to evaluate and the grid values that made it.
#[derive(Clone, Debug)]
pub struct Setting {
    /// The grid's key and value for each axis, in the axes' order.
    pub settings: Vec<(String, String)>,
    /// The configuration they make.
    pub config: Config,
}

impl Setting {
    /// Its grid values as `key=value ...`, or its mode without a grid.
    pub fn label(&self) -> String {
        if self.settings.is_empty() {
            return format!("mode={}", self.config.mode);
        }
        self.settings
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Every combination of the axes' values over `base`, in order (the last axis varies
/// fastest).
///
/// # Errors
///
/// [`ErrorKind::Config`](oro_mem_core::ErrorKind::Config) when that is more than
/// [`MAX_GRID`] configurations.
pub fn expand(base: &Config, axes: &[Axis]) -> Result<Vec<Setting>> {
    let total = axes
        .iter()
        .try_fold(1usize, |n, a| n.checked_mul(a.values.len()))
        .filter(|&n| n <= MAX_GRID)
        .ok_or_else(|| {
            Error::config(format!(
                "--grid expands to more than {MAX_GRID} configurations"
            ))
        })?;
    let mut runs = Vec::with_capacity(total);
    for i in 0..total {
        let mut config = base.clone();
        let mut settings = Vec::new();
        let mut rest = i;
        let mut picks = vec![0; axes.len()];
        for (j, axis) in axes.iter().enumerate().rev() {
            picks[j] = rest % axis.values.len();
            rest /= axis.values.len();
        }
        for (axis, &p) in axes.iter().zip(&picks) {
            set(&mut config, &axis.key, &axis.values[p])?;
            settings.push((axis.key.clone(), axis.values[p].clone()));
        }
        runs.push(Setting { settings, config });
    }
    Ok(runs)
}

/// Turns the product's recall into a pure ranking of the best [`RANKED`]: no minimum score or
/// relevance, no token budget, no near-duplicate skipping, so the metrics judge the order
/// alone.
///
/// Vector mode's cosine gate (`recall.min_similarity`) goes too: that mode has no relevance
/// model, so the gate is its selection, as `recall.min_relevance` is the other modes', and it
/// drops candidates without reordering any (ranked with it, a task whose best cosine is below
/// the gate counts as a ranking of nothing). Hybrid mode's gate stays: it decides which
/// candidates enter the fusion, and so the order.
pub fn ranking_only(config: &mut Config, depth: usize) {
    config.fallback_to_fts = false;
    let r = &mut config.recall;
    r.depth = depth;
    r.vector_depth = depth;
    r.max_results = RANKED;
    r.budget_tokens = usize::MAX;
    r.min_score = 0.0;
    r.hybrid_min_score = 0.0;
    r.min_similarity = 0.0;
    r.min_relevance = 0.0;
    r.abstain_below = 0.0;
    r.near_duplicate = f64::INFINITY;
}

#[cfg(test)]
mod tests {
    use oro_mem_core::Mode;

    use super::*;

    #[test]
    fn grid_expands_to_every_combination_last_axis_fastest() {
        let axes = [
            Axis::parse("mode=fts,hybrid").unwrap(),
            Axis::parse("k=20, 60").unwrap(),
        ];
        let runs = expand(&Config::default(), &axes).unwrap();
        let labels: Vec<String> = runs.iter().map(Setting::label).collect();
        assert_eq!(
            labels,
            [
                "mode=fts k=20",
                "mode=fts k=60",
                "mode=hybrid k=20",
                "mode=hybrid k=60"
            ]
        );
        assert_eq!(runs[3].config.mode, Mode::Hybrid);
        assert_eq!(runs[2].config.recall.rrf_k, 20.0);
    }

    #[test]
    fn grid_values_are_checked_up_front() {
        for (bad, says) in [
            ("k", "expected KEY=V1,V2"),
            ("k=", "no values"),
            ("k=-1", "number >= 0"),
            ("depth=0", "whole number >= 1"),
            ("decay=maybe", "on or off"),
            (
                "fusion=borda",
                "weighted_score, weighted_max, weighted_z, rrf",
            ),
            ("mode=semantic", "unknown mode"),
            ("speed=fast", "unknown setting"),
        ] {
            let err = Axis::parse(bad).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
            assert!(err.starts_with("--grid"), "{bad}: {err}");
        }
        let big: Vec<Axis> = (0..3)
            .map(|_| Axis::parse(&format!("k={}", ["1"; 10].join(","))).unwrap())
            .collect();
        assert!(expand(&Config::default(), &big).is_err());
    }

    #[test]
    fn settings_reach_the_config() {
        let mut c = Config::default();
        for (k, v) in [
            ("fusion", "weighted_score"),
            ("decay", "off"),
            ("depth", "200"),
            ("vector_depth", "30"),
            ("bm25", "0.5"),
            ("access", "0"),
            ("half_life", "7"),
        ] {
            set(&mut c, k, v).unwrap();
        }
        assert_eq!(c.recall.fusion, "weighted_score");
        assert!(!c.decay.enabled);
        assert_eq!((c.recall.depth, c.recall.vector_depth), (200, 30));
        assert_eq!(c.recall.weights.get("bm25"), 0.5);
        assert_eq!(c.recall.weights.get("access"), 0.0);
        assert_eq!(c.decay.half_life_days, 7.0);
    }
}

//! Every configuration key, defined once: its dotted name, the values it takes, and how it is
//! read and set. [`Config::validate`], [`Config::set`], `oro-mem eval`'s `--set`/`--grid`, the
//! commented configuration template and the README's table all follow [`KEYS`] (tests fail
//! when one of them, or a field of [`Config`], disagrees).

use crate::config::{Config, Mode, Order, Scoring, MAX_RESULTS};
use crate::error::{Error, Result};
use crate::memory::MemoryType;

/// The values a key takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Domain {
    /// A finite number ≥ 0.
    NonNegative,
    /// A number in `[0, 1]`.
    Unit,
    /// A finite number > 0.
    Positive,
    /// A number ≥ 0 where anything above 1 turns the feature off.
    Threshold,
    /// A whole number ≥ 1.
    Count,
    /// A whole number from 1 to this.
    CountUpTo(usize),
    /// A whole number ≥ 0.
    Size,
    /// `true`/`false` (also `on`/`off`).
    Flag,
    /// One of a fixed set of names.
    Choice(&'static [&'static str]),
    /// The name of a registered plug-in, checked by the engine.
    Name,
}

impl Domain {
    /// What the domain accepts, for error messages.
    pub fn describe(self) -> String {
        match self {
            Domain::NonNegative => "a finite number >= 0".into(),
            Domain::Unit => "a number between 0 and 1".into(),
            Domain::Positive => "a number > 0".into(),
            Domain::Threshold => "a number >= 0 (above 1 turns it off)".into(),
            Domain::Count => "a whole number >= 1".into(),
            Domain::CountUpTo(max) => format!("a whole number from 1 to {max}"),
            Domain::Size => "a whole number >= 0".into(),
            Domain::Flag => "true or false (on or off)".into(),
            Domain::Choice(names) => format!("one of {}", names.join(", ")),
            Domain::Name => "a registered name".into(),
        }
    }

    /// Whether the whole number `v` is in the domain (whole domains; others accept any).
    fn admits_whole(self, v: usize) -> bool {
        match self {
            Domain::Count => v >= 1,
            Domain::CountUpTo(max) => (1..=max).contains(&v),
            _ => true,
        }
    }

    /// Whether the number `v` is in the domain (numeric domains; others accept any).
    fn admits(self, v: f64) -> bool {
        match self {
            Domain::NonNegative => v.is_finite() && v >= 0.0,
            Domain::Unit => (0.0..=1.0).contains(&v),
            Domain::Positive => v.is_finite() && v > 0.0,
            Domain::Threshold => v >= 0.0,
            _ => true,
        }
    }
}

/// How a key is read and written.
#[derive(Clone, Copy)]
enum Access {
    Number(fn(&Config) -> f64, fn(&mut Config, f64)),
    Whole(fn(&Config) -> usize, fn(&mut Config, usize)),
    Flag(fn(&mut Config, bool)),
    Text(fn(&mut Config, &str) -> Result<()>),
}

/// One configuration key.
#[derive(Clone, Copy)]
pub struct Key {
    /// The dotted name, as in the configuration file (`recall.depth`).
    pub name: &'static str,
    /// The values it takes.
    pub domain: Domain,
    access: Access,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Key")
            .field("name", &self.name)
            .field("domain", &self.domain)
            .finish_non_exhaustive()
    }
}

const fn number(
    name: &'static str,
    domain: Domain,
    get: fn(&Config) -> f64,
    set: fn(&mut Config, f64),
) -> Key {
    Key {
        name,
        domain,
        access: Access::Number(get, set),
    }
}

const fn whole(
    name: &'static str,
    domain: Domain,
    get: fn(&Config) -> usize,
    set: fn(&mut Config, usize),
) -> Key {
    Key {
        name,
        domain,
        access: Access::Whole(get, set),
    }
}

const fn flag(name: &'static str, set: fn(&mut Config, bool)) -> Key {
    Key {
        name,
        domain: Domain::Flag,
        access: Access::Flag(set),
    }
}

const fn text(name: &'static str, domain: Domain, set: fn(&mut Config, &str) -> Result<()>) -> Key {
    Key {
        name,
        domain,
        access: Access::Text(set),
    }
}

/// The prefix of a ranker's weight key: `recall.weights.<ranker>`, a [`Domain::NonNegative`]
/// number, for any ranker registered with the engine.
pub const WEIGHT_PREFIX: &str = "recall.weights.";

/// The prefix of a per-type half-life: `decay.half_life_by_type.<type>`, a
/// [`Domain::Positive`] number of days.
pub const HALF_LIFE_BY_TYPE_PREFIX: &str = "decay.half_life_by_type.";

/// The prefix of a relevance model's coefficient: `recall.calibration.<mode>.<name>`, a
/// finite number, `<name>` being `intercept` or a feature (see [`crate::calibration`]; feature
/// names are checked by the engine, which knows the candidate sources).
pub const CALIBRATION_PREFIX: &str = "recall.calibration.";

/// The prefix of an answerable model's coefficient: `recall.answerable.<mode>.<name>`, as
/// [`CALIBRATION_PREFIX`]'s (see [`RecallConfig::answerable`](super::RecallConfig::answerable)).
pub const ANSWERABLE_PREFIX: &str = "recall.answerable.";

/// Every key with one value (the weights, per-type half-lives and calibration coefficients
/// are families of keys under [`WEIGHT_PREFIX`], [`HALF_LIFE_BY_TYPE_PREFIX`] and
/// [`CALIBRATION_PREFIX`]).
pub const KEYS: &[Key] = &[
    text(
        "mode",
        Domain::Choice(&["fts", "hybrid", "vector"]),
        |c, v| {
            c.mode = v.parse::<Mode>()?;
            Ok(())
        },
    ),
    flag("fallback_to_fts", |c, v| c.fallback_to_fts = v),
    whole(
        "recall.depth",
        Domain::Count,
        |c| c.recall.depth,
        |c, v| c.recall.depth = v,
    ),
    whole(
        "recall.max_results",
        Domain::CountUpTo(MAX_RESULTS),
        |c| c.recall.max_results,
        |c, v| c.recall.max_results = v,
    ),
    whole(
        "recall.budget_tokens",
        Domain::Count,
        |c| c.recall.budget_tokens,
        |c, v| c.recall.budget_tokens = v,
    ),
    text(
        "recall.scoring",
        Domain::Choice(&["fused", "simple"]),
        |c, v| {
            c.recall.scoring = v.parse::<Scoring>()?;
            Ok(())
        },
    ),
    text("recall.fusion", Domain::Name, |c, v| {
        c.recall.fusion = v.trim().to_string();
        Ok(())
    }),
    number(
        "recall.rrf_k",
        Domain::NonNegative,
        |c| c.recall.rrf_k,
        |c, v| c.recall.rrf_k = v,
    ),
    number(
        "recall.min_score",
        Domain::NonNegative,
        |c| c.recall.min_score,
        |c, v| c.recall.min_score = v,
    ),
    number(
        "recall.hybrid_min_score",
        Domain::NonNegative,
        |c| c.recall.hybrid_min_score,
        |c, v| c.recall.hybrid_min_score = v,
    ),
    whole(
        "recall.vector_depth",
        Domain::Size,
        |c| c.recall.vector_depth,
        |c, v| c.recall.vector_depth = v,
    ),
    flag("recall.score_all_lexically", |c, v| {
        c.recall.score_all_lexically = v;
    }),
    number(
        "recall.simple_min_score",
        Domain::NonNegative,
        |c| c.recall.simple_min_score,
        |c, v| c.recall.simple_min_score = v,
    ),
    number(
        "recall.min_similarity",
        Domain::Unit,
        |c| c.recall.min_similarity,
        |c, v| c.recall.min_similarity = v,
    ),
    number(
        "recall.hybrid_min_similarity",
        Domain::Unit,
        |c| c.recall.hybrid_min_similarity,
        |c, v| c.recall.hybrid_min_similarity = v,
    ),
    number(
        "recall.near_duplicate",
        Domain::Threshold,
        |c| c.recall.near_duplicate,
        |c, v| c.recall.near_duplicate = v,
    ),
    number(
        "recall.min_confidence",
        Domain::Unit,
        |c| c.recall.min_confidence,
        |c, v| c.recall.min_confidence = v,
    ),
    number(
        "recall.session_context",
        Domain::NonNegative,
        |c| c.recall.session_context,
        |c, v| c.recall.session_context = v,
    ),
    whole(
        "recall.session_window",
        Domain::Count,
        |c| c.recall.session_window,
        |c, v| c.recall.session_window = v,
    ),
    whole(
        "recall.feedback_docs",
        Domain::Count,
        |c| c.recall.feedback_docs,
        |c, v| c.recall.feedback_docs = v,
    ),
    whole(
        "recall.feedback_terms",
        Domain::Count,
        |c| c.recall.feedback_terms,
        |c, v| c.recall.feedback_terms = v,
    ),
    number(
        "recall.min_relevance",
        Domain::Unit,
        |c| c.recall.min_relevance,
        |c, v| c.recall.min_relevance = v,
    ),
    number(
        "recall.abstain_below",
        Domain::Unit,
        |c| c.recall.abstain_below,
        |c, v| c.recall.abstain_below = v,
    ),
    flag("recall.keep_named", |c, v| c.recall.keep_named = v),
    flag("recall.keep_similar", |c, v| c.recall.keep_similar = v),
    text(
        "recall.order",
        Domain::Choice(&["score", "relevance"]),
        |c, v| {
            c.recall.order = v.parse::<Order>()?;
            Ok(())
        },
    ),
    flag("decay.enabled", |c, v| c.decay.enabled = v),
    number(
        "decay.half_life_days",
        Domain::Positive,
        |c| c.decay.half_life_days,
        |c, v| c.decay.half_life_days = v,
    ),
    number(
        "embedding.session_context",
        Domain::NonNegative,
        |c| c.embedding.session_context,
        |c, v| c.embedding.session_context = v,
    ),
    flag("dedup.enabled", |c, v| c.dedup.enabled = v),
    flag("dedup.updates", |c, v| c.dedup.updates = v),
    number(
        "dedup.bm25",
        Domain::Unit,
        |c| c.dedup.bm25,
        |c, v| c.dedup.bm25 = v,
    ),
    number(
        "dedup.cosine",
        Domain::Unit,
        |c| c.dedup.cosine,
        |c, v| c.dedup.cosine = v,
    ),
    number(
        "dedup.min_cosine",
        Domain::Unit,
        |c| c.dedup.min_cosine,
        |c, v| c.dedup.min_cosine = v,
    ),
    number(
        "consolidate.merge_bm25",
        Domain::Unit,
        |c| c.consolidate.merge_bm25,
        |c, v| c.consolidate.merge_bm25 = v,
    ),
    number(
        "consolidate.merge_min_cosine",
        Domain::Unit,
        |c| c.consolidate.merge_min_cosine,
        |c, v| c.consolidate.merge_min_cosine = v,
    ),
    number(
        "consolidate.prune_below_confidence",
        Domain::Unit,
        |c| c.consolidate.prune_below_confidence,
        |c, v| c.consolidate.prune_below_confidence = v,
    ),
    number(
        "consolidate.prune_after_days",
        Domain::NonNegative,
        |c| c.consolidate.prune_after_days,
        |c, v| c.consolidate.prune_after_days = v,
    ),
    number(
        "serve.idle_minutes",
        Domain::NonNegative,
        |c| c.serve.idle_minutes,
        |c, v| c.serve.idle_minutes = v,
    ),
    flag("serve.auto_start", |c, v| c.serve.auto_start = v),
    whole(
        "memory.max_bytes",
        Domain::Count,
        |c| c.memory.max_bytes,
        |c, v| c.memory.max_bytes = v,
    ),
];

/// The key named `name`, if it is one of [`KEYS`].
pub fn key(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

fn out_of_domain(name: &str, domain: Domain, shown: impl std::fmt::Display) -> Error {
    Error::config(format!("{name} must be {}, got {shown}", domain.describe()))
}

fn parse_number(name: &str, domain: Domain, value: &str) -> Result<f64> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| domain.admits(*v))
        .ok_or_else(|| out_of_domain(name, domain, format!("{value:?}")))
}

impl Config {
    /// Sets the key `name` (dotted, as in the configuration file: `recall.depth`,
    /// `recall.weights.bm25`, `decay.half_life_by_type.gotcha`) from its text `value`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](crate::ErrorKind::Config) for an unknown key or a value outside
    /// the key's domain, saying what it takes. Ranker names in weight keys and fuser names are
    /// checked by the engine.
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        if let Some(ranker) = name.strip_prefix(WEIGHT_PREFIX) {
            let v = parse_number(name, Domain::NonNegative, value)?;
            self.recall.weights.set(ranker, v);
            return Ok(());
        }
        if let Some(t) = name.strip_prefix(HALF_LIFE_BY_TYPE_PREFIX) {
            let t: MemoryType = t.parse()?;
            let v = parse_number(name, Domain::Positive, value)?;
            self.decay.half_life_by_type.insert(t, v);
            return Ok(());
        }
        let model = [CALIBRATION_PREFIX, ANSWERABLE_PREFIX]
            .into_iter()
            .find_map(|prefix| Some((prefix, name.strip_prefix(prefix)?)));
        if let Some((prefix, rest)) = model {
            let (mode, feature) = rest.split_once('.').ok_or_else(|| {
                Error::config(format!(
                    "{name}: expected {prefix}<mode>.<intercept or feature>"
                ))
            })?;
            let mode: Mode = mode.parse()?;
            let v = value
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    Error::config(format!("{name} must be a finite number, got {value:?}"))
                })?;
            let models = if prefix == CALIBRATION_PREFIX {
                self.recall.calibration.get_mut(mode)
            } else {
                self.recall.answerable.get_mut(mode)
            };
            models.set(feature, v);
            return Ok(());
        }
        let key = key(name).ok_or_else(|| {
            let names: Vec<&str> = KEYS.iter().map(|k| k.name).collect();
            Error::config(format!(
                "unknown setting {name:?}: expected one of {}, {WEIGHT_PREFIX}<ranker>, \
                 {HALF_LIFE_BY_TYPE_PREFIX}<type>, {CALIBRATION_PREFIX}<mode>.<feature> or \
                 {ANSWERABLE_PREFIX}<mode>.<feature>",
                names.join(", ")
            ))
        })?;
        match key.access {
            Access::Number(_, set) => set(self, parse_number(name, key.domain, value)?),
            Access::Whole(_, set) => {
                let v = value
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|&v| key.domain.admits_whole(v))
                    .ok_or_else(|| out_of_domain(name, key.domain, format!("{value:?}")))?;
                set(self, v);
            }
            Access::Flag(set) => {
                let v = match value.trim().to_ascii_lowercase().as_str() {
                    "true" | "on" => true,
                    "false" | "off" => false,
                    _ => return Err(out_of_domain(name, key.domain, format!("{value:?}"))),
                };
                set(self, v);
            }
            Access::Text(set) => set(self, value)
                .map_err(|e| Error::config(format!("{name}: {e} ({})", key.domain.describe())))?,
        }
        Ok(())
    }

    /// Checks every value against its key's [`Domain`] ([`KEYS`], and the weight and
    /// per-type half-life families).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](crate::ErrorKind::Config) naming the first bad key.
    pub fn validate(&self) -> Result<()> {
        for key in KEYS {
            match key.access {
                Access::Number(get, _) => {
                    let v = get(self);
                    if !key.domain.admits(v) {
                        return Err(out_of_domain(key.name, key.domain, v));
                    }
                }
                Access::Whole(get, _) => {
                    let v = get(self);
                    if !key.domain.admits_whole(v) {
                        return Err(out_of_domain(key.name, key.domain, v));
                    }
                }
                Access::Flag(_) | Access::Text(_) => {}
            }
        }
        for (ranker, v) in self.recall.weights.iter() {
            if !Domain::NonNegative.admits(v) {
                let name = format!("{WEIGHT_PREFIX}{ranker}");
                return Err(out_of_domain(&name, Domain::NonNegative, v));
            }
        }
        for (t, &v) in &self.decay.half_life_by_type {
            if !Domain::Positive.admits(v) {
                let name = format!("{HALF_LIFE_BY_TYPE_PREFIX}{t}");
                return Err(out_of_domain(&name, Domain::Positive, v));
            }
        }
        for mode in Mode::ALL {
            for (prefix, model) in [
                (CALIBRATION_PREFIX, self.recall.calibration.get(mode)),
                (ANSWERABLE_PREFIX, self.recall.answerable.get(mode)),
            ] {
                for (feature, v) in model.iter() {
                    if !v.is_finite() {
                        return Err(Error::config(format!(
                            "{prefix}{mode}.{feature} must be a finite number, got {v}"
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key of `value`, dotted; the weight and per-type half-life maps count as one key
    /// each (their keys are names, not settings).
    fn keys(value: &toml::Value, prefix: &str, out: &mut Vec<String>) {
        match value {
            toml::Value::Table(t)
                if ![
                    WEIGHT_PREFIX,
                    HALF_LIFE_BY_TYPE_PREFIX,
                    CALIBRATION_PREFIX,
                    ANSWERABLE_PREFIX,
                ]
                .contains(&format!("{prefix}.").as_str()) =>
            {
                for (k, v) in t {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    keys(v, &key, out);
                }
            }
            _ => out.push(prefix.to_string()),
        }
    }

    #[test]
    fn the_key_table_names_every_field_of_config_once() {
        let defaults = toml::Value::try_from(Config::default()).unwrap();
        let mut fields = Vec::new();
        keys(&defaults, "", &mut fields);
        fields.sort();
        let mut table: Vec<String> = KEYS.iter().map(|k| k.name.to_string()).collect();
        table.push(WEIGHT_PREFIX.trim_end_matches('.').to_string());
        table.push(HALF_LIFE_BY_TYPE_PREFIX.trim_end_matches('.').to_string());
        table.push(CALIBRATION_PREFIX.trim_end_matches('.').to_string());
        table.push(ANSWERABLE_PREFIX.trim_end_matches('.').to_string());
        // A list of rules, written in the file only ([[recall.boost]]).
        table.push("recall.boost".to_string());
        table.sort();
        assert_eq!(table, fields);
    }

    #[test]
    fn every_key_sets_what_it_names_and_refuses_what_is_outside_its_domain() {
        for key in KEYS {
            let (good, bad): (&str, &[&str]) = match key.domain {
                Domain::NonNegative => ("0.25", &["-1", "inf", "x"]),
                Domain::Unit => ("0.25", &["1.5", "-0.1", "NaN"]),
                Domain::Positive => ("0.25", &["0", "-2", "inf"]),
                Domain::Threshold => ("0.25", &["-1", "NaN"]),
                Domain::Count => ("7", &["0", "-1", "2.5"]),
                Domain::CountUpTo(_) => ("7", &["0", "-1", "2.5", "1000000"]),
                Domain::Size => ("7", &["-1", "x"]),
                Domain::Flag => ("on", &["maybe", "2"]),
                Domain::Choice(names) => (names[names.len() - 1], &["nonsense"]),
                Domain::Name => ("some_fuser", &[]),
            };
            let mut c = Config::default();
            c.set(key.name, good)
                .unwrap_or_else(|e| panic!("{} = {good}: {e}", key.name));
            let shown = toml::Value::try_from(&c).unwrap();
            let leaf = key
                .name
                .split('.')
                .try_fold(&shown, |v, part| v.get(part))
                .unwrap_or_else(|| panic!("{} is not a field", key.name));
            let expected = match key.domain {
                Domain::Flag => "true".to_string(),
                Domain::Choice(_) | Domain::Name => format!("{good:?}"),
                _ => good.to_string(),
            };
            assert_eq!(leaf.to_string(), expected, "{} = {good}", key.name);
            for b in bad {
                let err = Config::default().set(key.name, b).unwrap_err();
                assert!(
                    err.to_string().contains(key.name),
                    "{} = {b}: {err}",
                    key.name
                );
            }
        }
    }

    #[test]
    fn families_and_unknown_keys() {
        let mut c = Config::default();
        c.set("recall.weights.recency", "0.6").unwrap();
        c.set("decay.half_life_by_type.gotcha", "7").unwrap();
        assert_eq!(c.recall.weights.get("recency"), 0.6);
        assert_eq!(c.decay.half_life_by_type[&MemoryType::Gotcha], 7.0);
        assert!(c.set("recall.weights.bm25", "-1").is_err());
        assert!(c.set("decay.half_life_by_type.insight", "7").is_err());
        c.set("recall.calibration.hybrid.coverage", "-1.5").unwrap();
        assert_eq!(c.recall.calibration.hybrid.get("coverage"), -1.5);
        c.set("recall.answerable.fts.coverage_best", "2.5").unwrap();
        assert_eq!(c.recall.answerable.fts.get("coverage_best"), 2.5);
        assert_eq!(c.recall.calibration.fts.get("coverage_best"), 0.0);
        for bad in [
            ("recall.calibration.hybrid.coverage", "inf"),
            ("recall.answerable.hybrid.vector_best", "NaN"),
            ("recall.answerable.hybrid", "1"),
            ("recall.calibration.sparse.coverage", "1"),
            ("recall.calibration.hybrid", "1"),
        ] {
            let err = c.set(bad.0, bad.1).unwrap_err().to_string();
            assert!(
                err.contains(bad.0) || err.contains("sparse"),
                "{bad:?}: {err}"
            );
        }
        let err = c.set("recall.speed", "fast").unwrap_err().to_string();
        assert!(
            err.contains("unknown setting") && err.contains("recall.depth"),
            "{err}"
        );
    }

    #[test]
    fn validate_checks_every_numeric_key() {
        for key in KEYS {
            let Access::Number(_, set) = key.access else {
                continue;
            };
            let mut c = Config::default();
            set(&mut c, -1.0);
            let err = c.validate().unwrap_err().to_string();
            assert!(err.contains(key.name), "{}: {err}", key.name);
        }
    }
}

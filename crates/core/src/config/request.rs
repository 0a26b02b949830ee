//! One recall's own settings over the configuration: what `oro-mem recall`'s flags, MCP's
//! `memory_search` arguments and `oro-mem serve`'s requests may change, mapped to the
//! configuration's keys in one place and checked as the key table checks them.

use crate::config::{Config, Mode, Scoring};
use crate::error::{Error, Result};

/// What one recall asks for beyond the configuration; `None` keeps the configured value.
///
/// ```
/// use oro_mem_core::config::RecallRequest;
/// use oro_mem_core::Config;
///
/// let request = RecallRequest { limit: Some(5), decay_half_life: Some(7.0), ..RecallRequest::default() };
/// let config = request.apply(&Config::default())?;
/// assert_eq!(config.recall.max_results, 5);
/// assert!(config.decay.enabled);
///
/// let err = RecallRequest { limit: Some(0), ..RecallRequest::default() }
///     .apply(&Config::default())
///     .unwrap_err();
/// assert_eq!(err.to_string(), r#"limit must be a whole number from 1 to 100, got "0""#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecallRequest {
    /// `mode`.
    pub mode: Option<Mode>,
    /// `recall.max_results`: at most this many results.
    pub limit: Option<usize>,
    /// `recall.budget_tokens`.
    pub budget: Option<usize>,
    /// `recall.min_relevance`.
    pub min_relevance: Option<f64>,
    /// `recall.depth`.
    pub depth: Option<usize>,
    /// `recall.scoring`.
    pub scoring: Option<Scoring>,
    /// `recall.fusion`: the name of a fuser (the engine checks that it is registered).
    pub fusion: Option<String>,
    /// `decay.enabled`.
    pub decay: Option<bool>,
    /// `decay.half_life_days`; a half-life turns decay on.
    pub decay_half_life: Option<f64>,
}

impl RecallRequest {
    /// Each setting the request makes: its own name, the configuration key, and the value as
    /// the key table reads it.
    fn settings(&self) -> Vec<(&'static str, &'static str, String)> {
        let mut out = Vec::new();
        let mut add = |field, key, value: Option<String>| {
            if let Some(v) = value {
                out.push((field, key, v));
            }
        };
        add("mode", "mode", self.mode.map(|m| m.as_str().to_string()));
        add(
            "limit",
            "recall.max_results",
            self.limit.map(|n| n.to_string()),
        );
        add(
            "budget",
            "recall.budget_tokens",
            self.budget.map(|n| n.to_string()),
        );
        add(
            "min_relevance",
            "recall.min_relevance",
            self.min_relevance.map(|p| p.to_string()),
        );
        add("depth", "recall.depth", self.depth.map(|n| n.to_string()));
        add(
            "scoring",
            "recall.scoring",
            self.scoring.map(|s| s.as_str().to_string()),
        );
        add("fusion", "recall.fusion", self.fusion.clone());
        let decay = self.decay.or(self.decay_half_life.map(|_| true));
        add("decay", "decay.enabled", decay.map(|d| d.to_string()));
        add(
            "decay_half_life",
            "decay.half_life_days",
            self.decay_half_life.map(|d| d.to_string()),
        );
        out
    }

    /// `config` with this request's settings.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) naming the request's
    /// field and what it takes, for a value its configuration key does not admit (`limit must
    /// be a whole number from 1 to 100, got "0"`).
    pub fn apply(&self, config: &Config) -> Result<Config> {
        let mut config = config.clone();
        for (field, key, value) in self.settings() {
            config.set(key, &value).map_err(|e| {
                let message = e.message();
                let message = match message.strip_prefix(key) {
                    Some(rest) => format!("{field}{rest}"),
                    None => format!("{field}: {message}"),
                };
                Error::invalid_input(message)
            })?;
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_reaches_its_key() {
        let request = RecallRequest {
            mode: Some(Mode::Hybrid),
            limit: Some(7),
            budget: Some(900),
            min_relevance: Some(0.25),
            depth: Some(20),
            scoring: Some(Scoring::Simple),
            fusion: Some("rrf".to_string()),
            decay: None,
            decay_half_life: Some(3.5),
        };
        let c = request.apply(&Config::default()).unwrap();
        assert_eq!(c.mode, Mode::Hybrid);
        assert_eq!(
            (c.recall.max_results, c.recall.budget_tokens, c.recall.depth),
            (7, 900, 20)
        );
        assert_eq!(c.recall.min_relevance, 0.25);
        assert_eq!(c.recall.scoring, Scoring::Simple);
        assert_eq!(c.recall.fusion, "rrf");
        assert!(c.decay.enabled);
        assert_eq!(c.decay.half_life_days, 3.5);
        assert_eq!(
            RecallRequest::default().apply(&Config::default()).unwrap(),
            Config::default()
        );
    }

    #[test]
    fn a_bad_value_is_refused_by_its_own_name() {
        for (request, message) in [
            (
                RecallRequest {
                    min_relevance: Some(1.5),
                    ..RecallRequest::default()
                },
                "min_relevance must be a number between 0 and 1, got \"1.5\"",
            ),
            (
                RecallRequest {
                    decay_half_life: Some(-1.0),
                    ..RecallRequest::default()
                },
                "decay_half_life must be a number > 0, got \"-1\"",
            ),
            (
                RecallRequest {
                    budget: Some(0),
                    ..RecallRequest::default()
                },
                "budget must be a whole number >= 1, got \"0\"",
            ),
        ] {
            let err = request.apply(&Config::default()).unwrap_err();
            assert_eq!(err.to_string(), message);
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput);
        }
    }

    #[test]
    fn decay_off_stays_off_with_a_half_life() {
        let c = RecallRequest {
            decay: Some(false),
            decay_half_life: Some(10.0),
            ..RecallRequest::default()
        }
        .apply(&Config::default())
        .unwrap();
        assert!(!c.decay.enabled);
    }
}

//! [`Registry`]: the plug-ins a configuration can name.

use std::sync::Arc;

use oro_mem_core::config::RecallConfig;
use oro_mem_core::{Error, Fuser, Result};
use oro_mem_fusion::{Rrf, WeightedScore};

/// Makes a fuser from the recall settings (for its parameters, such as RRF's `k`).
pub type FuserFactory = Arc<dyn Fn(&RecallConfig) -> Result<Box<dyn Fuser>> + Send + Sync>;

/// The fusers (and, later, rankers and candidate sources) a configuration can name.
///
/// [`Registry::default`] holds the built-in ones; [`Registry::fuser`] adds another or replaces
/// one of the same name.
#[derive(Clone)]
pub struct Registry {
    fusers: Vec<(String, FuserFactory)>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("fusers", &self.fuser_names().collect::<Vec<_>>())
            .finish()
    }
}

impl Default for Registry {
    /// The built-in fusers: `weighted_score` and `rrf` (with `recall.rrf_k`).
    fn default() -> Registry {
        Registry::empty()
            .fuser("weighted_score", |_| Ok(Box::new(WeightedScore)))
            .fuser("rrf", |r| Ok(Box::new(Rrf::new(r.rrf_k)?)))
    }
}

impl Registry {
    /// A registry with nothing in it.
    pub fn empty() -> Registry {
        Registry { fusers: Vec::new() }
    }

    /// Registers the fuser `name`, made by `make` from the recall settings; replaces one of
    /// the same name.
    pub fn fuser(
        mut self,
        name: impl Into<String>,
        make: impl Fn(&RecallConfig) -> Result<Box<dyn Fuser>> + Send + Sync + 'static,
    ) -> Registry {
        let name = name.into();
        let make: FuserFactory = Arc::new(make);
        match self.fusers.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = make,
            None => self.fusers.push((name, make)),
        }
        self
    }

    /// The registered fusers' names, in registration order.
    pub fn fuser_names(&self) -> impl Iterator<Item = &str> {
        self.fusers.iter().map(|(n, _)| n.as_str())
    }

    /// The fuser `recall.fusion` names, made from `recall`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](oro_mem_core::ErrorKind::Config) for a name nobody registered
    /// (the message lists those that are), or what the factory says of its parameters.
    pub fn make_fuser(&self, recall: &RecallConfig) -> Result<Box<dyn Fuser>> {
        let name = &recall.fusion;
        let (_, make) = self.fusers.iter().find(|(n, _)| n == name).ok_or_else(|| {
            Error::config(format!(
                "unknown fuser {name:?} in recall.fusion: expected {}",
                one_of(self.fuser_names())
            ))
        })?;
        make(recall)
    }
}

/// `a, b or c`.
pub(crate) fn one_of<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    match names.split_last() {
        None => "nothing (none is registered)".to_string(),
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fuser_is_named_with_the_registered_ones() {
        let recall = RecallConfig {
            fusion: "borda".to_string(),
            ..RecallConfig::default()
        };
        let Err(err) = Registry::default().make_fuser(&recall) else {
            panic!("an unknown fuser was made");
        };
        assert_eq!(
            err.to_string(),
            "unknown fuser \"borda\" in recall.fusion: expected weighted_score or rrf"
        );
    }

    #[test]
    fn a_registered_fuser_replaces_one_of_the_same_name() {
        let registry = Registry::default().fuser("rrf", |_| Ok(Box::new(Rrf::new(1.0)?)));
        assert_eq!(
            registry.fuser_names().collect::<Vec<_>>(),
            ["weighted_score", "rrf"]
        );
        let recall = RecallConfig {
            fusion: "rrf".to_string(),
            rrf_k: 60.0,
            ..RecallConfig::default()
        };
        let fuser = registry.make_fuser(&recall).unwrap();
        assert_eq!(
            fuser.pinned_bonus(),
            1.0 / 2.0 - 1.0 / 12.0,
            "k = 1, not 60"
        );
    }

    #[test]
    fn bad_rrf_k_is_refused_by_the_factory() {
        let recall = RecallConfig {
            fusion: "rrf".to_string(),
            rrf_k: f64::NAN,
            ..RecallConfig::default()
        };
        assert!(Registry::default().make_fuser(&recall).is_err());
    }
}

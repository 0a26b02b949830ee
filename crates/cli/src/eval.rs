//! `oro-mem eval`: the command's flags as an evaluation [`Plan`], run over a scratch store by
//! [`oro_mem_eval::run`], and its report printed; or, with `--updates`, a file of edits
//! replayed through the write path ([`oro_mem_eval::updates`]).

use std::path::Path;

use anyhow::{Context, Result};
use oro_mem_core::Config;
use oro_mem_eval::grid::{self, Axis};
use oro_mem_eval::{updates, EmbeddingCache, Fit, Holdout, Plan};

use crate::args::EvalArgs;
use crate::stores;

/// The text after `oro-mem eval --help`'s options.
pub fn after_help() -> String {
    format!(
        "Keys for --grid and --set: {}.\n\nExample: oro-mem eval --dataset \
         ../shared/eval/scifact --grid mode=fts,vector,hybrid --grid k=20,60",
        grid::keys()
    )
}

/// The evaluation `a` asks for, of `dataset`.
fn plan(a: &EvalArgs, dataset: &Path) -> Result<Plan> {
    let mut plan = Plan::new(dataset, &a.split);
    plan.mode = a.mode;
    plan.set = settings(&a.set)?;
    plan.grid = a
        .grid
        .iter()
        .map(|g| Axis::parse(g))
        .collect::<Result<_, _>>()?;
    plan.depth = a.depth;
    plan.as_recalled = a.as_recalled;
    plan.now = a
        .now
        .as_deref()
        .map(str::parse)
        .transpose()
        .context("--now")?;
    plan.queries = a.queries;
    plan.skip_categories = a.skip_category.clone();
    plan.cache = if a.no_cache {
        None
    } else {
        a.cache.clone().or_else(EmbeddingCache::default_path)
    };
    plan.holdout = match (&a.tune_on, a.cross_validate) {
        (Some(split), _) => Holdout::Split(split.clone()),
        (None, true) => Holdout::EachNamespace,
        (None, false) => Holdout::None,
    };
    plan.metric = a.tune_metric;
    plan.unrelated = a.unrelated.clone();
    // Only a feature of the query is the answerable model's to share: a name that is none
    // (or a typo) would be silently ignored.
    if let Some(name) = a
        .fit_relevance_with
        .iter()
        .find(|name| !oro_mem_core::calibration::is_query_feature(name))
    {
        anyhow::bail!(
            "--fit-relevance-with {name}: not a feature of the query; expected query_terms, \
             coverage_best, coverage_gap, terms_found, memories, <signal>_best or <signal>_gap \
             (the relevance model reads every feature of a candidate already)"
        );
    }
    plan.fit = a.fit_calibration.then(|| Fit {
        also: a.fit_also.clone(),
        unrelated: a.fit_unrelated.clone(),
        without: a.fit_without.clone(),
        relevance_with: a.fit_relevance_with.clone(),
        features: a.features.clone(),
    });
    Ok(plan)
}

/// `--set`'s `KEY=VALUE`s, as pairs.
fn settings(set: &[String]) -> Result<Vec<(String, String)>> {
    set.iter()
        .map(|s| {
            let (k, v) = s
                .split_once('=')
                .with_context(|| format!("--set {s:?}: expected KEY=VALUE"))?;
            Ok((k.trim().to_string(), v.trim().to_string()))
        })
        .collect()
}

/// Runs `oro-mem eval --updates FILE`: the pairs replayed in a scratch store.
fn run_updates(a: &EvalArgs, file: &Path, mut config: Config) -> Result<()> {
    let pairs = updates::read_pairs(file)?;
    if let Some(mode) = a.mode {
        config.mode = mode;
    }
    for (k, v) in settings(&a.set)? {
        grid::set(&mut config, &k, &v)?;
    }
    let report = if a.store_per_pair {
        updates::replay_apart(file, &pairs, config, &mut || {
            Ok(Box::new(oro_mem_store_sqlite::Store::open_in_memory()?))
        })?
    } else {
        let (mut store, _scratch) = stores::scratch(a.postgres.as_deref())?;
        updates::replay(file, &pairs, config, &mut *store)?
    };
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        out!("{report}")?;
    }
    Ok(())
}

/// Runs `oro-mem eval`.
pub fn run(a: &EvalArgs, base: Config) -> Result<()> {
    let dataset = match (&a.updates, &a.dataset) {
        (Some(file), _) => return run_updates(a, file, base),
        (None, Some(dataset)) => dataset,
        (None, None) => anyhow::bail!("eval needs --dataset DIR or --updates FILE"),
    };
    let plan = plan(a, dataset)?;
    // The scratch schema outlives the store that writes in it.
    let (store, _scratch) = stores::scratch(a.postgres.as_deref())?;
    let report = oro_mem_eval::run(&plan, base, store, &mut |event| errln!("eval: {event}"))?;
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        out!("{report}")?;
    }
    Ok(())
}

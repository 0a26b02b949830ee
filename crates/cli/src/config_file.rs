//! Finding the database and loading `.oro/config.toml`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use oro_mem_core::Config;
use oro_mem_store_postgres::is_postgres_location;

/// The directory holding the database and configuration.
pub const DIR: &str = ".oro";
/// The database file inside [`DIR`].
pub const DB_FILE: &str = "state.db";
/// The configuration file inside [`DIR`].
pub const CONFIG_FILE: &str = "config.toml";

/// Walks up from `start` to the first directory containing `.oro/`, like git finds `.git`.
pub fn find_oro_dir(start: &Path) -> Option<PathBuf> {
    start.ancestors().map(|d| d.join(DIR)).find(|d| d.is_dir())
}

/// The user-level store's directory, used when no project `.oro/` is found:
/// `$XDG_DATA_HOME/oro-mem`, else `~/.local/share/oro-mem`; `None` without a home.
pub fn global_dir() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(data.join("oro-mem"))
}

/// What `oro-mem init` writes into `.oro/`: the database and its side files (and the socket
/// of `oro-mem serve`) are never committed; the configuration may be.
pub const GITIGNORE: &str = "# oro-mem: the store is local; config.toml may be committed.\n\
                             state.db\nstate.db-*\n*.sock\n*.serve.lock\n*.serve.log\n*.watch.json\n\
                             *.watch.json.tmp\n";

/// The key of a configuration file that names the store: a `postgres://` URL, or a file
/// path (relative to the file's directory). Read here, and not part of the engine's
/// configuration: a team commits `.oro/config.toml` naming its server, and each member's
/// password comes from `PGPASSWORD` or `~/.pgpass`.
pub const STORE_KEY: &str = "store";

/// The database to use: `--db` / `ORO_MEM_DB`; else the `store` of the configuration file
/// (`--config`, or `.oro/config.toml` found by walking up); else `.oro/state.db` found by
/// walking up; else the user-level store (`oro-mem init --global`) when it exists.
pub fn resolve_db(explicit: Option<&Path>, config: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = explicit {
        return Ok(p.to_path_buf());
    }
    if let Some(store) = config.map(store_in).transpose()?.flatten() {
        return Ok(store);
    }
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    if let Some(dir) = find_oro_dir(&cwd) {
        let beside = dir.join(CONFIG_FILE);
        if beside.is_file() {
            if let Some(store) = store_in(&beside)? {
                return Ok(store);
            }
        }
        return Ok(dir.join(DB_FILE));
    }
    match global_dir().map(|d| d.join(DB_FILE)) {
        Some(db) if db.is_file() => Ok(db),
        _ => bail!(
            "no {DIR}/ directory in {} or any parent, and no user-level store: run `oro-mem \
             init` here (or `oro-mem init --global` for one store everywhere), or pass --db \
             PATH (or set ORO_MEM_DB)",
            cwd.display()
        ),
    }
}

/// The store the configuration file at `path` names (its [`STORE_KEY`]), if any.
pub fn store_in(path: &Path) -> Result<Option<PathBuf>> {
    let table = read_table(path)?;
    match table.get(STORE_KEY) {
        None => Ok(None),
        Some(toml::Value::String(s)) if is_postgres_location(s) => Ok(Some(PathBuf::from(s))),
        Some(toml::Value::String(s)) => Ok(Some(path.parent().unwrap_or(Path::new(".")).join(s))),
        Some(_) => bail!(
            "invalid configuration {}: `{STORE_KEY}` must be a string (a path or a \
             postgres:// URL)",
            path.display()
        ),
    }
}

/// The configuration file to read: `--config` / `ORO_MEM_CONFIG`, else `config.toml` beside
/// the database, else (for a PostgreSQL store) the one of `.oro/` found by walking up.
pub fn resolve_config(explicit: Option<&Path>, db: &Path) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return Some(p.to_path_buf());
    }
    let dir = if db.to_str().is_some_and(is_postgres_location) {
        find_oro_dir(&std::env::current_dir().ok()?)?
    } else {
        db.parent()?.to_path_buf()
    };
    Some(dir.join(CONFIG_FILE)).filter(|p| p.is_file())
}

/// A configuration file as a TOML table.
fn read_table(path: &Path) -> Result<toml::Table> {
    let text = read_limited(path, MAX_CONFIG_BYTES)
        .with_context(|| format!("cannot read configuration {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("invalid configuration {}", path.display()))
}

/// Reads and validates a configuration file; defaults when `path` is `None`.
pub fn load(path: Option<&Path>) -> Result<Config> {
    let Some(path) = path else {
        return Ok(Config::default());
    };
    let text = read_limited(path, MAX_CONFIG_BYTES)
        .with_context(|| format!("cannot read configuration {}", path.display()))?;
    let mut table: toml::Table = toml::from_str(&text)
        .with_context(|| format!("invalid configuration {}", path.display()))?;
    // `store` says where the store is, not how to recall from it (see `resolve_db`). Without
    // it the text is read again, so that errors point at their line.
    let config: Config = if table.remove(STORE_KEY).is_some() {
        toml::Value::Table(table).try_into()
    } else {
        toml::from_str(&text)
    }
    .with_context(|| format!("invalid configuration {}", path.display()))?;
    config
        .validate()
        .with_context(|| format!("invalid configuration {}", path.display()))?;
    Ok(config)
}

/// The largest configuration file read, in bytes: the template is under 10 KiB, and
/// `ORO_MEM_CONFIG=/dev/zero` must fail rather than read forever.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The UTF-8 text of `path`, refused when longer than `limit` bytes (checked as it is read:
/// a device or pipe has no size to look at first).
fn read_limited(path: &Path, limit: u64) -> Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        anyhow::bail!("it is larger than {} KiB", limit / 1024);
    }
    String::from_utf8(bytes).context("it is not UTF-8 text")
}

/// The commented configuration `init` writes: every knob at its default.
pub const TEMPLATE: &str = r#"# oro-mem configuration. Every key is optional; shown values are the defaults.
# Command-line flags override what is set here. `oro-mem config` prints the effective values.

# Where the memories are, when not in state.db beside this file: a PostgreSQL database shared
# by a team (its password from PGPASSWORD or ~/.pgpass, never here), e.g.
# store = "postgres://agents@db.internal:5432/memory?sslmode=verify-full"
# --db and ORO_MEM_DB override it.

# Retrieval mode: "fts" (full-text only, no model), "hybrid" (full-text + embeddings from
# the local all-MiniLM-L6-v2 model, which scripts/fetch-model installs; ORO_MEM_MODEL_DIR
# points elsewhere) or "vector" (embeddings only). With embeddings, new memories are embedded
# as they are stored.
mode = "fts"
# When hybrid is configured but the embedding model cannot be used, answer FTS-only.
fallback_to_fts = true

[recall]
depth = 50              # lexical candidates fetched before ranking
vector_depth = 50       # (hybrid) nearest-embedding candidates joined with the lexical ones
score_all_lexically = true  # every candidate gets its BM25 score, not only the best `depth` matches
max_results = 3         # at most this many memories per recall (1 to 100)
budget_tokens = 500     # token budget for recalled content (tokens = bytes / 4)
scoring = "fused"       # "fused" (rankers + fusion) or "simple" (min(1, bm25/25) x confidence x decay)
fusion = "weighted_max"  # "weighted_max" (each list over its best), "weighted_score" (min-max per list), "weighted_z" (standard scores) or "rrf"
rrf_k = 20.0            # the RRF constant k (fusion = "rrf")
min_score = 0.005       # drop results below this final score (fused scoring, fts mode)
hybrid_min_score = 0.01 # the same in hybrid mode (four lists give larger scores)
simple_min_score = 0.05 # drop results below this final score (simple scoring)
min_similarity = 0.3    # (vector) a memory matching no query word needs this cosine
hybrid_min_similarity = 0.1 # the same in hybrid mode, where the relevance estimate judges
near_duplicate = 0.8    # skip a result whose words overlap a better one this much (Jaccard)
min_confidence = 0.3    # memories less trusted than this are not recalled
session_context = 0.2   # each neighbour in the result's session adds this x its score / distance
session_window = 2      # how many places before and after count as neighbours
feedback_docs = 10      # pseudo-relevance feedback (weights.feedback): best full-text matches read
feedback_terms = 10     # and how many of their words, not in the query, it searches for
min_relevance = 0.02    # drop results whose estimated relevance (see below) is under this; 0 keeps all
abstain_below = 0.0     # return nothing when the best result's estimated relevance is under this
keep_named = true       # keep, whatever its estimate, a result naming a path/command/identifier the query names
keep_similar = true     # (hybrid) when nothing reaches min_relevance, keep the memory nearest in meaning if its cosine stands out for the store's size or 0.25 above every other's
order = "score"         # order results by "score" (fused) or "relevance" (the estimate)

[recall.weights]        # 0 turns a ranker off
bm25 = 1.0
vector = 1.0
coord = 0.5             # the share of the query's terms a memory holds, rarer terms weighing more
proximity = 0.25        # the share of the query's neighbouring terms it holds close together
recency = 0.0           # newest first; off because it lowered recall on LoCoMo (see README)
access = 0.4
spatial = 1.0           # nearest first to recall --near's point (nothing without one)
feedback = 0.0          # the words of the best full-text matches searched again (RM3); off, see README

# Boost rules, applied after fusion: a memory that meets a rule (metadata conditions as
# --where takes them, and/or sources) has its relevance multiplied by the factor. None by
# default; the design notes' source weighting, real-world data over simulation, is
# [[recall.boost]]
# where = '{"context.env.sim_or_real": "real"}'
# factor = 1.5

# The relevance model of each mode: a logistic model over each candidate's features
# (`oro-mem recall --explain` shows them); `oro-mem eval --fit-calibration` fits one. Empty:
# no estimate, and min_relevance does nothing.
# The shipped models were fitted by scripts/fit-calibration: FTS mode's on SciFact train and
# LoCoMo dev, hybrid mode's on those and agentmem-dev (agents' own stores); hybrid mode's
# reads `memories` (below) too: a task's few relevant memories are a larger share of a store
# of forty than of one of five thousand. FTS mode's reads `weighted_coverage`: the share of
# the query's words a memory holds, each weighed by how few software projects' documents use
# it ("migration" counts for more than "use").
[recall.calibration.fts]
intercept = -9.6549
coverage = 0.4799
fused = 2.9903
lexical_share = 1.5262
query_terms = 0.6607
weighted_coverage = 4.2624

[recall.calibration.hybrid]
intercept = -9.7978
coverage = 4.3123
fused = -0.6887
lexical_share = 2.9529
memories = -0.504
query_terms = 1.4232
vector = 3.116
vector_share = 3.7318

[recall.calibration.vector]

# The answerable model of each mode: the estimated chance that the store holds anything about
# the query, from features of the query (the best cosine of any candidate, `vector_best`; the
# most of the query any candidate covers, `coverage_best`; its number of terms; `memories`,
# ln(1 + the number of memories it searched, counted up to 10,000): the best match of a large
# store means less; `terms_found`, 1 when the candidates hold every term of the query between
# them; `vector_gap` and `coverage_gap`, how far the best stands out from the next five;
# `weighted_coverage_best`, the most of the query any candidate covers, its words weighed).
# Every estimate above is multiplied by it, so a query about nothing the store knows gets
# nothing. Empty: no such factor. Fitted with the relevance models by scripts/fit-calibration.
[recall.answerable.fts]
intercept = -11.3189
coverage_best = 4.5939
memories = -0.8447
query_terms = 4.3449
terms_found = 0.3011
weighted_coverage_best = 14.3499

[recall.answerable.hybrid]
intercept = -14.6195
coverage_best = 13.6341
coverage_gap = -7.3194
memories = -0.8062
query_terms = 3.2598
terms_found = 1.4762
vector_best = 22.9927
vector_gap = 2.3661

[recall.answerable.vector]

[decay]
enabled = false         # off because it lowered recall on LoCoMo (see README)
half_life_days = 30.0   # score x 0.5^(age_days / half_life); pinned memories never decay

[decay.half_life_by_type]
# preference = 180.0
# gotcha = 90.0

[embedding]
session_context = 3.0   # embed a memory as e(text) + this x e(the two before it in its session + text)

[dedup]
enabled = true
bm25 = 0.7              # new content scoring > 0.7 of its self-score against a memory is a duplicate
cosine = 0.85           # (hybrid) cosine similarity above which content is a duplicate
updates = true          # a memory that is an older one with values changed supersedes it

[consolidate]
merge_bm25 = 0.8              # near-duplicates at or above this are merged
prune_below_confidence = 0.3  # memories below this confidence ...
prune_after_days = 90.0       # ... unused for this long are archived

[serve]
idle_minutes = 30.0     # `oro-mem serve` stops after this long without a request; 0: never
auto_start = true       # a hybrid-mode command that finds no server starts one in the background

[memory]
max_bytes = 65536       # a memory's content may have at most this many bytes
"#;

#[cfg(test)]
mod tests {
    use oro_mem_core::config::{
        ANSWERABLE_PREFIX, CALIBRATION_PREFIX, HALF_LIFE_BY_TYPE_PREFIX, KEYS, WEIGHT_PREFIX,
    };

    use super::*;

    /// Every key of `value`, dotted (`recall.weights`); a map of weights or half-lives, whose
    /// keys are names rather than settings, counts as one key.
    fn keys(value: &toml::Value, prefix: &str, out: &mut Vec<String>) {
        match value {
            toml::Value::Table(t)
                if !t.is_empty()
                    && !prefix.ends_with("weights")
                    && !prefix.ends_with("_by_type")
                    && !prefix.ends_with("calibration")
                    && !prefix.ends_with("answerable") =>
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

    /// The configuration's keys as core's key table defines them (`KEYS`, and the two families
    /// of weights and per-type half-lives), which core checks against `Config`'s fields.
    fn config_keys() -> Vec<String> {
        let mut all: Vec<String> = KEYS.iter().map(|k| k.name.to_string()).collect();
        for family in [
            WEIGHT_PREFIX,
            HALF_LIFE_BY_TYPE_PREFIX,
            CALIBRATION_PREFIX,
            ANSWERABLE_PREFIX,
        ] {
            all.push(family.trim_end_matches('.').to_string());
        }
        all.sort();
        all
    }

    #[test]
    fn the_template_has_every_key_and_no_other() {
        let template: toml::Value = toml::from_str(TEMPLATE).unwrap();
        let mut in_template = Vec::new();
        keys(&template, "", &mut in_template);
        in_template.sort();
        assert_eq!(in_template, config_keys());
    }

    #[test]
    fn the_readme_table_names_every_key() {
        let readme = include_str!("../../../README.md");
        let start = readme.find("## Configuration").unwrap();
        let end = start + readme[start..].find("\n## ").unwrap();
        let table = &readme[start..end];
        for key in config_keys() {
            // A row names a key in full (`recall.depth`) or, after the first of a row, by its
            // last part (`prune_after_days`).
            let leaf = key.rsplit('.').next().unwrap();
            let named = table.contains(&format!("`{key}")) || table.contains(&format!("`{leaf}`"));
            assert!(
                named,
                "the README's configuration table does not name {key}"
            );
        }
    }

    #[test]
    fn template_parses_to_the_defaults() {
        let c: Config = toml::from_str(TEMPLATE).unwrap();
        assert_eq!(c, Config::default());
    }
}

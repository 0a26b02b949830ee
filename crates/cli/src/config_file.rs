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

/// Every value `init` has written into `config.toml` as a key's default, oldest first, made
/// by `scripts/earlier-defaults` from the history of [`TEMPLATE`]. Until 2026-11-28 the
/// template set every key uncommented, so a store made then holds the defaults of its day.
const EARLIER_DEFAULTS: &str = include_str!("../data/earlier-defaults.toml");

/// The first line [`upgrade`] writes into a file it changed.
const UPGRADED: &str =
    "# `oro-mem config --upgrade` commented out the settings that held an earlier\n\
                        # oro-mem's defaults (`#key = value`): today's defaults apply.\n";

/// The keys of the configuration file at `path` that it sets to what an earlier `oro-mem init`
/// wrote there as the default, and that no longer is: a store made before a default improved
/// keeps the old one until the line goes. Dotted (`recall.min_relevance`); a relevance or
/// answerable model is one key (`recall.calibration.fts`), a ranker's weight is one
/// (`recall.weights.recency`).
pub fn stale_defaults(path: &Path) -> Result<Vec<String>> {
    Ok(stale_in(&read_table(path)?))
}

/// [`stale_defaults`] of a parsed file.
fn stale_in(file: &toml::Table) -> Vec<String> {
    let earlier: toml::Table =
        toml::from_str(EARLIER_DEFAULTS).expect("earlier-defaults.toml parses (a test reads it)");
    let current = settings(&defaults());
    settings(file)
        .into_iter()
        .filter(|(key, value)| {
            let was_default = match earlier.get(key) {
                Some(toml::Value::Array(values)) => values.iter().any(|v| same(v, value)),
                _ => false,
            };
            was_default && !current.get(key).is_some_and(|d| same(d, value))
        })
        .map(|(key, _)| key)
        .collect()
}

/// Comments out, in the configuration file at `path`, every key [`stale_defaults`] names, and
/// says so in a first line; returns those keys (none: the file is left as it is). The file is
/// checked before it is replaced (atomically): it must set every other key as before, so a
/// file not written one key per line, as `init` wrote it, is refused and left alone.
pub fn upgrade(path: &Path) -> Result<Vec<String>> {
    let text = read_limited(path, MAX_CONFIG_BYTES)
        .with_context(|| format!("cannot read configuration {}", path.display()))?;
    let table: toml::Table = toml::from_str(&text)
        .with_context(|| format!("invalid configuration {}", path.display()))?;
    let stale = stale_in(&table);
    if stale.is_empty() {
        return Ok(stale);
    }
    let edited = format!("{UPGRADED}{}", comment_out(&text, &stale));
    let mut expected = settings(&table);
    expected.retain(|key, _| !stale.contains(key));
    let after = toml::from_str::<toml::Table>(&edited).map(|t| settings(&t));
    if !after.is_ok_and(|after| after == expected) {
        bail!(
            "cannot comment out {} in {}: they are not written one per line as `oro-mem init` \
             writes them; remove them by hand (nothing was changed)",
            stale.join(", "),
            path.display()
        );
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write beside {}", path.display()))?;
    std::io::Write::write_all(&mut file, edited.as_bytes())
        .and_then(|()| file.as_file().sync_all())
        .with_context(|| format!("cannot write beside {}", path.display()))?;
    if let Ok(meta) = std::fs::metadata(path) {
        // The file keeps its permissions (a temporary file is the owner's alone).
        let _ = std::fs::set_permissions(file.path(), meta.permissions());
    }
    file.persist(path)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(stale)
}

/// `text` with a `#` before each line that sets one of `keys`, and before a table named by
/// one of them and each of its lines.
fn comment_out(text: &str, keys: &[String]) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut table = String::new();
    let mut whole = false;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let comment = if let Some(rest) = trimmed.strip_prefix('[') {
            let array = rest.starts_with('[');
            table = rest
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
            whole = !array && keys.contains(&table);
            whole
        } else {
            match trimmed.split_once('=') {
                Some((key, _)) if !trimmed.starts_with('#') => {
                    let key = key.trim();
                    let full = match table.is_empty() {
                        true => key.to_string(),
                        false => format!("{table}.{key}"),
                    };
                    whole || keys.contains(&full)
                }
                _ => false,
            }
        };
        if comment {
            out.push('#');
        }
        out.push_str(line);
    }
    out
}

/// A configuration's settings by dotted key, as [`EARLIER_DEFAULTS`] lists them.
fn settings(table: &toml::Table) -> std::collections::BTreeMap<String, toml::Value> {
    fn walk(
        table: &toml::Table,
        prefix: &str,
        out: &mut std::collections::BTreeMap<String, toml::Value>,
    ) {
        for (key, value) in table {
            let name = match prefix.is_empty() {
                true => key.clone(),
                false => format!("{prefix}.{key}"),
            };
            let model = ["recall.calibration.", "recall.answerable."]
                .iter()
                .any(|p| name.strip_prefix(p).is_some_and(|m| !m.contains('.')));
            match value {
                toml::Value::Table(t) if !model => walk(t, &name, out),
                _ => {
                    out.insert(name, value.clone());
                }
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(table, "", &mut out);
    out
}

/// The same setting: numbers by value (`20` is `20.0`), tables key by key.
fn same(a: &toml::Value, b: &toml::Value) -> bool {
    use toml::Value::{Array, Float, Integer, Table};
    match (a, b) {
        (Integer(x), Float(y)) | (Float(y), Integer(x)) => *x as f64 == *y,
        (Table(x), Table(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        (Array(x), Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same(v, w)),
        _ => a == b,
    }
}

/// [`TEMPLATE`] with its settings uncommented: every default, as a table.
fn defaults() -> toml::Table {
    toml::from_str(&uncommented(TEMPLATE)).expect("the template parses (a test checks it)")
}

/// `text` with the `#` taken from each line that starts `#` and then a key or a table's
/// header: the settings [`TEMPLATE`] shows, not its prose (`# ...`).
fn uncommented(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| match line.strip_prefix('#') {
            Some(rest) if rest.starts_with(|c: char| c.is_ascii_lowercase() || c == '[') => rest,
            _ => line,
        })
        .collect()
}

/// The configuration `init` writes: every setting commented out (`#key = value`) at its
/// default, so that a store follows the defaults of the oro-mem that reads it, and a better
/// default reaches stores made before it.
pub const TEMPLATE: &str = r#"# oro-mem configuration. Every setting is commented out and shows its default, which
# applies: a later oro-mem's better defaults apply too. To change one, remove its `#` and
# edit the value (for a model below, the whole block's `#`s). Command-line flags override
# what is set here. `oro-mem config` prints the effective values.

# Where the memories are, when not in state.db beside this file: a PostgreSQL database shared
# by a team (its password from PGPASSWORD or ~/.pgpass, never here), e.g.
# store = "postgres://agents@db.internal:5432/memory?sslmode=verify-full"
# --db and ORO_MEM_DB override it.

# Retrieval mode: "fts" (full-text only, no model), "hybrid" (full-text + embeddings from
# the local all-MiniLM-L6-v2 model, which scripts/fetch-model installs; ORO_MEM_MODEL_DIR
# points elsewhere) or "vector" (embeddings only). With embeddings, new memories are embedded
# as they are stored.
#mode = "fts"
# When hybrid is configured but the embedding model cannot be used, answer FTS-only.
#fallback_to_fts = true

[recall]
#depth = 50              # lexical candidates fetched before ranking
#vector_depth = 50       # (hybrid) nearest-embedding candidates joined with the lexical ones
#score_all_lexically = true  # every candidate gets its BM25 score, not only the best `depth` matches
#max_results = 3         # at most this many memories per recall (1 to 100)
#budget_tokens = 500     # token budget for recalled content (tokens = bytes / 4)
#scoring = "fused"       # "fused" (rankers + fusion) or "simple" (min(1, bm25/25) x confidence x decay)
#fusion = "weighted_max"  # "weighted_max" (each list over its best), "weighted_score" (min-max per list), "weighted_z" (standard scores) or "rrf"
#rrf_k = 20.0            # the RRF constant k (fusion = "rrf")
#min_score = 0.005       # drop results below this final score (fused scoring, fts mode)
#hybrid_min_score = 0.01 # the same in hybrid mode (four lists give larger scores)
#simple_min_score = 0.05 # drop results below this final score (simple scoring)
#min_similarity = 0.3    # (vector) a memory matching no query word needs this cosine
#hybrid_min_similarity = 0.1 # the same in hybrid mode, where the relevance estimate judges
#near_duplicate = 0.8    # skip a result whose words overlap a better one this much (Jaccard)
#min_confidence = 0.3    # memories less trusted than this are not recalled
#session_context = 0.2   # each neighbour in the result's session adds this x its score / distance
#session_window = 2      # how many places before and after count as neighbours
#feedback_docs = 10      # pseudo-relevance feedback (weights.feedback): best full-text matches read
#feedback_terms = 10     # and how many of their words, not in the query, it searches for
#min_relevance = 0.02    # drop results whose estimated relevance (see below) is under this; 0 keeps all
#abstain_below = 0.0     # return nothing when the best result's estimated relevance is under this
#keep_named = true       # keep, whatever its estimate, a result naming a path/command/identifier the query names
#keep_similar = true     # (hybrid) when nothing reaches min_relevance, keep the memory nearest in meaning if its cosine stands out for the store's size or 0.25 above every other's
#order = "score"         # order results by "score" (fused) or "relevance" (the estimate)

[recall.weights]        # 0 turns a ranker off
#bm25 = 1.0
#vector = 1.0
#coord = 0.5             # the share of the query's terms a memory holds, rarer terms weighing more
#proximity = 0.25        # the share of the query's neighbouring terms it holds close together
#recency = 0.0           # newest first; off because it lowered recall on LoCoMo (see README)
#access = 0.4
#spatial = 1.0           # nearest first to recall --near's point (nothing without one)
#feedback = 0.0          # the words of the best full-text matches searched again (RM3); off, see README

# Boost rules, applied after fusion: a memory that meets a rule (metadata conditions as
# --where takes them, and/or sources) has its relevance multiplied by the factor. None by
# default; the design notes' source weighting, real-world data over simulation, is
# [[recall.boost]]
# where = '{"context.env.sim_or_real": "real"}'
# factor = 1.5

# The relevance model of each mode: a logistic model over each candidate's features
# (`oro-mem recall --explain` shows them); `oro-mem eval --fit-calibration` fits one. A
# mode's table replaces its shipped model whole; an empty one means no estimate, and
# min_relevance does nothing.
# The shipped models were fitted by scripts/fit-calibration: FTS mode's on SciFact train and
# LoCoMo dev, hybrid mode's on those and agentmem-dev (agents' own stores); hybrid mode's
# reads `memories` (below) too: a task's few relevant memories are a larger share of a store
# of forty than of one of five thousand. FTS mode's reads `weighted_coverage`: the share of
# the query's words a memory holds, each weighed by how few software projects' documents use
# it ("migration" counts for more than "use").
#[recall.calibration.fts]
#intercept = -9.6549
#coverage = 0.4799
#fused = 2.9903
#lexical_share = 1.5262
#query_terms = 0.6607
#weighted_coverage = 4.2624

#[recall.calibration.hybrid]
#intercept = -9.7978
#coverage = 4.3123
#fused = -0.6887
#lexical_share = 2.9529
#memories = -0.504
#query_terms = 1.4232
#vector = 3.116
#vector_share = 3.7318

#[recall.calibration.vector]

# The answerable model of each mode: the estimated chance that the store holds anything about
# the query, from features of the query (the best cosine of any candidate, `vector_best`; the
# most of the query any candidate covers, `coverage_best`; its number of terms; `memories`,
# ln(1 + the number of memories it searched, counted up to 10,000): the best match of a large
# store means less; `terms_found`, 1 when the candidates hold every term of the query between
# them; `vector_gap` and `coverage_gap`, how far the best stands out from the next five;
# `weighted_coverage_best`, the most of the query any candidate covers, its words weighed).
# Every estimate above is multiplied by it, so a query about nothing the store knows gets
# nothing. Empty: no such factor. Fitted with the relevance models by scripts/fit-calibration.
#[recall.answerable.fts]
#intercept = -11.3189
#coverage_best = 4.5939
#memories = -0.8447
#query_terms = 4.3449
#terms_found = 0.3011
#weighted_coverage_best = 14.3499

#[recall.answerable.hybrid]
#intercept = -14.6195
#coverage_best = 13.6341
#coverage_gap = -7.3194
#memories = -0.8062
#query_terms = 3.2598
#terms_found = 1.4762
#vector_best = 22.9927
#vector_gap = 2.3661

#[recall.answerable.vector]

[decay]
#enabled = false         # off because it lowered recall on LoCoMo (see README)
#half_life_days = 30.0   # score x 0.5^(age_days / half_life); pinned memories never decay

[decay.half_life_by_type]
# preference = 180.0
# gotcha = 90.0

[embedding]
#session_context = 3.0   # embed a memory as e(text) + this x e(the two before it in its session + text)

[dedup]
#enabled = true
#bm25 = 0.7              # new content scoring > 0.7 of its self-score against a memory is a duplicate
#cosine = 0.85           # (hybrid) cosine similarity above which content is a duplicate
#min_cosine = 0.45       # (hybrid) a duplicate by its words is none when the two's cosine is below this
#updates = true          # a memory that is an older one with values changed supersedes it

[consolidate]
#merge_bm25 = 0.8              # near-duplicates at or above this are merged
#merge_min_cosine = 0.45       # ... unless both are embedded by one model and their cosine is below this
#prune_below_confidence = 0.3  # memories below this confidence ...
#prune_after_days = 90.0       # ... unused for this long are archived

[serve]
#idle_minutes = 30.0     # `oro-mem serve` stops after this long without a request; 0: never
#auto_start = true       # a hybrid-mode command that finds no server starts one in the background

[memory]
#max_bytes = 65536       # a memory's content may have at most this many bytes
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
        let template = toml::Value::Table(defaults());
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
        // As written, it sets nothing; with its settings uncommented, it shows the defaults.
        let c: Config = toml::from_str(TEMPLATE).unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(
            settings(&toml::from_str(TEMPLATE).unwrap()),
            Default::default()
        );
        let shown: Config = toml::from_str(&uncommented(TEMPLATE)).unwrap();
        assert_eq!(shown, Config::default());
    }

    /// Fails after a default changed until `scripts/earlier-defaults` lists the new value, so
    /// that the next change finds files set to this one.
    #[test]
    fn the_earlier_defaults_list_every_default() {
        let earlier: toml::Table = toml::from_str(EARLIER_DEFAULTS).unwrap();
        for (key, value) in settings(&defaults()) {
            let listed = match earlier.get(&key) {
                Some(toml::Value::Array(values)) => values.iter().any(|v| same(v, &value)),
                _ => false,
            };
            assert!(listed, "{key} = {value} is not in data/earlier-defaults.toml: run scripts/earlier-defaults");
        }
    }

    /// A file as an earlier `init` wrote it: every default set, two of them since changed
    /// (the FTS relevance model and `recall.rrf_k`), and one key the user set.
    fn earlier_file() -> (String, toml::Value) {
        let earlier: toml::Table = toml::from_str(EARLIER_DEFAULTS).unwrap();
        let old_model = earlier["recall.calibration.fts"].as_array().unwrap()[1].clone();
        let mut text = uncommented(TEMPLATE);
        let start = text.find("[recall.calibration.fts]").unwrap();
        let end = start + text[start..].find("\n\n").unwrap();
        let mut block = String::from("[recall.calibration.fts]\n");
        for (k, v) in old_model.as_table().unwrap() {
            block.push_str(&format!("{k} = {v}\n"));
        }
        text.replace_range(start..end + 1, &block);
        let text = text
            .replace("rrf_k = 20.0", "rrf_k = 60.0")
            .replace("\ndepth = 50 ", "\ndepth = 80 ");
        (text, old_model)
    }

    #[test]
    fn settings_that_hold_an_earlier_default_are_named_and_commented_out() {
        let (text, old_model) = earlier_file();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CONFIG_FILE);
        std::fs::write(&path, &text).unwrap();
        let before = load(Some(&path)).unwrap();
        assert_eq!(before.recall.depth, 80);
        assert_eq!(before.recall.rrf_k, 60.0);
        assert_eq!(
            toml::Value::try_from(&before.recall.calibration.fts).unwrap(),
            old_model
        );
        let stale = vec![
            "recall.calibration.fts".to_string(),
            "recall.rrf_k".to_string(),
        ];
        assert_eq!(stale_defaults(&path).unwrap(), stale);

        assert_eq!(upgrade(&path).unwrap(), stale);
        let after = load(Some(&path)).unwrap();
        let mut expected = Config::default();
        expected.recall.depth = 80;
        assert_eq!(after, expected);
        let upgraded = std::fs::read_to_string(&path).unwrap();
        assert!(upgraded.starts_with(UPGRADED), "{upgraded}");
        assert!(
            upgraded.contains("\n#[recall.calibration.fts]\n#"),
            "{upgraded}"
        );
        assert!(upgraded.contains("\n#rrf_k = 60.0"));
        // Nothing left to do, and the file stays as it is.
        assert_eq!(stale_defaults(&path).unwrap(), Vec::<String>::new());
        assert_eq!(upgrade(&path).unwrap(), Vec::<String>::new());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), upgraded);
    }

    #[test]
    fn a_default_of_today_or_a_value_never_shipped_is_not_stale() {
        let table = toml::from_str("[recall]\nrrf_k = 20\nmin_relevance = 0.03\n").unwrap();
        assert_eq!(stale_in(&table), Vec::<String>::new());
        let table = toml::from_str("[recall]\nrrf_k = 60\n").unwrap();
        assert_eq!(stale_in(&table), ["recall.rrf_k"]);
    }

    #[test]
    fn a_file_not_written_one_key_per_line_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CONFIG_FILE);
        let text = "recall = { rrf_k = 60.0, depth = 80 }\n";
        std::fs::write(&path, text).unwrap();
        assert_eq!(stale_defaults(&path).unwrap(), ["recall.rrf_k"]);
        let err = upgrade(&path).unwrap_err().to_string();
        assert!(err.contains("cannot comment out recall.rrf_k"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }
}

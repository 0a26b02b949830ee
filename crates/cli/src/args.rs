//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use oro_mem_core::{Mode, Scoring};
use oro_mem_engine::Registry;
use oro_mem_eval::tune::Metric;

/// `--mode`, parsed as the configuration parses it (case-insensitive, the error lists the
/// modes).
fn parse_mode(s: &str) -> Result<Mode, oro_mem_core::Error> {
    s.parse()
}

/// `--min-relevance`: a probability, 0 to 1.
fn parse_probability(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        Ok(p) => Err(format!("must be from 0 to 1, got {p}")),
        Err(_) => Err(format!("not a number: {s:?}")),
    }
}

/// `--decay-half-life`: a number of days above 0.
fn parse_days(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(d) if d.is_finite() && d > 0.0 => Ok(d),
        Ok(d) => Err(format!("must be a number of days > 0, got {d}")),
        Err(_) => Err(format!("not a number: {s:?}")),
    }
}

/// `--scoring`, parsed as the configuration parses it.
fn parse_scoring(s: &str) -> Result<Scoring, oro_mem_core::Error> {
    s.parse()
}

/// `--fusion` (and eval's `fusion=`): the name of a fuser in the built-in [`Registry`].
pub fn parse_fusion(name: &str) -> Result<String, String> {
    let registry = Registry::default();
    if registry.fuser_names().any(|n| n == name) {
        Ok(name.to_string())
    } else {
        Err(format!(
            "expected one of {}",
            registry.fuser_names().collect::<Vec<_>>().join(", ")
        ))
    }
}

/// Long-term memory for AI agents: remember lessons, recall the few that matter.
#[derive(Debug, Parser)]
#[command(name = "oro-mem", version, about, max_term_width = 100)]
pub struct Cli {
    /// Database file [default: .oro/state.db, found by walking up from the working directory]
    #[arg(long, global = true, env = "ORO_MEM_DB", value_name = "PATH")]
    pub db: Option<PathBuf>,

    /// Configuration file [default: config.toml beside the database]
    #[arg(long, global = true, env = "ORO_MEM_CONFIG", value_name = "PATH")]
    pub config: Option<PathBuf>,

    /// Make the store if there is none (as `oro-mem init` does); without it only init makes
    /// a store, so a mistyped --db is an error rather than a new, empty store
    #[arg(long, global = true)]
    pub create: bool,

    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The variables that stand for an option ([`Cli::db`], [`Cli::config`]).
    const ENV: [(&'static str, &'static str); 2] =
        [("db", "ORO_MEM_DB"), ("config", "ORO_MEM_CONFIG")];

    /// [`Parser::parse`], with a variable set to the empty string (`ORO_MEM_DB=`) taken as
    /// unset, as most tools take it, rather than as an option without a value.
    pub fn parse_with_empty_env_unset() -> Cli {
        let mut command = Cli::command();
        for (id, var) in Cli::ENV {
            if std::env::var_os(var).is_some_and(|v| v.is_empty()) {
                command = command.mut_arg(id, |a| a.env(None::<&str>));
            }
        }
        let parsed = command
            .try_get_matches()
            .and_then(|mut matches| Cli::from_arg_matches_mut(&mut matches));
        parsed.unwrap_or_else(|e| {
            if is_hook_call() && e.use_stderr() {
                // Exit status 2 from a hook blocks the user's prompt (Claude Code's
                // `UserPromptSubmit`): a hook call that cannot even be read fails as any other
                // error of `inject --hook` does, with one line on stderr and status 1.
                let message = e.to_string();
                let first = message.lines().next().unwrap_or("invalid arguments");
                errln!("{}", first.trim());
                std::process::exit(1);
            }
            e.exit()
        })
    }
}

/// True when the command line is `oro-mem ... inject ... --hook ...`: a call from an agent's
/// hook, which must never exit with status 2.
fn is_hook_call() -> bool {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let inject = args.iter().position(|a| a == "inject");
    inject.is_some_and(|i| {
        args[i + 1..]
            .iter()
            .any(|a| a == "--hook" || a.to_string_lossy().starts_with("--hook="))
    })
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create .oro/ here with a database, a commented config.toml and a .gitignore
    Init(InitArgs),
    /// Store a memory (validated, checked for duplicates)
    Remember(RememberArgs),
    /// Recall the memories most relevant to a task or question
    Recall(RecallArgs),
    /// Print the "## Relevant Memories" prompt section for a task (nothing when none passes)
    Inject(InjectArgs),
    /// List, show, forget, pin or consolidate memories (bare: list)
    Memories(MemoriesArgs),
    /// Import memories from a JSONL file (one JSON object per line)
    Import(ImportArgs),
    /// Export memories as JSONL
    Export(ExportArgs),
    /// Merge near-duplicates, supersede older states of a fact, archive stale low-confidence
    /// memories
    Consolidate(ConsolidateArgs),
    /// Embed memories that lack an embedding from the current model (resumable)
    Embed(EmbedArgs),
    /// Show counts and sizes
    Stats(JsonFlag),
    /// Print the shell completion script for SHELL (bash, zsh, fish, powershell or elvish)
    Completions {
        /// The shell
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), for `man`
    Man,
    /// Measure retrieval quality on a benchmark in BEIR layout (nDCG@10, Recall@k, MRR@10)
    Eval(EvalArgs),
    /// Store the memories an agent marked in its output (`[MEMORY]` lines, or "Note:" phrases)
    Extract(ExtractArgs),
    /// Follow agents' session logs (Claude Code JSONL transcripts, plain-text logs) and store
    /// what each completed session marked, as `extract` does, once
    Watch(WatchArgs),
    /// Copy into this store the memories of another (a worker's) that it lacks
    Merge(MergeArgs),
    /// Serve the store to agents over the Model Context Protocol (stdio)
    Mcp,
    /// Keep the store and the model loaded, and answer `recall`, `inject`, `remember`,
    /// `extract` and `memories` for them on a socket beside the database (they use it when it
    /// runs, and answer alone when not)
    Serve(ServeArgs),
    /// Print the effective configuration (file + defaults) as TOML
    Config(ConfigArgs),
}

#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// Comment out the settings of the configuration file that hold what an earlier `oro-mem
    /// init` wrote as the default and no longer is, so that today's defaults apply (`oro-mem
    /// config` names them)
    #[arg(long)]
    pub upgrade: bool,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Started by a command that found no server (its standard error is the side file
    /// `serve.log`, emptied at start): ends quietly when another server has the store, and
    /// stops when a client of another build asks (it would decline all of them)
    #[arg(long, hide = true)]
    pub auto: bool,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Create the user-level store instead ($XDG_DATA_HOME/oro-mem, else
    /// ~/.local/share/oro-mem), used wherever no project .oro/ is found
    #[arg(long)]
    pub global: bool,
    /// Make a store here even inside a project that has one (found walking up), which it
    /// would hide for everything below this directory
    #[arg(long)]
    pub nested: bool,
}

#[derive(Debug, Args)]
pub struct JsonFlag {
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RememberArgs {
    /// The memory's text; `-` reads it from standard input (text may start with `-`)
    #[arg(allow_hyphen_values = true)]
    pub content: String,
    /// lesson, decision, gotcha, pattern, preference or fact
    #[arg(long = "type", short = 't', default_value = "lesson")]
    pub memory_type: String,
    /// Comma-separated tags
    #[arg(long, visible_alias = "tag", value_delimiter = ',')]
    pub tags: Vec<String>,
    /// How much to trust it, 0..1
    #[arg(
        long,
        allow_negative_numbers = true,
        default_value_t = oro_mem_core::memory::DEFAULT_CONFIDENCE
    )]
    pub confidence: f64,
    /// Namespace
    #[arg(long, default_value = oro_mem_core::memory::DEFAULT_NAMESPACE)]
    pub namespace: String,
    /// self_report, daemon_extracted, manual or import
    #[arg(long, default_value = "manual")]
    pub source: String,
    /// The work item it was learned on
    #[arg(long)]
    pub bead_id: Option<String>,
    /// The worker that learned it
    #[arg(long)]
    pub worker_id: Option<String>,
    /// The session it was written in (a conversation, an agent's run): recall lets memories
    /// of one session lend each other context, and `--session` lists them in time order
    #[arg(long)]
    pub session: Option<String>,
    /// A short summary (one line), searched beside the text
    #[arg(long)]
    pub summary: Option<String>,
    /// The files it is about (comma-separated paths): a task that names one finds it
    #[arg(long, value_delimiter = ',', value_name = "PATHS")]
    pub files: Vec<String>,
    /// The entities it is about (comma-separated symbols, services, tools)
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub entities: Vec<String>,
    /// Metadata as a JSON object
    #[arg(long, value_name = "JSON")]
    pub metadata: Option<String>,
    /// Pin it: pinned memories never decay
    #[arg(long)]
    pub pin: bool,
    /// Store even if it duplicates an existing memory
    #[arg(long)]
    pub no_dedup: bool,
    /// Store it beside an older memory it would update (the same statement with values
    /// changed), rather than superseding that one
    #[arg(long, conflicts_with = "supersedes")]
    pub no_supersede: bool,
    /// Store it as the newer version of these memories (ids, comma-separated or repeated):
    /// they are kept, marked superseded by it, and no longer recalled (`memories restore`
    /// undoes it). No duplicate check: it may repeat most of their words
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    pub supersedes: Vec<i64>,
    /// Exit with status 3 when the memory is not stored because it duplicates one (skipped,
    /// or merged into it); stored as a newer version is stored
    #[arg(long)]
    pub strict: bool,
    /// Print the outcome as JSON
    #[arg(long)]
    pub json: bool,
}

/// Filters shared by recall, list and export.
#[derive(Debug, Args, Default)]
pub struct FilterArgs {
    /// Only these types (comma-separated)
    #[arg(long = "type", short = 't', value_delimiter = ',')]
    pub types: Vec<String>,
    /// Memories with any of these tags (comma-separated)
    #[arg(long, visible_alias = "tag", value_delimiter = ',')]
    pub tags: Vec<String>,
    /// Memories with all of these tags (comma-separated)
    #[arg(long, value_delimiter = ',')]
    pub all_tags: Vec<String>,
    /// Only this namespace
    #[arg(long)]
    pub namespace: Option<String>,
    /// Only this session's memories
    #[arg(long)]
    pub session: Option<String>,
    /// Only memories learned on this work item
    #[arg(long)]
    pub bead_id: Option<String>,
    /// Only memories learned by this worker
    #[arg(long)]
    pub worker_id: Option<String>,
    /// Only memories with at least this confidence, 0..1 [recall and inject: default from
    /// config, 0.3]
    #[arg(long, value_name = "C", allow_negative_numbers = true)]
    pub min_confidence: Option<f64>,
    /// Only memories from these sources (comma-separated)
    #[arg(long, value_delimiter = ',')]
    pub source: Vec<String>,
    /// Only memories of these statuses (comma-separated): active (default), archived, merged,
    /// superseded, or all
    #[arg(long, value_delimiter = ',')]
    pub status: Vec<String>,
    /// Also the superseded memories: older versions of facts that changed (see `remember
    /// --supersedes`)
    #[arg(long)]
    pub include_superseded: bool,
    /// Created at or after: a time (2024-05-01, RFC 3339) or a span back from now (7d, 12h)
    #[arg(long)]
    pub since: Option<String>,
    /// Created before: a time or a span back from now
    #[arg(long)]
    pub until: Option<String>,
    /// Metadata conditions, MongoDB-style: '{"lang": "rust", "priority": {"$gte": 2}}'
    #[arg(long = "where", value_name = "JSON")]
    pub where_json: Option<String>,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// Numbered list with scores
    Text,
    /// A `## Relevant Memories` section to paste into a prompt
    Prompt,
    /// JSON with raw scores
    Json,
}

#[derive(Debug, Args)]
pub struct RecallArgs {
    /// The task description or question; `-` reads it from standard input (text may start
    /// with `-`)
    #[arg(allow_hyphen_values = true)]
    pub query: String,
    /// fts, hybrid or vector [default: from config]
    #[arg(long, value_parser = parse_mode)]
    pub mode: Option<Mode>,
    /// Turn time decay on for this recall (decay.enabled)
    #[arg(long)]
    pub decay: bool,
    /// The decay's half-life in days (decay.half_life_days); turns decay on
    #[arg(long, value_name = "DAYS", value_parser = parse_days, allow_negative_numbers = true)]
    pub decay_half_life: Option<f64>,
    /// At most this many results, 1 to 100 [default: from config, 3]
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new()
        .range(1..=oro_mem_core::config::MAX_RESULTS as u64))]
    pub limit: Option<usize>,
    /// Token budget for recalled content [default: from config, 500]
    #[arg(long)]
    pub budget: Option<usize>,
    /// Drop results whose estimated probability of relevance is below this, 0 to 1; 0 keeps
    /// all [default: from config, 0.02]
    #[arg(
        long,
        value_name = "P",
        value_parser = parse_probability,
        allow_negative_numbers = true
    )]
    pub min_relevance: Option<f64>,
    /// Lexical candidates fetched before ranking [default: from config, 50]
    #[arg(long)]
    pub depth: Option<usize>,
    /// fused or simple [default: from config]
    #[arg(long, value_parser = parse_scoring)]
    pub scoring: Option<Scoring>,
    /// Fuser of the rankers' lists: weighted_score, weighted_max, weighted_z or rrf [default: from config]
    #[arg(long, value_parser = parse_fusion)]
    pub fusion: Option<String>,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Also rank by distance from a point: the numeric array at a metadata path, then the
    /// point's coordinates (spatial.object_position=0.1,0.2,0.3); weight recall.weights.spatial
    #[arg(long, value_name = "PATH=X,Y,Z")]
    pub near: Option<String>,
    /// With --near: leave out memories farther than this from the point (those without
    /// coordinates stay)
    #[arg(
        long,
        value_name = "D",
        requires = "near",
        allow_negative_numbers = true
    )]
    pub max_distance: Option<f64>,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Same as --format json
    #[arg(long)]
    pub json: bool,
    /// Show each ranker's rank and contribution, confidence and decay
    #[arg(long)]
    pub explain: bool,
    /// Measure recency and decay from this time instead of now
    #[arg(long)]
    pub now: Option<String>,
    /// Do not count this recall as an access
    #[arg(long)]
    pub no_touch: bool,
}

/// `memories`: a subcommand, or the options of `memories list` (the design notes' spelling,
/// `memories --tag x`).
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct MemoriesArgs {
    #[command(subcommand)]
    pub command: Option<MemoriesCommand>,
    #[command(flatten)]
    pub list: ListArgs,
}

#[derive(Debug, Subcommand)]
pub enum MemoriesCommand {
    /// List memories, newest first
    List(Box<ListArgs>),
    /// Show one memory in full (counted as a use of it, see --no-touch)
    Show {
        /// Memory id
        id: i64,
        /// Print JSON
        #[arg(long)]
        json: bool,
        /// Do not count this as a use of the memory
        #[arg(long)]
        no_touch: bool,
    },
    /// Delete memories (or archive them with --archive)
    Forget {
        /// Memory ids
        #[arg(required = true)]
        ids: Vec<i64>,
        /// Archive instead of deleting
        #[arg(long)]
        archive: bool,
    },
    /// Make archived or merged memories active again (a merged one stops being merged)
    Restore {
        /// Memory ids
        #[arg(required = true)]
        ids: Vec<i64>,
    },
    /// Pin a memory so it never decays (or unpin it)
    Pin {
        /// Memory id
        id: i64,
        /// Unpin instead
        #[arg(long)]
        unpin: bool,
    },
    /// The same as `oro-mem consolidate`
    Consolidate(ConsolidateArgs),
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Sort {
    Newest,
    Oldest,
    Accessed,
    Confidence,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Order [default: newest; with --session, oldest: the session's episode in time order]
    #[arg(long, value_enum)]
    pub sort: Option<Sort>,
    /// At most this many
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Skip this many first
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// Print JSON lines
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// JSONL file; `-` reads standard input
    pub file: PathBuf,
    /// Memories per transaction
    #[arg(long, default_value_t = 500)]
    pub batch_size: usize,
    /// Store duplicates too
    #[arg(long)]
    pub no_dedup: bool,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Output file [default: standard output]
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Every memory, whatever its status, as `--status all` (default: the --status given, or
    /// active)
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Args)]
pub struct ConsolidateArgs {
    /// Report what would change without writing
    #[arg(long)]
    pub dry_run: bool,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct EmbedArgs {
    /// Memories embedded and committed together
    #[arg(long, default_value_t = 64)]
    pub batch_size: usize,
    /// Also rebuild the full-text and vector indexes from the stored text and embeddings
    #[arg(long)]
    pub rebuild_index: bool,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct InjectArgs {
    /// The task: title and description; `-` reads it from standard input (text may start
    /// with `-`, a Markdown bullet say)
    #[arg(long, allow_hyphen_values = true, required_unless_present = "hook")]
    pub task: Option<String>,
    /// Read the task from an agent's hook on standard input: `claude` takes Claude Code's
    /// UserPromptSubmit (the prompt) and SessionStart (the last user message of the
    /// transcript) JSON; the name in any case
    #[arg(long, value_enum, ignore_case = true, conflicts_with = "task")]
    pub hook: Option<Hook>,
    /// fts, hybrid or vector [default: from config]
    #[arg(long, value_parser = parse_mode)]
    pub mode: Option<Mode>,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Do not count this as an access of the injected memories
    #[arg(long)]
    pub no_touch: bool,
}

/// An agent whose hooks `inject --hook` reads.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Hook {
    /// Claude Code (`UserPromptSubmit`, `SessionStart`)
    Claude,
}

#[derive(Debug, Args)]
#[command(after_help = crate::eval::after_help())]
pub struct EvalArgs {
    /// Benchmark directory: corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv
    #[arg(long, value_name = "DIR", required_unless_present = "updates")]
    pub dataset: Option<PathBuf>,
    /// Instead of a benchmark, replay edits through the write path: JSON lines of pairs
    /// (`id`, `old`, `new`, and `label` when judged: update, duplicate or distinct), each
    /// pair's old statement written into a fresh namespace, then its new one; reports what
    /// the write path decided against the labels (with --mode and --set; --json: each pair)
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = [
            "dataset", "grid", "as_recalled", "queries", "cross_validate", "tune_on",
            "unrelated", "fit_calibration", "skip_category",
        ]
    )]
    pub updates: Option<PathBuf>,
    /// With --updates: write each pair into a store of its own (in memory), as a new user's
    /// store holds only the old statement, instead of a namespace a pair in one store (whose
    /// word statistics the other pairs share)
    #[arg(long, requires = "updates", conflicts_with = "postgres")]
    pub store_per_pair: bool,
    /// Which qrels file to score against
    #[arg(long, default_value = "test")]
    pub split: String,
    /// fts, hybrid or vector [default: from config]
    #[arg(long, value_parser = parse_mode)]
    pub mode: Option<Mode>,
    /// Evaluate every combination: KEY=V1,V2,... (repeatable; keys below)
    #[arg(long, value_name = "KEY=V1,V2")]
    pub grid: Vec<String>,
    /// Change one setting for every run: KEY=VALUE (repeatable; keys below)
    #[arg(long, value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Candidates per list (lexical and vector), ranking only
    #[arg(long, default_value_t = 100, conflicts_with = "as_recalled")]
    pub depth: usize,
    /// Score what recall returns with the configured threshold, count and budget (what
    /// `inject` prints) instead of a ranking of 100; adds results returned, precision, and
    /// the shares of useful and empty answers
    #[arg(long)]
    pub as_recalled: bool,
    /// "Now" for time decay and recency [default: the newest created_at per namespace]
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
    /// Only the first N judged queries (a quick loop while tuning)
    #[arg(long, value_name = "N")]
    pub queries: Option<usize>,
    /// Leave out the queries of this category (metadata.category; repeatable): LoCoMo's 5,
    /// the adversarial questions, to compare with published LoCoMo retrieval results
    #[arg(long, value_name = "CATEGORY")]
    pub skip_category: Vec<String>,
    /// Embedding cache file [default: $XDG_CACHE_HOME/oro-mem/eval-embeddings.sqlite]
    #[arg(long, value_name = "PATH")]
    pub cache: Option<PathBuf>,
    /// Embed the corpus afresh and cache nothing on disk
    #[arg(long, conflicts_with = "cache")]
    pub no_cache: bool,
    /// Build the corpus in a scratch schema of this PostgreSQL database (dropped at the end)
    /// instead of in a SQLite store in memory, to measure the PostgreSQL store
    #[arg(long, value_name = "URL")]
    pub postgres: Option<String>,
    /// Also score each mode out of sample, leaving one conversation out: for each namespace
    /// of the queries, the grid's best setting on the other namespaces, scored on this one
    #[arg(long, conflicts_with = "tune_on")]
    pub cross_validate: bool,
    /// Also score each mode out of sample: the grid's best setting on this split's queries
    /// (say train), scored on --split's (say test); the table shows the tuning split
    #[arg(long, value_name = "SPLIT")]
    pub tune_on: Option<String>,
    /// What --cross-validate and --tune-on choose by: ndcg@10, recall@5, recall@10,
    /// recall@100, mrr@10, precision or useful
    #[arg(long, value_name = "METRIC", default_value = "ndcg@10")]
    pub tune_metric: Metric,
    /// Also ask each setting the judged (test) queries of this other dataset, which the
    /// corpus knows nothing about, over the whole store, and report the share answered with
    /// nothing (as recalled only)
    #[arg(long, value_name = "DIR", requires = "as_recalled")]
    pub unrelated: Option<PathBuf>,
    /// Fit each setting's relevance model (recall.calibration) on the judged queries'
    /// best candidates and score it as recalled on queries it was not fitted on: each
    /// namespace left out in turn with --cross-validate, --split with --tune-on SPLIT; prints
    /// the model fitted on everything, for the configuration file
    #[arg(long, requires = "as_recalled")]
    pub fit_calibration: bool,
    /// With --fit-calibration: also fit on these examples (written by --features from another
    /// dataset; repeatable)
    #[arg(long, value_name = "FILE", requires = "fit_calibration")]
    pub fit_also: Vec<PathBuf>,
    /// With --fit-calibration: also fit on candidates of queries the store knows nothing
    /// about, all irrelevant: this other dataset's queries (of its train split when it has
    /// one), asked over the whole store. A fold that leaves a namespace out leaves out that
    /// namespace's questions too, and so does --unrelated's check of them
    #[arg(long, value_name = "DIR", requires = "fit_calibration")]
    pub fit_unrelated: Option<PathBuf>,
    /// With --fit-calibration: leave this feature out of the model (repeatable)
    #[arg(long, value_name = "FEATURE", requires = "fit_calibration")]
    pub fit_without: Vec<String>,
    /// With --fit-calibration: let the relevance model read this feature of the query too
    /// (it leaves the query's features to the answerable model otherwise), as `memories`:
    /// the number of memories searched is also how likely any one of them is relevant
    /// (repeatable)
    #[arg(long, value_name = "FEATURE", requires = "fit_calibration")]
    pub fit_relevance_with: Vec<String>,
    /// With --fit-calibration: write the examples fitted on (JSON lines) to FILE
    #[arg(long, value_name = "FILE", requires = "fit_calibration")]
    pub features: Option<PathBuf>,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// The agent's output; `-` (the default) reads standard input
    #[arg(default_value = "-")]
    pub file: PathBuf,
    /// Show what would be stored; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Store nothing if any `[MEMORY]` line is malformed (exit status 1)
    #[arg(long)]
    pub strict: bool,
    /// Namespace of the stored memories
    #[arg(long, default_value = oro_mem_core::memory::DEFAULT_NAMESPACE)]
    pub namespace: String,
    /// Tags added to every stored memory (comma-separated)
    #[arg(long, visible_alias = "tag", value_delimiter = ',')]
    pub tags: Vec<String>,
    /// The work item the output belongs to
    #[arg(long)]
    pub bead_id: Option<String>,
    /// The worker that wrote it
    #[arg(long)]
    pub worker_id: Option<String>,
    /// The session the output belongs to
    #[arg(long)]
    pub session: Option<String>,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Directories of session logs, searched recursively: *.jsonl transcripts (Claude Code's
    /// ~/.claude/projects) and *.log / *.txt plain-text logs
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// A session is complete once its log has not changed for this many seconds
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub idle: u64,
    /// Read the sessions complete now, then exit (for cron, or a first run)
    #[arg(long)]
    pub once: bool,
    /// Namespace of the stored memories
    #[arg(long, default_value = oro_mem_core::memory::DEFAULT_NAMESPACE)]
    pub namespace: String,
    /// Tags added to every stored memory (comma-separated)
    #[arg(long, visible_alias = "tag", value_delimiter = ',')]
    pub tags: Vec<String>,
    /// The worker whose sessions these are
    #[arg(long)]
    pub worker_id: Option<String>,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The other oro-mem database (any schema version; it is only read)
    pub other: PathBuf,
    /// Show what would be copied; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}
